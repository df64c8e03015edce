"""Measure the designer as a user meets it, in a fresh process: start-up, the first Play-test, the first Analyse
and the pauses of the event loop during the start-up warm-up and during an analysis with the panel's default
settings (from Analyse until the charts are shown).

    python tests/gui/designer_probe.py [--skip-analysis] [--board FILE] [--stalls] [--without FIX,...]
    python tests/gui/designer_probe.py --cold [--stalls]

``--cold`` measures the first start after installing instead: numba's cache goes to an empty temporary folder,
so the engine is compiled (2-3 minutes), and a Play-test is asked for at once and waits for it; the figures are the
gaps from then until the play-test window has been open for two seconds, the last ten seconds of the wait
(the end of the compile and the loading after it) separately.

Prints one JSON line. A 10 ms QTimer ticks throughout; every gap between two ticks is a time the window could
not react: the figures give the longest gap, the 99th percentile and how many exceeded 50 ms, per phase, with
the load average (the machine is shared: compare runs made at similar load). Used by
``tests/gui/test_designer_freezes.py``; run by hand for the figures in docs/designer.md. Settings and app data go to a
temporary folder.

``--stalls`` explains every gap over 30 ms on stderr: the GUI thread's own CPU time in it, its wait for a CPU,
the rest (blocked, mostly on the GIL), slow garbage collections, and stack samples of every thread.
``--without`` switches fixes off to measure what each one is worth: ``nice`` (the analysis workers and the
chart process run at the window's priority), ``coalesce`` (every progress report of the engine is a signal),
``chart-process`` (the charts are drawn on a thread of the window's process, as before), ``gc-freeze`` (the
warm-up neither pauses the collector nor freezes what it loaded), or ``all``.
"""

from __future__ import annotations

import time

STARTED = time.monotonic()

import argparse  # noqa: E402  (the clock starts before any import)
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from typing import Any  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)  # the checkout this script is in, not an installed copy of the designer

if not os.environ.get("QT_QPA_PLATFORM"):
    os.environ["QT_QPA_PLATFORM"] = "offscreen"


class Gaps:
    """Every wait between ticks of a 10 ms timer, per phase: the longest one and the 99th percentile."""

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.last = time.monotonic()
        self.gaps: list[float] = []
        self.times: list[float] = []
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self.tick)
        self.timer.start()
        self.on_tick: list[object] = []

    @property
    def longest(self) -> float:
        return max(self.gaps, default=0.0)

    @property
    def ticks(self) -> int:
        return len(self.gaps)

    def percentile(self, q: float) -> float:
        if not self.gaps:
            return 0.0
        ordered = sorted(self.gaps)
        return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]

    def over(self, seconds: float) -> int:
        return sum(g > seconds for g in self.gaps)

    def tick(self) -> None:
        now = time.monotonic()
        gap = now - self.last
        self.gaps.append(gap)
        self.times.append(now)
        for hook in self.on_tick:
            hook(self.last, now)  # type: ignore[operator]
        self.last = now

    def reset(self) -> None:
        self.last = time.monotonic()
        self.gaps = []
        self.times = []

    @staticmethod
    def split(gaps: Gaps, until: float) -> Gaps:
        """A copy of ``gaps`` holding only the ticks up to ``until`` (not ticking itself)."""
        part = Gaps.__new__(Gaps)
        part.gaps = [g for g, t in zip(gaps.gaps, gaps.times, strict=True) if t <= until]
        part.times = [t for t in gaps.times if t <= until]
        return part

    def figures(self, prefix: str) -> dict[str, object]:
        return {f"{prefix}_max_s": round(self.longest, 3), f"{prefix}_p99_s": round(self.percentile(99), 3),
                f"{prefix}_over_50ms": self.over(0.05), f"{prefix}_ticks": self.ticks}


