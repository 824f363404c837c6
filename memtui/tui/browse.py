"""The main screen: a sidebar of areas (Projects, Notes, Signals, Inferences) and the
sessions of the chosen project, the last active first."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.option_list import Option

from memtui.engine import ProjectInfo, SessionInfo
from memtui.tui.format import home_short, project_name, when
from memtui.tui.messages import ArchiveChanged
from memtui.tui.notes import flows as notes_flows
from memtui.tui.notes.listing import NotesArea
from memtui.tui.session import SessionScreen
from memtui.tui.signals import flows as signals_flows
from memtui.tui.signals.area import SignalsArea
from memtui.tui.status import Keys, StatusLine

ALL = "*"  # the option id of "all projects"
SESSIONS_SHOWN = 1000


class ProjectList(OptionList):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False, id="projects.down"),
        Binding("k", "cursor_up", "Up", show=False, id="projects.up"),
    ]


class SessionTable(DataTable[str | Text]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False, id="sessions.down"),
        Binding("k", "cursor_up", "Up", show=False, id="sessions.up"),
        Binding("g", "scroll_top", "Top", show=False, id="sessions.top"),
        Binding("G", "scroll_bottom", "Bottom", show=False, id="sessions.bottom"),
    ]


class BrowseScreen(Screen[None]):
    AUTO_FOCUS = "#sessions"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "resume", "Resume", id="browse.resume"),
        Binding("y", "copy", "Copy MD", id="browse.copy"),
        Binding("e", "export", "Export", id="browse.export"),
        Binding("d", "demo", "Open demo", id="browse.demo"),
        Binding("n", "notes", "Notes", show=False, id="browse.notes"),
        Binding("s", "signals", "Signals", show=False, id="browse.signals"),
        Binding("i", "inferences", "Inferences", show=False, id="browse.inferences"),
        Binding("escape", "focus_projects", "Projects", show=False, id="browse.projects"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.projects: list[ProjectInfo] = []
        self.sessions: dict[str, SessionInfo] = {}
        self.project: str | None = None
        self.loaded = False

    def compose(self) -> ComposeResult:
        yield StatusLine()
        with Horizontal(id="browse"):
            with Vertical(id="sidebar"):
                yield Static("Projects", classes="area-title")
                yield ProjectList(id="projects")
                yield NotesArea()
                yield SignalsArea()
            with Vertical(id="sessions-pane"):
                yield Static("Sessions", id="sessions-title")
                table = SessionTable(id="sessions", cursor_type="row", zebra_stripes=True)
                # the title goes last: it is the one column that may be long
                table.add_column("Last active", key="when", width=16)
                table.add_column("Msgs", key="msgs", width=6)
                table.add_column("Branch", key="branch", width=14)
                table.add_column("", key="mark", width=1)
                table.add_column("Title", key="title")
                yield table
                yield Static("", id="empty")
        yield Keys()

    def on_mount(self) -> None:
        self.load_projects()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "demo":
            return self.loaded and not self.projects and not self.app.demo
        if action in ("resume", "copy", "export"):
            return bool(self.sessions)
        return True

    @work(thread=True, exclusive=True, group="projects", exit_on_error=False)
    def load_projects(self) -> None:
        projects = self.app.ask(self.app.memory.history.list_projects)
        if projects is not None:
            self.app.call_from_thread(self.show_projects, projects)

    def on_archive_changed(self, message: ArchiveChanged) -> None:
        self.show_projects(message.projects)

    def show_projects(self, projects: list[ProjectInfo]) -> None:
        had_projects = bool(self.projects)
        self.projects = sorted(projects, key=lambda p: p.last_activity or "", reverse=True)
        self.loaded = True
        listing = self.query_one(ProjectList)
        keep = self.project or ALL
        total = sum(p.sessions for p in projects)
        options = [Option(self._project_line("All projects", total), id=ALL)]
        options += [
            Option(self._project_line(project_name(p.project), p.sessions), id=p.project)
            for p in self.projects
        ]
        listing.set_options(options)
        ids = [o.id for o in options]
        listing.highlighted = ids.index(keep) if keep in ids else 0
        self._empty()
        self.refresh_bindings()
        self.load_sessions(self.project)
        if self.projects and not had_projects:  # the table was hidden while nothing was in
            self.query_one(SessionTable).focus()

    @staticmethod
    def _project_line(name: str, count: int) -> Text:
        line = Text(name, overflow="ellipsis", no_wrap=True)
        line.append(f"  {count}", style="dim")
        return line

    def _empty(self) -> None:
        empty = self.query_one("#empty", Static)
        indexing = self.app.progress is not None
        nothing = not self.projects
        self.set_class(nothing, "-empty")
        if not nothing:
            return
        where = self.app.memory.config.claude_dir
        if indexing:
            empty.update("Reading your Claude Code transcripts…")
            return
        text = Text()
        text.append("No conversations yet.\n\n", style="bold")
        text.append(f"memtui looked for Claude Code transcripts in {where}")
        text.append(" (set MEMTUI_CLAUDE_DIR or CLAUDE_CONFIG_DIR to look elsewhere).\n\n")
        if not self.app.demo:
            text.append("Press d to open the demo archive", style="bold")
            text.append(" (or run memtui --demo).")
        empty.update(text)

    @on(OptionList.OptionHighlighted, "#projects")
    def _project_chosen(self, event: OptionList.OptionHighlighted) -> None:
        project = None if event.option.id == ALL else event.option.id
        if project != self.project:
            self.project = project
            self.load_sessions(project)

    @on(OptionList.OptionSelected, "#projects")
    def _project_entered(self) -> None:
        self.query_one(SessionTable).focus()

    @work(thread=True, exclusive=True, group="sessions", exit_on_error=False)
    def load_sessions(self, project: str | None) -> None:
        sessions = self.app.ask(
            lambda: self.app.memory.history.list_sessions(project, limit=SESSIONS_SHOWN)
        )
        if sessions is not None:
            self.app.call_from_thread(self.show_sessions, project, sessions)

    def show_sessions(self, project: str | None, sessions: list[SessionInfo]) -> None:
        if project != self.project:
            return  # a newer choice is on its way
        table = self.query_one(SessionTable)
        keep = self._current_id()
        table.clear()
        self.sessions = {s.session_id: s for s in sessions}
        for s in sessions:
            table.add_row(
                when(s.last_timestamp),
                Text(f"{s.message_count:,}", justify="right"),
                Text(s.git_branch or "", overflow="ellipsis", no_wrap=True, style="dim"),
                Text("⌂", style="italic") if s.archived else "",
                Text(s.title or "(untitled)", overflow="ellipsis", no_wrap=True),
                key=s.session_id,
            )
        if keep in self.sessions:
            table.move_cursor(row=table.get_row_index(keep), animate=False)
        where = "all projects" if project is None else home_short(project)
        self.query_one("#sessions-title", Static).update(
            Text.assemble(("Sessions", "bold"), f" — {where} · {len(sessions):,}")
        )
        self.refresh_bindings()

    def _current_id(self) -> str | None:
        table = self.query_one(SessionTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        return key.value

    def _current(self) -> SessionInfo | None:
        current = self._current_id()
        return self.sessions.get(current) if current else None

    @on(DataTable.RowSelected, "#sessions")
    def _open(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value:
            self.app.push_screen(SessionScreen(event.row_key.value))

    def action_resume(self) -> None:
        if info := self._current():
            self.app.resume(info)

    def action_copy(self) -> None:
        if info := self._current():
            self.app.copy_markdown(info.session_id)

    def action_export(self) -> None:
        if info := self._current():
            self.app.export_session(info)

    def action_demo(self) -> None:
        self.app.exit("demo")

    def action_notes(self) -> None:
        notes_flows.notes(self.app)

    def action_signals(self) -> None:
        signals_flows.signals(self.app)

    def action_inferences(self) -> None:
        signals_flows.inferences(self.app)

    def action_focus_projects(self) -> None:
        self.query_one(ProjectList).focus()
