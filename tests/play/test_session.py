"""The play session without Qt: turns, the pie swap and ownership, undo/redo, records, results, clocks, agents.

These run in the CI step without PySide6, so nothing here may import PySide6 or ``designer``.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from core.board.geometry import parse_cell
from core.board.model import Board, GameParams, Symbol
from core.engine.rules import SWAP, GameState, Placement
from core.play.session import (
    NO_PLACEMENT,
    AgentRequest,
    Change,
    PlaySession,
    agent_decision,
    symbol_held,
)
from tests.play.fakes import FakeTime, small_board


def make(board: Board | None = None, **params: object) -> tuple[PlaySession, FakeTime]:
    fake = FakeTime()
    return PlaySession(board if board is not None else small_board(**params), time_source=fake, agent_seed=1), fake


def first_legal(session: PlaySession) -> Placement:
    return next(iter(session.state.legal_placements()))


def P(text: str, size: int = 8) -> Placement:
    return Placement.parse(text, size)


def gain_for(board: Board, symbol: Symbol, placement: Placement) -> int:
    """Opponent symbols covered minus own symbols covered: what the greedy agent maximises."""
    covered = [board[c] for c in placement.cells]
    return sum(1 for s in covered if s is symbol.other) - sum(1 for s in covered if s is symbol)


def run_agent(session: PlaySession) -> AgentRequest:
    """What the window does on its worker thread, done here in line."""
    request = session.start_agent()
    assert request is not None
    assert session.finish_agent(request, agent_decision(request.spec, request.board, list(request.moves),
                                                        request.seed)) is None
    return request


# ---------------------------------------------------------------------------- turns and ownership


@pytest.mark.parametrize("first", [Symbol.O, Symbol.X])
def test_turns_alternate_and_the_board_says_who_starts(first: Symbol) -> None:
    session, _ = make(first=first)
    assert session.seat_info(0).symbol is first and session.seat_info(1).symbol is first.other
    seats = []
    for _ in range(4):
        who = session.mover()
        assert who is not None and who.symbol is session.state.to_move
        seats.append(who.seat)
        assert session.play(first_legal(session)) is None
    assert seats == [0, 1, 0, 1]
    assert session.move_texts()[0].startswith(f"1. {first.value} ")
    assert session.move_texts()[1].startswith(f"2. {first.other.value} ")


def test_symbol_held_is_the_one_ownership_rule() -> None:
    for first in (Symbol.O, Symbol.X):
        assert [symbol_held(first, s, False) for s in (0, 1)] == [first, first.other]
        assert [symbol_held(first, s, True) for s in (0, 1)] == [first.other, first]


def test_swap_only_at_the_second_players_first_turn_and_ownership_afterwards() -> None:
    session, _ = make(seed=2)
    refusal = session.play(SWAP)
    assert refusal is not None and refusal.reason is not None and refusal.reason.rule == "swap-not-allowed"
    assert "before the first placement" in refusal.message
    assert session.play(first_legal(session)) is None
    assert session.state.can_swap()
    assert session.play_text("swap") is None
    assert session.swapped
    assert session.seat_of(Symbol.O) == 1 and session.seat_of(Symbol.X) == 0
    assert session.seat_info(1).symbol is Symbol.O and session.seat_info(0).symbol is Symbol.X
    mover = session.mover()
    assert mover is not None and mover.name == "Player 1" and mover.symbol is Symbol.X  # symbol order unchanged
    assert session.move_texts()[1].strip() == \
        "swap: Player 2 takes over O and the first placement (pie rule)"
    assert session.play(first_legal(session)) is None
    refusal = session.play(SWAP)
    assert refusal is not None and refusal.reason is not None and refusal.reason.rule == "swap-not-allowed"
    assert session.ply == 3


def test_no_swap_without_the_pie_rule() -> None:
    session, _ = make(seed=2, pie=False)
    session.play(first_legal(session))
    refusal = session.play_text("pie")
    assert refusal is not None and "without the pie rule" in refusal.message
    assert session.ply == 1


def test_undo_and_redo_across_the_swap_restore_ownership() -> None:
    session, _ = make(seed=12)
    opening = first_legal(session)
    session.play(opening)
    session.play(SWAP)
    second = first_legal(session)
    session.play(second)
    assert session.seat_of(Symbol.O) == 1
    session.undo()
    assert session.ply == 2 and session.swapped and session.mover().seat == 0  # type: ignore[union-attr]
    session.undo()
    assert session.ply == 1 and not session.swapped
    assert session.seat_of(Symbol.O) == 0 and session.mover().seat == 1  # type: ignore[union-attr]
    assert session.state.can_swap()
    session.redo()
    assert session.swapped and session.seat_of(Symbol.O) == 1
    session.redo()
    assert session.moves == [opening, SWAP, second] and session.ply == 3
    session.redo()  # nothing left to redo
    assert session.ply == 3
    session.go_to(1)
    other = next(p for p in session.state.legal_placements() if p != second)
    assert session.play(other) is None  # a placement instead of the swap cuts the old future
    assert session.moves == [opening, other] and not session.swapped
    assert session.seat_of(Symbol.O) == 0


# ---------------------------------------------------------------------------- illegal moves


def test_illegal_moves_name_the_rule_and_the_cells() -> None:
    session, _ = make(Board(size=8))
    assert session.play_text("A1 B1 C1 A2") is None  # an L
    cases = [("A3 A4 B4 C4", "same-type-adjacent", {"A3", "A2"}),
             ("E5 F5 G5 H5", "not-touching", {"E5", "F5", "G5", "H5"}),
             ("C1 D1 E1 F1", "occupied", {"C1"})]
    for text, rule, cells in cases:
        refusal = session.play_text(text)
        assert refusal is not None and refusal.reason is not None and refusal.reason.rule == rule, text
        assert {parse_cell(c, 8) for c in cells} <= set(refusal.reason.cells)
    refusal = session.play_text("D1 E1 D2 E2")
    assert refusal is not None and refusal.reason is None and "2x2 square" in refusal.message
    refusal = session.play_text("Z9 A1 A2 A3")
    assert refusal is not None and "Z9" in refusal.message
    refusal = session.play_text("   ")
    assert refusal is not None and "four cells" in refusal.message
    assert session.ply == 1


def test_two_by_two_and_supply_refusals() -> None:
    session, _ = make(Board(size=10))
    for text in ("H2 H3 H4 H5", "G6 H6 G7 G8"):
        assert session.play(P(text, 10)) is None
    refusal = session.play(P("I5 I6 J6 J7", 10))
    assert refusal is not None and refusal.reason is not None and refusal.reason.rule == "2x2"
    assert set(refusal.reason.cells) == {parse_cell(c, 10) for c in ("H5", "I5", "H6", "I6")}
    session, _ = make(Board(size=8, params=GameParams(supply=(1, 2, 0, 3))))
    assert session.play(P("A1 B1 C1 A2")) is None  # the only L
    assert session.play(P("D1 E1 F1 G1")) is None
    refusal = session.play(P("H1 H2 H3 G3"))  # an L that breaks no other rule
    assert refusal is not None and refusal.reason is not None and refusal.reason.rule == "supply"
    assert "no L piece is left" in refusal.message


def test_a_person_cannot_move_for_an_agent_and_the_finished_game_refuses_moves() -> None:
    session, _ = make(seed=30)
    session.set_paused(True)
    session.set_agent(0, "greedy")
    refusal = session.play_as_person(first_legal(session))
    assert refusal is not None and "agent's turn" in refusal.message
    refusal = session.play(first_legal(session))
    assert refusal is not None and "paused" in refusal.message
    with pytest.raises(ValueError, match="mcts:N"):
        session.set_agent(1, "alphazero")
    session.set_agent(0, None)
    session.set_paused(False)
    while not session.is_over:
        session.play(first_legal(session))
    refusal = session.play(P("A1 B1 C1 D1", 6))
    assert refusal is not None and "game is over" in refusal.message


# ---------------------------------------------------------------------------- results


def test_a_board_without_a_supply_names_no_winner(tmp_path: Path) -> None:
    """Not even the first piece can be placed: the rules' tie rule would hand a win to a game never played."""
    session, _ = make(small_board(supply=(0, 0, 0, 0)))
    assert session.is_over and session.mover() is None
    result = session.result()
    assert result is not None and result.reason == "no-placement"
    assert result.winner is None and result.loser is None
    assert result.headline() == NO_PLACEMENT == "No placement is possible on this board"
    text = session.result_text()
    assert text.startswith(NO_PLACEMENT) and "nobody wins" in text
    assert "tie rule" not in text and "wins with" not in text and "Player" not in text
    session.save(tmp_path / "game.txt")
    assert f"# {NO_PLACEMENT}." in (tmp_path / "game.txt").read_text()
    assert "tie" not in (tmp_path / "game.txt").read_text()