class StallWatch:
    """Why the loop stalled (``--stalls``): for every gap over ``threshold`` the GUI thread's CPU time, its wait
    for a CPU (Linux schedstat) and the rest (blocked: the GIL, a lock, the sleep), plus stack samples of every
    thread taken by a watchdog thread while the gap lasts."""

    def __init__(self, gaps: Gaps, threshold: float = 0.03) -> None:
        import threading

        self.threshold = threshold
        self.gaps = gaps
        self.main_ident = threading.get_ident()
        self.main_tid = threading.get_native_id()
        self.stat_path = f"/proc/self/task/{self.main_tid}/schedstat"
        self.samples: dict[float, list[str]] = {}
        self.watch_late: list[tuple[float, int, str]] = []
        self.stalls: list[dict[str, Any]] = []
        self.last_stat = self._stat()
        self.active = True
        self.collections: list[tuple[float, float, int]] = []  # (start, seconds, generation) of each slow gc
        self.collectors: list[str] = []
        """The thread and the code each slow collection ran in."""
        self._gc_start = 0.0
        import gc

        gc.callbacks.append(self._gc)
        gaps.on_tick.append(self._tick)
        self.thread = threading.Thread(target=self._watch, name="stall-watch", daemon=True)
        self.thread.start()

    def causes(self, since: float, over: float = 0.05) -> dict[str, int]:
        """Stalls longer than ``over`` since ``since`` by what took most of them: the GUI thread's own work
        (``gui_busy``), waiting for a CPU (``cpu_wait``: other processes) or blocked (``blocked``: the GIL or a
        lock held by another thread)."""
        out = {"gui_busy": 0, "cpu_wait": 0, "blocked": 0}
        for stall in self.stalls:
            if stall["start"] >= since and stall["gap_ms"] > over * 1000:
                parts = {"gui_busy": stall["gui_cpu_ms"], "cpu_wait": stall["runqueue_ms"],
                         "blocked": stall["blocked_ms"]}
                out[max(parts, key=lambda k: int(parts[k]))] += 1
        return out

    def _gc(self, phase: str, info: dict[str, int]) -> None:
        now = time.monotonic()
        if phase == "start":
            self._gc_start = now
        elif now - self._gc_start > 0.005:
            import threading
            import traceback

            stack = traceback.extract_stack()[:-1]
            ours = [f for f in stack if f.filename.startswith(REPO)]
            where = stack[-3:] + ours[-4:]  # the innermost frames, then the project's own that led there
            self.collections.append((self._gc_start, now - self._gc_start, info["generation"]))
            who = "GUI" if threading.get_ident() == self.main_ident else "worker"
            self.collectors.append(who + ": " + " < ".join(
                f"{f.name}@{f.filename.rsplit('/', 1)[-1]}:{f.lineno}" for f in where))

    def _stat(self) -> tuple[int, int]:
        try:
            with open(self.stat_path) as f:
                cpu, wait, _ = f.read().split()
            return int(cpu), int(wait)
        except OSError:
            return 0, 0

    def _tick(self, start: float, now: float) -> None:
        stat = self._stat()
        cpu, wait = (stat[0] - self.last_stat[0]) / 1e9, (stat[1] - self.last_stat[1]) / 1e9
        self.last_stat = stat
        gap = now - start
        if gap > self.threshold:
            self.stalls.append({"start": start, "at": round(start - STARTED, 2), "gap_ms": round(gap * 1000),
                                "gui_cpu_ms": round(cpu * 1000), "runqueue_ms": round(wait * 1000),
                                "blocked_ms": round((gap - cpu - wait) * 1000),
                                "gc_ms": [(round(d * 1000), g) for t, d, g in self.collections if start <= t < now],
                                "samples": self.samples.pop(start, [])})
        self.samples.clear()

    def _watch(self) -> None:
        import sys
        import traceback

        period = 0.005
        expected = time.monotonic() + period
        while self.active:
            time.sleep(period)
            now = time.monotonic()
            lateness = now - expected
            late = lateness > 0.02
            expected = now + period
            start = self.gaps.last
            if not late and now - start <= self.threshold:
                continue
            lines = []
            for ident, frame in sys._current_frames().items():
                if ident == threading_ident():
                    continue
                where = traceback.extract_stack(frame)[-4:]
                name = "GUI" if ident == self.main_ident else str(ident)[-4:]
                lines.append(name + ": " + " < ".join(f"{f.name}@{f.filename.rsplit('/', 2)[-1]}:{f.lineno}"
                                                       for f in reversed(where)))
            if late:
                self.watch_late.append((round(now - STARTED, 2), round(lateness * 1000),
                                        " | ".join(lines)))
            else:
                self.samples.setdefault(start, []).append(f"+{(now - start) * 1000:.0f}ms " + " | ".join(lines))


def threading_ident() -> int:
    import threading

    return threading.get_ident()


FIXES = ("nice", "coalesce", "chart-process", "gc-freeze")


