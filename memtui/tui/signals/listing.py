"""The signals: by type and status (new first), the evidence of the highlighted one beside
it, and the keys that triage it: d dismiss, z snooze, u back to new, m mint an inference.

Detection runs in a worker (the engine re-runs it only when notes or messages changed): on
each change of the store the screen runs it and reads the cheap counts, and reloads when
they moved."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.option_list import Option

from memtui.engine.signal_types import SIGNAL_TYPES, Counts, Signal
from memtui.tui.format import WordCut, when
from memtui.tui.messages import StoreChanged
from memtui.tui.signals import flows
from memtui.tui.status import Keys, StatusLine
from memtui.tui.tables import ListTable

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp

ALL = "all"
STATUS_ORDER: tuple[str | None, ...] = ("new", "snoozed", "dismissed", "synthesized", None)
TYPE_NAMES = {
    "dangling_link": "dangling link",
    "stale_state": "stale state",
    "tag_burst": "tag burst",
    "hidden_arc": "hidden arc",
    "recurring_error": "recurring error",
}


class TypeList(OptionList):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False, id="go.down"),
        Binding("k", "cursor_up", "Up", show=False, id="go.up"),
    ]


class SignalTable(ListTable):
    """Signals, one a row."""


class EvidenceList(OptionList):
    """The highlighted signal's notes and messages; Enter opens one."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False, id="go.down"),
        Binding("k", "cursor_up", "Up", show=False, id="go.up"),
    ]


