"""The main screen: a sidebar of areas (Projects, Notes, Signals, Inferences) and the
sessions of the chosen project, the last active first."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from memtui.engine import AGENT_NAMES, ProjectInfo, SessionInfo
from memtui.tui import forget
from memtui.tui.format import (
    agent_label,
    home_short,
    labelled,
    one_line,
    short_names,
    short_when,
    when,
)
from memtui.tui.messages import ArchiveChanged, StoreChanged
from memtui.tui.notes import flows as notes_flows
from memtui.tui.notes.listing import NotesArea
from memtui.tui.recalls import RecallsScreen
from memtui.tui.session import SessionScreen
from memtui.tui.signals import flows as signals_flows
from memtui.tui.signals.area import SignalsArea
from memtui.tui.status import Keys, StatusLine
from memtui.tui.tables import OPTION_KEYS

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp

ALL = "*"  # the option id of "all projects"
SESSIONS_SHOWN = 10_000  # the engine's largest page; more are counted, not shown


class ProjectList(OptionList):
    BINDINGS: ClassVar[list[BindingType]] = [
        *OPTION_KEYS,
        Binding(
            forget.KEY, "screen.forget_project", "Forget project", show=False, id="project.forget"
        ),
    ]

    class Resized(Message):
        """The list has its new width: its lines are cut again to fit it."""

    def on_resize(self) -> None:
        # Its own resize, not the screen's: under load the screen's can come before the
        # sidebar has its new width, and the lines stayed cut for the old one.
        self.post_message(self.Resized())


class SessionList(ScrollView, can_focus=True, inherit_bindings=False):
    """Every session of a project, one line each, drawn only when on screen (the line API,
    as the search results are): 5,000 sessions fill it as fast as five. Its own keys only:
    ScrollView's sideways ones would do nothing here."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,j", "move(1)", "Down", show=False, id="go.down"),
        Binding("up,k", "move(-1)", "Up", show=False, id="go.up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="go.page_down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="go.page_up"),
        Binding("home,g", "first", "Top", show=False, id="go.top"),
        Binding("end,G", "last", "Bottom", show=False, id="go.bottom"),
        Binding("enter", "open", "Open", show=False, id="list.open"),
        Binding(
            forget.KEY, "screen.forget_session", "Forget session", show=False, id="session.forget"
        ),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"session-list--cursor", "session-list--dim"}

    highlighted: reactive[int | None] = reactive(None, always_update=True)

    class Selected(Message):
        def __init__(self, session: SessionInfo) -> None:
            super().__init__()
            self.session = session

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.sessions: list[SessionInfo] = []
        self.agents = False  # a column saying which agent each session was with

    @property
    def row_count(self) -> int:
        return len(self.sessions)

    def show(self, sessions: list[SessionInfo], keep: str | None = None) -> None:
        """New rows; the cursor stays on the session `keep` if it is still there, unless it is
        on the first row: that one follows the newest, or the first index would push the
        sessions stored after the first screen above the view."""
        at_top = self.highlighted == 0
        self.sessions = sessions
        self.agents = labelled(s.agent for s in sessions)
        self.virtual_size = Size(self.scrollable_content_region.width, len(sessions))
        ids = [s.session_id for s in sessions]
        if keep in ids and not at_top:
            self.highlighted = ids.index(keep)
            return
        self.scroll_to(0, 0, animate=False, immediate=True)
        self.highlighted = 0 if sessions else None

    def current(self) -> SessionInfo | None:
        at = self.highlighted
        return self.sessions[at] if at is not None and at < len(self.sessions) else None

    def watch_highlighted(self, new: int | None) -> None:
        self.refresh()
        if new is not None:
            self.scroll_to_region(Region(0, new, 1, 1), animate=False, immediate=True, force=True)
        self.post_message(SessionHighlighted())

    def on_resize(self) -> None:
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.sessions))
        self.screen.query(SessionHeader).refresh()

    def columns(self, width: int) -> tuple[bool, bool, bool]:
        """Which of the optional columns fit beside a title worth reading: the year in the
        date, the message count, the branch."""
        return width >= 72, width >= 50, width >= 96

    def header(self, width: int) -> Text:
        year, count, branch = self.columns(width)
        line = Text(f" {'Last active':<{16 if year else 11}} ")
        if count:
            line.append(f"{'Msgs':>6} ")
        if branch:
            line.append(f"{'Branch':<14} ")
        if self.agents:
            line.append(f"{'Agent':<8} ")
        line.append("  Title")
        return line

    def row(self, s: SessionInfo, width: int) -> Text:
        year, count, branch = self.columns(width)
        newest = when(self.sessions[0].last_timestamp)[:4] if self.sessions else ""
        stamp = when(s.last_timestamp) if year else short_when(s.last_timestamp, newest)
        line = Text(f" {stamp:<{16 if year else 11}} ")
        if count:
            line.append(f"{s.message_count:>6,} ")
        if branch:
            line.append(f"{one_line(s.git_branch or '', 14):<14} ", style="dim")
        if self.agents:
            line.append(f"{agent_label(s.agent):<8} ", style="dim")
        line.append("⌂ " if s.archived else "  ", style="italic")
        line.append(s.title or "(untitled)", style="" if s.title else "dim")
        line.truncate(width, overflow="ellipsis")
        return line

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = y + int(self.scroll_y)
        base = self.rich_style
        if index >= len(self.sessions):
            return Strip.blank(width, base)
        if index == self.highlighted:
            base = base + self.get_component_rich_style("session-list--cursor")
        line = self.row(self.sessions[index], width)
        return Strip(line.render(self.app.console)).crop_extend(0, width, base).apply_style(base)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None and offset.y + int(self.scroll_y) < len(self.sessions):
            self.highlighted = offset.y + int(self.scroll_y)
            self.action_open()

    def action_move(self, step: int) -> None:
        if self.sessions:
            now = self.highlighted or 0
            self.highlighted = max(0, min(len(self.sessions) - 1, now + step))

    def action_page(self, direction: int) -> None:
        self.action_move(direction * max(1, self.size.height - 1))

    def action_first(self) -> None:
        self.action_move(-len(self.sessions))

    def action_last(self) -> None:
        self.action_move(len(self.sessions))

    def action_open(self) -> None:
        if (session := self.current()) is not None:
            self.post_message(self.Selected(session))


