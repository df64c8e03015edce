"""The learned opening predictor: training data from the deciding agent's own games, training and held-out figures.

Above ``core.selfplay`` (it plays games) and beside ``core.analysis``; the model's compiled evaluation lives in
``core.agents.value`` so that the searches and the analysis can use it too.
"""
