"""What the play-test window shows of a session, without Qt: the table view, the messages and the agents' pace.

These run in the CI step without PySide6, so nothing here may import PySide6 or ``designer``.
"""

from __future__ import annotations

from pathlib import Path

from core.board.geometry import parse_cell
from core.board.model import Board, GameParams, Symbol
from core.engine.rules import SWAP, GameState, Placement
from core.play import view
from core.play.session import STEP_PACE, Change, PlaySession, Refusal, agent_decision
from tests.play.fakes import FakeTime, small_board


def make(board: Board | None = None, **params: object) -> tuple[PlaySession, FakeTime, FakeTime]:
    """A session with a fake match clock and a fake wall clock (the pace's)."""
    clock, wall = FakeTime(), FakeTime(5000.0)
    board = board if board is not None else small_board(**params)
    return PlaySession(board, time_source=clock, agent_seed=1, wall=wall), clock, wall


def first_legal(session: PlaySession) -> Placement:
    return next(iter(session.state.legal_placements()))


def cells(*names: str, size: int = 8) -> set[int]:
    return {parse_cell(n, size) for n in names}


def test_the_view_of_a_fresh_game_and_after_two_moves() -> None:
    session, _, _ = make(Board(size=8, params=GameParams(supply=(1, 2, 0, 3))))
    shown = view.table_view(session)
    assert shown.pieces == {} and shown.piece_ids == {} and shown.move_texts == () and shown.ply == 0
    assert len(shown.legal) == len(list(session.state.legal_placements())) > 0
    assert shown.interactive and not shown.can_swap and not shown.can_go_back and not shown.can_go_forward
    assert shown.turn_line == "O to move: Player 1 (person)"
    assert shown.supply_line == "Supply left: L 1  I 2  T 0  S 3"
    assert shown.score_line == "Uncovered symbols: O 0  X 0"
    assert shown.hint_counts is None and shown.hint_line == ""
    assert not shown.step_enabled and not shown.pace_enabled and shown.clocks_on and not shown.paused
    assert shown.result is None and shown.scoring == ((), ())
    assert session.play_text("A1 B1 C1 A2") is None
    assert session.play_text("D1 E1 F1 G1") is None
    session.undo()
    shown = view.table_view(session)
    assert shown.pieces == dict.fromkeys(cells("A1", "B1", "C1", "A2"), "L")
    assert set(shown.piece_ids.values()) == {0}
    assert shown.can_swap and shown.can_go_back and shown.can_go_forward and shown.ply == 1
    assert shown.supply_line == "Supply left: L 0  I 2  T 0  S 3"
    assert shown.move_texts == tuple(session.move_texts()) and len(shown.move_texts) == 2
    assert shown.turn_line == "X to move: Player 2 (person)"


def test_hints_count_the_placements_covering_each_cell() -> None:
    session, _, _ = make(seed=5)
    session.play(first_legal(session))
    shown = view.table_view(session, hints=True)
    legal = list(session.state.legal_placements())
    coverable = {c for p in legal for c in p.cells}
    assert shown.hint_counts is not None and set(shown.hint_counts) == coverable
    for cell in coverable:
        assert shown.hint_counts[cell] == sum(1 for p in legal if cell in p.cells)
    assert shown.hint_line == (f"{len(legal)} legal placements; {len(coverable)} cells coverable "
                               "(the number in a cell counts the placements covering it).")
    over, _, _ = make(supply=(0, 0, 0, 0))
    assert view.table_view(over, hints=True).hint_counts is None  # no hints for a finished game


def test_the_turn_line_says_what_an_agent_does() -> None:
    session, _, _ = make(seed=30)
    session.set_paused(True)
    session.set_agent(0, "greedy")
    assert view.turn_line(session) == "O to move: Player 1 (agent greedy) — waits (paused)"
    shown = view.table_view(session)
    assert not shown.interactive and not shown.step_enabled and shown.pace_enabled and shown.paused
    session.set_paused(False)
    request = session.start_agent()
    assert request is not None
    assert view.turn_line(session) == "O to move: Player 1 (agent greedy) — thinking…"
    assert not view.table_view(session).step_enabled  # already thinking
    session.agent_failed(request)
    assert view.turn_line(session) == "O to move: Player 1 (agent greedy) — waits: press Agent move (F6)"
    assert view.table_view(session).step_enabled
    assert view.agent_failed_text("ValueError: no move") == "The agent failed: ValueError: no move"


