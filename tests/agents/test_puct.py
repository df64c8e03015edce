"""The puct search: spec forms, legal and reproducible play, tree bookkeeping, budgets in simulations and time."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest

from core.agents.agent import make_agent
from core.agents.levels import LEVELS, resolve
from core.agents.puct import (
    CHUNK_SECONDS,
    F_FIRST,
    F_NVIS,
    F_SIB,
    TIME_TOLERANCE,
    PuctBudget,
    PuctSearch,
    gain_masks,
    parse_puct,
    puct_search,
)
from core.agents.search import MAX_GAIN, gain_for
from core.agents.spec import AgentKind, parse_agent
from core.board.boardfile import load_board
from core.board.model import Board
from core.engine.kernels import k_new_state, k_seed, kernel_tables
from core.engine.rules import GameState, Placement
from core.selfplay.duel import play_duel_game
from tests.paths import BOARDS


def test_parse_puct_forms() -> None:
    assert parse_puct("puct:1000").budget == PuctBudget(sims=1000)
    assert parse_puct("PUCT:t=2s").budget == PuctBudget(seconds=2.0)
    spec = parse_puct("puct:64000:t=1.5:c=2:play=random")
    assert spec.budget == PuctBudget(64000, 1.5)
    assert spec.params == {"c": 2.0, "play": 0.0}
    assert spec.text == "puct:64000:t=1.5:c=2:play=random"
    assert parse_puct(spec.text) == spec


@pytest.mark.parametrize(("text", "words"), [
    ("puct", "simulations or seconds"), ("puct:0", "1..10000000"), ("puct:t=0", "0.001"), ("puct:t=abc", "seconds"),
    ("puct:10:10", "twice"), ("puct:fast", "neither"), ("puct:10:zz=1", "unknown option"), ("puct:10:c=-1", "c must"),
    ("puct:10:play=smart", "playouts"), ("puct:10:solver=0.5", "0 or 1"), ("puct:t=nan", "seconds per move"),
])
def test_parse_puct_errors(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        parse_puct(text)


def test_levels_resolve_to_valid_specs() -> None:
    assert set(LEVELS) == {"casual", "club", "expert"}
    for name, level in LEVELS.items():
        assert parse_agent(name).text == name
        assert parse_agent(resolve(name)).text == level.spec
    expert = parse_puct(LEVELS["expert"].spec).budget
    assert 0 < expert.seconds <= 3.0, "expert thinks a few seconds at most"
    with pytest.raises(ValueError, match="a level: casual, club, expert"):
        parse_agent("grandmaster")


def test_levels_and_puct_play_wherever_an_agent_spec_goes() -> None:
    from core.selfplay.game import play_task
    from core.selfplay.tasks import BoardSpec, GameTask

    assert parse_agent("Expert").text == "expert" and parse_agent("expert").kind is AgentKind.PUCT
    assert parse_agent("puct:300:t=0.5").text == "puct:300:t=0.5"
    assert parse_agent("mcts:1000").strength < parse_agent("puct:10").strength < parse_agent("puct:t=1").strength
    board = Board.random(size=8, pairs=12, seed=11)
    spec = BoardSpec.from_board(board)
    for s1, s2 in (("casual", "puct:40"), ("puct:40", "greedy")):
        res = play_task(GameTask(spec, 3, s1, s2, pie=True))
        state = GameState(board)
        for p in res.moves:
            state.push(Placement.from_index(p, board.size))
        assert state.is_over()


def test_gain_masks_partition_the_placements() -> None:
    board = Board.random(size=8, pairs=12, seed=4)
    kt = kernel_tables(board)
    gain = gain_for(kt)
    masks = gain_masks(kt, gain)
    for sym in range(2):
        seen = np.zeros(kt.nplace, dtype=bool)
        for g in range(2 * MAX_GAIN + 1):
            for p in range(kt.nplace):
                if int(masks[sym, g, p >> 6]) >> (p & 63) & 1:
                    assert not seen[p]
                    assert gain[sym, p] == MAX_GAIN - g
                    seen[p] = True
        assert seen.all()
    # padded with zero words to whole vector registers
    assert masks.shape[2] % 8 == 0 and masks.shape[2] >= kt.npw
    assert not masks[:, :, kt.npw:].any()


@pytest.mark.parametrize("spec", ["puct:80", "puct:60:play=random", "puct:60:solver=0:tau=0", "puct:60:reuse=1",
                                  "puct:80:stop=0.5:bank=1", "puct:80:t=5:stop=1:bank=2"])
def test_every_move_is_legal_and_the_game_ends(spec: str) -> None:
    board = Board.random(size=8, pairs=12, seed=11)
    for seed in range(3):
        state = GameState(board)
        players = [make_agent(spec, board, seed), make_agent("greedy", board, seed + 1)]
        while True:
            p = players[len(state.placements) % 2].choose(state.kernel_state())
            if p < 0:
                break
            placement = Placement.from_index(p, board.size)
            assert state.why_illegal(placement) is None
            state.push(placement)
        assert state.is_over()


def test_games_are_a_function_of_their_seeds() -> None:
    board = Board.random(size=8, pairs=12, seed=3)
    a = play_duel_game(board, "puct:100", "mcts:100", 5, 6)[0]
    b = play_duel_game(board, "puct:100", "mcts:100", 5, 6)[0]
    assert a == b
    runs = {play_duel_game(board, "puct:100", "puct:100", s, s + 1)[0] for s in range(6)}
    assert len(runs) > 1


def _children_visits(ti: np.ndarray, node: int) -> int:
    total = 0
    c = int(ti[node, F_FIRST])
    while c >= 0:
        total += int(ti[c, F_NVIS])
        c = int(ti[c, F_SIB])
    return total


def test_tree_bookkeeping() -> None:
    board = load_board(BOARDS / "default.yaml")
    kt = kernel_tables(board)
    search = PuctSearch(kt, gain_for(kt), k_seed(1), PuctBudget(sims=3000))
    tree = search.search(k_new_state(kt))
    assert tree.root_visits == 3000 == search.last_sims
    assert tree.nnodes <= 3001  # one node per simulation at most
    # every simulation passes through exactly one root child; interior nodes likewise (leaves stop)
    assert _children_visits(tree.ti, 0) == 3000
    for node in range(1, tree.nnodes):
        kids = _children_visits(tree.ti, node)
        assert kids <= int(tree.ti[node, F_NVIS]) - 1 or kids == 0


def test_tree_reuse_keeps_the_subtree_after_our_move_and_the_reply() -> None:
    board = load_board(BOARDS / "default.yaml")
    kt = kernel_tables(board)
    state = GameState(board)
    for seed in (1, 2):  # two greedy placements to start from
        state.push(Placement.from_index(make_agent("greedy", board, seed).choose(state.kernel_state()), board.size))
    me = PuctSearch(kt, gain_for(kt), k_seed(3), PuctBudget(sims=4000), params={"reuse": 1.0})
    fresh = PuctSearch(kt, gain_for(kt), k_seed(3), PuctBudget(sims=4000))
    mine = me.choose(state.kernel_state())
    state.push(Placement.from_index(mine, board.size))
    # the reply the search itself expected most: its subtree holds many visits
    reply = make_agent("puct:4000", board, 5).choose(state.kernel_state())
    state.push(Placement.from_index(reply, board.size))
    me.choose(state.kernel_state())
    fresh.choose(state.kernel_state())
    assert fresh.last_sims == 4000
    assert me.last_sims > 4000  # the kept subtree's visits plus 4000 new ones
    # a position the tree does not lead to starts afresh
    other = GameState(board)
    other.push(Placement.parse("A1 B1 C1 D1", board.size))
    me.choose(other.kernel_state())
    assert me.last_sims == 4000


class FakeMachine:
    """A clock that moves only when the search runs: ``rate`` simulations per second, plus ``lag`` per reading."""

    def __init__(self, rate: float, lag: float = 0.0) -> None:
        self.now = 100.0
        self.rate = rate
        self.lag = lag

    def __call__(self) -> float:
        self.now += self.lag
        return self.now

    def kernel(self, real: Any) -> Any:
        def run(*args: Any) -> int:
            before = int(args[5][0, F_NVIS])
            nnodes = int(real(*args))
            self.now += (int(args[5][0, F_NVIS]) - before) / self.rate
            return nnodes
        return run


def test_time_budget_logic_with_a_fake_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    import core.agents.puct as puct

    board = load_board(BOARDS / "default.yaml")
    kt = kernel_tables(board)
    start_state = k_new_state(kt)
    real = puct.k_puct_run
    for rate, seconds in ((20_000.0, 0.05), (20_000.0, 0.3), (200_000.0, 0.1)):
        machine = FakeMachine(rate, lag=1e-5)
        monkeypatch.setattr(puct, "k_puct_run", machine.kernel(real))
        search = PuctSearch(kt, gain_for(kt), k_seed(1), PuctBudget(seconds=seconds), clock=machine)
        begin = machine()
        search.search(start_state, begin)
        used = machine.now - begin
        # it thinks for the budget and overruns by at most one chunk (CHUNK_SECONDS at the measured rate)
        assert seconds <= used <= seconds + CHUNK_SECONDS + 0.001
        assert used <= seconds + TIME_TOLERANCE
        assert search.last_sims == pytest.approx(rate * used, rel=0.01, abs=2)
    # with both budgets the simulation count ends the search when it comes first
    machine = FakeMachine(1e6)
    monkeypatch.setattr(puct, "k_puct_run", machine.kernel(real))
    search = PuctSearch(kt, gain_for(kt), k_seed(1), PuctBudget(sims=500, seconds=1000.0), clock=machine)
    search.search(start_state)
    assert search.last_sims == 500


def test_time_budget_on_the_real_clock_generous_bound() -> None:
    board = load_board(BOARDS / "default.yaml")
    kt = kernel_tables(board)
    player = make_agent("puct:t=0.3", board, 2)
    state = k_new_state(kt)
    player.choose(state)  # loads the kernels
    t0 = time.perf_counter()
    move = player.choose(state)
    elapsed = time.perf_counter() - t0
    assert move >= 0
    # the search overruns by at most one chunk (TIME_TOLERANCE); a shared test machine gets a full second
    assert TIME_TOLERANCE <= 0.1
    assert 0.3 <= elapsed <= 0.3 + 1.0


def test_level_of_reads_a_level_by_name_or_by_the_spec_it_stands_for() -> None:
    from core.agents.levels import level_of

    for level in LEVELS.values():
        assert level_of(level.name) is level and level_of(f" {level.spec.upper()} ") is level
    assert level_of("puct:2001") is None and level_of("mcts:1000") is None


def test_a_time_cap_the_search_never_reaches_changes_no_move() -> None:
    """Why an analysis may play ``expert`` as ``puct:16000``: the chunked search of a simulation budget with a time
    cap builds the same tree as the plain one whenever the cap is not reached."""
    from core.engine.kernels import k_apply, k_legal_list

    board = load_board(BOARDS / "default.yaml")
    kt = kernel_tables(board)
    gain = gain_for(kt)
    plain, timed = (puct_search(text, kt, gain, k_seed(9)) for text in ("puct:1500", "puct:1500:t=600"))
    state = k_new_state(kt)
    legal = np.empty(kt.nplace, dtype=np.int32)
    moves = 0
    while k_legal_list(kt, state, legal) > 1:
        move = plain.choose(state)
        assert timed.choose(state) == move
        assert (timed.last_sims, timed.last_value) == (plain.last_sims, plain.last_value)
        k_apply(kt, state, move)
        moves += 1
    assert moves >= 10
