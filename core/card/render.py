"""The card a host posts: one picture (PNG or SVG) and a Markdown page, both from the card's JSON alone.

Every sentence comes from :func:`card_lines`, so the picture, the page and ``lits card``'s text say the same
figures in the same words.  matplotlib's object API only (no ``pyplot``), imported on first use, as in
``core.analysis.charts``.
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.board.fileio import atomic_write_bytes, atomic_write_text
from core.board.geometry import column_name
from core.board.model import Board, Symbol
from core.card.figures import COMPARED, recompute_command

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FORMATS = (".png", ".svg", ".md")
OPENING_COLOURS = ("#1f77b4", "#d62728", "#2ca02c")
"""The drawn openings' outlines, in the order the card lists them."""
VERDICT_COLOURS = {"balanced": "#2e7d32", "lopsided": "#c62828", "inconclusive": "#8d6e00"}


@dataclass(frozen=True)
class Line:
    """One sentence of the card under its heading; ``key`` names the figure it says (for tests and the page)."""

    heading: str
    key: str
    text: str


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.0f}%"


def interval(ci: Sequence[float | None]) -> str:
    low, high = ci
    if low is None or high is None:
        return "[n/a]"
    return f"[{100 * low:.0f}-{100 * high:.0f}%]"


def number(x: float | None, digits: int) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


def one_in(x: float | None) -> str:
    return "never" if x is None else f"{x:.0f}"


def measured_words(card: dict[str, Any]) -> str:
    m = card["measured_at"]
    commit = f", commit {m['commit']}" if m.get("commit") else ""
    return f"effort {m['effort']}, seed {m['seed']}, lits {m['version']}{commit}"


def card_lines(card: dict[str, Any]) -> list[Line]:
    """The card's figures in a host's words, in the order the picture and the page show them."""
    v = card["verdict"]
    judges = f" (checked by {' and '.join(v['judges'])})" if v["judges"] else ""
    fair = f"{v['fair']} fair first placement{'s' if v['fair'] != 1 else ''} of {v['tested']} tested"
    undisputed = v.get("undisputed", v["fair"])
    if v.get("engines_disagree"):
        fair = f"strong engines disagree: {fair}, each disputed by a judge"
    elif v["judges"] and undisputed < v["fair"]:
        fair += f", {undisputed} undisputed by every judge"
    lines = [Line("Verdict", "verdict", f"{v['verdict'].upper()} for {v['strength']} play{judges}: {fair}")]
    s = card["skill"]
    weak_one_in = one_in(s["upset_one_in"])
    upset = ("the weaker player never won" if s["upset_one_in"] is None else
             f"the weaker player wins about 1 game in {weak_one_in} "
             f"[{one_in(s['upset_one_in_ci95'][0])}-{one_in(s['upset_one_in_ci95'][1])}]")
    lines.append(Line("Skill", "skill",
                      f"{s['strong']} scores {pct(s['score'])} {interval(s['ci95'])} against {s['weak']} over "
                      f"{s['games']} games (seats swapped, pie rule as each plays it): {upset}"))
    f = card["fairness"]
    what = "fair openings" if f["drawn"] == "fair" else "openings nearest to even (none was shown fair)"
    means = ", ".join(f"{level} {pct(f['mean_s1_rate'][level])}" for level in f["levels"])
    lines.append(Line("Fairness across strengths", "fairness",
                      f"S1 wins after the {what}, mean at each strength: {means}"))
    for k, row in enumerate(f["openings"]):
        rates = ", ".join(f"{level} {pct(r['s1_rate'])} ({r['games']})" for level, r in row["rates"].items())
        lines.append(Line("Fairness across strengths", f"opening{k + 1}", f"{' '.join(row['cells'])}: {rates}"))
    g = card["game"]
    lines.append(Line("The game it gives", "placements",
                      f"{number(g['placements_per_game'], 1)} placements per game; {number(g['legal_per_turn'], 0)} "
                      f"legal placements to choose from per turn"))
    margin = number(g["margin"], 1)
    lines.append(Line("The game it gives", "tie_rule",
                      f"the tie rule decides {pct(g['tie_rule_share'])} of games; the winner leads by {margin} "
                      f"points on average"))
    runout = ", ".join(f"{t} {pct(x)}" for t, x in g["runout"].items())
    lines.append(Line("The game it gives", "runout", f"a piece type runs out in this share of games: {runout}"))
    fm = g["first_mover"]
    lines.append(Line("The game it gives", "first_mover",
                      f"without the pie rule the first mover wins {pct(fm['s1_rate'])} {interval(fm['ci95'])} "
                      f"({g['agent']}, {fm['games']} games)"))
    ref = card.get("reference") or {}
    for key, item in (ref.get("figures") or {}).items():
        _path, more, less = COMPARED[key]
        if item["below"] >= item["above"]:
            text = f"{more} than on {item['below']} of {item['boards']} reference boards"
        else:
            text = f"{less} than on {item['above']} of {item['boards']} reference boards"
        lines.append(Line("Against the reference boards", f"ref_{key}", text))
    if not ref.get("figures"):
        lines.append(Line("Against the reference boards", "ref_none", "no reference figures were available"))
    lines.append(Line("Measured at", "measured", measured_words(card)))
    return lines