def switch_off(fixes: set[str]) -> None:
    """Undo the named fixes in this process (before the window starts its warm-up)."""
    import contextlib
    import gc

    from designer import warmup
    from designer.panels import analysis_charts, analysis_panel

    if "nice" in fixes:
        analysis_panel.HELPER_NICE = 0  # type: ignore[attr-defined,misc]
        analysis_charts.CHART_PROCESS.nice = 0
    if "gc-freeze" in fixes:
        warmup.imports = contextlib.nullcontext  # type: ignore[assignment]
        gc.freeze = lambda: None
    if "chart-process" in fixes:
        from core.analysis.results import AnalysisReport, ChartData
        from designer.panels.chart_process import draw_figures

        def in_thread(report: AnalysisReport, width_px: int, dpr: float, dark: bool) -> analysis_charts.Charts:
            width_px = max(analysis_charts.MIN_WIDTH, width_px)
            data = ChartData.of(report)
            images = []
            for fig in draw_figures(data, width_px, dpr, dark):
                buffer = fig.canvas.buffer_rgba()  # type: ignore[attr-defined]
                images.append(analysis_charts.to_image(buffer.shape[1], buffer.shape[0], bytes(buffer), dpr))
            return analysis_charts.Charts(width_px, dark, dpr, images, os.getpid(), data)

        analysis_charts.render_charts = in_thread  # type: ignore[assignment]
        analysis_charts.CHART_PROCESS.prepare = lambda: None  # type: ignore[method-assign]


def thread_cpu() -> dict[int, float]:
    """CPU seconds of each thread of this process so far (Linux; empty elsewhere)."""
    out: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(tid)] = (int(fields[11]) + int(fields[12])) / tick
    return out


def cpu_by_thread(before: dict[int, float], after: dict[int, float]) -> dict[str, float]:
    """CPU seconds per thread between two :func:`thread_cpu` readings, named where Python knows the thread
    (the GUI thread is MainThread; threads Qt started for a QThreadPool show as their native id)."""
    import threading

    names = {t.native_id: t.name for t in threading.enumerate()}
    used = {tid: after[tid] - before.get(tid, 0.0) for tid in after}
    return {names.get(tid, str(tid)): round(sec, 2) for tid, sec in sorted(used.items(), key=lambda x: -x[1])
            if sec >= 0.01}


def niceness(pid: int) -> int | None:
    try:
        return os.getpriority(os.PRIO_PROCESS, pid)
    except (AttributeError, OSError):
        return None


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-analysis", action="store_true")
    parser.add_argument("--board", default=None)
    parser.add_argument("--idle", type=float, default=8.0, help="seconds to wait for the start-up warm-up")
    parser.add_argument("--stalls", action="store_true", help="explain every stall over 30 ms (to stderr)")
    parser.add_argument("--without", default="", help=f"fixes to switch off: {', '.join(FIXES)} or all")
    parser.add_argument("--cold", action="store_true",
                        help="the first start after installing (an empty compile cache) with a play-test waiting")
    args = parser.parse_args()
    without = set(FIXES) if args.without == "all" else {f for f in args.without.split(",") if f}
    if without - set(FIXES):
        parser.error(f"unknown fix {sorted(without - set(FIXES))}; choose from {', '.join(FIXES)} or all")
    tmp = tempfile.mkdtemp(prefix="lits-probe-")
    os.environ["LITS_BOARD_STUDIO_DATA"] = tmp
    if args.cold:
        os.environ["NUMBA_CACHE_DIR"] = os.path.join(tmp, "numba-cache")  # before anything imports numba

    from PySide6.QtCore import QCoreApplication, QSettings
    from PySide6.QtWidgets import QApplication

    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tmp)
    QCoreApplication.setOrganizationName("LITS Board Studio probe")
    QCoreApplication.setApplicationName("lits-designer")
    app = QApplication(["lits-designer"])
    from designer.app import create_window
    from designer.main_window import MainWindow

    switch_off(without)
    window = create_window(args.board)
    assert isinstance(window, MainWindow)
    window.resize(1000, 700)
    window.show()
    app.processEvents()
    window.grab()
    result: dict[str, object] = {"warm_start_s": round(time.monotonic() - STARTED, 3),
                                 "without": sorted(without)}
    geo = window.view.geometry_
    result["cell_px_1000x700"] = round(geo.cell, 1) if geo is not None else None

    def spin(seconds: float, until: object = None) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end and not (callable(until) and until()):
            app.processEvents()
            time.sleep(0.002)

    from designer import warmup

    gaps = Gaps()
    watch = StallWatch(gaps) if args.stalls else None
    if args.cold:
        return cold_start(window, gaps, watch, spin, result)
    spin(args.idle, warmup.done.is_set)
    spin(0.5)
    result["warmup_done"] = warmup.done.is_set()
    result["longest_gap_during_warmup_s"] = round(gaps.longest, 3)
    result.update(gaps.figures("warmup_gap"))
    result["matplotlib_in_window_process"] = "matplotlib" in sys.modules
    if watch is not None:
        result["warmup_stalls_over_50ms_by_cause"] = watch.causes(0.0)
    gaps.reset()
    spin(3.0)  # the machine's own noise: the longest gap of an idle window
    result["longest_gap_idle_s"] = round(gaps.longest, 3)
    result.update(gaps.figures("idle_gap"))

    t0 = time.monotonic()
    playtest = window.playtest()
    app.processEvents()
    result["first_playtest_block_s"] = round(time.monotonic() - t0, 3)
    if playtest is not None:
        playtest.close()
    spin(0.3)

    if not args.skip_analysis:
        import multiprocessing

        from designer.panels.analysis_charts import CHART_PROCESS

        panel = window.analysis
        priorities: dict[str, object] = {}

        def note_priorities() -> bool:
            """Once games are being played: how far below the window the worker processes run."""
            progress = panel.last_progress
            if "workers" not in priorities and progress is not None and getattr(progress, "phase", "") == "raw":
                charts = CHART_PROCESS.pids()
                workers = [p.pid for p in multiprocessing.active_children() if p.pid not in charts]
                priorities["workers"] = [niceness(pid) for pid in workers if pid is not None]
                priorities["charts"] = [niceness(pid) for pid in charts]
                priorities["window"] = niceness(os.getpid())
            return not panel.running

        gaps.reset()
        cpu_before = thread_cpu()
        t0 = time.monotonic()
        window.analyse_action.trigger()
        result["first_analyse_block_s"] = round(time.monotonic() - t0, 3)
        spin(1800, note_priorities)
        games = Gaps.split(gaps, panel.finished_at)
        spin(120, panel.charts_ready)
        spin(0.3)
        result["analysis_s"] = round(time.monotonic() - t0, 1)
        result["longest_gap_during_analysis_s"] = round(gaps.longest, 3)
        result.update(gaps.figures("analysis_gap"))
        result.update(games.figures("games_gap"))
        if watch is not None:
            result["analysis_stalls_over_50ms_by_cause"] = watch.causes(t0)
        result["nice"] = priorities
        result["cpu_s_by_thread"] = cpu_by_thread(cpu_before, thread_cpu())
        result["ticks"] = gaps.ticks
        result["verdict"] = getattr(panel.report, "verdict", None)
        result["settings"] = [panel.agent_spec(), panel.time_limit.value(), panel.quick.isChecked()]
        result["out_of_time"] = bool(panel.report is not None and panel.report.budget.stopped_by_time)
        result["matplotlib_in_window_process"] = "matplotlib" in sys.modules
    if watch is not None:
        watch.active = False
        for stall in watch.stalls:
            stall.pop("start")
            print(json.dumps(stall), file=sys.stderr)
        print("slow collections (at s, ms, generation):",
              [(round(t - STARTED, 2), round(d * 1000), g) for t, d, g in watch.collections], file=sys.stderr)
        for late in watch.watch_late:
            print("watchdog late (at s, ms, threads):", *late, file=sys.stderr)
    result["load_avg"] = [round(x, 2) for x in os.getloadavg()]
    window.document.undo_stack.setClean()
    window.close()
    print(json.dumps(result), flush=True)
    return 0