@pytest.mark.parametrize("swap", [False, True])
def test_a_board_without_symbols_ends_on_the_tie_rule(swap: bool) -> None:
    session, _ = make(Board(size=6))
    rng = random.Random(1)
    finished: list[Change] = []
    session.subscribe(lambda change: finished.append(change) if change is Change.FINISHED else None)
    session.play(rng.choice(list(session.state.legal_placements())))
    if swap:
        assert session.play(SWAP) is None
    while not session.is_over:
        session.play(rng.choice(list(session.state.legal_placements())))
    placements = [m for m in session.moves if isinstance(m, Placement)]
    last_symbol = Symbol.O if len(placements) % 2 == 1 else Symbol.X
    last_seat = session.seat_of(last_symbol)
    result = session.result()
    assert result is not None and result.reason == "tie-rule"
    assert result.winner.symbol is last_symbol and result.winner.seat == last_seat
    text = result.explain()
    assert "Score (uncovered symbols): O 0, X 0." in text and "tie rule" in text
    assert f"{last_symbol.value} wins: Player {last_seat + 1}" in text
    assert result.headline() == f"Player {last_seat + 1} wins with {last_symbol.value} (person), 0 to 0 by the tie rule"
    assert ("swapped sides by the pie rule" in text) == swap
    assert session.seat_of(Symbol.O) == (1 if swap else 0)
    assert finished == [Change.FINISHED]  # announced once
    session.undo()
    session.redo()
    assert finished == [Change.FINISHED, Change.FINISHED]  # and again after an undo and redo