def test_clock_lines_mark_the_running_clock_the_pause_and_the_flag() -> None:
    session, clock, _ = make(seed=6, turn_time=5, bank=10)
    assert view.clock_line(session, 0) == "Player 1 (O) ◀\nturn 0:05  bank 0:10"
    assert view.clock_line(session, 1) == "Player 2 (X)\nturn 0:05  bank 0:10"
    clock.advance(7.5)
    assert view.clock_line(session, 0) == "Player 1 (O) ◀\nturn 0:00  bank 0:08"  # rounded up: 7.5 s of bank left
    session.set_paused(True)
    assert view.clock_line(session, 0).startswith("Player 1 (O) (paused)\n")
    session.set_paused(False)
    session.play(first_legal(session))
    session.play(SWAP)  # the labels follow the symbols, the clocks stay with the players
    assert view.clock_line(session, 1) == "Player 2 (O)\nturn 0:05  bank 0:10"
    assert view.clock_line(session, 0) == "Player 1 (X) ◀\nturn 0:05  bank 0:08"
    clock.advance(20)
    session.tick()
    assert view.clock_line(session, 0) == "Player 1 (X) — OUT OF TIME\nturn 0:00  bank 0:00"
    assert view.table_view(session).turn_line == "Game over"
    session.set_clocks_enabled(False)
    assert view.clock_line(session, 1) == "Player 2 (O): clocks off"


def test_a_finished_game_marks_what_scored_for_the_winner_and_the_loser() -> None:
    board = small_board(seed=11)
    session, _, _ = make(board)
    while not session.is_over:
        session.play(first_legal(session))
    shown = view.table_view(session)
    result = shown.result
    assert result is not None and result.winner is not None and result.loser is not None
    assert shown.scoring == (result.scoring_cells[result.winner.symbol], result.scoring_cells[result.loser.symbol])
    assert shown.legal == () and not shown.interactive and not shown.can_swap and not shown.can_go_forward
    nobody, _, _ = make(supply=(0, 0, 0, 0))
    shown = view.table_view(nobody)
    assert shown.result is not None and shown.result.winner is None and shown.scoring == ((), ())


def test_refused_moves_name_the_rule_and_plain_refusals_are_said_as_they_are() -> None:
    session, _, _ = make(Board(size=8))
    session.play_text("A1 B1 C1 A2")
    refusal = session.play_text("A3 A4 B4 C4")
    assert refusal is not None and refusal.reason is not None
    assert view.refused_move_text(refusal) == f"Illegal (same-type-adjacent): {refusal.message}"
    assert "same type" in refusal.message
    assert view.refused_move_text(Refusal("The game is paused; resume it to play on.")) == \
        "The game is paused; resume it to play on."


def test_a_person_cannot_swap_for_the_agent() -> None:
    session, _, _ = make(seed=2)
    session.play(first_legal(session))
    session.set_paused(True)  # the agent would answer at once otherwise
    session.set_agent(1, "greedy")
    assert not view.table_view(session).can_swap
    refusal = session.play_text("swap")
    assert refusal is not None and refusal.message == "It is the agent's turn; the agent makes its own pie-rule choice."
    assert session.ply == 1
    no_pie, _, _ = make(seed=2, pie=False)
    no_pie.play(first_legal(no_pie))
    assert not view.table_view(no_pie).can_swap  # a person to move, but the board has no pie rule


def test_the_board_note_names_the_first_problem_and_counts_the_others() -> None:
    assert view.board_note(small_board(seed=6)) is None
    board = Board(size=6)
    board.set_raw(parse_cell("B2", 6), Symbol.O)  # partner E5 stays empty: broken anti-symmetry
    note = view.board_note(board)
    assert note is not None and note.startswith("Note: this board is not valid for a match (")
    assert "B2" in note and "E5" in note and note.endswith("; play-testing it anyway.") and "more problem" not in note
    board.set_raw(parse_cell("A1", 6), Symbol.X)
    board.set_raw(parse_cell("A2", 6), Symbol.X)
    note = view.board_note(board)
    assert note is not None and " and 2 more problems); play-testing it anyway." in note


