"""A board with a heatmap repaints cheaply and looks the same: each cell's heat colour is blended once and filled
opaquely, and the glyphs are copied from tiles drawn once (``designer.canvas.render``).

The references are the drawing the shortcuts stand for: a translucent heat fill per cell over the chequer, and
each glyph stroked with its halo.  Inside the cells the pixels are identical; where two antialiased fills or a
copied glyph's edge meet, they may differ by a few levels out of 255 (bounded below).
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QRectF, QSize
from PySide6.QtGui import QColor, QImage, QPainter
from pytestqt.qtbot import QtBot

from core.board.model import Board, Symbol
from designer.canvas import render
from designer.canvas.board_view import BoardView
from designer.canvas.render import (
    GLYPH_TILES,
    PALETTES,
    GlyphTiles,
    Overlay,
    RenderOptions,
    cell_colours,
    heat_color,
    layout,
    paint_board,
)
from designer.document.document import Document


def pixels(image: QImage) -> np.ndarray:
    """The picture as (height, width, 4) levels."""
    image = image.convertToFormat(QImage.Format.Format_ARGB32)
    raw = np.frombuffer(image.constBits(), dtype=np.uint8).reshape(image.height(), image.bytesPerLine())
    return raw[:, : 4 * image.width()].reshape(image.height(), image.width(), 4).astype(int)


def picture(board: Board, px: int, options: RenderOptions, overlay: Overlay) -> np.ndarray:
    image = QImage(px, px, QImage.Format.Format_RGB32)
    image.fill(0)
    painter = QPainter(image)
    paint_board(painter, QRectF(0, 0, px, px), board, options, overlay)
    painter.end()
    return pixels(image)


def heat_map(size: int, seed: int) -> np.ndarray:
    heat = np.random.default_rng(seed).random((size, size))
    heat[0, :5] = (0.0, 0.25, 0.5, 0.75, 1.0)  # the colour stops exactly
    heat[1, 1] = np.nan  # no data: the cell stays plain
    heat[2, 2], heat[2, 3] = -0.5, 7.0  # clamped
    return heat


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_blended_cell_colours_are_qts_translucent_fill_over_the_chequer(theme: str, qapp: object) -> None:
    size = 12
    heat = heat_map(size, 4)
    pal = PALETTES[theme]
    reference = QImage(size, size, QImage.Format.Format_RGB32)
    painter = QPainter(reference)
    for cell in range(size * size):
        row, col = divmod(cell, size)
        painter.fillRect(QRectF(col, row, 1, 1), QColor(pal.cell if (row + col) % 2 == 0 else pal.cell_alt))
        if heat[row, col] == heat[row, col]:
            painter.fillRect(QRectF(col, row, 1, 1), heat_color(float(heat[row, col])))
    painter.end()
    colours = cell_colours(size, pal, heat)
    assert [c.rgba() for c in colours] == [reference.pixel(cell % size, cell // size) for cell in range(size * size)]
    assert colours[size + 1] == QColor(pal.cell)  # the NaN cell
    assert all(c.alpha() == 255 for c in colours)


@pytest.mark.parametrize(("px", "theme", "grid"), [(697, "light", False), (530, "dark", True), (251, "light", False)])
def test_cells_with_a_heatmap_look_as_translucent_fills_did(px: int, theme: str, grid: bool, qapp: object,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Identical inside every cell; on the antialiased cell borders within 8 levels (2 where the grid covers
    them)."""
    size = 12
    board = Board(size)
    heat = heat_map(size, 5)
    options = RenderOptions(theme=theme, grid=grid, coordinates=False)
    overlay = Overlay(heat=heat, pieces={30: "T", 31: "T", 32: "T", 43: "T"})
    drawn = picture(board, px, options, overlay)

    def translucent(painter: QPainter, geo: render.BoardGeometry, pal: render.Palette, ov: Overlay) -> None:
        for cell in range(size * size):
            r = geo.cell_rect(cell)
            row, col = divmod(cell, size)
            painter.fillRect(r, QColor(pal.cell if (row + col) % 2 == 0 else pal.cell_alt))
            if ov.heat[row][col] == ov.heat[row][col]:
                painter.fillRect(r, heat_color(float(ov.heat[row][col])))
            if cell in ov.pieces:
                painter.fillRect(r, QColor(pal.pieces[ov.pieces[cell]]))

    monkeypatch.setattr(render, "_paint_cells", translucent)
    reference = picture(board, px, options, overlay)
    diff = np.abs(drawn - reference).max(axis=2)
    geo = layout(QRectF(0, 0, px, px), size, options)
    inside = np.zeros_like(diff, dtype=bool)
    for cell in range(size * size):
        r = geo.cell_rect(cell)
        inside[int(r.top()) + 2: int(r.bottom()) - 1, int(r.left()) + 2: int(r.right()) - 1] = True
    assert diff[inside].max() == 0
    assert diff.max() <= (2 if grid else 8)


