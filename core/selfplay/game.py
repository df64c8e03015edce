"""One self-play game on the compiled kernels, summarised at seat level.

This module loads numba; worker processes import it through ``core.selfplay.worker`` so
that the parent, which only plans games and reads results, does not.
"""

from __future__ import annotations

import functools

import numpy as np
import numpy.typing as npt

from core.agents.agent import Agent
from core.agents.puct import PuctSearch, root_share
from core.agents.search import gain_for, k_screen, mirror_table
from core.agents.spec import PuctBudget, parse_agent
from core.board.model import PIECE_TYPES, Board
from core.engine.kernels import (
    H_SUPPLY,
    k_apply,
    k_is_legal,
    k_legal_count,
    k_new_state,
    k_score,
    k_seed,
    k_winner,
    kernel_tables,
)
from core.engine.pieces import placement_table
from core.selfplay.tasks import BoardSpec, GameResult, GameTask


@functools.lru_cache(maxsize=16)
def spec_board(spec: BoardSpec) -> Board:
    """The board a task describes (cached: a worker plays many games on one board)."""
    return spec.to_board()


def play_task(task: GameTask) -> GameResult:
    """Play one game of a task and summarise it at seat level."""
    board = spec_board(task.board)
    kt = kernel_tables(board)
    gain = gain_for(kt)
    rng = k_seed(task.seed)
    # both seats draw from the one game stream, so the game depends only on the task
    agents = [Agent(parse_agent(task.s1), kt, gain, rng), Agent(parse_agent(task.s2), kt, gain, rng)]
    mirror = mirror_table(board.size) if task.mirror else None
    s = k_new_state(kt)
    first = kt.first
    moves: list[int] = []
    legal_sum = 0
    legal_turns = 0
    swapped = False
    mirror_moves = 0
    s2_moves = 0
    owner = np.zeros(kt.nplace, dtype=np.int8)
    values: list[float] = []
    while True:
        n_legal = int(k_legal_count(kt, s))
        if n_legal == 0:
            break
        legal_sum += n_legal
        legal_turns += 1
        seat = len(moves) % 2  # 0 = S1, 1 = S2
        agent = agents[seat]
        if len(moves) == 0 and task.opening >= 0:
            if not k_is_legal(kt, s, task.opening):
                raise ValueError(f"opening placement {task.opening} is not legal on this board")
            p = task.opening
        elif seat == 1 and mirror is not None and moves and k_is_legal(kt, s, int(mirror[moves[-1]])):
            p = int(mirror[moves[-1]])
            mirror_moves += 1
        else:
            p = agent.choose(s)
            if len(moves) == 1 and task.pie:
                swapped = agent.wants_swap(s, moves[0], searched=True)
            if task.values:
                v = agent.last_value
                values.append(v if seat == 0 else 1.0 - v)
        if task.values and len(values) < len(moves) + 1:
            values.append(float("nan"))
        if seat == 1:
            s2_moves += 1
        owner[p] = seat + 1
        k_apply(kt, s, p)
        moves.append(p)
    o, x = k_score(kt, s)
    s1_score, s2_score = (o, x) if first == 0 else (x, o)
    winner_sym = int(k_winner(kt, s))
    winner = 1 if winner_sym == first else 2
    cov = np.zeros(kt.size * kt.size, dtype=np.uint8)
    cells = placement_table(board.size).cells
    for p in moves:
        cov[cells[p]] = owner[p]
    runout = tuple(int(s[H_SUPPLY + t] == 0) for t in range(len(PIECE_TYPES)))
    return GameResult(
        s1_score=int(s1_score), s2_score=int(s2_score), winner=winner, tie_break=s1_score == s2_score,
        length=len(moves), legal_sum=legal_sum, legal_turns=legal_turns, runout=runout, coverage=cov.tobytes(),
        moves=tuple(moves), swapped=swapped, mirror_moves=mirror_moves,
        mirror_all=mirror is not None and s2_moves > 0 and mirror_moves == s2_moves, values=tuple(values),
    )


def screen(spec: BoardSpec, openings: tuple[int, ...], sims: int, seed: int) -> npt.NDArray[np.float64]:
    """Cheap S1 win share after each listed opening (-1 for an illegal one), from a short search each."""
    board = spec_board(spec)
    kt = kernel_tables(board)
    out = np.zeros(len(openings), dtype=np.float64)
    k_screen(kt, gain_for(kt), np.array(openings, dtype=np.int32), sims, seed, out)
    return out


def refine(spec: BoardSpec, openings: tuple[tuple[int, int], ...], sims: int) -> npt.NDArray[np.float64]:
    """S1's share after each ``(opening, seed)`` from a guided search (``puct``, ``sims`` simulations) of the
    position after it: a deeper look than :func:`screen` for the few openings the candidate picker is about to
    choose among.  Each value depends only on its own seed, so how the openings are batched changes nothing."""
    board = spec_board(spec)
    kt = kernel_tables(board)
    gain = gain_for(kt)
    start = k_new_state(kt)
    out = np.full(len(openings), -1.0, dtype=np.float64)
    for i, (p, seed) in enumerate(openings):
        if not k_is_legal(kt, start, p):
            continue
        s = start.copy()
        k_apply(kt, s, p)
        search = PuctSearch(kt, gain, k_seed(seed), PuctBudget(sims=sims))
        out[i] = root_share(search.search(s))
    return out
