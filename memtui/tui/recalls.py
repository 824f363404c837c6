"""What the hooks told Claude unasked (the recall log): one row a recall, the newest first, and
the highlighted one's words in full, so a person sees what Claude was given."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Label, OptionList, Static
from textual.widgets.option_list import Option

from memtui.engine import Recall, recall, short_id
from memtui.errors import MemtuiError
from memtui.tui.format import error_line, home_short, when
from memtui.tui.session import SessionScreen
from memtui.tui.tables import OPTION_KEYS
from memtui.words import counted

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp

SHOWN = 200  # the newest recalls listed


class RecallList(OptionList):
    BINDINGS: ClassVar[list[BindingType]] = [
        *OPTION_KEYS,
    ]


class RecallsScreen(Screen[None]):
    app: MemtuiApp
    DEFAULT_CSS = """
    RecallsScreen #recalls-title { text-style: bold; padding: 0 1; }
    RecallsScreen #recalls-summary { color: $text-muted; padding: 0 1; }
    RecallsScreen #recalls-list { height: 2fr; }
    RecallsScreen #recalls-text { height: 3fr; padding: 0 1; border-top: solid $panel; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back", id="recalls.back"),
        Binding("enter", "open", "Open session", id="recalls.open"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.recalls: list[Recall] = []

    def compose(self) -> ComposeResult:
        yield Label("What the hooks told Claude", id="recalls-title")
        yield Label("reading the recall log…", id="recalls-summary")
        yield RecallList(id="recalls-list")
        with VerticalScroll(id="recalls-text"):
            yield Static("", id="recalls-said")
        yield Footer()

    def on_mount(self) -> None:
        self.load()

    def on_screen_resume(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="recalls", exit_on_error=False)
    def load(self) -> None:
        try:
            said = recall.recent(self.app.memory.config, SHOWN)
        except MemtuiError as exc:
            self.app.call_from_thread(self.notify, error_line(exc), severity="error")
            return
        self.app.call_from_thread(self.show, said)

    def show(self, said: list[Recall]) -> None:
        self.recalls = said
        listing = self.query_one(RecallList)
        listing.clear_options()
        listing.add_options(Option(_row(r), id=str(r.id)) for r in said)
        summary = self.query_one("#recalls-summary", Label)
        if not said:
            summary.update("no recalls yet: the hooks have said nothing")
            self.query_one("#recalls-said", Static).update("")
            return
        chars = sum(r.chars for r in said)
        summary.update(
            f"{counted(len(said), 'recall')}, {chars:,} characters, newest first · "
            "enter opens the conversation"
        )
        listing.highlighted = 0
        listing.focus()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        chosen = self._chosen()
        if chosen is not None:
            head = f"{recall.HOOK_NAMES.get(chosen.hook, chosen.hook)} hook · {when(chosen.at)} · "
            head += f"session {chosen.session_id} · {home_short(chosen.cwd)}\n\n"
            said = Text(head, style="dim")
            said.append(chosen.text)
            self.query_one("#recalls-said", Static).update(said)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_open()

    def action_open(self) -> None:
        """The conversation the recall was said in (once memtui has archived it)."""
        chosen = self._chosen()
        if chosen is None:
            return
        try:
            self.app.memory.history.get_session(chosen.session_id, limit=1)
        except MemtuiError:
            self.notify("that conversation is not in the archive (yet)", severity="warning")
            return
        self.app.push_screen(SessionScreen(chosen.session_id))

    def _chosen(self) -> Recall | None:
        index = self.query_one(RecallList).highlighted
        return self.recalls[index] if index is not None and index < len(self.recalls) else None


def _row(said: Recall) -> Text:
    """One line at 80 columns: when, which hook, how much, in which session (its folder is
    above the words)."""
    row = Text(f"{when(said.at)}  ", style="dim")
    row.append(f"{recall.HOOK_NAMES.get(said.hook, said.hook):<13}", style="bold")
    row.append(f" {said.chars:>6,} chars  session {short_id(said.session_id)}")
    return row
