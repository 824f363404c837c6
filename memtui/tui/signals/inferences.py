"""The person's inferences, stale ones marked, and the provenance of one: each note or
message it rests on, unchanged, changed (with the diff since the mint) or deleted. On either
screen the person confirms a stale one again (c) or drops one (d).

Listing and getting re-check the evidence in the engine: both run in a worker, again
whenever the store changes (a note edited anywhere may make one stale) and when the screen
comes back."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.option_list import Option

from memtui.engine.signal_types import Evidence, Inference, MessageRef
from memtui.tui.format import WordCut, when
from memtui.tui.messages import StoreChanged
from memtui.tui.signals import flows
from memtui.tui.status import Keys, StatusLine
from memtui.tui.tables import ListTable

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp

STATE_MARKS = {"unchanged": ("✓ unchanged", "green"), "changed": ("± changed", "yellow")}
DELETED = ("✗ deleted", "red")


def status_mark(inference: Inference) -> Text:
    if inference.status == "stale":
        return Text.assemble(("⚠ stale", "bold yellow"))
    return Text.assemble(("active", "green"))


def state_mark(evidence: Evidence) -> Text:
    shown, style = STATE_MARKS.get(evidence.state, DELETED)
    return Text.assemble((shown, style))


class InferenceTable(ListTable):
    """Inferences, one a row."""


class InferencesScreen(Screen[None]):
    app: MemtuiApp
    AUTO_FOCUS = "#inference-table"
    DEFAULT_CSS = """
    #inferences-title { padding: 0 1; color: $text-muted; }
    #inference-table { height: 1fr; overflow-x: hidden; }
    #inference-summary { height: auto; max-height: 6; padding: 0 1; border-top: hkey $panel; }
    #inferences-empty { display: none; padding: 1 2; color: $text-muted; height: 1fr; }
    InferencesScreen.-empty #inferences-empty { display: block; }
    InferencesScreen.-empty #inference-table, InferencesScreen.-empty #inference-summary {
        display: none;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="screen.back"),
        Binding("p", "provenance", "Provenance", id="inference.provenance"),
        Binding("c", "keep", "Confirm", id="inference.keep"),
        Binding("d", "drop", "Drop", id="inference.drop"),
        Binding("s", "status", "Status", id="inferences.status"),
        Binding("S", "signals", "Signals", id="inferences.signals"),
    ]

    def __init__(self, status: str | None = None) -> None:
        super().__init__()
        self.status = status
        self.inferences: dict[str, Inference] = {}
        self.loaded = False

    def compose(self) -> ComposeResult:
        yield StatusLine()
        with Vertical(id="inferences"):
            yield Static("Inferences", id="inferences-title")
            table = InferenceTable(id="inference-table", cursor_type="row", zebra_stripes=True)
            table.add_column("#", key="id", width=4)
            table.add_column("State", key="state", width=8)
            table.add_column("Conf", key="conf", width=5)
            table.add_column("Minted", key="created", width=10)
            table.add_column("Title", key="title")
            yield table
            yield Static("", id="inference-summary")
            yield Static(
                "No inferences here. Press m on a signal to mint one from its evidence.",
                id="inferences-empty",
            )
        yield Keys()

    def on_mount(self) -> None:
        self.sub_title = "inferences"
        self.reload()

    def on_screen_resume(self) -> None:
        if self.loaded:
            self.reload()

    def on_store_changed(self, _: StoreChanged) -> None:
        if self.loaded:
            self.reload()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("provenance", "drop"):
            return bool(self.inferences)
        if action == "keep":
            i = self._current()
            return i is not None and i.status == "stale"
        return True

    def reload(self) -> None:
        self.load(self.status)

    @work(thread=True, exclusive=True, group="inferences", exit_on_error=False)
    def load(self, status: str | None) -> None:
        found = self.app.ask(lambda: self.app.memory.inferences.list(status=status))
        if found is not None:
            self.app.call_from_thread(self.show, status, found)

    def show(self, status: str | None, found: list[Inference]) -> None:
        if status != self.status:
            return
        if self.loaded and found == list(self.inferences.values()):
            return  # nothing moved: the cursor and the summary stay as they are
        self.loaded = True
        table = self.query_one(InferenceTable)
        keep = self._current_id()
        table.clear()
        self.inferences = {str(i.id): i for i in found}
        for i in found:
            table.add_row(
                Text(str(i.id), style="dim"),
                status_mark(i),
                Text(f"{i.confidence:.2f}", justify="right"),
                when(i.created)[:10],
                WordCut(Text(i.title)),
                key=str(i.id),
            )
        if keep in self.inferences:
            table.move_cursor(row=table.get_row_index(keep), animate=False)
        stale = sum(i.status == "stale" for i in found)
        title = Text.assemble(("Inferences", "bold"), f" — {status or 'all'} · {len(found):,}")
        if stale:
            title.append(f" · {stale:,} stale", style="bold yellow")
        title.append("   s switches all/active/stale", style="dim")
        self.query_one("#inferences-title", Static).update(title)
        self.set_class(not found, "-empty")
        self._show_summary()
        self.refresh_bindings()

    def _current_id(self) -> str | None:
        tables = self.query(InferenceTable)  # none yet, or none left: asked before or after
        if not tables or not tables.first().row_count:
            return None
        table = tables.first()
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value

    def _current(self) -> Inference | None:
        current = self._current_id()
        return self.inferences.get(current) if current else None

    @on(DataTable.RowHighlighted, "#inference-table")
    def _show_summary(self) -> None:
        self.refresh_bindings()
        i = self._current()
        shown = Text()
        if i is not None:
            shown.append(i.summary or "(no summary)")
            shown.append(f"\n{i.citation}", style="dim")
        self.query_one("#inference-summary", Static).update(shown)

    @on(DataTable.RowSelected, "#inference-table")
    def _chosen(self) -> None:
        self.action_provenance()

    def action_provenance(self) -> None:
        if i := self._current():
            flows.provenance(self.app, i.id)

    def action_keep(self) -> None:
        if (i := self._current()) and i.status == "stale":
            flows.keep(self.app, i, then=self.reload)

    def action_drop(self) -> None:
        if i := self._current():
            flows.drop(self.app, i, then=self.reload)

    def action_status(self) -> None:
        order: list[str | None] = [None, "active", "stale"]
        self.status = order[(order.index(self.status) + 1) % len(order)]
        self.reload()

    def action_signals(self) -> None:
        flows.signals(self.app)

    def action_back(self) -> None:
        self.dismiss()


