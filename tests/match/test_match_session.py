"""The match as the API sees it: posts judged as typed, clocks from the host's times (pause included),
resignation, a board that starts with X, the post's text and its picture, and a rebuild that equals the live
match."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from matplotlib.colors import to_rgb

from core.board.boardfile import load_board
from core.board.geometry import parse_cell
from core.board.model import Board, GameParams, Symbol
from core.engine.rules import GameState
from core.match.events import End, Event, EventError, MatchRule, Outcome, Posted, Refusal, read_event
from core.match.host import Match
from core.match.post import CHAT_LIMIT, INK, PIECE_COLOURS, figure, make_post, picture_png
from core.match.times import parse_iso, parse_when
from tests.match.script import START, STEPS, event_for, play, write_board
from tests.paths import BOARDS


def ms(text: str) -> int:
    return parse_iso(f"2026-05-02T{text}+00:00")[0]


def submit(match: Match, **fields: object) -> list[Event]:
    """Record the event with these journal fields (``at`` as typed)."""
    return match.submit(read_event({**fields, "at": match.when(str(fields["at"]))}))


def post(match: Match, **fields: object) -> Posted:
    """Record a post; the post as judged."""
    judged = submit(match, **fields)[-1]
    assert isinstance(judged, Posted)
    return judged


@pytest.fixture
def tiny(tmp_path: Path) -> Match:
    return Match.create(tmp_path / "m", load_board(write_board(tmp_path)), "Al", "Bo", START)


def test_a_post_is_judged_the_same_however_it_is_typed(tmp_path: Path) -> None:
    match = Match.create(tmp_path / "m", load_board(BOARDS / "default.yaml"), "Al", "Bo", START)
    s = match.session
    verdicts = {text: s.judge_move(text, None) for text in ("e6,f6,g6,f7", "E6-F6-G6-F7", "e6f6g6f7",
                                                             "F7 E6 F6 G6", " e6 f6 g6 f7 ")}
    assert {v.counted for v in verdicts.values()} == {True}
    assert {v.message for v in verdicts.values()} == {"move 1: Al (O) places a T at E6 F6 G6 F7, covering X E6"}
    assert s.actions == [] and len(s.events) == 1, "judging changes nothing"
    wrong = s.judge_move("e6 f6 g6 f7", "Bo")
    assert (wrong.counted, wrong.rule, wrong.message) == (False, "wrong-player", "it is Al (O)'s turn, not Bo's")


def test_clocks_run_from_the_posts_and_stop_during_a_pause(tmp_path: Path) -> None:
    match = play(tmp_path / "m", write_board(tmp_path), STEPS[:10])  # up to the resume at 14:03:30
    s = match.session
    # Al's turn started with Bo's move at 14:02:30; 30 s ran before the pause, none during it
    al = s.find_seat("Al")
    assert s.clocks(ms("14:03:30"))[al] == (30_000, 300_000, True)
    assert s.clocks(ms("14:04:00"))[al] == (0, 300_000, True)
    assert s.clocks(ms("14:04:10"))[al] == (0, 290_000, True)
    bo = s.find_seat("Bo")
    assert s.clocks(ms("14:04:10"))[bo] == (60_000, 290_000, False)  # Bo used 70 s for move 4
    assert s.deadline() == ms("14:09:00")


def test_resignation_decides_and_later_posts_are_journaled_as_not_counted(tiny: Match) -> None:
    submit(tiny, event="move", at="14:00:10", text="A2 B2 C2 C3", by=None)
    submit(tiny, event="resign", at="14:00:20", by="bo")
    late = post(tiny, event="move", at="14:00:30", text="E1 F1 D2 E2", by="Bo")
    assert late.counted is False and late.refusal is not None and late.refusal.rule is MatchRule.DECIDED
    s = tiny.session
    assert s.result_text() == "Al (O) wins: Bo (X) resigned at 14:00:20."
    end = submit(tiny, event="end", at="14:00:40")[-1]
    assert isinstance(end, End) and end.result is not None and end.result.reason is Outcome.RESIGNED
    from core.match.session import Refused

    with pytest.raises(Refused, match="the match ended at 14:00:40"):
        submit(tiny, event="move", at="14:00:50", text="E1 F1 D2 E2", by="Bo")


def test_a_correction_by_the_other_player_is_refused(tiny: Match) -> None:
    submit(tiny, event="move", at="14:00:10", text="A2 B2 C2 C3", by=None)
    judged = post(tiny, event="correct", at="14:00:20", text="A3 A4 A5 A6", by="Bo")
    assert judged.refusal == Refusal(MatchRule.WRONG_PLAYER, "only Al, who made move 1, may correct it", ())


def test_a_board_where_x_starts_gives_the_x_player_the_first_turn(tmp_path: Path) -> None:
    board = load_board(write_board(tmp_path))
    board.params = GameParams(supply=(1, 1, 1, 1), first=Symbol.X)
    match = Match.create(tmp_path / "m", board, "Al", "Bo", START)
    s = match.session
    assert s.label(s.seat_to_move()) == "Bo (X)"
    assert s.judge_move("A2 B2 C2 C3", "Al").message == "it is Bo (X)'s turn, not Al's"


def test_the_rebuilt_match_is_the_live_match(tmp_path: Path) -> None:
    live = play(tmp_path / "m", write_board(tmp_path), STEPS[:8])
    again = Match.open(tmp_path / "m")
    a, b = live.session, again.session
    assert [x.move for x in a.actions] == [x.move for x in b.actions]
    assert a.clocks(ms("14:02:50")) == b.clocks(ms("14:02:50"))
    assert [e for _seq, e in a.events] == [e for _seq, e in b.events]


def test_times_of_day_follow_the_last_event_across_midnight() -> None:
    last = parse_iso("2026-05-02T23:59:30+02:00")
    assert parse_when("00:00:10", last)[0] - last[0] == 40_000
    assert parse_when("23:59:40", last)[0] - last[0] == 10_000
    with pytest.raises(ValueError, match=r"is not a time: write the post's time as 14:03:27 \(on the day of the last "
                                         r"event, in its zone\)"):
        parse_when("half past two", last)
    with pytest.raises(ValueError, match=r"\(today, this machine's zone\)"):
        parse_when("14.00.20")


def test_a_time_of_day_far_into_the_next_day_asks_for_the_date() -> None:
    """``07:59`` after a post at 20:00 would be the next morning and empty a bank overnight: refused, naming the
    day it would be and how to say it if meant; the date given, it counts."""
    last = parse_iso("2026-05-02T20:00:00+02:00")
    with pytest.raises(ValueError) as info:
        parse_when("07:59:00", last)
    assert str(info.value) == ("07:59:00 would be the next day (2026-05-03 07:59:00), 11 h 59 min after the last "
                               "event at 20:00:00; if that is meant, give the date too: 2026-05-03T07:59:00+02:00")
    assert parse_when("2026-05-03T07:59:00+02:00", last)[0] - last[0] == (11 * 60 + 59) * 60_000
    late = parse_iso("2026-05-02T23:30:00+02:00")
    assert parse_when("00:29:59", late)[0] - late[0] == 3_599_000  # past midnight within the hour
    with pytest.raises(ValueError, match="would be the next day"):
        parse_when("00:30:01", late)


def test_an_unknown_event_or_player_is_an_event_error(tiny: Match) -> None:
    with pytest.raises(EventError, match="unknown event 'teleport'"):
        submit(tiny, event="teleport", at="14:00:10")
    with pytest.raises(EventError, match="'Cy' does not play in this match: the players are Al \\(O\\) and Bo"):
        submit(tiny, event="move", at="14:00:10", text="A2 B2 C2 C3", by="Cy")
    assert len(tiny.journal.read()) == 1


# -- the post -------------------------------------------------------------------------------------------------


def test_the_post_names_the_move_whose_turn_the_clocks_and_the_score(tmp_path: Path) -> None:
    match = play(tmp_path / "m", write_board(tmp_path), STEPS[:8])
    post = make_post(match.session)
    lines = post.text.splitlines()
    assert lines[0] == "Move 4 | Bo (O) | E3 D4 E4 E5 | T piece | covers O E4, O E5"
    assert lines[1] == "Al (X) to move - turn 1:00, bank 5:00 | Bo (O): bank 4:50"
    assert lines[2] == "Score (visible symbols): O 3 (Bo), X 4 (Al)"
    assert lines[3] == "```" and lines[4] == "  A B C D E F" and lines[-2] == "```"
    assert lines[7] == "3 O X l . T ."  # the last piece in capitals
    assert post.last_cells == tuple(parse_cell(c, 6) for c in ("E3", "D4", "E4", "E5"))
    later = make_post(match.session, ms("14:03:00")).text.splitlines()[1]
    assert later == "Al (X) to move - turn 0:30, bank 5:00 | Bo (O): bank 4:50"


def test_the_post_fits_one_chat_message_on_the_largest_board(tmp_path: Path) -> None:
    board = Board.random(size=26, pairs=120, seed=3)
    match = Match.create(tmp_path / "m", board, "Alexandra", "Bartholomew", START)
    state = GameState(board)
    for minute in range(12):
        move = next(iter(state.legal_placements()))
        state.push(move)
        submit(match, event="move", at=f"14:{minute + 1:02d}:00", text=move.notation(), by=None)
    post = make_post(match.session)
    assert len(post.text) <= CHAT_LIMIT
    assert "26 " in post.text and "```" in post.text


def _pixel(fig: object, image: np.ndarray, x: float, y: float) -> tuple[float, float, float]:
    ax = fig.axes[0]  # type: ignore[attr-defined]
    px, py = ax.transData.transform((x, y))
    height = image.shape[0]
    r, g, b = image[round(float(height - py)), round(float(px))][:3]
    return float(r), float(g), float(b)


def test_the_picture_marks_the_last_piece_and_has_coordinates(tmp_path: Path) -> None:
    import matplotlib.image

    match = play(tmp_path / "m", write_board(tmp_path), STEPS[:8])
    s = match.session
    post = make_post(s)
    image = matplotlib.image.imread(io.BytesIO(picture_png(s, post)), format="png")
    assert image.shape[:2] == (800, 800)
    fig = figure(s, post, 800)
    fig.draw_without_rendering()  # applies the equal aspect, as saving does
    texts = {t.get_text() for t in fig.axes[0].texts}
    assert {"A", "B", "C", "D", "E", "F", "1", "2", "3", "4", "5", "6"} <= texts
    assert post.headline in texts
    close = 0.02
    for cell in post.last_cells:  # inside each cell of the last piece: its type's colour
        row, col = divmod(cell, 6)
        got = _pixel(fig, image, col + 0.2, row + 0.8)
        assert np.allclose(got, to_rgb(PIECE_COLOURS["T"]), atol=close), (cell, got)
    e3 = parse_cell("E3", 6)
    row, col = divmod(e3, 6)  # the top edge of E3 is the last piece's outline: dark, not the grid's grey
    assert np.allclose(_pixel(fig, image, col + 0.5, row), to_rgb(INK["last"]), atol=0.1)
    a5 = divmod(parse_cell("A5", 6), 6)  # an empty cell keeps the board's colour
    assert np.allclose(_pixel(fig, image, a5[1] + 0.2, a5[0] + 0.8), to_rgb(INK["cell"]), atol=close)


def test_every_scripted_step_is_an_event() -> None:
    kinds = {read_event({**event_for(step), "at": START}).kind for step, _code, _words in STEPS}
    assert kinds == {"move", "correct", "pause", "resume", "end"}