class SignalsScreen(Screen[None]):
    app: MemtuiApp
    AUTO_FOCUS = "#signal-table"
    DEFAULT_CSS = """
    #signals-sidebar { width: 20; border-right: vkey $panel-lighten-2; background: $surface; }
    #signal-types { height: 1fr; border: none; background: $surface; }
    #signals-pane { width: 1fr; }
    #signals-title, #evidence-title { padding: 0 1; color: $text-muted; }
    #signal-table { height: 1fr; min-height: 4; overflow-x: hidden; }
    #signal-detail { padding: 0 1; height: auto; max-height: 3; }
    #evidence-list { height: auto; max-height: 40%; border: none; }
    #signals-empty { display: none; padding: 1 2; color: $text-muted; height: 1fr; }
    SignalsScreen.-empty #signals-empty { display: block; }
    SignalsScreen.-empty #signal-table, SignalsScreen.-empty #signal-detail,
    SignalsScreen.-empty #evidence-title, SignalsScreen.-empty #evidence-list {
        display: none;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="screen.back"),
        Binding("d", "dismiss_signal", "Dismiss", id="signal.dismiss"),
        Binding("z", "snooze", "Snooze", id="signal.snooze"),
        Binding("u", "renew", "Back to new", id="signal.new"),
        Binding("m", "mint", "Mint", id="signal.mint"),
        Binding("s", "status", "Status", id="signals.status"),
        Binding("o", "open_evidence", "Open evidence", show=False, id="signals.open"),
        Binding("i", "inferences", "Inferences", id="signals.inferences"),
        Binding("left", "focus_types", "Types", show=False, id="signals.types"),
        Binding("tab", "focus_evidence", "Evidence", show=False, id="signals.evidence"),
    ]

    def __init__(self, status: str = "new", type: str | None = None) -> None:
        super().__init__()
        self.status: str | None = status
        self.type = type
        self.signals: dict[str, Signal] = {}
        self.loaded = False
        self.seen: Counts | None = None
        # Through a status with no signals the table is hidden (Textual moves the focus to
        # the types): the signal that was highlighted, and whether the table had the focus.
        self._kept: str | None = None
        self._refocus = False

    def compose(self) -> ComposeResult:
        yield StatusLine()
        with Horizontal(id="signals"):
            with Vertical(id="signals-sidebar"):
                yield Static("Signals", classes="area-title")
                options = [Option("All types", id=ALL)]
                options += [Option(TYPE_NAMES[t], id=t) for t in SIGNAL_TYPES]
                yield TypeList(*options, id="signal-types")
            with Vertical(id="signals-pane"):
                yield Static("Signals", id="signals-title")
                yield SignalTable(id="signal-table", cursor_type="row", zebra_stripes=True)
                yield Static("", id="signal-detail")
                yield Static("Evidence", id="evidence-title")
                yield EvidenceList(id="evidence-list")
                yield Static("", id="signals-empty")
        yield Keys()

    def on_mount(self) -> None:
        self.sub_title = "signals"
        self.reload()

    def on_screen_resume(self) -> None:
        if self.loaded:
            self.reload()

    def on_store_changed(self, _: StoreChanged) -> None:
        self.follow_store()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        current = self._current()
        if action == "dismiss_signal":
            return current is not None and current.status in ("new", "snoozed")
        if action == "snooze":
            return current is not None and current.status == "new"
        if action == "renew":
            return current is not None and current.status in ("dismissed", "snoozed")
        if action == "mint":
            return current is not None and current.status != "synthesized"
        if action == "open_evidence":
            return current is not None and bool(current.notes or current.messages)
        return True

    # -- loading -----------------------------------------------------------------------------

    def reload(self) -> None:
        self.load(self.type, self.status)

    @work(thread=True, exclusive=True, group="signals", exit_on_error=False)
    def load(self, type: str | None, status: str | None) -> None:
        memory = self.app.memory
        found = self.app.ask(lambda: memory.signals.list(type=type, status=status))
        counts = self.app.ask(memory.signals.counts)
        if found is not None:
            self.app.call_from_thread(self.show, type, status, found.signals, counts)

    @work(thread=True, exclusive=True, group="signals-follow", exit_on_error=False)
    def follow_store(self) -> None:
        """Detection (a no-op on an unchanged corpus), then the counts: a reload only when
        they moved."""
        if not self.is_current or not self.loaded:
            return
        memory = self.app.memory
        self.app.ask(memory.signals.detect)
        counts = self.app.ask(memory.signals.counts)
        if counts is not None and counts != self.seen:
            self.app.call_from_thread(self.reload)

    def show(
        self, type: str | None, status: str | None, found: list[Signal], counts: Counts | None
    ) -> None:
        if (type, status) != (self.type, self.status):
            return  # a newer choice is on its way
        self.loaded = True
        self.seen = counts
        table = self.query_one(SignalTable)
        keep = self._current_id() or self._kept
        at = table.cursor_row
        focused = table.has_focus or self._refocus
        # One status shown: its column would repeat it on every row, the titles get the room
        table.clear(columns=(status is None) != ("status" in table.columns))
        if not table.columns:
            table.add_column("Type", key="type", width=15)
            if status is None:
                table.add_column("Status", key="status", width=11)
            table.add_column("Title", key="title")
            table.fit()
        self.signals = {str(s.id): s for s in found}
        for s in found:
            cells: list[RenderableType] = [Text(TYPE_NAMES.get(s.type, s.type), style="bold")]
            if status is None:
                cells.append(status_cell(s))
            cells.append(WordCut(Text(s.title)))
            table.add_row(*cells, key=str(s.id))
        if keep in self.signals:
            table.move_cursor(row=table.get_row_index(keep), animate=False)
        elif found:
            table.move_cursor(row=min(at, len(found) - 1), animate=False)
        kind = "all types" if type is None else TYPE_NAMES.get(type, type)
        title = Text.assemble(("Signals", "bold"), f" — {status or 'any status'} · {kind}")
        title.append(f" · {len(found):,}")
        title.append("   s switches the status", style="dim")
        self.query_one("#signals-title", Static).update(title)
        empty = (
            "Nothing here."
            if status != "new"
            else (
                "No new signals. memtui looks for dangling links, stale state notes, tag bursts, "
                "hidden arcs between notes and errors that recur across sessions."
            )
        )
        self.query_one("#signals-empty", Static).update(empty)
        self.set_class(not found, "-empty")
        self._kept = None if found else keep
        self._refocus = focused and not found
        if found and focused:
            table.focus()
        self._show_evidence()
        self.refresh_bindings()

    def _current_id(self) -> str | None:
        tables = self.query(SignalTable)  # none yet, or none left: asked before or after
        if not tables or not tables.first().row_count:
            return None
        table = tables.first()
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value

    def _current(self) -> Signal | None:
        current = self._current_id()
        return self.signals.get(current) if current else None

    @on(DataTable.RowHighlighted, "#signal-table")
    def _highlighted(self) -> None:
        self._show_evidence()
        self.refresh_bindings()

    def _show_evidence(self) -> None:
        s = self._current()
        detail = self.query_one("#signal-detail", Static)
        evidence = self.query_one(EvidenceList)
        if s is None:
            detail.update("")
            evidence.clear_options()
            return
        line = Text(s.detail)
        if s.status == "snoozed" and s.snooze_until:
            line.append(f"  (snoozed until {s.snooze_until[:16].replace('T', ' ')})", style="dim")
        detail.update(line)
        options = []
        for n in s.notes:
            shown = Text("note     ", style="dim")
            shown.append(n.title, style="bold")
            shown.append(f"  {n.folder or '(no folder)'} · {when(n.updated)}", style="dim")
            options.append(Option(shown, id=f"note:{n.id}"))
        for i, m in enumerate(s.messages):
            shown = Text("message  ", style="dim")
            shown.append(f"{when(m.timestamp) or 'undated'}  ")
            shown.append(m.session_title or "(untitled)", style="bold")
            shown.append(f" #{m.message_index}  ", style="dim")
            shown.append(m.snippet.replace("\n", " "))
            shown.truncate(400)
            options.append(Option(shown, id=f"message:{i}"))
        evidence.set_options(options)
        if options:
            evidence.highlighted = 0
        self.query_one("#evidence-title", Static).update(
            Text.assemble(("Evidence", "bold"), "  tab to it, enter opens")
        )

    # -- choosing ----------------------------------------------------------------------------

    @on(OptionList.OptionSelected, "#signal-types")
    def _type_chosen(self, event: OptionList.OptionSelected) -> None:
        self.type = None if event.option.id == ALL else event.option.id
        self.reload()
        self.query_one(SignalTable).focus()

    @on(OptionList.OptionSelected, "#evidence-list")
    def _evidence_chosen(self, event: OptionList.OptionSelected) -> None:
        self._open(event.option.id or "")

    @on(DataTable.RowSelected, "#signal-table")
    def _row_chosen(self) -> None:
        self.action_open_evidence()

    def _open(self, option_id: str) -> None:
        s = self._current()
        if s is None:
            return
        kind, _, value = option_id.partition(":")
        if kind == "note":
            flows.open_note(self.app, int(value))
        elif kind == "message":
            flows.open_message(self.app, s.messages[int(value)])

    # -- actions -----------------------------------------------------------------------------

    def action_dismiss_signal(self) -> None:
        if s := self._current():
            flows.dismiss(self.app, s, then=self.reload)

    def action_snooze(self) -> None:
        if s := self._current():
            flows.snooze(self.app, s, then=self.reload)

    def action_renew(self) -> None:
        if s := self._current():
            flows.set_status(self.app, s, "new", then=self.reload)

    def action_mint(self) -> None:
        if s := self._current():
            flows.mint_form(self.app, s, then=self.reload)

    def action_status(self) -> None:
        """new → snoozed → dismissed → synthesized → any status → new."""
        at = STATUS_ORDER.index(self.status)
        self.status = STATUS_ORDER[(at + 1) % len(STATUS_ORDER)]
        self.reload()

    def action_open_evidence(self) -> None:
        evidence = self.query_one(EvidenceList)
        at = evidence.highlighted
        if at is not None and evidence.option_count:
            self._open(evidence.get_option_at_index(at).id or "")

    def action_inferences(self) -> None:
        flows.inferences(self.app)

    def action_focus_types(self) -> None:
        self.query_one(TypeList).focus()

    def action_focus_evidence(self) -> None:
        evidence = self.query_one(EvidenceList)
        if evidence.has_focus:
            self.query_one(SignalTable).focus()
        else:
            evidence.focus()

    def action_back(self) -> None:
        self.dismiss()


def status_cell(s: Signal) -> Text:
    styles = {"new": "bold", "snoozed": "italic", "dismissed": "dim", "synthesized": "green"}
    return Text(s.status, style=styles.get(s.status, ""))
