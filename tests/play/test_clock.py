"""The play-test clock model, driven by a fake time source (no real waiting)."""

from __future__ import annotations

import pytest

from core.play.clock import MatchClock, format_seconds


class FakeTime:
    """A time source the test advances by hand."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


def make(turn: float = 60, bank: float = 300) -> tuple[MatchClock[str], FakeTime]:
    fake = FakeTime()
    return MatchClock(("A", "B"), turn, bank, now=fake), fake


def test_turn_time_is_used_before_the_bank() -> None:
    clock, fake = make(turn=10, bank=30)
    clock.start_turn("A")
    fake.advance(7)
    r = clock.reading("A")
    assert (r.turn_left, r.bank_left, r.running) == (3, 30, True)
    fake.advance(5)
    r = clock.reading("A")
    assert (r.turn_left, r.bank_left) == (0, 28)
    assert clock.reading("B").bank_left == 30 and not clock.reading("B").running


def test_turn_time_refills_each_turn_but_bank_does_not() -> None:
    clock, fake = make(turn=10, bank=30)
    clock.start_turn("A")
    fake.advance(15)
    clock.start_turn("B")
    fake.advance(4)
    clock.start_turn("A")
    r = clock.reading("A")
    assert (r.turn_left, r.bank_left) == (10, 25)
    assert clock.reading("B").bank_left == 30


def test_empty_bank_flags_the_running_player_only() -> None:
    clock, fake = make(turn=5, bank=20)
    clock.start_turn("B")
    fake.advance(24.9)
    assert clock.tick() is None
    fake.advance(0.2)
    assert clock.tick() == "B"
    assert clock.flagged == "B"
    assert clock.bank_of("B") == 0
    # Once flagged, nothing runs any more.
    clock.start_turn("A")
    fake.advance(100)
    assert clock.bank_of("A") == 20


def test_pause_stops_the_running_clock() -> None:
    clock, fake = make(turn=10, bank=30)
    clock.start_turn("A")
    fake.advance(2)
    clock.pause()
    fake.advance(500)
    assert clock.tick() is None
    assert clock.reading("A").turn_left == 8
    assert not clock.reading("A").running
    clock.resume()
    fake.advance(3)
    assert clock.reading("A").turn_left == 5


def test_switched_off_clocks_never_flag() -> None:
    clock, fake = make(turn=1, bank=1)
    clock.set_enabled(False)
    clock.start_turn("A")
    fake.advance(1000)
    assert clock.tick() is None
    assert clock.bank_of("A") == 1
    clock.set_enabled(True)
    fake.advance(1.5)
    assert clock.tick() is None
    fake.advance(1)
    assert clock.tick() == "A"


def test_reset_applies_new_limits() -> None:
    clock, fake = make()
    clock.start_turn("A")
    fake.advance(400)
    assert clock.tick() == "A"
    clock.reset(turn_time=5, bank=7)
    assert clock.flagged is None
    assert clock.reading("A").bank_left == 7 and clock.reading("B").turn_left == 5


def test_swap_banks_exchanges_players_banks() -> None:
    clock, fake = make(turn=0, bank=10)
    clock.start_turn("A")
    fake.advance(4)
    clock.stop()
    clock.swap_banks()
    assert clock.bank_of("A") == 10 and clock.bank_of("B") == 6


def test_bad_limits_are_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        MatchClock(("A", "B"), -1, 3)
    clock, _ = make()
    with pytest.raises(KeyError):
        clock.start_turn("Z")


@pytest.mark.parametrize(("seconds", "text"), [(0, "0:00"), (0.2, "0:01"), (59.5, "1:00"), (61, "1:01"), (-3, "0:00")])
def test_format_seconds_rounds_up(seconds: float, text: str) -> None:
    assert format_seconds(seconds) == text
