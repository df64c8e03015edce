"""One painter for the board: the editor canvas, PNG/SVG export, ``lits render`` and the play-test window.

Keeping a single drawing routine means a picture posted for a match shows
exactly what the host saw in the designer.  Symbols are glyphs (O ring, X
cross) and problems are outlined and hatched, so nothing depends on colour
alone.
"""

from __future__ import annotations

import functools
import itertools
import math
import os
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPoint, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QGuiApplication,
    QImage,
    QPaintEngine,
    QPainter,
    QPainterPath,
    QPen,
    QTransform,
)
from PySide6.QtSvg import QSvgGenerator

from core.analysis.palette import STATUS_STYLE
from core.board.fileio import atomic_write_bytes
from core.board.geometry import COLUMN_LETTERS
from core.board.model import Board, Symbol
from designer.canvas.openings import TAG_SLOTS, OpeningsLayer
from designer.canvas.sizes import MAX_PICTURE_PX, MIN_PICTURE_PX

THEMES: tuple[str, ...] = ("light", "dark")


@dataclass(frozen=True)
class Palette:
    """Colours of one theme; piece colours are paired with outlines so type is not colour alone."""

    background: str
    cell: str
    cell_alt: str
    grid: str
    frame: str
    label: str
    o: str
    x: str
    covered_symbol: str
    highlight: str
    partner: str
    problem: str
    preview_ok: str
    preview_bad: str
    piece_border: str
    pieces: dict[str, str]
    lock: str
    """Locked cells (hatched and outlined, so not colour alone)."""
    openings: dict[str, str]
    """The fair-openings layer by status (fair, unfair, undecided): the analysis charts' colours
    (``core.analysis.palette``); the outline style and each tag's mark tell the status apart too."""


PALETTES: dict[str, Palette] = {
    "light": Palette(
        background="#f4f1ea", cell="#fffdf8", cell_alt="#f7f3ea", grid="#b9b2a3", frame="#4a4540",
        label="#4a4540", o="#1f5fa8", x="#b23a1e", covered_symbol="#ffffff",
        highlight="#111111", partner="#6d6d6d", problem="#c0001a",
        preview_ok="#2e8b57", preview_bad="#c0001a", piece_border="#222222",
        pieces={"L": "#e8a33d", "I": "#5aa9e6", "T": "#9b6fd1", "S": "#5cbf7a"},
        lock="#7a4cc2", openings={status: style.light for status, style in STATUS_STYLE.items()},
    ),
    "dark": Palette(
        background="#1e1f22", cell="#2b2d31", cell_alt="#303237", grid="#4b4e55", frame="#9aa0a6",
        label="#c8ccd2", o="#7fb6ff", x="#ff8a6b", covered_symbol="#101010",
        highlight="#ffffff", partner="#b0b0b0", problem="#ff4d5e",
        preview_ok="#58d68d", preview_bad="#ff4d5e", piece_border="#e8e8e8",
        pieces={"L": "#b07a22", "I": "#2f77b3", "T": "#7450a8", "S": "#3a8f57"},
        lock="#b48cff", openings={status: style.dark for status, style in STATUS_STYLE.items()},
    ),
}

# Colour-blind-safe sequential map (viridis stops) for heatmaps.
_HEAT_STOPS: tuple[tuple[float, tuple[int, int, int]], ...] = (
    (0.0, (68, 1, 84)), (0.25, (59, 82, 139)), (0.5, (33, 145, 140)),
    (0.75, (94, 201, 98)), (1.0, (253, 231, 37)),
)


HEAT_ALPHA = 200
"""The heatmap's opacity over the cells: the chequer shows faintly through."""


def heat_color(value: float, alpha: int = HEAT_ALPHA) -> QColor:
    """Viridis colour for a value in 0..1 (clamped; NaN counts as 0)."""
    v = 0.0 if value != value else min(1.0, max(0.0, float(value)))
    for (a, ca), (b, cb) in itertools.pairwise(_HEAT_STOPS):
        if v <= b:
            t = 0.0 if b == a else (v - a) / (b - a)
            r, g, bl = (round(x + (y - x) * t) for x, y in zip(ca, cb, strict=True))
            return QColor(r, g, bl, alpha)
    r, g, bl = _HEAT_STOPS[-1][1]
    return QColor(r, g, bl, alpha)


_BAR_COLOURS = tuple(heat_color(i / 39, 255) for i in range(40))
"""The caption's colour bar from 0 to 1, in 40 steps."""


def heat_rgb(values: Any) -> np.ndarray:
    """:func:`heat_color` of a whole array at once, as 32-bit 0xAARRGGBB values with alpha 0 (the same rounding)."""
    v = np.nan_to_num(np.clip(np.asarray(values, dtype=float), 0.0, 1.0), nan=0.0)
    stops = np.array([s for s, _ in _HEAT_STOPS])
    colours = np.array([c for _, c in _HEAT_STOPS], dtype=float)
    seg = np.clip(np.searchsorted(stops, v, side="left") - 1, 0, len(stops) - 2)
    t = (v - stops[seg]) / (stops[seg + 1] - stops[seg])
    rgb = np.round(colours[seg] + (colours[seg + 1] - colours[seg]) * t[..., None]).astype(np.uint32)
    out: np.ndarray = (rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2]
    return out


