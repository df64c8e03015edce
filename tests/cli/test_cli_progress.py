"""``lits analyze``'s progress on a terminal: one bar over the whole run, the ETA never cut at 80 columns, and the
compile's lines on lines of their own (a cold install's first line is the compile, never "loading the compiled
agents" before anything is compiled)."""

from __future__ import annotations

import io
import re

from core.analysis.config import AnalysisProgress
from core.cli.analyze import _Bars

CELLS = "A1 B1 C1 D1"


def cold_run() -> list[AnalysisProgress]:
    """The reports of a first run after installing: start, the compile, then the stages with their counters."""
    steps = [AnalysisProgress("start", 0, 1, "starting the worker processes")]
    steps += [AnalysisProgress("compile", d, 79, "compiling the engine (once, about 100 s)", None) for d in (5, 40)]
    steps.append(AnalysisProgress("compile", 79, 79, "the engine is compiled (96 s); the analysis starts now"))
    share = 0.0
    for phase, total, message in (("screen", 16, "screening 1976 openings"),
                                  ("raw", 40, "club: raw seat advantage (same agent both seats)"),
                                  ("mirror", 10, "club: mirror probe (S2 answers with the 180-degree image)"),
                                  ("pie", 400, f"club: 3 openings started (at most 28), playing {CELLS} (fair so far: "
                                               "1 of 3 needed) and a very long tail of words to fill the line")):
        for done in range(0, total + 1, max(1, total // 4)):
            share = min(0.99, share + 0.04)
            steps.append(AnalysisProgress(phase, done, total, message, 130.0 - 100 * share, share))
    steps.append(AnalysisProgress("done", 1, 1, "verdict: balanced", 0.0, 1.0))
    return steps


def terminal(columns: int) -> tuple[_Bars, io.StringIO]:
    out = io.StringIO()
    return _Bars(enabled=True, stream=out, columns=columns), out


def frames(text: str) -> list[str]:
    """What the terminal shows after each write: the text between carriage returns and newlines."""
    return [f for f in re.split(r"[\r\n]", text) if f.strip()]


def test_one_bar_over_the_whole_run_that_only_moves_forward() -> None:
    bars, out = terminal(80)
    for p in cold_run():
        bars(p)
    bars.close()
    shown = [int(m.group(1)) for f in frames(out.getvalue()) if "·" in f and (m := re.match(r"\s*(\d+)%\|", f))]
    assert len(shown) > 10
    assert shown == sorted(shown), shown  # the stage counters restart; the bar does not


def test_the_eta_is_never_cut_at_80_columns() -> None:
    bars, out = terminal(80)
    for p in cold_run():
        bars(p)
    bars.close()
    run_frames = [f for f in frames(out.getvalue()) if "·" in f]
    assert run_frames
    for f in run_frames:
        assert len(f.rstrip()) <= 80, f
        assert re.search(r"\| (about \d+ (s|min) left|done) · ", f), f


def test_a_cold_install_announces_the_compile_first_on_lines_of_its_own() -> None:
    bars, out = terminal(80)
    for p in cold_run():
        bars(p)
    bars.close()
    text = out.getvalue()
    assert "loading the compiled" not in text
    for line in ("compiling the engine (once, about 100 s); the analysis and any --time cap start once it is ready",
                 "the engine is compiled (96 s); the analysis starts now"):
        before, found, _after = text.partition(line + "\n")
        assert found, text
        assert before == "" or before.endswith("\n") or before.split("\n")[-1].split("\r")[-1] == "", before[-120:]
    assert frames(text)[0].endswith("| Starting the computer players")  # nothing said about compiled agents