def test_saving_names_the_chosen_file_and_what_to_do(tmp_path: Path) -> None:
    """The error used to name the temporary file written beside the record, a name the host never chose."""
    session, _, _ = make(seed=13)
    session.play(first_legal(session))
    target = tmp_path / "no-such-folder" / "game.txt"
    refusal = view.save_record(session, str(target))
    assert refusal is not None and refusal.message.startswith(f"{target} was not written") and ".tmp" not in \
        refusal.message
    assert f"the folder {target.parent} does not exist; choose another folder" in refusal.message
    assert refusal.message.endswith("The game is still here.")
    refusal = view.save_record(session, str(tmp_path))
    assert refusal is not None and "that name is a folder; choose a file name" in refusal.message
    path = tmp_path / "game.lits-game"
    assert view.save_record(session, str(path)) is None and path.exists()
    assert view.saved_text(session, path) == f"Saved 1 moves to {path}."
    other, _, _ = make(seed=13)
    assert other.load(path) is None
    assert view.loaded_text(other, path) == f"Loaded 1 moves from {path}; use the arrows to replay them."


def test_agents_against_each_other_keep_the_pace_and_a_person_waits_for_no_show() -> None:
    session, _, wall = make(seed=30)
    assert session.pace_ms == 0 and session.answer_delay_ms() == 0
    session.set_pace(500)
    session.set_agent(0, "random")
    assert session.answer_delay_ms() == 0  # a person plays the other seat
    session.set_agent(1, "greedy")
    wall.advance(0.2)
    assert session.answer_delay_ms() == 300  # the pace counts from the last move (here: the start)
    request = session.start_agent()
    assert request is not None
    move = agent_decision(request.spec, request.board, list(request.moves), request.seed)
    assert session.finish_agent(request, move) is None
    assert session.answer_delay_ms() == 500  # a move was just made
    wall.advance(0.45)
    assert session.answer_delay_ms() == 50
    wall.advance(1)
    assert session.answer_delay_ms() == 0
    session.undo()  # any change of position restarts the pace
    assert session.answer_delay_ms() == 500


def test_the_step_pace_is_step_mode() -> None:
    session, _, _ = make(seed=30)
    session.set_pace(STEP_PACE)
    assert session.step_mode and session.pace_ms == 0
    session.set_agent(0, "random")
    assert not session.agent_due() and view.table_view(session).step_enabled
    session.set_pace(1000)
    assert not session.step_mode and session.pace_ms == 1000 and session.agent_due()


def test_the_view_replays_a_game_as_the_rules_engine_does() -> None:
    """A hot-seat game to the end: the view's pieces, moves and result agree with an independent replay."""
    board = small_board(seed=4, first=Symbol.X)
    session, _, _ = make(board)
    while not session.is_over:
        session.play(first_legal(session))
    state = GameState(board)
    for move in session.moves:
        state.push_action(move)
    shown = view.table_view(session)
    assert set(shown.pieces) == {c for p in state.placements for c in p.cells}
    assert shown.move_texts[0].startswith("1. X ")  # the board's first-moving symbol starts
    result = state.result()
    assert result is not None and shown.result is not None and shown.result.game == result


def test_a_flag_that_fell_while_a_clock_was_read_is_still_told_at_the_next_tick() -> None:
    """Reading a clock for the display charges the time, so the flag can fall there; the window's next tick must
    still tell the observers (the result banner and the agents' stop hang on it)."""
    session, clock, _ = make(seed=6, turn_time=1, bank=1)
    heard: list[Change] = []
    session.subscribe(heard.append)
    clock.advance(5)
    assert "OUT OF TIME" in view.clock_line(session, 0)  # the flag fell while the label was made
    assert session.tick() == 0 and heard == [Change.CLOCK, Change.FINISHED]
    assert session.tick() == 0 and heard == [Change.CLOCK, Change.FINISHED]  # told once
    session.restart_clocks(1, 1)
    clock.advance(5)
    assert session.tick() == 0 and heard.count(Change.CLOCK) == 3  # the restart, then the new flag