def cell_colours(size: int, pal: Palette, heat: Any = None) -> list[QColor]:
    """Each cell's opaque colour: the chequer with the heatmap blended over it exactly as Qt blends a translucent
    fill (composited on an image of one pixel per cell).

    Filled opaquely, this colour draws inside a cell what a translucent heat fill over the chequer draws, for a
    fraction of the cost: a translucent antialiased fill per cell was most of a repaint with a heatmap.
    """
    n = size
    rows, cols = np.indices((n, n))
    light, dark = QColor(pal.cell).rgba(), QColor(pal.cell_alt).rgba()
    chequer = np.where((rows + cols) % 2 == 0, light, dark).astype(np.uint32)  # 0xAARRGGBB, as QImage keeps them
    image = QImage(chequer.tobytes(), n, n, 4 * n, QImage.Format.Format_RGB32).copy()
    if heat is not None:
        values = np.asarray(heat, dtype=float)
        alpha = np.where(np.isnan(values), 0, HEAT_ALPHA).astype(np.uint32)  # NaN: no data here, the cell stays plain
        over = (alpha << 24) | heat_rgb(values)
        painter = QPainter(image)
        painter.drawImage(QPoint(0, 0), QImage(over.tobytes(), n, n, 4 * n, QImage.Format.Format_ARGB32))
        painter.end()
    line = image.bytesPerLine() // 4
    rgba = np.frombuffer(image.constBits(), dtype=np.uint32).reshape(n, line)[:, :n].ravel()
    return [QColor.fromRgba(int(v)) for v in rgba]


@dataclass
class RenderOptions:
    """How a board picture looks; the same options serve the screen and the files."""

    grid: bool = True
    coordinates: bool = True
    theme: str = "light"
    symbols: bool = True
    background: bool = True
    title: str = ""

    def palette(self) -> Palette:
        if self.theme not in PALETTES:
            raise ValueError(f"unknown theme {self.theme!r}: use one of {', '.join(THEMES)}")
        return PALETTES[self.theme]


@dataclass
class Overlay:
    """What is drawn on top of the design: pieces, previews, highlights, problems and a heatmap."""

    pieces: dict[int, str] = field(default_factory=dict)
    piece_ids: dict[int, int] = field(default_factory=dict)
    preview: tuple[int, ...] = ()
    preview_ok: bool = True
    highlight: tuple[int, ...] = ()
    partner: int | None = None
    problems: tuple[int, ...] = ()
    heat: Any = None
    heat_label: str = ""
    cursor: int | None = None
    """The keyboard cursor's cell, drawn as corner brackets so it reads apart from the hover outline."""
    locks: frozenset[int] = frozenset()
    """Cells "Improve this board" must keep: hatched and outlined."""
    openings: OpeningsLayer | None = None
    """The fair-openings layer: each tested opening outlined and tinted by status, with its rate."""
    opening_selected: int | None = None
    """Index of the clicked opening in ``openings``, outlined boldly (a mark, like the hover)."""
    opening_hovered: int | None = None
    """Index of the opening under the mouse: one the board does not draw (:attr:`OpeningsLayer.muted`) is drawn
    as a mark while the mouse is on it."""