@pytest.mark.parametrize("px", [250, 530, 1411])
@pytest.mark.parametrize("heat", [False, True])
def test_glyphs_copied_from_tiles_look_as_glyphs_drawn_one_by_one(px: int, heat: bool, qapp: object,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Within two levels on the glyphs' antialiased edges, with and without the halo, muted under pieces too."""
    board = Board.random(12, pairs=30, seed=px)
    overlay = Overlay(heat=heat_map(12, 6) if heat else None, pieces={c: "L" for c in range(0, 144, 5)})
    options = RenderOptions()
    GLYPH_TILES.clear()
    first = picture(board, px, options, overlay)  # the first picture at a cell size keeps no tile
    assert len(GLYPH_TILES) == 0
    tiled = picture(board, px, options, overlay)
    assert len(GLYPH_TILES) > 0  # this one kept its tiles
    drawn = GLYPH_TILES.drawn
    again = picture(board, px, options, overlay)
    assert GLYPH_TILES.drawn == drawn  # and this one copied them all
    assert np.array_equal(first, tiled) and np.array_equal(tiled, again)  # the same pixels, however made
    monkeypatch.setattr(render, "tiles_fit", lambda _painter: False)
    direct = picture(board, px, options, overlay)
    diff = np.abs(tiled - direct).max(axis=2)
    assert diff.max() <= 2
    assert (diff > 0).mean() < 0.01


def test_glyphs_in_small_cells_are_drawn_one_by_one(qapp: object) -> None:
    """One-pixel strokes land differently when drawn elsewhere, so small cells are not tiled."""
    board = Board.random(12, pairs=30, seed=3)
    GLYPH_TILES.clear()
    drawn = GLYPH_TILES.drawn
    for _ in range(3):
        picture(board, 180, RenderOptions(), Overlay(heat=heat_map(12, 2)))
    assert layout(QRectF(0, 0, 180, 180), 12, RenderOptions()).cell < render.TILED_CELL
    assert GLYPH_TILES.drawn == drawn and len(GLYPH_TILES) == 0


def test_svg_and_scaled_pictures_draw_the_glyphs(qapp: object) -> None:
    """A vector picture must keep vector glyphs, and a scaled painter would blur a copied tile."""
    image = QImage(400, 400, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    assert render.tiles_fit(painter)
    painter.translate(10, 20)
    assert render.tiles_fit(painter)
    painter.translate(0.5, 0)
    assert not render.tiles_fit(painter)
    painter.resetTransform()
    painter.scale(2, 2)
    assert not render.tiles_fit(painter)
    painter.end()
    hidpi = QImage(800, 800, QImage.Format.Format_RGB32)
    hidpi.setDevicePixelRatio(2.0)
    painter = QPainter(hidpi)
    assert not render.tiles_fit(painter)
    painter.end()
    svg = render.svg_bytes(Board.random(12, pairs=10, seed=2), RenderOptions(), 400,
                           Overlay(heat=heat_map(12, 1)))
    assert svg.count(b"<circle") > 0 and svg.count(b"<polyline") > 0  # O rings and X strokes, as vectors
    assert b"<image" not in svg


def test_the_tiles_keep_to_their_budget(qapp: object) -> None:
    tiles = GlyphTiles(budget=200_000)
    image = QImage(600, 600, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    for i in range(400):
        r = QRectF(i % 13 + i / 7, i // 13, 40 + i % 5, 40 + i % 5)
        tiles.blit(painter, r, Symbol.O if i % 2 else Symbol.X, QColor("#1f5fa8"), False, QColor("#ffffff"))
        assert tiles.used <= tiles.budget
    painter.end()
    assert tiles.drawn == 400 and 0 < len(tiles) < 400
    assert tiles.used == sum(t.sizeInBytes() for t, _dx, _dy in tiles._tiles.values())


def test_a_long_session_of_resizes_edits_and_heatmaps_keeps_the_tiles_bounded(qtbot: QtBot) -> None:
    """Resizing paints at a new cell size each time: those paints draw directly and keep nothing; at a steady
    size a new heatmap copies every glyph (no tile drawn) and repaints the board."""
    GLYPH_TILES.clear()
    document = Document(Board.random(12, pairs=30, seed=8))
    view = BoardView(document)
    qtbot.addWidget(view)
    view.resize(600, 600)
    view.show()
    qtbot.waitExposed(view)
    rng = np.random.default_rng(3)
    for i in range(120):
        view.resize(QSize(400 + 3 * i, 380 + 2 * i))
        view.set_heat(rng.random((12, 12)), "Predicted balance (club)")
        if i % 3 == 0:
            document.paint(i % 144, Symbol.O if i % 2 else Symbol.X)
        view.grab()
        assert GLYPH_TILES.used <= GLYPH_TILES.budget
    assert len(GLYPH_TILES) == 0  # every paint was at a new size: no tile kept
    view.resize(700, 700)
    view.grab()
    view.set_heat(rng.random((12, 12)), "Predicted balance (club)")
    view.grab()
    made = len(GLYPH_TILES)
    symbols = sum(s is not Symbol.EMPTY for s in document.board.cells)
    assert 0 < made <= symbols  # at most one tile per glyph at this size
    drawn, paints = GLYPH_TILES.drawn, view.full_paints
    before = pixels(view.grab().toImage())
    for _ in range(20):
        heat = rng.random((12, 12))
        view.set_heat(heat, "Predicted balance (club)")
        after = pixels(view.grab().toImage())
        assert not np.array_equal(after, before)  # the new heatmap is drawn
        before = after
    assert view.full_paints == paints + 20
    assert GLYPH_TILES.drawn == drawn and len(GLYPH_TILES) == made  # all copied
    geo = view.geometry_
    assert geo is not None
    empty = next(c for c, s in enumerate(document.board.cells) if s is Symbol.EMPTY)
    centre = geo.cell_rect(empty).center().toPoint()
    row, col = divmod(empty, 12)
    expected = cell_colours(12, PALETTES[view.options.theme], heat)[empty]
    assert QColor(view.grab().toImage().pixel(centre)).rgb() == expected.rgb()  # the latest heat colour
    assert row * 12 + col == empty
