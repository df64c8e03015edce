"""Markdown balance report with PNG charts beside it (matplotlib, Agg backend, no window system).

The pictures are what hosts look at first: where each seat covers, which symbols
survive, which first placements keep the game even, and each win rate against the
fair band.  The designer draws its own pictures from the same report object.
"""

from __future__ import annotations

import io
import math
import os
from pathlib import Path

import numpy as np

from core.analysis.results import AnalysisReport, pct
from core.board.fileio import atomic_write_bytes, atomic_write_text
from core.board.geometry import cell_name, column_name
from core.board.model import Board, Symbol


def check_report_path(path: str) -> None:
    """Fail before a long analysis when the report could not be written."""
    p = Path(path)
    if p.suffix.lower() not in (".md", ".markdown"):
        raise ValueError(f"{path}: the report is Markdown; give a file name ending in .md")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"{path}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise ValueError(f"{path}: folder {parent} is not writable")


def _png(fig: object) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")  # type: ignore[attr-defined]
    return buf.getvalue()


def _symbols(ax: object, board: Board) -> None:
    n = board.size
    for cell, s in enumerate(board.cells):
        if s is not Symbol.EMPTY:
            r, c = divmod(cell, n)
            ax.text(c, r, s.value, ha="center", va="center", fontsize=7, color="black")  # type: ignore[attr-defined]


def _axes(ax: object, n: int) -> None:
    ax.set_xticks(range(n))  # type: ignore[attr-defined]
    ax.set_xticklabels([column_name(c) for c in range(n)], fontsize=6)  # type: ignore[attr-defined]
    ax.set_yticks(range(n))  # type: ignore[attr-defined]
    ax.set_yticklabels([str(r + 1) for r in range(n)], fontsize=6)  # type: ignore[attr-defined]


def heatmap_png(grids: list[tuple[str, np.ndarray]], board: Board, cmap: str = "viridis",
                vmin: float = 0.0, vmax: float = 1.0) -> bytes:
    """Side-by-side per-cell heatmaps with the board's symbols drawn on top."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(grids), figsize=(4.2 * len(grids), 4.0), squeeze=False)
    for ax, (title, grid) in zip(axes[0], grids, strict=True):
        im = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=vmin, vmax=vmax)
        ax.set_title(title, fontsize=9)
        _axes(ax, board.size)
        _symbols(ax, board)
        fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    data = _png(fig)
    plt.close(fig)
    return data


def openings_png(report: AnalysisReport, board: Board) -> bytes:
    """The swap map: each tested opening's cells coloured by v, hatched while undecided."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    n = board.size
    fig, ax = plt.subplots(figsize=(5.2, 5.0))
    ax.imshow(np.zeros((n, n)), cmap="Greys", vmin=0, vmax=1)
    cmap = plt.get_cmap("coolwarm")
    for o in report.pie.openings:
        if not o.games:
            continue
        for cell in o.cells:
            r, c = divmod(cell, n)
            ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, facecolor=cmap(o.v), edgecolor="black", lw=0.6,
                                   hatch="//" if o.status == "undecided" else None, alpha=0.85))
        r, c = divmod(o.cells[0], n)
        ax.text(c, r, f"{100 * o.v:.0f}", ha="center", va="center", fontsize=6, color="black", weight="bold")
    _axes(ax, n)
    _symbols(ax, board)
    ax.set_title(f"tested openings ({report.pie.agent}): S1 win % (blue low, red high; hatched undecided)",
                 fontsize=8)
    from matplotlib.colors import Normalize

    sm = plt.cm.ScalarMappable(cmap=cmap, norm=Normalize(0, 1))
    fig.colorbar(sm, ax=ax, fraction=0.046, pad=0.04)
    data = _png(fig)
    plt.close(fig)
    return data