class BoardGeometry:
    """Where the cells are inside the painted rectangle; the canvas uses it to hit-test the mouse."""

    def __init__(self, size: int, left: float, top: float, cell: float) -> None:
        self.size = size
        self.left = left
        self.top = top
        self.cell = cell

    @property
    def board_rect(self) -> QRectF:
        return QRectF(self.left, self.top, self.cell * self.size, self.cell * self.size)

    def cell_rect(self, cell: int) -> QRectF:
        row, col = divmod(cell, self.size)
        return QRectF(self.left + col * self.cell, self.top + row * self.cell, self.cell, self.cell)

    def cell_at(self, point: QPointF) -> int | None:
        if self.cell <= 0:
            return None
        col = int((point.x() - self.left) // self.cell)
        row = int((point.y() - self.top) // self.cell)
        if 0 <= row < self.size and 0 <= col < self.size:
            return row * self.size + col
        return None


LEGEND_ROWS = 1.5
"""Height of the fair-openings legend under the board, in cells (a title line and a line of classes)."""


def layout(rect: QRectF, size: int, options: RenderOptions, caption: bool = False,
           legend: bool = False) -> BoardGeometry:
    """Fit the board (plus label margins, the heatmap caption and the openings legend) into ``rect``, centred,
    with square cells."""
    margin = 0.8 if options.coordinates else 0.25
    bottom = (0.9 if caption else 0.0) + (LEGEND_ROWS if legend else 0.0)
    top_extra = 0.9 if options.title else 0.0
    units_w = size + margin + (margin if options.coordinates else 0.25)
    units_h = size + margin + top_extra + max(bottom, 0.4 if options.coordinates else 0.25)
    cell = max(0.0, min(rect.width() / units_w, rect.height() / units_h))
    width, height = cell * units_w, cell * units_h
    left = rect.left() + (rect.width() - width) / 2 + margin * cell
    top = rect.top() + (rect.height() - height) / 2 + (margin + top_extra) * cell
    return BoardGeometry(size, left, top, cell)


def _font(cell: float, scale: float, bold: bool = False) -> QFont:
    font = QFont("DejaVu Sans")
    font.setStyleHint(QFont.StyleHint.SansSerif)
    font.setPixelSize(max(6, round(cell * scale)))
    font.setBold(bold)
    return font


def fit_caption(text: str, width: float, cell: float) -> tuple[QFont, str]:
    """A font that fits ``text`` into ``width`` (shrinking to 8 px at least), elided only if even that is too wide.

    The heatmap caption was drawn at a fixed size and cut off long labels on small windows.
    """
    scale = 0.36
    font = _font(cell, scale)
    while QFontMetricsF(font).horizontalAdvance(text) > width and font.pixelSize() > 8:
        scale *= 0.92
        font = _font(cell, scale)
    metrics = QFontMetricsF(font)
    if metrics.horizontalAdvance(text) > width:
        text = metrics.elidedText(text, Qt.TextElideMode.ElideRight, max(0.0, width))
    return font, text


@functools.lru_cache(maxsize=32)
def _fitted_caption(text: str, width: float, cell: float) -> tuple[QFont, str]:
    """:func:`fit_caption` for the canvas, which redraws the same caption at the same size for each new heatmap
    (the fitting measures the text at each size it tries).  Only handed to ``QPainter.setFont``, which copies."""
    return fit_caption(text, width, cell)


def _draw_symbol(painter: QPainter, r: QRectF, symbol: Symbol, color: QColor, covered: bool,
                 halo: QColor | None = None) -> None:
    """Draw the glyph; ``halo`` (a wider stroke underneath) keeps it legible over heatmap colours."""
    inset = r.width() * (0.22 if not covered else 0.3)
    inner = r.adjusted(inset, inset, -inset, -inset)
    width = max(1.0, r.width() * (0.11 if not covered else 0.07))
    strokes = [(halo, width * 2.0)] if halo is not None else []
    strokes.append((color, width))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    for stroke_color, stroke_width in strokes:
        if stroke_color is None:
            continue
        pen = QPen(stroke_color, stroke_width)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        if symbol is Symbol.O:
            painter.drawEllipse(inner)
        elif symbol is Symbol.X:
            painter.drawLine(inner.topLeft(), inner.bottomRight())
            painter.drawLine(inner.topRight(), inner.bottomLeft())


def _draw_cursor(painter: QPainter, r: QRectF, ink: QColor, under: QColor, c: float) -> None:
    """Four corner brackets just inside the cell, on a wider stroke of the cell colour (visible on any heat)."""
    arm = c * 0.32
    inset = c * 0.04
    box = r.adjusted(inset, inset, -inset, -inset)
    corners = ((box.topLeft(), 1, 1), (box.topRight(), -1, 1), (box.bottomLeft(), 1, -1),
               (box.bottomRight(), -1, -1))
    for colour, width in ((under, max(4.0, c * 0.2)), (ink, max(2.0, c * 0.1))):
        pen = QPen(colour, width)
        pen.setCapStyle(Qt.PenCapStyle.SquareCap)
        painter.setPen(pen)
        for point, dx, dy in corners:
            painter.drawLine(point, QPointF(point.x() + dx * arm, point.y()))
            painter.drawLine(point, QPointF(point.x(), point.y() + dy * arm))


OPENING_INSETS = (0.1, 0.17, 0.24)
"""How far inside its cells an opening's outline runs, by how many openings drawn before it overlap it:
outlines of overlapping openings stay apart instead of tracing the same line."""


def piece_path(geo: BoardGeometry, cells: tuple[int, ...], inset: float) -> QPainterPath:
    """The outline of a set of cells, ``inset`` (in cells) inside their border, as one shape."""
    n, c = geo.size, geo.cell
    d = inset * c
    path = QPainterPath()
    members = set(cells)
    for cell in cells:
        r = geo.cell_rect(cell)
        path.addRect(r.adjusted(d, d, -d, -d))
        if cell % n < n - 1 and cell + 1 in members:  # bridge to the right-hand neighbour
            path.addRect(QRectF(r.right() - d, r.top() + d, 2 * d, c - 2 * d))
        if cell + n in members:  # bridge to the neighbour below
            path.addRect(QRectF(r.left() + d, r.bottom() - d, c - 2 * d, 2 * d))
    return path.simplified()


def _opening_insets(layer: OpeningsLayer) -> dict[int, float]:
    """Each mark's inset: deeper for every earlier-drawn opening that shares a cell with it."""
    insets: dict[int, float] = {}
    drawn: list[int] = []
    for i in layer.drawn_order():
        cells = set(layer.marks[i].cells)
        level = sum(1 for j in drawn if cells & set(layer.marks[j].cells))
        insets[i] = OPENING_INSETS[min(level, len(OPENING_INSETS) - 1)]
        drawn.append(i)
    return insets


def _opening_pen(colour: QColor, status: str, c: float) -> QPen:
    pen = QPen(colour, max(2.0, c * 0.08), Qt.PenStyle.DashLine if status == "undecided" else Qt.PenStyle.SolidLine)
    pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
    return pen


def _paint_openings_fill(painter: QPainter, geo: BoardGeometry, pal: Palette, layer: OpeningsLayer) -> None:
    """A light tint per opening under the symbols; unfair ones also hatched (status not by colour alone)."""
    insets = _opening_insets(layer)
    painter.setPen(Qt.PenStyle.NoPen)
    for i in layer.drawn_order():
        mark = layer.marks[i]
        colour = QColor(pal.openings.get(mark.status, pal.partner))
        path = piece_path(geo, mark.cells, insets[i])
        tint = QColor(colour)
        tint.setAlpha(46)
        painter.fillPath(path, tint)
        if mark.status == "unfair":
            hatch = QColor(colour)
            hatch.setAlpha(120)
            painter.fillPath(path, QBrush(hatch, Qt.BrushStyle.BDiagPattern))


def tag_font(layer: OpeningsLayer, cell: float) -> QFont | None:
    """The tags' font: as large as lets the widest tag fit inside one cell and :data:`TAG_SLOTS` tags stack in
    it, so tags in neighbouring cells or slots never overlap; None when cells are too small for a legible tag
    (the outlines and the tooltips still show every opening)."""
    scale = 0.26
    font = _font(cell, scale, bold=True)
    while True:
        metrics = QFontMetricsF(font)
        widest = max((metrics.horizontalAdvance(mark.label) for mark in layer.marks), default=0.0)
        if widest + cell * 0.12 <= cell * 0.96 and TAG_SLOTS * (metrics.height() + cell * 0.02) <= cell * 0.96:
            return font
        if font.pixelSize() <= 6:
            return None
        scale *= 0.92
        font = _font(cell, scale, bold=True)


def tag_rects(geo: BoardGeometry, layer: OpeningsLayer, font: QFont) -> dict[int, QRectF]:
    """Mark index -> the rectangle of its tag: centred in its cell, stacked up from the bottom by slot
    (:meth:`OpeningsLayer.tag_places`), each inside its own cell and clear of every other."""
    c = geo.cell
    metrics = QFontMetricsF(font)
    h = metrics.height()
    out: dict[int, QRectF] = {}
    for i, (cell, slot) in layer.tag_places().items():
        r = geo.cell_rect(cell)
        w = metrics.horizontalAdvance(layer.marks[i].label) + c * 0.12
        bottom = r.bottom() - c * 0.03 - slot * (h + c * 0.02)
        out[i] = QRectF(r.center().x() - w / 2, bottom - h, w, h)
    return out


def _paint_openings_lines(painter: QPainter, geo: BoardGeometry, pal: Palette, layer: OpeningsLayer) -> None:
    """Outlines over the symbols (solid fair and unfair, dashed undecided) and the rate in a small pill."""
    c = geo.cell
    insets = _opening_insets(layer)
    under = QPen(QColor(pal.cell), max(3.5, c * 0.14))
    under.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    for i in layer.drawn_order():
        mark = layer.marks[i]
        path = piece_path(geo, mark.cells, insets[i])
        painter.setPen(under)
        painter.drawPath(path)
        painter.setPen(_opening_pen(QColor(pal.openings.get(mark.status, pal.partner)), mark.status, c))
        painter.drawPath(path)
    font = tag_font(layer, c)
    if font is None:
        return
    painter.setFont(font)
    for i, pill in tag_rects(geo, layer, font).items():
        mark = layer.marks[i]
        h = pill.height()
        colour = QColor(pal.openings.get(mark.status, pal.partner))
        painter.setPen(QPen(colour, max(1.0, c * 0.03)))
        background = QColor(pal.cell)
        background.setAlpha(230)
        painter.setBrush(background)
        painter.drawRoundedRect(pill, h * 0.3, h * 0.3)
        painter.setPen(QColor(pal.label))
        painter.drawText(pill, int(Qt.AlignmentFlag.AlignCenter), mark.label)
    painter.setBrush(Qt.BrushStyle.NoBrush)


def _paint_hovered_opening(painter: QPainter, geo: BoardGeometry, pal: Palette, layer: OpeningsLayer,
                           index: int) -> None:
    """An opening the board does not draw, while the mouse is on it: its outline and its tag, as drawn ones look."""
    mark, c = layer.marks[index], geo.cell
    colour = QColor(pal.openings.get(mark.status, pal.partner))
    path = piece_path(geo, mark.cells, OPENING_INSETS[0])
    under = QPen(QColor(pal.cell), max(3.5, c * 0.14))
    under.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
    painter.setPen(under)
    painter.drawPath(path)
    painter.setPen(_opening_pen(colour, mark.status, c))
    painter.drawPath(path)
    font = tag_font(layer, c)
    if font is None:
        return
    metrics = QFontMetricsF(font)
    mr, mc = mark.centre()
    cell = min(mark.cells, key=lambda k: ((k // geo.size) + 0.5 - mr) ** 2 + ((k % geo.size) + 0.5 - mc) ** 2)
    r = geo.cell_rect(cell)
    w, h = metrics.horizontalAdvance(mark.label) + c * 0.12, metrics.height()
    pill = QRectF(r.center().x() - w / 2, r.bottom() - c * 0.03 - h, w, h)
    background = QColor(pal.cell)
    background.setAlpha(230)
    painter.setFont(font)
    painter.setPen(QPen(colour, max(1.0, c * 0.03)))
    painter.setBrush(background)
    painter.drawRoundedRect(pill, h * 0.3, h * 0.3)
    painter.setPen(QColor(pal.label))
    painter.drawText(pill, int(Qt.AlignmentFlag.AlignCenter), mark.label)
    painter.setBrush(Qt.BrushStyle.NoBrush)


def paint_locks(painter: QPainter, geo: BoardGeometry, pal: Palette, locks: frozenset[int]) -> None:
    """Locked cells: a cross hatch and an outline just inside the cell (the Improve dialog's look)."""
    c = geo.cell
    colour = QColor(pal.lock)
    pen = QPen(colour, max(2.0, c * 0.1))
    for cell in sorted(locks):
        if 0 <= cell < geo.size * geo.size:
            r = geo.cell_rect(cell)
            painter.fillRect(r, QBrush(colour, Qt.BrushStyle.DiagCrossPattern))
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(r.adjusted(c * 0.1, c * 0.1, -c * 0.1, -c * 0.1))


def paint_marks(painter: QPainter, geo: BoardGeometry, options: RenderOptions, overlay: Overlay) -> None:
    """Hover, selection, the hovered cell's 180-degree partner and the keyboard cursor.

    Split from :func:`paint_board` so the canvas can keep the rest of the picture in a pixmap and repaint
    only these marks as the mouse moves (a full repaint of a 26x26 board took tens of milliseconds).
    Each outline sits on a wider stroke of the cell colour so it shows on any heatmap colour.
    """
    pal = options.palette()
    n, c = geo.size, geo.cell
    if c <= 0:
        return
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    under = QPen(QColor(pal.cell), max(3.0, c * 0.16))
    layer, chosen = overlay.openings, overlay.opening_selected
    if layer is not None and layer.size == n and chosen is not None and 0 <= chosen < len(layer.marks):
        path = piece_path(geo, layer.marks[chosen].cells, 0.03)
        painter.setPen(QPen(QColor(pal.cell), max(5.0, c * 0.22)))
        painter.drawPath(path)
        painter.setPen(QPen(QColor(pal.highlight), max(3.0, c * 0.12)))
        painter.drawPath(path)
    hovered = overlay.opening_hovered
    if layer is not None and layer.size == n and hovered is not None and 0 <= hovered < len(layer.marks) \
            and hovered not in layer.drawn:
        _paint_hovered_opening(painter, geo, pal, layer, hovered)
    if overlay.partner is not None and 0 <= overlay.partner < n * n:
        r = geo.cell_rect(overlay.partner).adjusted(c * 0.07, c * 0.07, -c * 0.07, -c * 0.07)
        painter.setPen(under)
        painter.drawRect(r)
        painter.setPen(QPen(QColor(pal.highlight), max(1.5, c * 0.07), Qt.PenStyle.DashLine))
        painter.drawRect(r)
    for cell in overlay.highlight:
        if 0 <= cell < n * n:
            r = geo.cell_rect(cell).adjusted(c * 0.07, c * 0.07, -c * 0.07, -c * 0.07)
            painter.setPen(under)
            painter.drawRect(r)
            painter.setPen(QPen(QColor(pal.highlight), max(2.0, c * 0.1)))
            painter.drawRect(r)
    if overlay.cursor is not None and 0 <= overlay.cursor < n * n:
        _draw_cursor(painter, geo.cell_rect(overlay.cursor), QColor(pal.highlight), QColor(pal.cell), c)
    painter.restore()


def paint_board(painter: QPainter, rect: QRectF, board: Board, options: RenderOptions,
                overlay: Overlay | None = None, geometry: BoardGeometry | None = None) -> BoardGeometry:
    """Paint ``board`` into ``rect``; returns the geometry so callers can map the mouse to cells.

    ``geometry`` keeps the cells where an earlier paint put them (the canvas during a drag: a caption or legend
    that comes or goes must not move the board under the pointer); by default the board is fitted to ``rect``.
    """
    pal = options.palette()
    ov = overlay or Overlay()
    n = board.size
    openings = ov.openings if ov.openings is not None and ov.openings.size == n else None
    caption = bool(ov.heat_label) and ov.heat is not None
    geo = geometry if geometry is not None and geometry.size == n else \
        layout(rect, n, options, caption=caption, legend=openings is not None)
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
    if options.background:
        painter.fillRect(rect, QColor(pal.background))
    if geo.cell <= 0:
        painter.restore()
        return geo
    _paint_cells(painter, geo, pal, ov)
    if openings is not None:
        _paint_openings_fill(painter, geo, pal, openings)
    if options.grid:
        _paint_grid(painter, geo, pal)
    _paint_piece_borders(painter, geo, pal, ov)
    if options.symbols:
        _paint_symbols(painter, geo, pal, board, ov)
    if ov.locks:
        paint_locks(painter, geo, pal, ov.locks)
    if openings is not None:
        _paint_openings_lines(painter, geo, pal, openings)
    if ov.preview:
        _paint_preview(painter, geo, pal, ov.preview, ov.preview_ok)
    if ov.problems:
        _paint_problems(painter, geo, pal, ov.problems)
    paint_marks(painter, geo, options, ov)
    _paint_frame_and_labels(painter, geo, pal, options)
    if caption:
        _paint_heat_caption(painter, geo, pal, ov.heat_label)
    if openings is not None:
        paint_openings_legend(painter, geo, pal, openings, geo.top + (n + 0.1 + (0.9 if caption else 0.0)) * geo.cell)
    painter.restore()
    return geo


def _paint_cells(painter: QPainter, geo: BoardGeometry, pal: Palette, ov: Overlay) -> None:
    """The chequered cells, the heatmap's colour over them and the placed pieces' colours.

    A cell with a heat value gets a second, opaque fill of its blended colour (:func:`cell_colours`): inside the
    cell the same pixels as the translucent fill it stands for, on the cell's antialiased border within a few
    levels of them (the chequer fill under it keeps that border close), at a fraction of the cost.
    """
    n = geo.size
    light, dark = QColor(pal.cell), QColor(pal.cell_alt)
    painter.setPen(Qt.PenStyle.NoPen)
    for cell, colour in enumerate(cell_colours(n, pal, ov.heat)):
        r = geo.cell_rect(cell)
        row, col = divmod(cell, n)
        chequer = light if (row + col) % 2 == 0 else dark
        painter.fillRect(r, chequer)
        if colour != chequer:
            painter.fillRect(r, colour)
        piece = ov.pieces.get(cell)
        if piece is not None:
            painter.fillRect(r, QColor(pal.pieces.get(piece, pal.grid)))


def _paint_grid(painter: QPainter, geo: BoardGeometry, pal: Palette) -> None:
    n, c = geo.size, geo.cell
    painter.setPen(QPen(QColor(pal.grid), max(1.0, c * 0.03)))
    for i in range(1, n):
        painter.drawLine(QPointF(geo.left + i * c, geo.top), QPointF(geo.left + i * c, geo.top + n * c))
        painter.drawLine(QPointF(geo.left, geo.top + i * c), QPointF(geo.left + n * c, geo.top + i * c))


def _paint_piece_borders(painter: QPainter, geo: BoardGeometry, pal: Palette, ov: Overlay) -> None:
    """Thick lines wherever two neighbouring cells belong to different pieces, and each piece's type letter in
    its first cell, so the type reads without colour."""
    ids = ov.piece_ids or ({cell: 0 for cell in ov.pieces} if ov.pieces else {})
    if not ids:
        return
    n, c = geo.size, geo.cell
    painter.setPen(QPen(QColor(pal.piece_border), max(1.5, c * 0.09), Qt.PenStyle.SolidLine,
                        Qt.PenCapStyle.SquareCap))
    for cell, pid in ids.items():
        row, col = divmod(cell, n)
        r = geo.cell_rect(cell)
        if row == 0 or ids.get(cell - n) != pid:
            painter.drawLine(r.topLeft(), r.topRight())
        if row == n - 1 or ids.get(cell + n) != pid:
            painter.drawLine(r.bottomLeft(), r.bottomRight())
        if col == 0 or ids.get(cell - 1) != pid:
            painter.drawLine(r.topLeft(), r.bottomLeft())
        if col == n - 1 or ids.get(cell + 1) != pid:
            painter.drawLine(r.topRight(), r.bottomRight())
    painter.setFont(_font(c, 0.28, bold=True))
    painter.setPen(QColor(pal.piece_border))
    seen: set[int] = set()
    for cell in sorted(ids):
        pid = ids[cell]
        if pid in seen or cell not in ov.pieces:
            continue
        seen.add(pid)
        r = geo.cell_rect(cell)
        painter.drawText(r.adjusted(c * 0.06, c * 0.02, 0, 0),
                         int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop), ov.pieces[cell])


class GlyphTiles:
    """Glyphs drawn once into small images and copied onto later pictures, least recently used dropped first.

    A glyph is the same pixels wherever its cell sits at the same sub-pixel offset, so a tile is keyed by the
    glyph's look, the cell's size and that offset: a repaint for a new heatmap (the live estimate's, several a
    second) copies each glyph instead of stroking it and its halo again.  Every raster picture composes its
    glyphs from tiles, kept or not, so a board looks the same to the pixel however its picture came about.
    Tiles are kept only at a cell size painted before (:meth:`keeps`): the paints of a resize in progress keep
    nothing.  ``budget`` bounds the bytes kept, the least recently used tiles going first.
    """

    SIZES = 8
    """How many recent cell sizes :meth:`keeps` remembers."""

    def __init__(self, budget: int = 16 << 20) -> None:
        self.budget = budget
        self.used = 0
        self.drawn = 0
        """How many tiles were drawn (a repaint with nothing new draws none)."""
        self._tiles: OrderedDict[tuple[object, ...], tuple[QImage, int, int]] = OrderedDict()
        self._sizes: OrderedDict[float, None] = OrderedDict()
        self._lock = threading.Lock()
        """A picture may be rendered off the GUI thread (an export) while the canvas paints."""

    def __len__(self) -> int:
        return len(self._tiles)

    def clear(self) -> None:
        with self._lock:
            self._tiles.clear()
            self._sizes.clear()
            self.used = 0

    def keeps(self, cell: float) -> bool:
        """Whether to keep the tiles of a picture with cells of this size: only if a picture had them before."""
        with self._lock:
            if cell in self._sizes:
                self._sizes.move_to_end(cell)
                return True
            self._sizes[cell] = None
            while len(self._sizes) > self.SIZES:
                self._sizes.popitem(last=False)
            return False

    def blit(self, painter: QPainter, r: QRectF, symbol: Symbol, color: QColor, covered: bool,
             halo: QColor | None, keep: bool = True) -> None:
        """Draw the glyph as :func:`_draw_symbol` would, from its tile (drawn first if it is new, and kept if
        ``keep``)."""
        x, y = math.floor(r.left()), math.floor(r.top())
        fx, fy = r.left() - x, r.top() - y
        key = (symbol.value, color.rgba(), covered, None if halo is None else halo.rgba(), r.width(), r.height(),
               fx, fy)
        with self._lock:
            found = self._tiles.get(key)
            if found is not None:
                self._tiles.move_to_end(key)
        if found is None:
            found = self._draw(QRectF(fx, fy, r.width(), r.height()), symbol, color, covered, halo)
            with self._lock:
                self.drawn += 1
                if keep and key not in self._tiles:
                    self._tiles[key] = found
                    self.used += found[0].sizeInBytes()
                    while self.used > self.budget and len(self._tiles) > 1:
                        old, _dx, _dy = self._tiles.popitem(last=False)[1]
                        self.used -= old.sizeInBytes()
        tile, dx, dy = found
        painter.drawImage(QPoint(x + dx, y + dy), tile)

    @staticmethod
    def _draw(r: QRectF, symbol: Symbol, color: QColor, covered: bool,
              halo: QColor | None) -> tuple[QImage, int, int]:
        """The glyph of a cell at ``r`` (its offset inside the pixel at the origin), with room for the strokes."""
        margin = 2  # the strokes stay inside the cell; this is room for their antialiased edge
        tile = QImage(math.ceil(r.right()) + 2 * margin, math.ceil(r.bottom()) + 2 * margin,
                      QImage.Format.Format_ARGB32_Premultiplied)
        tile.fill(0)
        painter = QPainter(tile)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        _draw_symbol(painter, r.translated(margin, margin), symbol, color, covered, halo)
        painter.end()
        return tile, -margin, -margin


TILED_CELL = 16.0
"""Cells this large (in pixels) or larger have tiled glyphs: smaller ones have strokes of one pixel, which Qt
draws by another method whose pixels depend on where the line starts, and cost little to draw anyway."""
GLYPH_TILES = GlyphTiles()
"""The tiles of every raster picture of this process (the canvas, the play-test board, exported images)."""


def tiles_fit(painter: QPainter) -> bool:
    """Tiles copy the same pixels as drawing only on a raster device at one device pixel per unit, moved by whole
    pixels, fully opaque and blending normally; anything else (SVG, a scale, high-DPI) draws the glyphs."""
    engine = painter.paintEngine()
    device = painter.device()
    transform = painter.deviceTransform()
    moved = transform.type().value <= QTransform.TransformationType.TxTranslate.value
    return (engine is not None and engine.type() == QPaintEngine.Type.Raster and device is not None
            and device.devicePixelRatioF() == 1.0 and moved
            and float(transform.dx()).is_integer() and float(transform.dy()).is_integer() and painter.opacity() == 1.0
            and painter.compositionMode() == QPainter.CompositionMode.CompositionMode_SourceOver)


def _paint_symbols(painter: QPainter, geo: BoardGeometry, pal: Palette, board: Board, ov: Overlay) -> None:
    """The O and X glyphs; on a heatmap each gets a halo of the cell colour, under a piece it is muted."""
    halo = QColor(pal.cell) if ov.heat is not None else None
    tiles = GLYPH_TILES if geo.cell >= TILED_CELL and tiles_fit(painter) else None
    keep = tiles is not None and tiles.keeps(geo.cell)
    o, x = QColor(pal.o), QColor(pal.x)
    muted = QColor(pal.covered_symbol)
    muted.setAlpha(170)
    for cell, symbol in enumerate(board.cells):
        if symbol is Symbol.EMPTY:
            continue
        covered = cell in ov.pieces
        color = muted if covered else o if symbol is Symbol.O else x
        if tiles is not None:
            tiles.blit(painter, geo.cell_rect(cell), symbol, color, covered, halo, keep)
        else:
            _draw_symbol(painter, geo.cell_rect(cell), symbol, color, covered, halo)


def _paint_preview(painter: QPainter, geo: BoardGeometry, pal: Palette, cells: tuple[int, ...], ok: bool) -> None:
    """A placement's preview: a fill, plus a hatch and a dashed outline when it is illegal (not colour alone)."""
    n, c = geo.size, geo.cell
    fill = QColor(pal.preview_ok if ok else pal.preview_bad)
    fill.setAlpha(110)
    inside = [cell for cell in cells if 0 <= cell < n * n]
    for cell in inside:
        r = geo.cell_rect(cell)
        painter.fillRect(r, fill)
        if not ok:
            painter.fillRect(r, QBrush(QColor(pal.preview_bad), Qt.BrushStyle.BDiagPattern))
    painter.setPen(QPen(QColor(pal.preview_ok if ok else pal.preview_bad), max(1.5, c * 0.08),
                        Qt.PenStyle.SolidLine if ok else Qt.PenStyle.DashLine))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    for cell in inside:
        painter.drawRect(geo.cell_rect(cell).adjusted(c * 0.06, c * 0.06, -c * 0.06, -c * 0.06))


def _paint_problems(painter: QPainter, geo: BoardGeometry, pal: Palette, cells: tuple[int, ...]) -> None:
    """Cells with a problem: a dashed outline plus a hatch."""
    n, c = geo.size, geo.cell
    pen = QPen(QColor(pal.problem), max(1.5, c * 0.1), Qt.PenStyle.DashLine)
    for cell in cells:
        if 0 <= cell < n * n:
            r = geo.cell_rect(cell)
            painter.fillRect(r, QBrush(QColor(pal.problem), Qt.BrushStyle.FDiagPattern))
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(r.adjusted(c * 0.08, c * 0.08, -c * 0.08, -c * 0.08))


def _paint_frame_and_labels(painter: QPainter, geo: BoardGeometry, pal: Palette, options: RenderOptions) -> None:
    """The frame, the coordinates in match notation (letters over the columns, numbers beside the rows) and the
    title."""
    n, c = geo.size, geo.cell
    painter.setPen(QPen(QColor(pal.frame), max(1.5, c * 0.06)))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRect(geo.board_rect)
    if options.coordinates:
        painter.setPen(QColor(pal.label))
        painter.setFont(_font(c, 0.42))
        for i in range(n):
            top_r = QRectF(geo.left + i * c, geo.top - 0.8 * c, c, 0.75 * c)
            painter.drawText(top_r, int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom),
                             COLUMN_LETTERS[i])
            left_r = QRectF(geo.left - 0.8 * c, geo.top + i * c, 0.7 * c, c)
            painter.drawText(left_r, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), str(i + 1))
    if options.title:
        painter.setPen(QColor(pal.label))
        painter.setFont(_font(c, 0.5, bold=True))
        y = geo.top - (1.7 if options.coordinates else 0.9) * c
        painter.drawText(QRectF(geo.left, y, n * c, 0.8 * c),
                         int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignVCenter), options.title)


def _paint_heat_caption(painter: QPainter, geo: BoardGeometry, pal: Palette, label: str) -> None:
    """Under the board: the heatmap's name and its colour bar from 0 to 1."""
    n, c = geo.size, geo.cell
    painter.setPen(QColor(pal.label))
    y = geo.top + n * c + 0.1 * c
    bar_w = min(n * c * 0.35, 6 * c)
    bar_left = geo.left + n * c - bar_w
    for i, colour in enumerate(_BAR_COLOURS):
        painter.fillRect(QRectF(bar_left + i * bar_w / 40, y + 0.15 * c, bar_w / 40 + 0.5, 0.4 * c), colour)
    font, text = _fitted_caption(label, n * c - bar_w - 0.7 * c, c)
    painter.setFont(font)
    painter.drawText(QRectF(geo.left, y, n * c - bar_w - 0.7 * c, 0.7 * c),
                     int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), text)
    painter.setFont(_font(c, 0.3))
    painter.drawText(QRectF(bar_left - 0.5 * c, y, 0.45 * c, 0.7 * c),
                     int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), "0")
    painter.drawText(QRectF(bar_left + bar_w + 0.05 * c, y, 0.5 * c, 0.7 * c),
                     int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), "1")