def test_result_by_score_names_the_seats_and_marks_the_symbols_that_scored() -> None:
    board = small_board(seed=11)
    session, _ = make(board)
    session.set_paused(True)
    session.set_agent(1, "greedy")
    session.set_paused(False)
    rng = random.Random(5)
    while not session.is_over:
        who = session.mover()
        assert who is not None
        if who.agent is None:
            session.play(rng.choice(list(session.state.legal_placements())))
        else:
            run_agent(session)
    state = GameState(board)
    for move in session.moves:
        state.push_action(move)
    expected = state.result()
    result = session.result()
    assert expected is not None and result is not None and result.game == expected
    assert result.winner.symbol is expected.winner and result.winner.seat == session.seat_of(expected.winner)
    for symbol in (Symbol.O, Symbol.X):
        uncovered = {c for c in range(36) if board[c] is symbol and not state.covered >> c & 1}
        assert set(result.scoring_cells[symbol]) == uncovered
        assert len(uncovered) == expected.score[symbol]
    text = result.explain()
    assert f"O {expected.score[Symbol.O]}, X {expected.score[Symbol.X]}" in text
    kind = "agent greedy" if result.winner.seat == 1 else "person"
    assert f"Player {result.winner.seat + 1} ({kind})" in text
    assert result.headline().startswith(f"Player {result.winner.seat + 1} wins with {expected.winner.value} ({kind})")


# ---------------------------------------------------------------------------- records


def test_records_round_trip_and_replay(tmp_path: Path) -> None:
    board = small_board(seed=12)
    session, _ = make(board)
    rng = random.Random(2)
    session.play(rng.choice(list(session.state.legal_placements())))
    session.play(SWAP)
    while not session.is_over:
        session.play(rng.choice(list(session.state.legal_placements())))
    path = tmp_path / "game.txt"
    session.save(path)
    assert "swap" in path.read_text().splitlines()
    assert path.read_text().startswith("# LITS play-test record")

    other, _ = make(board)
    other.set_agent(1, "greedy")
    assert other.load(path) is None
    assert other.moves == session.moves and other.ply == len(session.moves) and other.is_over
    assert other.result_text() == session.result_text()
    assert other.agent(1) is None and not other.clock.enabled  # replay: no agents, no clocks
    other.go_to(0)
    assert other.state.placements == [] and not other.swapped
    other.go_to(2)
    assert other.swapped and other.seat_of(Symbol.O) == 1
    other.go_to(1)
    assert not other.swapped


def test_bad_records_are_reported_by_file_and_line(tmp_path: Path) -> None:
    session, _ = make(Board(size=6))
    bad = tmp_path / "bad.txt"
    bad.write_text("# a comment\nA1 B1 C1 D1\nA2 Q7 A3 A4\n")
    refusal = session.load(bad)
    assert refusal is not None and str(bad) in refusal.message and "line 3" in refusal.message
    illegal = tmp_path / "illegal.txt"
    illegal.write_text("# saved by the play-test\nA1 B1 C1 D1\nF3 F4 F5 F6\n")
    refusal = session.load(illegal)
    assert refusal is not None and "action 2" in refusal.message and "shares no edge" in refusal.message
    assert f"{illegal}: line 3: action 2" in refusal.message, "the host would count the lines by hand"
    assert refusal.reason is not None and set(refusal.reason.cells) == {parse_cell(c, 6) for c in ("F3", "F6")} | \
        {parse_cell(c, 6) for c in ("F4", "F5")}
    refusal = session.load(tmp_path / "missing.txt")
    assert refusal is not None and "no such file" in refusal.message
    assert session.moves == []


