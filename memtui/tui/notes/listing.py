"""The notes: layers, folders and tags with their counts beside the list of notes, newest
first; and the Notes entry of the main screen's sidebar that leads here.

Notes change from elsewhere too (Claude saves them over MCP, in this process or another):
when the store changes (tui/watcher.py), both read a cheap signature of the notes and
reload when it moved."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.option_list import Option

from memtui.engine import LAYERS, FolderCount, Layer, Note, TagCount
from memtui.tui.format import WordCut, when
from memtui.tui.messages import StoreChanged
from memtui.tui.notes import flows
from memtui.tui.notes.view import layer_colour
from memtui.tui.status import Keys, StatusLine
from memtui.tui.tables import ListTable

if TYPE_CHECKING:
    from memtui.engine import Notes
    from memtui.tui.app import MemtuiApp

LISTED = 200  # notes in the table at once; the title says how many more a filter reaches
ALL = "all"
RULES = "rules"


@dataclass(frozen=True, slots=True)
class Filter:
    folder: str | None = None
    tag: str | None = None
    layer: Layer | None = None

    @staticmethod
    def of(option_id: str) -> Filter:
        kind, _, value = option_id.partition(":")
        if kind == "folder":
            return Filter(folder=value)
        if kind == "tag":
            return Filter(tag=value)
        if kind == "layer":
            for layer in LAYERS:  # the option's text as the engine's Layer
                if value == layer:
                    return Filter(layer=layer)
        return Filter()

    def label(self) -> str:
        if self.folder is not None:
            return f"folder {self.folder or '(no folder)'}"
        if self.tag is not None:
            return f"#{self.tag}"
        if self.layer is not None:
            return f"{self.layer} notes"
        return "all"


Signature = tuple[int, tuple[int, str] | None, int]


@dataclass(frozen=True, slots=True)
class Overview:
    """What the filter list shows."""

    signature: Signature
    total: int
    provisional: int
    approved: int
    layers: dict[str, int]
    folders: list[FolderCount]
    tags: list[TagCount]


def signature(app: MemtuiApp) -> Signature | None:
    """What moves when any note is written, deleted or approved: how many there are, the
    last one written, how many rules wait. Three small reads, on each change of the store."""

    return app.ask(lambda: _signature(app.memory.notes))


def _signature(notes: Notes) -> Signature:
    newest = notes.list(limit=1)
    waiting = len(notes.rules(status="provisional"))
    return notes.count(), (newest[0].id, newest[0].updated) if newest else None, waiting


def overview(app: MemtuiApp) -> Overview | None:
    """Counts for the filter list, read in a worker."""

    def read() -> Overview:
        notes = app.memory.notes
        sign = _signature(notes)
        rules = notes.rules()
        provisional = sum(r.status == "provisional" for r in rules)
        return Overview(
            signature=sign,
            total=notes.count(),
            provisional=provisional,
            approved=len(rules) - provisional,
            layers={layer: notes.count(layer=layer) for layer in LAYERS},
            folders=notes.folders(),
            tags=notes.tags(),
        )

    return app.ask(read)


def counted(name: str, count: int, style: str = "") -> Text:
    line = Text(name, style=style, overflow="ellipsis", no_wrap=True)
    line.append(f"  {count:,}", style="dim")
    return line


class FilterList(OptionList):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False, id="go.down"),
        Binding("k", "cursor_up", "Up", show=False, id="go.up"),
    ]


class NoteTable(ListTable):
    """Notes (and the rules waiting for approval), one a row."""


class NotesScreen(Screen[None]):
    app: MemtuiApp
    AUTO_FOCUS = "#note-table"
    DEFAULT_CSS = """
    #notes-sidebar { width: 24; border-right: vkey $panel-lighten-2; background: $surface; }
    #note-filters { height: 1fr; border: none; background: $surface; }
    #notes-pane { width: 1fr; }
    #notes-title { padding: 0 1; color: $text-muted; }
    #note-table { height: 1fr; }
    #notes-empty { display: none; padding: 2 4; color: $text-muted; }
    NotesScreen.-empty #notes-empty { display: block; }
    NotesScreen.-empty #note-table { display: none; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="screen.back"),
        Binding("n", "new", "New", id="note.new"),
        Binding("e", "edit", "Edit", id="note.edit"),
        Binding("d", "delete", "Delete", id="note.delete"),
        Binding("R", "rules", "Rules", id="notes.rules"),
        Binding("slash", "search", "Search notes", id="notes.search"),
        Binding("left", "focus_filters", "Filters", show=False, id="notes.filters"),
    ]

    def __init__(self, start: Filter | None = None) -> None:
        super().__init__()
        self.filter = start or Filter()
        self.notes: dict[str, Note] = {}
        self.seen: Overview | None = None

    def compose(self) -> ComposeResult:
        yield StatusLine()
        with Horizontal(id="notes"):
            with Vertical(id="notes-sidebar"):
                yield Static("Notes", classes="area-title")
                yield FilterList(id="note-filters")
            with Vertical(id="notes-pane"):
                yield Static("Notes", id="notes-title")
                table = NoteTable(id="note-table", cursor_type="row", zebra_stripes=True)
                table.add_column("Updated", key="updated", width=11)
                table.add_column("Layer", key="layer", width=6)
                table.add_column("Folder", key="folder", width=12)
                table.add_column("Title", key="title")
                yield table
                yield Static(
                    "No notes here yet. Press n to write one, or ask Claude to save one.",
                    id="notes-empty",
                )
        yield Keys()

    def on_mount(self) -> None:
        self.sub_title = "notes"
        self.reload()

    def on_screen_resume(self) -> None:
        self.reload()

    def on_store_changed(self, _: StoreChanged) -> None:
        self.follow_store()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("edit", "delete"):
            return bool(self.notes)
        if action == "rules":
            return self.seen is not None and self.seen.provisional > 0
        return True

    def reload(self) -> None:
        self.load_overview()
        self.load_notes(self.filter)

    @work(thread=True, exclusive=True, group="follow", exit_on_error=False)
    def follow_store(self) -> None:
        if not self.is_current or self.seen is None or signature(self.app) == self.seen.signature:
            return
        now = overview(self.app)
        if now is not None:
            self.app.call_from_thread(self.show_overview, now)
            self.app.call_from_thread(self.load_notes, self.filter)

    @work(thread=True, exclusive=True, group="overview", exit_on_error=False)
    def load_overview(self) -> None:
        now = overview(self.app)
        if now is not None:
            self.app.call_from_thread(self.show_overview, now)

    def show_overview(self, o: Overview) -> None:
        self.seen = o
        listing = self.query_one(FilterList)
        keep = listing.highlighted_option.id if listing.highlighted_option else None
        options: list[Option | None] = [Option(counted("All notes", o.total, "bold"), id=ALL)]
        if o.provisional:
            options.append(Option(counted("Rules to approve", o.provisional, "bold"), id=RULES))
        options.append(None)
        for layer in LAYERS:
            shown = counted(layer, o.layers.get(layer, 0), layer_colour(self.app, layer))
            options.append(Option(shown, id=f"layer:{layer}"))
        if o.folders:
            options.append(None)
            options.append(Option(Text("Folders", style="bold"), disabled=True))
            options += [
                Option(counted(label, count), id=f"folder:{path}")
                for path, label, count in folder_tree(o.folders)
            ]
        if o.tags:
            options.append(None)
            options.append(Option(Text("Tags", style="bold"), disabled=True))
            options += [Option(counted(f"#{t.tag}", t.count), id=f"tag:{t.tag}") for t in o.tags]
        listing.set_options(options)
        ids = [o.id for o in listing.options]
        if keep in ids:
            listing.highlighted = ids.index(keep)
        self.refresh_bindings()

    @on(OptionList.OptionSelected, "#note-filters")
    def _filter_chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id == RULES:
            flows.rules(self.app)
            return
        self.filter = Filter.of(event.option.id or ALL)
        self.load_notes(self.filter)
        self.query_one(NoteTable).focus()

    @work(thread=True, exclusive=True, group="notes", exit_on_error=False)
    def load_notes(self, chosen: Filter) -> None:
        notes = self.app.memory.notes

        def read() -> tuple[list[Note], int]:
            f = chosen
            listed = notes.list(folder=f.folder, tag=f.tag, layer=f.layer, limit=LISTED)
            total = notes.count(folder=f.folder, tag=f.tag, layer=f.layer)
            return listed, total

        found = self.app.ask(read)
        if found is not None:
            self.app.call_from_thread(self.show_notes, chosen, *found)

    def show_notes(self, chosen: Filter, listed: list[Note], total: int) -> None:
        if chosen != self.filter:
            return  # a newer choice is on its way
        table = self.query_one(NoteTable)
        keep = self._current_id()
        table.clear()
        self.notes = {str(n.id): n for n in listed}
        for n in listed:
            table.add_row(
                updated_cell(n.updated),
                layer_cell(self.app, n),
                Text(n.folder, overflow="ellipsis", no_wrap=True, style="dim"),
                note_title(n),
                key=str(n.id),
            )
        if keep in self.notes:
            table.move_cursor(row=table.get_row_index(keep), animate=False)
        title = Text.assemble(("Notes", "bold"), f" — {chosen.label()} · {total:,}")
        if total > len(listed):
            title.append(f" (the newest {len(listed):,}; a folder, a tag or / reaches the rest)")
        self.query_one("#notes-title", Static).update(title)
        self.set_class(not listed, "-empty")
        self.refresh_bindings()

    def _current_id(self) -> str | None:
        table = self.query_one(NoteTable)
        if not table.row_count:
            return None
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value

    def _current(self) -> Note | None:
        current = self._current_id()
        return self.notes.get(current) if current else None

    @on(DataTable.RowSelected, "#note-table")
    def _open(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value:
            flows.open_note(self.app, int(event.row_key.value))

    def action_new(self) -> None:
        folder = self.filter.folder or ""
        tags = [self.filter.tag] if self.filter.tag else []
        flows.new(self.app, flows.blank(folder=folder, tags=tags, layer=self.filter.layer))

    def action_edit(self) -> None:
        if note := self._current():
            flows.edit(self.app, note)

    def action_delete(self) -> None:
        if note := self._current():
            flows.delete(self.app, note, then=self.reload)

    def action_rules(self) -> None:
        flows.rules(self.app)

    def action_search(self) -> None:
        flows.search_notes(self.app)

    def action_focus_filters(self) -> None:
        self.query_one(FilterList).focus()

    def action_back(self) -> None:
        self.dismiss()


def folder_tree(folders: list[FolderCount]) -> list[tuple[str, str, int]]:
    """The folders as a tree: (path, label, count) with each parent before its children,
    even one that holds no note itself; a label is the folder's last part, indented by its
    depth; a count takes in the notes below (choosing a folder lists them too)."""
    totals: dict[str, int] = {}
    for f in folders:
        parts = f.folder.split("/")
        for depth in range(1, len(parts) + 1):
            path = "/".join(parts[:depth])
            totals[path] = totals.get(path, 0) + f.count
    tree = []
    for path in sorted(totals, key=lambda p: p.casefold().split("/")):
        depth = path.count("/")
        label = "  " * depth + path.rsplit("/", 1)[-1] if path else "(no folder)"
        tree.append((path, label, totals[path]))
    return tree


def updated_cell(timestamp: str) -> str:
    """`today 14:02` for a note written today (a list of today's notes is not a column of
    one date), the date otherwise."""
    stamp = when(timestamp)
    return f"today {stamp[11:]}" if stamp.startswith(today()) else stamp[:10]


def today() -> str:
    return datetime.now().astimezone().strftime("%Y-%m-%d")


def note_title(note: Note) -> WordCut:
    """The title, cut at a word; one that looks like another note's (confusable letters)
    says which first, where a narrow column does not cut it off."""
    shown = Text()
    if note.looks_like is not None:
        shown.append(f"⚠ looks like #{note.looks_like} ", style="bold yellow")
    return WordCut(shown.append(note.title))


def layer_cell(app: MemtuiApp, note: Note) -> Text:
    """The layer; a rule still waiting for approval is `rule?`."""
    waiting = note.status == "provisional"
    shown = Text(note.layer + ("?" if waiting else ""), style=layer_colour(app, note.layer))
    if waiting:
        shown.stylize("bold")
    return shown


class NotesArea(Vertical):
    """The Notes entry in the main screen's sidebar: how many notes, how many rules wait
    for approval; Enter opens them."""

    app: MemtuiApp

    DEFAULT_CSS = """
    NotesArea { height: auto; padding-top: 1; }
    NotesArea OptionList { height: auto; border: none; background: $surface; }
    """

    def compose(self) -> ComposeResult:
        yield Static("Notes", classes="area-title")
        yield OptionList(Option(Text("loading…", style="dim"), id=ALL), id="notes-area")

    def on_mount(self) -> None:
        self.seen: Signature | None = None
        self.load()

    @work(thread=True, exclusive=True, group="notes-area", exit_on_error=False)
    def load(self) -> None:
        if not self.screen.is_current:  # under another screen: nothing to show it to
            return
        now = signature(self.app)
        if now is not None and now != self.seen:
            self.app.call_from_thread(self.show, now)

    def show(self, now: Signature) -> None:
        self.seen = now
        total, _, waiting = now
        listing = self.query_one(OptionList)
        at = listing.highlighted
        options = [Option(counted("All notes", total), id=ALL)]
        if waiting:
            options.append(Option(counted("Rules to approve", waiting, "bold"), id=RULES))
        listing.set_options(options)
        if at is not None:
            listing.highlighted = min(at, len(options) - 1)

    @on(OptionList.OptionSelected, "#notes-area")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id == RULES:
            flows.rules(self.app)
        else:
            flows.notes(self.app)