class SessionHeader(Static):
    """The session list's column names, at the widths the list draws now."""

    def render(self) -> Text:
        listing = self.screen.query_one(SessionList)
        return listing.header(listing.scrollable_content_region.width or self.size.width)


class SessionHighlighted(Message):
    """The session list's cursor moved (the screen's keys follow what is under it)."""


class BrowseScreen(Screen[None]):
    app: MemtuiApp
    AUTO_FOCUS = "#sessions"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "resume", "Resume", id="session.resume"),
        # At 80 columns the footer holds the ways to the other areas (n, s, i) before these
        Binding("y", "copy", "Copy", show=False, id="session.copy"),
        Binding("e", "export", "Export", show=False, id="session.export"),
        Binding("d", "demo", "Open demo", id="browse.demo"),
        Binding("n", "notes", "Notes", id="browse.notes"),
        Binding("w", "warmups", "Warm-ups", show=False, id="browse.warmups"),
        # In the footer, the keys help and the palette only with more than one agent's
        # sessions; the sessions' title names the agent while it keeps to one.
        Binding(
            "a",
            "agent",
            "Agent",
            tooltip="Show one agent's sessions at a time",
            id="browse.agent",
        ),
        Binding("s", "signals", "Signals", id="browse.signals"),
        Binding("R", "recalls", "Recalls", show=False, id="browse.recalls"),
        Binding("i", "inferences", "Inferences", id="browse.inferences"),
        Binding("escape", "focus_projects", "Projects", show=False, id="browse.projects"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.projects: list[ProjectInfo] = []
        self.names: dict[str, str] = {}  # project path: the shortest ending that tells it apart
        self.project: str | None = None
        self.loaded = False
        self.warmups = False  # show sessions that are only a subagent's warm-up
        self.by_agent: dict[str, dict[str, int]] = {}  # project: its sessions per agent
        self.agent: str | None = None  # the sessions shown are this agent's only

    @property
    def sessions(self) -> dict[str, SessionInfo]:
        return {s.session_id: s for s in self.query_one(SessionList).sessions}

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
                yield SessionHeader(id="sessions-header")
                yield SessionList(id="sessions")
                yield Static("", id="empty")
        yield Keys()

    def on_mount(self) -> None:
        self.load_projects()
        self.watch(self.app, "progress", lambda _: self._empty())

    @on(ProjectList.Resized)
    def _projects_resized(self) -> None:
        self._project_lines()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "demo":
            return self.loaded and not self.projects and not self.app.demo and not self._busy()
        if action in ("resume", "copy", "export", "forget_session"):
            return self._current() is not None
        if action == "forget_project":
            return self._project_info() is not None
        if action == "agent":  # not in the keys help while the archive holds one agent
            return len(self._archive_agents()) > 1
        return True

    def _busy(self) -> bool:
        """The first index is still running: an empty list means "not read yet"."""
        return self.app.progress is not None or not self.app.first_read.is_set()

    @work(thread=True, exclusive=True, group="projects", exit_on_error=False)
    def load_projects(self) -> None:
        projects = self.app.ask(self.app.memory.history.list_projects)
        if projects is not None:
            self.app.call_from_thread(self.show_projects, projects)

    def on_archive_changed(self, message: ArchiveChanged) -> None:
        self.show_projects(message.projects)

    def on_store_changed(self, _: StoreChanged) -> None:
        self._read_areas()

    def on_screen_resume(self) -> None:
        self._read_areas()  # what changed while another screen was on top

    def _read_areas(self) -> None:
        """The notes, signals and inferences counts of the sidebar, read again."""
        for area in self.query(NotesArea):
            area.load()
        for signals in self.query(SignalsArea):
            signals.load()

    @work(thread=True, exclusive=True, group="agents", exit_on_error=False)
    def load_agents(self) -> None:
        by_agent = self.app.ask(self.app.memory.history.project_agents)
        if by_agent is not None:
            self.app.call_from_thread(self.show_agents, by_agent)

    def show_agents(self, by_agent: dict[str, dict[str, int]]) -> None:
        self.by_agent = by_agent
        if self._keep_agent():  # its sessions were forgotten: every agent's are shown
            self.load_sessions(self.project)
        self._project_lines()
        self.refresh_bindings()

    def _list_agents(self) -> list[str]:
        """The agents of the chosen project's sessions (of all projects' for all), in the
        order the sidebar counts them: most sessions first."""
        if self.project is None:
            return list(self._archive_agents())
        return list(self.by_agent.get(self.project, {}))

    def _keep_agent(self) -> bool:
        """Back to every agent's sessions when the list holds none of the chosen agent's
        (another project, or its sessions forgotten): whether that changed the filter."""
        if self.agent is None or self.agent in self._list_agents():
            return False
        self.agent = None
        return True

    def show_projects(self, projects: list[ProjectInfo]) -> None:
        had_projects = bool(self.projects)
        self.load_agents()
        self.projects = sorted(projects, key=lambda p: p.last_activity or "", reverse=True)
        self.names = short_names(p.project for p in projects)
        if self.project not in self.names:  # forgotten: all projects are shown instead
            self.project = None
        self.loaded = True
        listing = self.query_one(ProjectList)
        keep = self.project or ALL
        options = [Option("", id=ALL)] + [Option("", id=p.project) for p in self.projects]
        listing.set_options(options)
        ids = [o.id for o in options]
        listing.highlighted = ids.index(keep) if keep in ids else 0
        self._project_lines()
        self._empty()
        self.refresh_bindings()
        self.load_sessions(self.project)
        if self.projects and not had_projects:  # the list was hidden while nothing was in
            self.query_one(SessionList).focus()

    def _project_lines(self) -> None:
        """One line per project, its count at the right edge: a long name is cut with an
        ellipsis, never wrapped; the highlighted one shows its whole path."""
        listing = self.query_one(ProjectList)
        if not listing.option_count:
            return
        width = max(8, listing.scrollable_content_region.width - 2 or 20)
        counts = {p.project: p.sessions for p in self.projects}
        for index in range(listing.option_count):
            option = listing.get_option_at_index(index)
            if option.id == ALL:
                name, count = "All projects", sum(counts.values())
            elif index == listing.highlighted:  # the whole path, on as many lines as it takes
                path = option.id or ""
                whole = _whole_path(home_short(path), counts[path], _narrowest(listing))
                whole.append(self._agent_counts(self.by_agent.get(path, {}), _narrowest(listing)))
                listing.replace_option_prompt_at_index(index, whole)
                continue
            else:
                path = option.id or ""
                name, count = self.names[path], counts[path]
            line = _project_line(name, count, width)
            if option.id == ALL and index == listing.highlighted:
                line.append(self._agent_counts(self._archive_agents(), width))
            listing.replace_option_prompt_at_index(index, line)

    def _archive_agents(self) -> dict[str, int]:
        """Every project's sessions per agent, added up, most first."""
        total: dict[str, int] = {}
        for counts in self.by_agent.values():
            for agent, count in counts.items():
                total[agent] = total.get(agent, 0) + count
        return dict(sorted(total.items(), key=lambda item: -item[1]))

    def _agent_counts(self, counts: dict[str, int], width: int) -> Text:
        """Under the highlighted project, its sessions per agent (`claude 12 · codex 3`), only
        when the archive holds more than one agent; an agent and its count never split."""
        if len(self._archive_agents()) < 2:
            return Text()
        parts = [f"{agent_label(agent)} {count:,}" for agent, count in counts.items()]
        return Text("".join("\n" + line for line in _packed(parts, " · ", width)), style="dim")

    def _empty(self) -> None:
        if not self.is_mounted:
            return
        empty = self.query_one("#empty", Static)
        nothing = not self.projects
        self.set_class(nothing, "-empty")
        if not nothing:
            return
        folders = self.app.memory.upkeep.folders()
        where = ", ".join(f"{AGENT_NAMES[agent]} in {root}" for agent, root in folders)
        if self._busy():
            empty.update(
                "Reading your conversations…\n\n"
                "Projects and sessions appear here as they are stored."
            )
            return
        text = Text()
        text.append("No conversations yet.\n\n", style="bold")
        if [agent for agent, _ in folders] == ["claude-code"]:
            text.append(f"memtui looked for Claude Code transcripts in {folders[0][1]}")
            text.append(" (set MEMTUI_CLAUDE_DIR or CLAUDE_CONFIG_DIR to look elsewhere).\n\n")
        else:
            text.append(f"memtui looked for conversations of {where or 'no agent: all are off'}")
            text.append(" (MEMTUI_<AGENT>_DIR names another folder).\n\n")
        if not self.app.demo:
            text.append("Press d to open the demo archive", style="bold")
            text.append(" (or run memtui --demo).")
        empty.update(text)
        self.refresh_bindings()

    @on(OptionList.OptionHighlighted, "#projects")
    def _project_chosen(self, event: OptionList.OptionHighlighted) -> None:
        self._project_lines()
        project = None if event.option.id == ALL else event.option.id
        if project != self.project:
            self.project = project
            self._keep_agent()
            self.load_sessions(project)
            self.refresh_bindings()

    @on(OptionList.OptionSelected, "#projects")
    def _project_entered(self) -> None:
        self.query_one(SessionList).focus()

    @work(thread=True, exclusive=True, group="sessions", exit_on_error=False)
    def load_sessions(self, project: str | None) -> None:
        history = self.app.memory.history
        warmups, agent = self.warmups, self.agent
        counts = self.app.ask(lambda: history.count_sessions(project, agent))
        sessions = self.app.ask(
            lambda: history.list_sessions(
                project, limit=SESSIONS_SHOWN, warmups=warmups, agent=agent
            )
        )
        if sessions is not None and counts is not None:
            self.app.call_from_thread(self.show_sessions, project, sessions, counts, warmups, agent)

    def show_sessions(
        self,
        project: str | None,
        sessions: list[SessionInfo],
        counts: tuple[int, int],
        warmups: bool,
        agent: str | None = None,
    ) -> None:
        if (project, warmups, agent) != (self.project, self.warmups, self.agent):
            return  # read for an earlier choice: a newer read is on its way
        table = self.query_one(SessionList)
        table.show(sessions, keep=self._current_id())
        total, hidden = counts
        where = "all projects" if project is None else home_short(project)
        title = Text.assemble(("Sessions", "bold"), f" · {where} · ")
        if agent is not None:
            title.append(f"{agent_label(agent)} only (a)", style="bold")
            title.append(" · ")
        title.append(f"{total:,}")
        if hidden and not warmups:
            title.append(f" · {hidden:,} warm-up{'s' * (hidden != 1)} hidden (w)", style="dim")
        missing = total - len(sessions) - (0 if warmups else hidden)
        if missing > 0:  # and how to reach the rest
            how = "choose a project, or / search" if project is None else "/ search finds the rest"
            title.append(f"\nthe newest {len(sessions):,} shown: {how}", style="bold")
        shown = self.query_one("#sessions-title", Static)
        shown.update(title)
        shown.set_class(missing > 0, "-more")
        self.query_one(SessionHeader).refresh()
        self.refresh_bindings()

    def on_session_highlighted(self) -> None:
        self.refresh_bindings()

    def _current_id(self) -> str | None:
        current = self._current()
        return current.session_id if current else None

    def _current(self) -> SessionInfo | None:
        return self.query_one(SessionList).current()

    @on(SessionList.Selected)
    def _open(self, event: SessionList.Selected) -> None:
        self.app.push_screen(SessionScreen(event.session.session_id))

    def action_resume(self) -> None:
        if info := self._current():
            self.app.resume(info)

    def action_copy(self) -> None:
        if info := self._current():
            self.app.copy_markdown(info.session_id)

    def action_export(self) -> None:
        if info := self._current():
            self.app.export_session(info)

    def action_forget_session(self) -> None:
        if info := self._current():
            forget.session(self.app, info)

    def action_forget_project(self) -> None:
        if info := self._project_info():
            forget.project(self.app, info)

    def _project_info(self) -> ProjectInfo | None:
        return next((p for p in self.projects if p.project == self.project), None)

    def action_demo(self) -> None:
        self.app.exit("demo")

    def action_notes(self) -> None:
        notes_flows.notes(self.app)

    def action_warmups(self) -> None:
        self.warmups = not self.warmups
        self.load_sessions(self.project)

    def action_agent(self) -> None:
        """The sessions of every agent, then of each agent the list holds, in turn."""
        cycle: list[str | None] = [None, *self._list_agents()]
        at = cycle.index(self.agent) if self.agent in cycle else 0
        self.agent = cycle[(at + 1) % len(cycle)]
        self.load_sessions(self.project)

    def action_signals(self) -> None:
        signals_flows.signals(self.app)

    def action_inferences(self) -> None:
        signals_flows.inferences(self.app)

    def action_recalls(self) -> None:
        self.app.push_screen(RecallsScreen())

    def action_focus_projects(self) -> None:
        self.query_one(ProjectList).focus()


def _project_line(name: str, count: int, width: int) -> Text:
    """`name` and `count` on one line of `width` cells, the name cut to fit."""
    number = f" {count:,}"
    room = max(1, width - len(number))
    if len(name) > room:
        name = name[: room - 1] + "…"
    line = Text(name.ljust(room), no_wrap=True, overflow="ellipsis")
    line.append(number, style="dim")
    return line


def _narrowest(listing: ProjectList) -> int:
    """The widest a line of the highlighted project may be: the list's width less its
    scrollbar's, shown or not. The list measures an option's height once, and the lines
    that take it past the list's height bring the scrollbar: a line that then wrapped would
    push the last agent's count out of its box."""
    return max(8, listing.size.width - listing.styles.scrollbar_size_vertical)


def _whole_path(path: str, count: int, width: int) -> Text:
    """A project's whole path and its count in lines of at most `width` cells (so none
    wraps again), broken after a `/` where it can be."""
    parts = [f"{part}/" for part in path.split("/")[:-1]] + [path.split("/")[-1]]
    pieces = [p[at : at + width] for p in parts if p for at in range(0, len(p), width)]
    lines = _packed(pieces, "", width)
    number = f"{count:,}"
    if lines and len(lines[-1]) + 1 + len(number) <= width:
        number = " " + number
    else:
        lines.append("")
    whole = Text("\n".join(lines), no_wrap=True, overflow="ellipsis")
    whole.append(number, style="dim")
    return whole


def _packed(parts: list[str], between: str, width: int) -> list[str]:
    """`parts` joined by `between` into lines of at most `width` cells; a part never splits."""
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + len(between) + len(part) <= width:
            lines[-1] += between + part
        else:
            lines.append(part)
    return lines
