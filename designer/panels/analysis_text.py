"""What an analysis report means, in words a host uses: the verdict, its reasons, the next step, the heatmaps.

The engine's own reasons are written for the command line and for statisticians ("S1", "v(m)", SPRTs).
The panel rebuilds the explanation from the report's figures instead, so it can say "the player who moves
first", give each rate as "47% (likely 38-57%)" and end with what to do next.  A quick look is a first look:
it never advises sealing, only the full analysis does.  No Qt, so it is tested without it; it reads the typed
report of ``core.analysis.results``, as the charts do, and names agents in ``core.analysis.hostwords``' words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.analysis.glossary import S1, S2
from core.analysis.hostwords import describe_agent, strength_level
from core.analysis.results import AnalysisReport, FloatGrid, band_text, fair_band, openings, pct, raw_rate

FIRST = S1.plain
SECOND = S2.plain
FAIR_BAND_TEXT = band_text()
"""The default band in words; a report's own band is ``band_text(fair_band(report))``."""

COVERAGE_FIRST = "Covered by the player who moves first"
COVERAGE_SECOND = "Covered by the second player"
SURVIVAL = "Symbols left uncovered"
OPENINGS = "First mover's chance after openings here"
HEATMAP_TIPS: dict[str, str] = {
    COVERAGE_FIRST: "How often each cell ends up under a piece of the player who moves first (bright = often).",
    COVERAGE_SECOND: "How often each cell ends up under a piece of the second player (bright = often).",
    SURVIVAL: "How often each symbol is still uncovered at the end, i.e. scores (bright = often); "
              "empty cells stay plain.",
    OPENINGS: "For the first placements tried: the first mover's chance of winning after them, averaged over "
              "the placements covering each cell (bright = the first mover wins more often).",
}


def with_range(rate: float, ci: Sequence[float] | None) -> str:
    """``47% (likely 38-57%)``: a rate with its 95% interval in words."""
    if ci is None or len(ci) != 2:
        return pct(rate)
    return f"{pct(rate)} (likely {100 * ci[0]:.0f}-{100 * ci[1]:.0f}%)"


@dataclass
class HostSummary:
    """The verdict as the panel writes it; ``next_step`` is always the last line shown."""

    verdict: str
    headline: str
    mark: str
    lines: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    next_step: str = ""
    raw_line: str = ""
    """One line under the no-swap chart: what that rate means."""