def cold_start(window: Any, gaps: Gaps, watch: StallWatch | None, spin: Any, result: dict[str, object]) -> int:
    """``--cold``: a Play-test asked for at once waits for the first compile; measure until it has been open 2 s."""
    from designer import warmup

    t0 = time.monotonic()
    starter = window.playtest()
    compile_end: list[float] = []

    def opened() -> bool:
        if not compile_end and warmup.done.is_set():
            compile_end.append(time.monotonic())
        return getattr(starter, "playtest", starter) is not None and warmup.done.is_set()

    spin(1800, opened)
    opened_at = time.monotonic()
    spin(2.0)
    result["cold_compiled"] = warmup.done.is_set()
    result["cold_wait_s"] = round(opened_at - t0, 1)
    result.update(gaps.figures("cold_gap"))
    tail = Gaps.__new__(Gaps)
    pairs = [(g, t) for g, t in zip(gaps.gaps, gaps.times, strict=True) if t >= opened_at - 10.0]
    tail.gaps, tail.times = [g for g, _t in pairs], [t for _g, t in pairs]
    result.update(tail.figures("cold_end_gap"))
    if watch is not None:
        result["cold_stalls_over_50ms_by_cause"] = watch.causes(t0)
        watch.active = False
        for stall in watch.stalls:
            stall.pop("start")
            print(json.dumps(stall), file=sys.stderr)
        print("slow collections (at s, ms, generation, thread):",
              [(round(t - STARTED, 2), round(d * 1000), g, who)
               for (t, d, g), who in zip(watch.collections, watch.collectors, strict=True)], file=sys.stderr)
    result["load_avg"] = [round(x, 2) for x in os.getloadavg()]
    window.document.undo_stack.setClean()
    window.close()
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