# ---------------------------------------------------------------------------- clocks


def test_the_clock_runs_for_the_player_to_move_and_banks_stay_with_the_players() -> None:
    session, fake = make(seed=6, turn_time=5, bank=10)
    assert session.clock.current == 0
    fake.advance(3)
    session.play(first_legal(session))
    assert session.clock.current == 1
    fake.advance(8)  # Player 2: 5 s of turn time, then 3 s of the bank
    assert session.clock.bank_of(1) == pytest.approx(7)
    session.play(SWAP)  # the swap exchanges symbols, not banks
    assert session.clock.current == 0 and session.clock.bank_of(1) == pytest.approx(7)
    assert session.clock.reading(0).turn_left == 5 and session.clock.bank_of(0) == 10
    fake.advance(14.5)
    assert session.tick() is None and not session.is_over
    fake.advance(1)
    assert session.tick() == 0 and session.is_over
    result = session.result()
    assert result is not None and result.reason == "time" and result.winner.seat == 1 and result.game is None
    assert "Player 1 (X) ran out of time" in result.explain() and "Player 2 (O) wins on time" in result.explain()
    assert result.headline() == "Player 2 wins with O (person) on time"
    refusal = session.play(first_legal(session))
    assert refusal is not None and "lost on time" in refusal.message
    session.restart_clocks(30, 60)
    assert not session.is_over and session.clock.reading(0).turn_left == 30


def test_pause_and_switched_off_clocks() -> None:
    session, fake = make(seed=6, turn_time=1, bank=2)
    session.set_paused(True)
    fake.advance(100)
    assert session.tick() is None and not session.is_over
    session.set_paused(False)
    session.set_clocks_enabled(False)
    fake.advance(100)
    assert session.tick() is None
    session.set_clocks_enabled(True)
    fake.advance(3.5)
    assert session.tick() == 0 and "ran out of time" in session.result_text()


def test_no_clock_runs_while_an_agent_waits_and_a_new_agent_on_the_side_to_move_starts() -> None:
    """After two moves and an undo, handing the side to move to an agent must start it."""
    session, fake = make(seed=8)
    session.play(first_legal(session))
    session.play(first_legal(session))
    session.undo()
    assert session.ply == 1 and session.mover().seat == 1  # type: ignore[union-attr]
    changes: list[Change] = []
    session.subscribe(changes.append)
    session.set_agent(1, "greedy")
    assert changes == [Change.SEATS]
    assert session.agent_due()
    assert session.clock.current == 1  # its clock runs because it is about to think
    run_agent(session)
    assert session.ply == 2 and len(session.moves) == 2  # the agent's move replaced the old second move
    # Browsing back into an agent's turn: the agent waits and so does its clock.
    session.set_agent(0, "random")
    session.go_to(0)
    assert not session.agent_due() and session.agent_waiting
    assert session.clock.current is None
    before = session.clock.bank_of(0)
    fake.advance(500)
    assert session.tick() is None and session.clock.bank_of(0) == before
    # Choosing another agent for the side to move starts that one.
    session.set_agent(0, "greedy")
    assert session.agent_due() and session.clock.current == 0


def test_agent_answers_that_a_change_made_stale_are_dropped() -> None:
    session, _ = make(seed=41, pie=False)
    session.set_agent(1, "greedy")
    session.play(first_legal(session))
    request = session.start_agent()
    assert request is not None and session.thinking is request and request.moves == tuple(session.moves)
    assert session.start_agent() is None  # one at a time
    answer = agent_decision(request.spec, request.board, list(request.moves), request.seed)
    session.undo()
    assert session.thinking is None
    assert session.finish_agent(request, answer) is None
    assert session.ply == 0 and session.moves == [request.moves[0]]


def test_pause_holds_the_agents_answer_until_resume() -> None:
    session, _ = make(seed=41, pie=False)
    session.set_agent(1, "greedy")
    session.play(first_legal(session))
    request = session.start_agent()
    assert request is not None
    session.set_paused(True)
    answer = agent_decision(request.spec, request.board, list(request.moves), request.seed)
    assert session.finish_agent(request, answer) is None
    assert session.ply == 1 and session.thinking is None and not session.agent_due()
    session.set_paused(False)
    assert session.ply == 2 and session.moves[1] == answer


