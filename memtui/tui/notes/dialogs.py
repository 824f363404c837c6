"""What to do about the notes similar to one being saved."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, OptionList
from textual.widgets.option_list import Option

from memtui.engine import Note, SimilarNote
from memtui.tui.format import when

DIALOG_CSS = """
SimilarNotes { align: center middle; }
SimilarNotes OptionList { height: auto; max-height: 8; margin-top: 1; }
"""


class SimilarNotes(ModalScreen[tuple[str, int] | None]):
    """A new note is near others: open one, merge the new note into one, or keep it as
    it is. Answers ("open" | "merge", the other note's id), or None to keep."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "choose('open')", "Open", id="similar.open"),
        Binding("m", "choose('merge')", "Merge into", id="similar.merge"),
        Binding("k,escape", "keep", "Keep", id="similar.keep"),
    ]

    def __init__(self, note: Note, similar: list[SimilarNote]) -> None:
        super().__init__()
        self.note = note
        self.similar = similar

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(f"Saved {self.note.title!r}. Similar notes exist:", classes="dialog-title")
            options = []
            for s in self.similar:
                line = Text(s.note.title, style="bold")
                line.append(
                    f"  {s.note.layer} · {s.note.folder or '(no folder)'} · "
                    f"{when(s.note.updated)} · similarity {1 - s.distance:.2f}",
                    style="dim",
                )
                options.append(Option(line, id=str(s.note.id)))
            yield OptionList(*options, id="similar-list")
            yield Label(
                "o open the highlighted note · m merge this one into it · k keep both",
                classes="dialog-hint",
            )
            with Horizontal():
                yield Button("Open (o)", id="open")
                yield Button("Merge into (m)", id="merge")
                yield Button("Keep (k)", variant="primary", id="keep")

    def on_mount(self) -> None:
        listing = self.query_one(OptionList)
        listing.highlighted = 0
        listing.focus()

    def _chosen(self) -> int | None:
        listing = self.query_one(OptionList)
        if listing.highlighted is None:
            return None
        return self.similar[listing.highlighted].note.id

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "keep":
            self.action_keep()
        else:
            self.action_choose(event.button.id or "open")

    @on(OptionList.OptionSelected)
    def _selected(self) -> None:
        self.action_choose("open")

    def action_choose(self, what: str) -> None:
        chosen = self._chosen()
        self.dismiss((what, chosen) if chosen is not None else None)

    def action_keep(self) -> None:
        self.dismiss(None)
