"""Help ▸ How to prepare a board: the host's workflow from a blank board to the reveal and the match."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

STEPS: tuple[tuple[str, str], ...] = (
    ("Design",
     "Paint symbols with the mouse: left-drag paints the brush (O, X or the eraser), right-drag erases. Every "
     "symbol also puts the other symbol on the cell turned 180 degrees, so every O has its X (whether the game is "
     "fair is for the analysis to tell). "
     "The keys 1 or O, 2 or X, 0 or E and L choose the brush (they never paint). From the keyboard: click the "
     "board, move the cursor with the arrow keys and press Space to apply the brush to that cell, Delete to erase "
     "it. Ctrl+Z undoes, Ctrl+Shift+Z redoes. Edit ▸ Random fill (Ctrl+R), the "
     "transforms, Tools ▸ Generate boards (a search for balanced boards) and Tools ▸ Improve this board "
     "(proposed changes, one undo step each) give a quick start. The lock brush (L) marks cells, with their "
     "partners, that Improve this board must keep."),
    ("Validate",
     "The Validation tab checks the board as you edit and the status bar shows whether it is fit for a match. "
     "Click a problem to see its cells; broken pairs (from hand-edited files) are repaired with one click."),
    ("Set the rules",
     "The Properties tab holds the name, the pieces in the supply, who moves first, the swap (pie) rule and the "
     "match clock (time per turn and the bank)."),
    ("Analyse",
     "Tools ▸ Analyse balance (Ctrl+Shift+A) plays test games on a copy of the board while you keep editing. "
     "The verdict says whether the swap rule can keep the game fair, for which strength of play it holds "
     "(the club level by default), and ends with the next step; the charts show what it rests on and the "
     "heatmaps colour the board. View ▸ Fair openings (Ctrl+Shift+F) draws the tested first placements on the "
     "board with their win rates, in the charts' colours: green ✓ shown fair, orange-red ✗ shown one-sided, grey ? "
     "not settled yet (the legend under the board says which is which). After a run that tried many, it draws "
     "the fair ones and the three nearest an even game; move the mouse over the board to see the others, and "
     "hover one for its figures. "
     "Quick is a first look in seconds; untick it for a verdict."),
    ("Play-test",
     "Tools ▸ Play-test (Ctrl+T) opens a test game under the match rules: play both sides yourself, or against "
     "a computer player."),
    ("Seal",
     "File ▸ Export ▸ Sealed file for a season writes a sealed file per board and a SHA256SUMS list. Publish "
     "the digests (or SHA256SUMS) before the season and keep the sealed files secret and backed up: a lost "
     "sealed file can never be proven."),
    ("Reveal and host",
     "At the match, File ▸ Host a match opens the match in a folder: give the players' names, the season's "
     "sealed file and its SHA256SUMS (or the published digest). The designer checks that the sealed board is the "
     "one committed before the first move, shows it, and keeps the proof in the match journal; it judges every "
     "move posted, runs both clocks and copies each post for the game room. Post the sealed file and SHA256SUMS "
     "in the game room too: players check the digest with stock tools (sha256sum or shasum), so nobody has to "
     "trust the host or this app. File ▸ Open opens a sealed file too, to look at the board it holds."),
)


def workflow_html() -> str:
    items = "".join(f"<li><p><b>{title}.</b> {text}</p></li>" for title, text in STEPS)
    return ("<h3>Preparing a board for a Battle of LITS match</h3>"
            "<p>design → validate → analyse → play-test → seal → reveal and host</p>"
            f"<ol>{items}</ol>"
            "<p>Unsaved work is autosaved every few seconds; after a crash the designer offers it back.</p>")


class WorkflowDialog(QDialog):
    """The workflow in one page; not modal, so it can stay open beside the board."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("How to prepare a board")
        self.text = QTextBrowser()
        self.text.setOpenExternalLinks(False)
        self.text.setHtml(workflow_html())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addWidget(buttons)
        self.resize(560, 560)
