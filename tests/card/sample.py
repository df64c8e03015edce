"""A card's JSON as ``measure_card`` writes it, with figures made up for a given board (for the renders)."""

from __future__ import annotations

from typing import Any

from core.board.model import Board
from core.engine.pieces import placement_table


def sample_card(board: Board, name: str = "sample") -> dict[str, Any]:
    table = placement_table(board.size)
    drawn = []
    for k, p in enumerate((0, table.count // 2, table.count - 1)):
        cells = [int(c) for c in table.cells[p]]
        names = [f"{chr(65 + c % board.size)}{c // board.size + 1}" for c in cells]
        drawn.append({"cells": names, "cell_indices": cells, "status": "fair", "s1_rate": 0.47 + 0.03 * k,
                      "games": 90 + k})
    rates = {level: {"s1_rate": r, "ci95": [r - 0.1, r + 0.1], "games": 100, "s1_wins": int(100 * r)}
             for level, r in (("greedy", 0.71), ("casual", 0.62), ("club", 0.52))}
    return {
        "kind": "lits board card", "schema": 1,
        "board": {"name": name, "file": f"{name}.yaml", "size": board.size, "fingerprint": "0123456789abcdef",
                  "pie": True, "first": "O"},
        "measured_at": {"effort": "standard", "seed": 1, "skill": "club against casual", "skill_pairs": 100,
                        "level_games": 100, "levels": ["greedy", "casual", "club"], "strong_spec": "puct:2000",
                        "weak_spec": "puct:100", "version": "0.1.0", "commit": "abc1234", "workers": 2},
        "verdict": {"verdict": "balanced", "agent": "puct:2000", "strength": "club", "judges": ["mcts:8000"],
                    "fair": 3, "tested": 14, "drawn": drawn, "reasons": []},
        "skill": {"strong": "club", "weak": "casual", "pairs": 100, "games": 200, "strong_wins": 173,
                  "score": 0.865, "ci95": [0.8106, 0.9056], "weak_wins": 27, "upset_one_in": 7.4,
                  "upset_one_in_ci95": [5.3, 10.6], "elo": 322.1, "swaps": 31, "strong_opening_wins": 85,
                  "strong_answering_wins": 88},
        "fairness": {"levels": ["greedy", "casual", "club"],
                     "openings": [{"cells": d["cells"], "status": "fair", "rates": rates} for d in drawn],
                     "mean_s1_rate": {"greedy": 0.71, "casual": 0.62, "club": 0.52}, "gap": 0.21, "drawn": "fair"},
        "game": {"agent": "puct:2000", "games": 160, "placements_per_game": 23.46, "legal_per_turn": 141.3,
                 "tie_rule_share": 0.0813, "margin": 2.64, "runout": {"L": 0.95, "I": 0.4125, "T": 0.7, "S": 0.2},
                 "first_mover": {"s1_rate": 0.6312, "ci95": [0.5539, 0.7025], "games": 160}},
        "reference": {"boards": 10, "made_by": "python tests/benchmarks/bench_card.py OUT --seed=1",
                      "effort": "standard", "seed": 1, "commit": "abc1234",
                      "figures": {"skill": {"value": 0.865, "below": 8, "above": 2, "boards": 10,
                                            "range": [0.7, 0.95]},
                                  "tie_rule": {"value": 0.0813, "below": 1, "above": 9, "boards": 10,
                                               "range": [0.05, 0.3]}}},
        "elapsed_s": 80.0,
    }