def winrates_png(report: AnalysisReport) -> bytes:
    """Every win rate with its 95% interval against the fair band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows: list[tuple[str, float, float, float]] = []
    for name, res in report.per_agent.items():
        if res.raw.games:
            lo, hi = res.raw.ci95
            rows.append((f"raw S1, {name}", res.raw.s1_win_rate, lo, hi))
    for o in report.pie.openings:
        if o.games:
            lo, hi = o.ci95
            rows.append((f"after {' '.join(o.names)}", o.v, lo, hi))
    fig, ax = plt.subplots(figsize=(6.5, 0.35 * len(rows) + 1.2))
    cfg = report.config
    ax.axvspan(cfg.fair_low, cfg.fair_high, color="#cfe8cf", label="fair band")
    for i, (_label, v, lo, hi) in enumerate(rows):
        ax.errorbar([v], [i], xerr=[[v - lo], [hi - v]], fmt="o", color="black", capsize=3)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r[0] for r in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("P(S1 wins) with 95% Wilson interval")
    ax.legend(fontsize=7, loc="lower right")
    data = _png(fig)
    plt.close(fig)
    return data


def margins_png(report: AnalysisReport) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.0, 3.2))
    for name, res in report.per_agent.items():
        m = res.raw.margins
        if m:
            bins = [b - 0.5 for b in range(min(m), max(m) + 2)]
            ax.hist(m, bins=bins, alpha=0.55, label=f"{name} ({len(m)} games)")
    ax.axvline(0, color="black", lw=0.8)
    ax.set_xlabel("score margin S1 - S2 (0 = level, decided by the last-mover rule)")
    ax.set_ylabel("games")
    ax.legend(fontsize=7)
    data = _png(fig)
    plt.close(fig)
    return data


def _fmt(x: float | None, digits: int = 2) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:.{digits}f}"


def markdown(report: AnalysisReport, board: Board, images: dict[str, str]) -> str:
    """The report text; ``images`` maps chart keys to file names relative to the report."""
    cfg = report.config
    title = report.board_name or "board"
    out = [f"# Balance analysis: {title}", ""]
    out.append(f"**Verdict: {report.verdict}** (decided by `{report.agent}`; seed {cfg.seed}"
               f"{'; quick mode' if cfg.quick else ''}; {report.elapsed:.0f} s)")
    out.append("")
    out += [f"- {r}" for r in report.reasons]
    if report.warnings:
        out += ["", "## Warnings", ""] + [f"- {w}" for w in report.warnings]
    pie = report.pie
    out += ["", "## Pie rule (the verdict)", "",
            f"A board is balanced when at least {cfg.min_fair_openings} distinct first placements keep "
            f"P(S1 wins) within {pct(cfg.fair_low)}-{pct(cfg.fair_high)}, shown by two one-sided SPRTs "
            "(alpha = beta = 0.05). Every opening was screened with a short search; candidates were then played "
            f"out with `{pie.agent}`, moving towards 50% after each result.", "",
            f"Pie value {_fmt(pie.value)} (0.50 is perfect); {len(pie.fair)} fair of {pie.tested} tested; "
            f"{pie.screened} openings screened.", "",
            "| opening | S1 wins | 95% interval | games | status | screen | second player swaps |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    for o in pie.openings:
        lo, hi = o.ci95
        swap = pct(o.swaps / o.games) if o.games else "n/a"
        status = o.status + (" (given up)" if o.abandoned else "")
        out.append(f"| {' '.join(o.names)} | {pct(o.v)} | {pct(lo)}-{pct(hi)} | {o.games} | {status} | "
                   f"{pct(o.screen_v)} | {swap} |")
    out += ["", "## Raw seat advantage (information, not the verdict)", "",
            f"Same agent in both seats, S1 = {report.s1_symbol} places first, no swap.", "",
            "| agent | games | S1 wins | 95% interval | SPRT | tie-break share | mean margin [95%] | length | "
            "legal per turn | mirror probe wins | verdict |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, res in report.per_agent.items():
        raw = res.raw
        lo, hi = raw.ci95
        m = raw.margin
        out.append(f"| {name} | {raw.games} | {pct(raw.s1_win_rate)} | {pct(lo)}-{pct(hi)} | {raw.sprt} | "
                   f"{pct(raw.tie_break_share)} | {_fmt(m.mean)} [{_fmt(m.low)}, {_fmt(m.high)}] | "
                   f"{_fmt(raw.mean_length, 1)} | {_fmt(raw.legal_per_turn, 0)} | "
                   f"{pct(raw.mirror_win_rate) if raw.mirror_games else 'n/a'} of {raw.mirror_games} | "
                   f"{res.verdict} |")
    raw = report.raw
    out += ["", f"Type run-out ({raw.agent}): " + ", ".join(f"{t} {pct(v)}" for t, v in raw.runout.items())
            + f". The second player would swap in {pct(raw.swaps / raw.games) if raw.games else 'n/a'} of games"
            f"; {raw.distinct_games} distinct games of {raw.games}."]
    if raw.common_openings:
        out.append("Most common openings (games, second player swaps): "
                   + "; ".join(f"{' '.join(c)} ({n}, swaps {pct(k / n)})" for c, n, k in raw.common_openings) + ".")
    captions = {
        "winrates": "Win rates against the fair band",
        "openings": "Tested openings (swap map)",
        "coverage": "Coverage by seat",
        "seatdiff": "Move-order effect (S1 against S2 rotated)",
        "survival": "Symbol survival",
        "margins": "Score margins",
    }
    out += ["", "## Charts", ""]
    for key, caption in captions.items():
        if key in images:
            out += [f"### {caption}", "", f"![{caption}]({images[key]})", ""]
    out += ["", f"Board: {board.size}x{board.size}, cells named {cell_name(0, board.size)} (top-left) to "
            f"{cell_name(board.size * board.size - 1, board.size)}. Agents: {', '.join(cfg.agents)}."]
    return "\n".join(out) + "\n"


def write_report(report: AnalysisReport, path: str, board: Board) -> list[str]:
    """Write the Markdown file and its PNG charts (``<stem>-<chart>.png`` beside it); returns the paths."""
    p = Path(path)
    stem = p.stem
    n = board.size
    rot = np.rot90(report.coverage_s2, 2)
    charts: dict[str, bytes] = {
        "winrates": winrates_png(report),
        "openings": openings_png(report, board),
        "coverage": heatmap_png([("covered by S1's pieces", report.coverage_s1),
                                 ("covered by S2's pieces", report.coverage_s2)], board),
        "seatdiff": heatmap_png([("S1 coverage minus S2's rotated 180 degrees", report.coverage_s1 - rot)], board,
                                cmap="coolwarm", vmin=-0.5, vmax=0.5),
        "survival": heatmap_png([("symbol survives (share of games)", report.survival)], board, cmap="magma"),
        "margins": margins_png(report),
    }
    assert report.coverage_s1.shape == (n, n)
    written: list[str] = []
    images: dict[str, str] = {}
    for key, data in charts.items():
        name = f"{stem}-{key}.png"
        target = p.with_name(name)
        atomic_write_bytes(target, data)
        written.append(str(target))
        images[key] = name
    atomic_write_text(p, markdown(report, board, images))
    written.insert(0, str(p))
    return written