def paint_openings_legend(painter: QPainter, geo: BoardGeometry, pal: Palette, layer: OpeningsLayer,
                          y: float) -> list[tuple[str, QRectF]]:
    """The fair-openings legend under the board: a title with the band, then a swatch (drawn as the board draws
    that class) and the words of each class shown.  Returns (text, rectangle) of each piece of text."""
    c, n = geo.cell, geo.size
    width = n * c
    title = layer.legend_title()
    entries = layer.legend()
    gap = 0.35 * c

    def entries_width(metrics: QFontMetricsF) -> float:
        box = metrics.height()
        return sum(box * 1.3 + metrics.horizontalAdvance(text) + gap for _status, text in entries)

    scale = 0.34
    font = _font(c, scale)
    while font.pixelSize() > 8:
        metrics = QFontMetricsF(font)
        if max(metrics.horizontalAdvance(title), entries_width(metrics)) <= width:
            break
        scale *= 0.92
        font = _font(c, scale)
    metrics = QFontMetricsF(font)
    painter.setFont(font)
    line = 0.7 * c
    drawn: list[tuple[str, QRectF]] = []
    shown = metrics.elidedText(title, Qt.TextElideMode.ElideRight, width)
    rect = QRectF(geo.left, y, width, line)
    painter.setPen(QColor(pal.label))
    painter.drawText(rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), shown)
    drawn.append((shown, QRectF(geo.left, y, metrics.horizontalAdvance(shown), line)))
    x, y = geo.left, y + line
    box = metrics.height() * 0.9
    for status, text in entries:
        colour = QColor(pal.openings.get(status, pal.partner))
        swatch = QRectF(x, y + (line - box) / 2, box, box)
        tint = QColor(colour)
        tint.setAlpha(46)
        painter.fillRect(swatch, tint)
        if status == "unfair":
            hatch = QColor(colour)
            hatch.setAlpha(120)
            painter.fillRect(swatch, QBrush(hatch, Qt.BrushStyle.BDiagPattern))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(_opening_pen(colour, status, box * 0.6))
        painter.drawRect(swatch)
        x += box * 1.3
        w = min(metrics.horizontalAdvance(text), geo.left + width - x)
        if w <= 0:
            break
        painter.setPen(QColor(pal.label))
        rect = QRectF(x, y, w, line)
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                         metrics.elidedText(text, Qt.TextElideMode.ElideRight, w))
        drawn.append((text, rect))
        x += w + gap
    return drawn