def summarise(report: AnalysisReport, quick: bool | None = None, games: int | None = None,
              pie_rule: bool = True, seconds: float | None = None) -> HostSummary:
    """The verdict, reasons, warnings and next step for a host.

    ``quick``, ``games`` and ``seconds`` (the time limit) are the settings the run used (default: the report's
    own config); ``pie_rule`` is whether the analysed board offers the swap.  A quick look says it is one and
    always advises the full analysis next: its weaker players and fewer games can call a board balanced that the
    full analysis does not.
    """
    verdict = report.verdict
    config = report.config
    quick = config.quick if quick is None else quick
    games = config.games if games is None else games
    seconds = config.time_budget if seconds is None else seconds
    pie = report.pie
    tried = openings(report)
    fair = [o for o in tried if o.status == "fair"]
    needed = config.min_fair_openings
    band = band_text(fair_band(report))
    agent = report.agent or pie.agent
    total = sum(o.games for o in tried)
    played_by = f"Played by {describe_agent(agent)}, {total} games." if agent and total else ""
    # the strength the verdict holds for goes into the headline: weaker play may judge the board differently
    level = f" for {strength_level(agent)} play" if agent else ""
    judges = list(pie.judges)
    disputed = [o for o in tried if o.disputed]
    disputed_lines = [f"{o.label} looked even for the deciding engine, but "
                      + " and ".join(describe_agent(j.agent) for j in o.judges if not j.agrees)
                      + (" did not confirm it; it counts for this verdict, which also needs one opening every "
                         "engine confirms" if o.status == "fair" else " did not confirm it, so it does not count")
                      + " (Fair openings layer: hover it for the figures)."
                      for o in disputed[:3]]
    summary: HostSummary
    if report.engines_disagree:
        summary = HostSummary(verdict, f"Engines disagree{level}", "?", [
            f"{len(fair)} different first placements keep the game close for the deciding engine (its games put "
            f"the first mover's chance of winning within {band}), but for each of them another strong engine, of "
            "a different kind, finds one side winning. Strong engines disagree about this board; more play by the "
            "same engines would not settle it."])
        summary.lines += disputed_lines
        summary.next_step = (f"Adjust the symbols near {fair[0].cells[0]} (where the closest-to-even opening lies) "
                             "and analyse again; the report gives each engine's figures for every fair opening.")
        return _finish(summary, report, played_by, pie_rule)
    if verdict == "balanced":
        summary = HostSummary(verdict, f"Balanced{level}", "✔", [
            f"{len(fair)} different first placements keep the game close: after each, a test of its games put "
            f"the first mover's chance of winning within {band}, so {SECOND} has a real choice whether to swap sides."])
        low, high = (round(100 * edge) for edge in fair_band(report))
        if any(round(100 * o.ci[0]) < low or round(100 * o.ci[1]) > high for o in fair[:3]):
            # the test decides with fewer games than a range inside the band needs: say so beside the ranges
            summary.lines[0] += (f" (The likely ranges below reach a little past {band}: the test can decide "
                                 "before its games are enough to draw a range that narrow.)")
        if judges:
            firm = (f" up to {pie.check_limit} times (the firm check of the Thorough effort)"
                    if pie.check_rule == "firm" else "")
            engines = " and ".join(describe_agent(j) for j in judges)
            who = "Other engines" if len(judges) > 1 else "A second engine"
            confirmed = [o for o in fair if not o.disputed]
            if len(confirmed) == len(fair):
                summary.lines[0] += (f" {who}, {engines}, replayed each of them{firm} and "
                                     f"agree{'' if len(judges) > 1 else 's'}.")
            else:
                summary.lines[0] += (f" {who}, {engines}, replayed each of them{firm}: "
                                     + ", ".join(o.label for o in confirmed)
                                     + f" {'is' if len(confirmed) == 1 else 'are'} confirmed by every engine, so "
                                     "the board is even whichever strong engine plays it.")
            fair = confirmed + [o for o in fair if o.disputed]
        summary.lines += [f"{o.label}: {FIRST} wins {with_range(o.rate, o.ci)}" for o in fair[:3]]
        summary.lines += disputed_lines
        summary.next_step = "Seal it (File ▸ Export ▸ Sealed file for a season), or play-test it first."
    elif verdict == "lopsided":
        best = tried[0] if tried else None
        summary = HostSummary(verdict, f"Lopsided{level}", "✖")
        if best is not None:
            side = "too often" if best.rate > 0.5 else "too rarely"
            summary.lines.append(
                f"No first placement tried keeps the game close: even the closest to even, {best.label}, "
                f"lets {FIRST} win {side}: {with_range(best.rate, best.ci)}.")
            summary.lines.append(f"Whoever may swap after the first placement simply takes the winning side, "
                                 f"so the swap rule cannot even this board out ({len(tried)} openings tried).")
            summary.next_step = (f"Move symbols near {best.cells[0]} (where the closest-to-even opening lies) "
                                 "and analyse again.")
        else:
            summary.next_step = "Change the symbols and analyse again."
    else:
        summary = HostSummary(verdict, f"Not decided yet{level}", "?")
        if not tried and pie.screened == 0:
            summary.lines.append("No first placement is possible on this board.")
            summary.next_step = "Give the players pieces (Properties ▸ Supply) and analyse again."
            return _finish(summary, report, played_by, pie_rule)
        if not tried:
            summary.lines.append("Your time limit came before any opening was played out." if
                                 report.budget.stopped_by_time else "No opening could be played out.")
        else:
            shown = {0: "No first placement was", 1: "Only 1 first placement was"}.get(
                len(fair), f"Only {len(fair)} first placements were")
            summary.lines.append(f"{shown} shown to keep the game close (a test of its games putting the first "
                                 f"mover's chance of winning within {band}); {needed} are needed for a verdict.")
            summary.lines += disputed_lines
            open_ = (len(tried) - len(fair) - sum(o.status == "unfair" for o in tried)
                     - sum(o.status != "fair" for o in disputed))
            if open_:
                summary.lines.append(f"{open_} of the {len(tried)} openings tried gave no clear answer within "
                                     "the game budget.")
            best = tried[0]
            summary.lines.append(f"Closest to even so far: {best.label}, {FIRST} wins "
                                 f"{with_range(best.rate, best.ci)}.")
        if quick:
            summary.next_step = f"Run longer: {FULL_RUN}."
        elif report.budget.stopped_by_time:
            summary.next_step = ("Your time limit stopped the run before it was done: set Time limit to No limit "
                                 "and analyse again (the full run gives a verdict anyone can reproduce).")
        elif report.budget.effort == "standard":
            summary.next_step = ("The standard amount of play did not decide it: choose Effort ▸ Thorough (more "
                                 "play, at expert strength) or adjust the board and analyse again.")
        else:
            summary.next_step = "Adjust the board, or give the analysis more play, and analyse again."
    if quick:
        _first_look(summary, level)
    return _finish(summary, report, played_by, pie_rule)


FULL_RUN = ("untick Quick and analyse again (the full run plays several times as many games at club strength: on "
            "two idle cores it took about one minute for the measured boards, at most 82 s, and it takes longer on "
            "a busy machine)")
"""The measured figures: the standard effort on the benchmark's ten boards (``docs/measurements.md``)."""