def _draw_board(ax: Any, board: Board, card: dict[str, Any]) -> None:
    from matplotlib.patches import Rectangle

    n = board.size
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_aspect("equal")
    ax.set_xticks(range(n))
    ax.set_xticklabels([column_name(c) for c in range(n)], fontsize=7)
    ax.set_yticks(range(n))
    ax.set_yticklabels([str(r + 1) for r in range(n)], fontsize=7)
    ax.tick_params(length=0)
    for cell, sym in enumerate(board.cells):
        r, c = divmod(cell, n)
        ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, facecolor="#f7f4ec", edgecolor="#b0a890", lw=0.5))
        if sym is not Symbol.EMPTY:
            ax.text(c, r, sym.value, ha="center", va="center", fontsize=9, weight="bold",
                    color="#1a3c8c" if sym is Symbol.O else "#8c1a1a")
    for k, o in enumerate(card["verdict"]["drawn"]):
        colour = OPENING_COLOURS[k % len(OPENING_COLOURS)]
        for cell in o["cell_indices"]:
            r, c = divmod(int(cell), n)
            ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, facecolor=colour, alpha=0.35, edgecolor=colour,
                                   lw=1.6))
        r, c = divmod(int(o["cell_indices"][0]), n)
        ax.text(c - 0.38, r - 0.3, str(k + 1), fontsize=7, color=colour, weight="bold")


def wrapped(text: str) -> list[str]:
    """A sentence as the picture breaks it into lines."""
    import textwrap

    return textwrap.wrap(text, 92)


def card_figure(card: dict[str, Any], board: Board) -> Figure:
    """The whole card: the board with the drawn openings on the left, the verdict and the figures on the right."""
    from matplotlib.figure import Figure

    lines = card_lines(card)
    fig = Figure(figsize=(12.0, 6.6), dpi=100)
    fig.patch.set_facecolor("white")
    ax = fig.add_axes((0.03, 0.08, 0.4, 0.8))
    _draw_board(ax, board, card)
    name = card["board"].get("name") or card["board"].get("file") or "board"
    ax.set_title(f"{name} ({board.size}x{board.size})", fontsize=11)
    v = card["verdict"]
    fig.text(0.03, 0.94, v["verdict"].upper(), fontsize=20, weight="bold",
             color=VERDICT_COLOURS.get(v["verdict"], "black"))
    fig.text(0.03, 0.03, "numbered: the first placements the card plays at every strength", fontsize=8,
             color="0.35")
    y = 0.95
    heading = ""
    for line in lines:
        if line.heading != heading:
            heading = line.heading
            y -= 0.012
            fig.text(0.47, y, heading, fontsize=10.5, weight="bold")
            y -= 0.04
        for part in wrapped(line.text):
            fig.text(0.48, y, part, fontsize=8.5)
            y -= 0.03
    return fig


def figure_bytes(fig: Figure, fmt: str) -> bytes:
    """PNG or SVG; an SVG keeps its words as text (searchable, and read aloud by a screen reader)."""
    from matplotlib import rc_context

    buf = io.BytesIO()
    with rc_context({"svg.fonttype": "none"}):
        fig.savefig(buf, format=fmt, dpi=110 if fmt == "png" else 100)
    return buf.getvalue()


def markdown(card: dict[str, Any], picture: str | None = None, board_path: str = "BOARD.yaml") -> str:
    """The card as a Markdown page (``picture``: the PNG's file name beside it)."""
    name = card["board"].get("name") or card["board"].get("file") or "board"
    out = [f"# Board card: {name}", ""]
    if picture:
        out += [f"![the board card]({picture})", ""]
    heading = ""
    for line in card_lines(card):
        if line.heading != heading:
            heading = line.heading
            out += ["", f"## {heading}", ""]
        out.append(f"- {line.text}")
    m = card["measured_at"]
    out += ["", "## Recompute it", "",
            f"A card is a function of the board, its settings and the seed: `{recompute_command(card, board_path)}` "
            f"gives the same figures on any machine and any number of workers (board fingerprint "
            f"`{card['board']['fingerprint']}`; skill {m['skill']}, {m['skill_pairs']} pairs; "
            f"{m['level_games']} games per opening at each weaker level).", ""]
    return "\n".join(out)


def write_card(card: dict[str, Any], board: Board, path: str, board_path: str = "BOARD.yaml") -> list[str]:
    """Write the card as ``path`` says (.png, .svg or .md with its PNG beside it); the files written."""
    ext = os.path.splitext(path)[1].lower()
    if ext not in FORMATS:
        raise ValueError(f"{path}: the card is written as {', '.join(FORMATS)}, not {ext or 'a file without one'}")
    if ext == ".md":
        png = os.path.splitext(path)[0] + ".png"
        atomic_write_bytes(png, figure_bytes(card_figure(card, board), "png"))
        atomic_write_text(path, markdown(card, os.path.basename(png), board_path))
        return [png, path]
    atomic_write_bytes(path, figure_bytes(card_figure(card, board), ext[1:]))
    return [path]