def ensure_gui_app() -> QGuiApplication:
    """A Qt application is needed for fonts; the command line has none, so make an offscreen one."""
    app = QGuiApplication.instance()
    if app is None:
        if not os.environ.get("QT_QPA_PLATFORM") and not os.environ.get("DISPLAY") \
                and not os.environ.get("WAYLAND_DISPLAY"):
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
        from PySide6.QtWidgets import QApplication  # a widgets app, so windows opened later in the process work

        app = QApplication(["lits-render"])
    assert isinstance(app, QGuiApplication)
    return app


def render_image(board: Board, options: RenderOptions, px: int, overlay: Overlay | None = None) -> QImage:
    """A square ``px`` x ``px`` picture of the board."""
    if not MIN_PICTURE_PX <= px <= MAX_PICTURE_PX:
        raise ValueError(f"picture size {px} px is outside {MIN_PICTURE_PX}..{MAX_PICTURE_PX}")
    ensure_gui_app()
    image = QImage(px, px, QImage.Format.Format_ARGB32)
    image.fill(QColor(options.palette().background) if options.background else QColor(0, 0, 0, 0))
    painter = QPainter(image)
    try:
        paint_board(painter, QRectF(0, 0, px, px), board, options, overlay)
    finally:
        painter.end()
    return image


