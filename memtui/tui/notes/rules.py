"""Rules Claude saved, waiting for the person: approve one (it becomes a house rule, sent to
Claude on connect), edit it first, or reject it (deleted, asked first)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.markdown import Markdown
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Static

from memtui.engine import Note
from memtui.tui.format import when
from memtui.tui.messages import StoreChanged
from memtui.tui.notes import flows
from memtui.tui.notes.listing import NoteTable, note_title
from memtui.tui.session import CODE_THEME
from memtui.tui.status import Keys, StatusLine

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp


class RulesScreen(Screen[None]):
    app: MemtuiApp
    AUTO_FOCUS = "#rule-table"
    DEFAULT_CSS = """
    #rules-title { padding: 0 1; color: $text-muted; }
    #rule-table { height: 1fr; max-height: 12; }
    #rule-preview { height: 2fr; border-top: hkey $panel-lighten-2; padding: 0 1; }
    #rules-empty { display: none; padding: 2 4; color: $text-muted; }
    RulesScreen.-empty #rules-empty { display: block; }
    RulesScreen.-empty #rule-table, RulesScreen.-empty #rule-preview { display: none; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="screen.back"),
        Binding("a", "approve", "Approve", id="rule.approve"),
        Binding("e", "edit", "Edit", id="note.edit"),
        Binding("x", "reject", "Reject", id="rule.reject"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.waiting: dict[str, Note] = {}
        self.approved = 0

    def compose(self) -> ComposeResult:
        yield StatusLine()
        yield Static("Rules", id="rules-title")
        table = NoteTable(id="rule-table", cursor_type="row", zebra_stripes=True)
        table.add_column("Saved", key="created", width=16)
        table.add_column("Title", key="title")
        yield table
        with VerticalScroll(id="rule-preview"):
            yield Static("", id="rule-text")
        yield Static(
            "No rules are waiting. When Claude saves a rule, it waits here until you approve it.",
            id="rules-empty",
        )
        yield Keys()

    def on_mount(self) -> None:
        self.sub_title = "rules to approve"
        self.load()

    def on_screen_resume(self) -> None:
        self.load()

    def on_store_changed(self, _: StoreChanged) -> None:
        self.load()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("approve", "edit", "reject"):
            return bool(self.waiting)
        return True

    @work(thread=True, exclusive=True, group="rules", exit_on_error=False)
    def load(self) -> None:
        rules = self.app.ask(self.app.memory.notes.rules)
        if rules is not None:
            self.app.call_from_thread(self.show, rules)

    def show(self, rules: list[Note]) -> None:
        waiting = [r for r in rules if r.status == "provisional"]
        approved = len(rules) - len(waiting)
        if approved == self.approved and waiting == list(self.waiting.values()):
            return  # nothing moved: keep the cursor and the preview as they are
        table = self.query_one(NoteTable)
        keep = self._current_id()
        table.clear()
        self.waiting = {str(r.id): r for r in waiting}
        self.approved = approved
        for r in waiting:
            table.add_row(when(r.created), note_title(r), key=str(r.id))
        if keep in self.waiting:
            table.move_cursor(row=table.get_row_index(keep), animate=False)
        title = Text.assemble(
            ("Rules saved by Claude", "bold"), f", waiting for your approval · {len(waiting)}"
        )
        title.append(f"   ({approved} approved rule{'s' * (approved != 1)} in force)", "dim")
        self.query_one("#rules-title", Static).update(title)
        self.set_class(not waiting, "-empty")
        self._preview()
        self.refresh_bindings()

    def _current_id(self) -> str | None:
        table = self.query_one(NoteTable)
        if not table.row_count:
            return None
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value

    def _current(self) -> Note | None:
        current = self._current_id()
        return self.waiting.get(current) if current else None

    @on(DataTable.RowHighlighted, "#rule-table")
    def _preview(self) -> None:
        rule = self._current()
        shown = self.query_one("#rule-text", Static)
        if rule is None:
            shown.update("")
            return
        theme = CODE_THEME[self.app.current_theme.dark]
        alike = rule.looks_like
        warn = "" if alike is None else f"**⚠ Its title looks like note #{alike}'s.**\n\n"
        shown.update(Markdown(f"# {rule.title}\n\n{warn}{rule.body}", code_theme=theme))

    @on(DataTable.RowSelected, "#rule-table")
    def _open(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value:
            flows.open_note(self.app, int(event.row_key.value))

    def action_approve(self) -> None:
        if rule := self._current():
            flows.approve(self.app, rule, then=self.load)

    def action_edit(self) -> None:
        if rule := self._current():
            flows.edit(self.app, rule)

    def action_reject(self) -> None:
        if rule := self._current():
            flows.delete(self.app, rule, then=self.load, verb="Reject")

    def action_back(self) -> None:
        self.dismiss()