def test_a_failed_agent_waits_for_a_step() -> None:
    session, _ = make(seed=41)
    session.set_agent(0, "random")
    request = session.start_agent()
    assert request is not None
    session.agent_failed(request)
    assert session.thinking is None and not session.agent_due() and session.clock.current is None
    refusal = session.finish_agent(request, first_legal(session))  # a late answer is stale
    assert refusal is None and session.ply == 0
    assert session.step() and session.agent_due()
    bad = session.start_agent()
    assert bad is not None
    refusal = session.finish_agent(bad, "resign")
    assert refusal is not None and "not a move" in refusal.message and not session.agent_due()


def test_step_mode_makes_one_agent_move_per_step() -> None:
    session, _ = make(seed=30)
    session.set_step_mode(True)
    session.set_agent(0, "random")
    session.set_agent(1, "greedy")
    assert not session.agent_due() and session.agent_waiting and session.clock.current is None
    for expected in (1, 2, 3):
        assert session.step()
        run_agent(session)
        assert session.ply == expected and not session.agent_due()
    session.set_step_mode(False)
    assert session.agent_due()


def test_undo_against_an_agent_goes_back_to_the_persons_turn() -> None:
    session, _ = make(small_board(seed=40, size=8, pairs=12, pie=False))
    session.set_agent(1, "greedy")
    for _ in range(2):
        session.play(first_legal(session))
        run_agent(session)
    assert session.ply == 4
    session.undo()
    assert session.ply == 2 and session.mover().agent is None  # type: ignore[union-attr]
    assert not session.agent_due()  # the agent's reply is kept for redo
    session.redo()
    assert session.ply == 3 and not session.agent_due()  # browsing: the agent waits
    session.redo()
    assert session.ply == 4 and session.mover().agent is None  # type: ignore[union-attr]


def test_agents_play_a_whole_game_twice_with_undo_between() -> None:
    session, _ = make(seed=30)
    session.set_agent(0, "random")
    session.set_agent(1, "greedy")
    finished: list[Change] = []
    session.subscribe(lambda change: finished.append(change) if change is Change.FINISHED else None)
    while session.agent_due():
        run_agent(session)
    assert session.is_over and finished == [Change.FINISHED]
    first_game = session.moves
    session.undo()
    session.undo()
    assert not session.agent_due() and session.agent_waiting
    assert session.step()
    while session.agent_due():
        run_agent(session)
    assert session.is_over and finished == [Change.FINISHED, Change.FINISHED]
    assert session.moves[:len(first_game) - 2] == first_game[:-2]
    assert session.thinking is None and not session.agent_due()


def test_agent_decisions_are_legal_and_follow_the_pie_judgement() -> None:
    board = small_board(seed=21, size=8, pairs=16)
    state = GameState(board)
    legal = list(state.legal_placements())
    gaining = max(legal, key=lambda p: gain_for(board, Symbol.O, p))
    losing = min(legal, key=lambda p: gain_for(board, Symbol.O, p))
    assert gain_for(board, Symbol.O, gaining) > 0 >= gain_for(board, Symbol.O, losing)
    assert agent_decision("greedy", board, [gaining], seed=1) == SWAP
    reply = agent_decision("greedy", board, [losing], seed=1)
    assert isinstance(reply, Placement)
    after = GameState(board)
    after.push(losing)
    assert after.is_legal(reply)
    # MCTS: a legal action, and the same one for the same seed (a game is a function of its seed).
    first = agent_decision("mcts:64", board, [losing], seed=5)
    assert first == SWAP or after.is_legal(first)
    assert agent_decision("mcts:64", board, [losing], seed=5) == first
    # After the swap the second symbol still places next; the agent must not offer a second swap.
    later = agent_decision("mcts:64", board, [losing, SWAP], seed=2)
    assert isinstance(later, Placement) and after.is_legal(later)


def test_observers_hear_every_change_and_can_unsubscribe() -> None:
    session, fake = make(seed=6, turn_time=1, bank=1)
    heard: list[Change] = []
    stop = session.subscribe(heard.append)
    session.play(first_legal(session))
    session.undo()
    session.set_agent(1, "random")
    session.set_paused(True)
    session.set_paused(False)
    fake.advance(5)
    session.tick()
    assert heard == [Change.POSITION, Change.POSITION, Change.SEATS, Change.CLOCK, Change.CLOCK, Change.CLOCK,
                     Change.FINISHED]
    stop()
    session.new_game()
    assert len(heard) == 7
