"""Match clocks for play-test: per-turn time plus a bank, in plain Python.

The clock knows nothing of Qt or of real time: it reads a time source passed
in (``time.monotonic`` by default), so tests drive it with a fake clock and
never wait.  The play session starts and stops it as turns change; the window
polls :meth:`MatchClock.tick` from a timer.

Rules (as in the match): a turn starts with the full turn time; while it runs
the turn time counts down first, then the player's bank drains; a player
whose bank is empty when the turn time is used up has lost on time.  Clocks
are kept per *player* (a person at the table), not per symbol, because the
pie swap exchanges symbols between the players but not their banks.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

P = TypeVar("P", bound=Hashable)

TimeSource = Callable[[], float]


@dataclass(frozen=True)
class ClockReading:
    """What a clock display needs for one player."""

    turn_left: float
    bank_left: float
    running: bool


class MatchClock(Generic[P]):
    """Two (or more) players' clocks; at most one runs at a time."""

    def __init__(self, players: tuple[P, ...], turn_time: float, bank: float,
                 now: TimeSource = time.monotonic, enabled: bool = True) -> None:
        if turn_time < 0 or bank < 0:
            raise ValueError(f"turn time and bank must not be negative (got {turn_time}, {bank})")
        self._players = players
        self._now = now
        self.turn_time = float(turn_time)
        self.bank = float(bank)
        self.enabled = enabled
        self._banks: dict[P, float] = {p: float(bank) for p in players}
        self._turn_left = float(turn_time)
        self._current: P | None = None
        self._paused = False
        self._last: float | None = None
        self.flagged: P | None = None

    # -- control ------------------------------------------------------------------
    def reset(self, turn_time: float | None = None, bank: float | None = None) -> None:
        """Fresh banks (optionally new limits); nobody's clock runs until :meth:`start_turn`."""
        if turn_time is not None:
            if turn_time < 0:
                raise ValueError(f"turn time must not be negative (got {turn_time})")
            self.turn_time = float(turn_time)
        if bank is not None:
            if bank < 0:
                raise ValueError(f"bank must not be negative (got {bank})")
            self.bank = float(bank)
        self._banks = {p: self.bank for p in self._players}
        self._turn_left = self.turn_time
        self._current = None
        self._last = None
        self.flagged = None

    def start_turn(self, player: P) -> None:
        """Charge the time used so far, then give ``player`` a full turn time."""
        if player not in self._banks:
            raise KeyError(f"unknown player {player!r}")
        self.tick()
        if self.flagged is not None:
            return
        self._current = player
        self._turn_left = self.turn_time
        self._last = None if self._paused else self._now()

    def stop(self) -> None:
        """Charge the time used so far and stop every clock (game over, or waiting)."""
        self.tick()
        self._current = None
        self._last = None

    def pause(self) -> None:
        self.tick()
        self._paused = True
        self._last = None

    def resume(self) -> None:
        if self._paused:
            self._paused = False
            self._last = self._now() if self._current is not None else None

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def current(self) -> P | None:
        return self._current

    def set_enabled(self, enabled: bool) -> None:
        """Switched-off clocks neither count nor flag (analysis play)."""
        self.tick()
        self.enabled = enabled
        self._last = self._now() if (enabled and self._current is not None and not self._paused) else None

    def swap_banks(self) -> None:
        """Exchange two players' banks (used when the seats themselves are relabelled)."""
        if len(self._players) != 2:
            raise ValueError("swap_banks needs exactly two players")
        a, b = self._players
        self._banks[a], self._banks[b] = self._banks[b], self._banks[a]

    # -- time ---------------------------------------------------------------------
    def tick(self) -> P | None:
        """Charge the time since the last tick to the running player; return who flagged, if anyone."""
        if self.flagged is not None:
            return self.flagged
        if self._current is None or self._paused or not self.enabled:
            return None
        now = self._now()
        if self._last is None:
            self._last = now
            return None
        elapsed = max(0.0, now - self._last)
        self._last = now
        from_turn = min(elapsed, self._turn_left)
        self._turn_left -= from_turn
        rest = elapsed - from_turn
        if rest > 0:
            bank = self._banks[self._current] - rest
            if bank <= 0:
                self._banks[self._current] = 0.0
                self.flagged = self._current
                self._last = None
                return self.flagged
            self._banks[self._current] = bank
        return None

    def reading(self, player: P) -> ClockReading:
        """Time left for ``player`` after charging the running clock."""
        self.tick()
        running = player == self._current and not self._paused and self.enabled and self.flagged is None
        turn = self._turn_left if player == self._current else self.turn_time
        return ClockReading(turn_left=turn, bank_left=self._banks[player], running=running)

    def bank_of(self, player: P) -> float:
        self.tick()
        return self._banks[player]


def format_seconds(seconds: float) -> str:
    """``m:ss`` rounded up, so a display never shows 0:00 while time is left."""
    whole = int(-(-max(0.0, seconds) // 1))
    return f"{whole // 60}:{whole % 60:02d}"