def timing_line(analysis_seconds: float, compile_seconds: float = 0.0) -> str:
    """How long the run took, with the one-time compile of the engine apart from the analysis (a first run after
    installing waits minutes for the compile; the analysis's own time is ``report.elapsed``)."""
    took = f"The analysis took {analysis_seconds:.1f} s"
    if compile_seconds >= 1.0:
        return (f"{took}, after {compile_seconds:.0f} s compiling the engine (once after installing; later runs "
                "skip it).")
    return f"{took}."


def _first_look(summary: HostSummary, level: str) -> None:
    """A quick look's summary: says it is a first look and advises the full analysis (never sealing)."""
    words = {"balanced": "looks balanced", "lopsided": "looks lopsided"}.get(summary.verdict, "not decided")
    summary.headline = f"First look: {words}{level}"
    summary.lines.insert(0, "This was a quick first look: weaker computer players and fewer games than the full "
                            "analysis, so the full analysis may judge the board differently.")
    if summary.verdict == "balanced":
        summary.next_step = f"Before sealing, run the full analysis: {FULL_RUN}."
    elif summary.verdict == "lopsided":
        summary.next_step = f"{summary.next_step.removesuffix('.')}; or, to confirm first, {FULL_RUN}."


def _finish(summary: HostSummary, report: AnalysisReport, played_by: str, pie_rule: bool) -> HostSummary:
    if played_by:
        summary.lines.append(played_by)
    summary.warnings = [plain(w) for w in report.warnings]
    summary.raw_line = raw_meaning(report, pie_rule)
    return summary


_TERMS: tuple[tuple[str, str], ...] = (
    (r"\bS1\b", FIRST), (r"\bS2\b", SECOND), (r"raw seat advantage", "no swap"),
    (r"the last-mover tie rule", "the tie rule (the last player to place wins a tie)"),
    (r"\bpie rule\b", "swap (pie) rule"), (r"\bagents\b", "computer players"),
    (r"\[(\d+)-(\d+)%\]", r"(likely \1-\2%)"),
)


def plain(text: str) -> str:
    """An engine warning in a host's words (no seat codes or bracketed intervals)."""
    for pattern, replacement in _TERMS:
        text = re.sub(pattern, replacement, text)
    return text[:1].upper() + text[1:]


def raw_meaning(report: AnalysisReport, pie_rule: bool = True) -> str:
    """The one line under the no-swap chart."""
    found = raw_rate(report)
    if found is None:
        return ""
    rate, ci, games = found.rate, found.ci, found.games
    text = f"Without a swap, {FIRST} wins {with_range(rate, ci)} of {games} games. "
    if not pie_rule:
        return text + "This board is played without the swap rule, so this is the real first-move advantage."
    low, high = ci
    if low > 0.5:
        lean = "The first move is favoured, as on most boards"
    elif high < 0.5:
        lean = "Here the second player is favoured"
    else:
        lean = "Neither side is clearly favoured"
    if report.verdict == "lopsided":  # the verdict says the swap cannot even it: never claim that it does
        return text + (f"{lean}; this rate without a swap is not the verdict, which says whether the swap rule can "
                       "even the game out.")
    return text + f"{lean}; the swap rule is what evens a board out, so this is not the verdict."


# -- heatmaps -------------------------------------------------------------------------------------
def heatmaps(report: AnalysisReport, size: int) -> dict[str, FloatGrid]:
    """The report's per-cell maps scaled to 0..1, keyed by the label the selector shows (none for another size)."""
    import numpy as np

    out: dict[str, FloatGrid] = {}
    if report.size != size:
        return out
    for grid, label in ((report.coverage_s1, COVERAGE_FIRST), (report.coverage_s2, COVERAGE_SECOND),
                        (report.survival, SURVIVAL)):
        if grid.shape != (size, size):
            continue
        finite = grid[np.isfinite(grid)]
        top = float(finite.max()) if finite.size else 0.0
        arr = grid / top if top > 1.0 else grid
        out[label] = np.clip(arr, 0.0, 1.0)  # NaN (no data) stays NaN and is drawn plain
    opening_values = opening_map(report, size)
    if opening_values is not None:
        out[OPENINGS] = opening_values
    return out


def opening_map(report: AnalysisReport, size: int) -> FloatGrid | None:
    """Per cell: the mean first-mover win rate over the tested openings that cover it (the swap map)."""
    import numpy as np

    total = np.zeros((size, size))
    count = np.zeros((size, size))
    for op in report.pie.openings:
        if not op.games:
            continue
        for c in op.cells:
            if 0 <= c < size * size:
                r, col = divmod(c, size)
                total[r, col] += op.v
                count[r, col] += 1
    if not count.any():
        return None
    with np.errstate(invalid="ignore", divide="ignore"):
        result: FloatGrid = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    return result


def parse_agents(text: str) -> list[str]:
    """``greedy + mcts:1000`` or ``greedy, mcts:1000`` -> ``["greedy", "mcts:1000"]`` (checked by the engine)."""
    head = text.split("(")[0]
    parts = [p.strip() for p in re.split(r"[+,]|\s+and\s+", head) if p.strip()]
    return [p for part in parts for p in part.split()]