class ProvenanceList(OptionList):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False, id="go.down"),
        Binding("k", "cursor_up", "Up", show=False, id="go.up"),
    ]


class ProvenanceScreen(Screen[None]):
    """One inference: its summary and citation, its evidence with each one's state, and the
    diff of the highlighted one when it changed. Enter opens a note, or a message at its
    place in its session."""

    app: MemtuiApp

    AUTO_FOCUS = "#provenance-list"
    DEFAULT_CSS = """
    #provenance-head { height: auto; padding: 0 1; border-bottom: hkey $panel; }
    #provenance-list { height: auto; max-height: 45%; border: none; }
    #provenance-diff-title { padding: 0 1; color: $text-muted; border-top: hkey $panel; }
    #provenance-scroll { height: 1fr; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="screen.back"),
        Binding("o", "open", "Open", id="provenance.open"),
        Binding("c", "keep", "Confirm", id="inference.keep"),
        Binding("d", "drop", "Drop", id="inference.drop"),
    ]

    def __init__(self, inference_id: int) -> None:
        super().__init__()
        self.inference_id = inference_id
        self.inference: Inference | None = None
        self.messages: dict[str, MessageRef] = {}

    def compose(self) -> ComposeResult:
        yield StatusLine()
        with Vertical(id="provenance"):
            yield Static(Text("loading…", style="dim"), id="provenance-head")
            yield ProvenanceList(id="provenance-list")
            yield Static("", id="provenance-diff-title")
            with VerticalScroll(id="provenance-scroll"):
                yield Static("", id="provenance-diff")
        yield Keys()

    def on_mount(self) -> None:
        self.sub_title = f"inference #{self.inference_id}"
        self.load()

    def on_screen_resume(self) -> None:
        if self.inference is not None:  # back from its evidence, which may have changed
            self.load()

    def on_store_changed(self, _: StoreChanged) -> None:
        if self.inference is not None:
            self.load()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open":
            e = self._current()
            return e is not None and e.state != "deleted"
        if action == "keep":
            return self.inference is not None and self.inference.status == "stale"
        if action == "drop":
            return self.inference is not None
        return True

    @work(thread=True, exclusive=True, group="provenance", exit_on_error=False)
    def load(self) -> None:
        memory = self.app.memory
        found = self.app.ask(lambda: memory.inferences.get_inference(self.inference_id))
        if found is None:
            return
        # Evidence names a message by uuid; the signal it came from has where it is
        messages: dict[str, MessageRef] = {}
        signal_id = found.signal_id
        if signal_id is not None and any(e.kind == "message" for e in found.evidence):
            signal = self.app.ask(lambda: memory.signals.get(signal_id))
            if signal is not None:
                messages = {m.uuid: m for m in signal.messages}
        self.app.call_from_thread(self.show, found, messages)

    def show(self, found: Inference, messages: dict[str, MessageRef]) -> None:
        if found == self.inference and messages == self.messages:
            return  # nothing moved: the cursor and the diff stay as they are
        listing = self.query_one(ProvenanceList)
        at = listing.highlighted
        self.inference = found
        self.messages = messages
        head = Text.assemble((f"#{found.id} {found.title}", "bold"), "  ", status_mark(found))
        head.append(f"\nconfidence {found.confidence:.2f} · minted {when(found.created)}")
        head.append(f" · {found.citation}", style="dim")
        if found.summary:
            head.append(f"\n{found.summary}")
        self.query_one("#provenance-head", Static).update(head)
        options = []
        for k, e in enumerate(found.evidence):
            line = state_mark(e)
            line.pad_right(13 - len(line))
            line.append(f"{e.kind:<8}", style="dim")
            line.append(e.title or e.ref, style="bold" if e.state != "deleted" else "strike")
            line.append(f"  #{e.ref}" if e.kind == "note" else f"  {e.ref[:8]}", style="dim")
            line.truncate(300)
            options.append(Option(line, id=str(k)))
        listing.set_options(options)
        if options:
            listing.highlighted = min(at or 0, len(options) - 1)
        self._show_diff()
        self.refresh_bindings()

    def _current(self) -> Evidence | None:
        found = self.query(ProvenanceList)
        at = found.first().highlighted if found else None
        if self.inference is None or at is None:
            return None
        evidence = self.inference.evidence
        return evidence[at] if at < len(evidence) else None

    @on(OptionList.OptionHighlighted, "#provenance-list")
    def _show_diff(self) -> None:
        e = self._current()
        title = self.query_one("#provenance-diff-title", Static)
        shown = self.query_one("#provenance-diff", Static)
        self.refresh_bindings()
        if e is None:
            title.update("")
            shown.update("")
            return
        if e.state == "changed":
            title.update(Text.assemble(("Changed since the mint", "bold"), "  (diff)"))
            shown.update(diff_text(e.diff or ""))
        elif e.state == "deleted":
            title.update(Text("Deleted since the mint", style="bold"))
            shown.update(Text(f"the {e.kind} {e.title!r} is no longer in memtui", style="dim"))
        else:
            title.update(Text("Unchanged since the mint", style="bold"))
            shown.update(Text("enter or o opens it", style="dim"))

    @on(OptionList.OptionSelected, "#provenance-list")
    def _chosen(self) -> None:
        self.action_open()

    def action_open(self) -> None:
        e = self._current()
        if e is None or e.state == "deleted":
            return
        if e.kind == "note":
            flows.open_note(self.app, int(e.ref))
        elif (m := self.messages.get(e.ref)) is not None:
            flows.open_message(self.app, m)
        else:
            self.notify("this message's place in its session is not known here")

    def action_keep(self) -> None:
        if self.inference is not None and self.inference.status == "stale":
            flows.keep(self.app, self.inference, then=self.load)

    def action_drop(self) -> None:
        if self.inference is not None:
            flows.drop(self.app, self.inference, then=self.dismiss)

    def action_back(self) -> None:
        self.dismiss()


def diff_text(diff: str) -> Text:
    shown = Text()
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        elif line.startswith("@@"):
            style = "cyan"
        else:
            style = ""
        shown.append(line + "\n", style=style)
    return shown
