"""The skill figure: pairs of games between a stronger and a weaker level, seats swapped, the pie rule played as
each level plays it.

A game with the pie rule is the opener's first placement, the other player's swap decision on it (its level's own
rule, ``Agent.wants_swap``), and then the self-play game of ``core.selfplay.game.play_task`` from that forced
opening with the players in the seats the decision gave them: a swapper owns the opening and plays the first
symbol from the third placement on.  So no second game loop: the game is the analysis's own.

Pair ``i`` of a card seeded ``S`` has the seed ``derive_seed(S, CARD_KEY, i)``; its two games (the stronger
level opening, then the weaker) seed from it, and results are read in index order, so the figure is the same on
any number of workers.  The parent imports no engine: the worker entry loads it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from core.board.model import Board
from core.card.config import CARD_KEY
from core.selfplay.runner import Runner, resolve_workers
from core.selfplay.tasks import BoardSpec, derive_seed


@dataclass(frozen=True)
class SkillTask:
    """One pair: the stronger and the weaker level's specs, the board, the pair's seed, whether the pie is played."""

    board: BoardSpec
    seed: int
    strong: str
    weak: str
    pie: bool


@dataclass(frozen=True)
class SkillGame:
    """One game of a pair: who opened, whether the other swapped, who won and how."""

    strong_opened: bool
    swapped: bool
    strong_won: bool


def play_skill_game(spec: BoardSpec, opener: str, other: str, seed: int, pie: bool) -> tuple[bool, bool]:
    """One game; returns (the opener won, the other player swapped)."""
    from core.agents.agent import make_agent
    from core.engine.kernels import k_apply, k_new_state, kernel_tables
    from core.selfplay.game import play_task, spec_board
    from core.selfplay.tasks import GameTask

    board = spec_board(spec)
    if not pie:
        r = play_task(GameTask(spec, seed, opener, other))
        return r.s1_won, False
    kt = kernel_tables(board)
    state = k_new_state(kt)
    first = make_agent(opener, board, derive_seed(seed, 1)).choose(state)
    if first < 0:  # nothing can be placed: the tie rule decides, as play_task says
        r = play_task(GameTask(spec, seed, opener, other))
        return r.s1_won, False
    after = state.copy()
    k_apply(kt, after, first)
    swapped = make_agent(other, board, derive_seed(seed, 2)).wants_swap(after, first)
    s1, s2 = (other, opener) if swapped else (opener, other)
    r = play_task(GameTask(spec, seed, s1, s2, opening=first))
    return r.s1_won != swapped, swapped


def _game(task: SkillTask, strong_opens: bool) -> SkillGame:
    seed = derive_seed(task.seed, 1 if strong_opens else 2)
    opener, other = (task.strong, task.weak) if strong_opens else (task.weak, task.strong)
    opener_won, swapped = play_skill_game(task.board, opener, other, seed, task.pie)
    return SkillGame(strong_opens, swapped, opener_won == strong_opens)


def play_skill_pair(task: SkillTask) -> tuple[SkillGame, SkillGame]:
    """Worker entry: both games of a pair, the stronger level opening first."""
    return _game(task, True), _game(task, False)


def skill_tasks(board: Board, strong: str, weak: str, pairs: int, seed: int) -> list[SkillTask]:
    spec = BoardSpec.from_board(board)
    return [SkillTask(spec, derive_seed(seed, CARD_KEY, i), strong, weak, board.params.pie) for i in range(pairs)]


def run_skill(board: Board, strong: str, weak: str, pairs: int, seed: int, workers: int = 0, inline: bool = False,
              on_pair: Callable[[int, tuple[SkillGame, SkillGame]], bool] | None = None,
              cancel: threading.Event | None = None) -> list[tuple[SkillGame, SkillGame]]:
    """Every pair, in index order (raises ``RunCancelled`` when ``cancel`` is set; the workers are stopped)."""
    tasks = skill_tasks(board, strong, weak, pairs, seed)
    runner = Runner(workers=1 if inline else max(1, min(resolve_workers(workers), pairs)), inline=inline)
    try:
        runner.start(cancel)
        return runner.run(play_skill_pair, tasks, on_pair, cancel)
    finally:
        runner.terminate()
