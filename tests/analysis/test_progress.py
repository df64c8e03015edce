"""Progress over the whole run: one share that only moves forward, whatever stage plays; simulated agents on a
simulated clock (the ETA and the share come from the work left, never from a timed test)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from core.analysis.config import AnalysisProgress
from core.analysis.run import analyze
from tests.analysis.simulated import SimulatedGames
from tests.analysis.test_work_budget import COST, board, config, few_fair


@pytest.mark.parametrize("race", [1, 6])
def test_the_share_of_the_run_only_moves_forward_over_every_stage(monkeypatch: pytest.MonkeyPatch,
                                                                  race: int) -> None:
    b = board()
    sim = SimulatedGames(b, few_fair(b).__getitem__, COST).install(monkeypatch)
    seen: list[AnalysisProgress] = []
    analyze(b, config(race=race, check_agent="mcts:200"), progress=seen.append, clock=sim.clock)
    phases = [p.phase for p in seen]
    assert {"start", "screen", "raw", "mirror", "pie", "done"} <= set(phases)
    shares = [p.overall for p in seen]
    assert all(a <= b for a, b in pairwise(shares)), shares  # never backwards
    assert shares[-1] == 1.0 and max(shares[:-1]) < 1.0
    # the stage counters restart with each stage (done/total); the share of the run goes on from where it was
    restarts = [i for i in range(1, len(seen)) if seen[i].done < seen[i - 1].done]
    assert restarts and all(seen[i].overall >= seen[i - 1].overall for i in restarts)
    middle = [p.overall for p in seen if p.phase in ("raw", "mirror", "pie")]
    assert middle[-1] > middle[0]  # it moves, not only at the end