def png_bytes(board: Board, options: RenderOptions, px: int, overlay: Overlay | None = None) -> bytes:
    image = render_image(board, options, px, overlay)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):  # type: ignore[call-overload]
        raise OSError("Qt could not encode the PNG picture")
    buffer.close()
    return bytes(data.data())


def svg_bytes(board: Board, options: RenderOptions, px: int, overlay: Overlay | None = None) -> bytes:
    if not MIN_PICTURE_PX <= px <= MAX_PICTURE_PX:
        raise ValueError(f"picture size {px} px is outside {MIN_PICTURE_PX}..{MAX_PICTURE_PX}")
    ensure_gui_app()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(QSize(px, px))
    generator.setViewBox(QRectF(0, 0, px, px))
    generator.setTitle(board.name or "LITS board")
    generator.setDescription(f"{board.size}x{board.size} Battle of LITS board")
    painter = QPainter(generator)
    try:
        paint_board(painter, QRectF(0, 0, px, px), board, options, overlay)
    finally:
        painter.end()
    buffer.close()
    # Qt writes the size in millimetres; a picture for the web wants plain pixels.
    return re.sub(rb'<svg width="[^"]*" height="[^"]*"', f'<svg width="{px}" height="{px}"'.encode(),
                  bytes(data.data()), count=1)


def render_png(board: Board, path: str | os.PathLike[str], options: RenderOptions | None = None, px: int = 800,
               overlay: Overlay | None = None) -> None:
    """Write a ``px`` x ``px`` PNG atomically."""
    atomic_write_bytes(path, png_bytes(board, options or RenderOptions(), px, overlay))


def render_svg(board: Board, path: str | os.PathLike[str], options: RenderOptions | None = None, px: int = 800,
               overlay: Overlay | None = None) -> None:
    """Write an SVG whose nominal size is ``px`` x ``px``, atomically."""
    atomic_write_bytes(path, svg_bytes(board, options or RenderOptions(), px, overlay))
