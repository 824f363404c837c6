"""The memtui application: screens over one Memory, its upkeep in a background thread."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import subprocess
import threading
import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import ClassVar, TypeVar

from textual import work
from textual.app import App, SuspendNotSupported, SystemCommand
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.screen import Screen
from textual.theme import Theme
from textual.widgets import Input

from memtui.engine import Memory, ProgressEvent, SessionInfo
from memtui.errors import MemtuiError
from memtui.tui import actions, settings
from memtui.tui.browse import BrowseScreen, ProjectList, SessionList
from memtui.tui.forget import ForgetReceipt
from memtui.tui.format import error_line
from memtui.tui.forms import Confirm, Prompt, Unsaved
from memtui.tui.messages import ArchiveChanged, Progress, StoreChanged
from memtui.tui.notes.keys import SCOPES as NOTES_SCOPES
from memtui.tui.recalls import RecallList, RecallsScreen
from memtui.tui.results import ResultList
from memtui.tui.search import SearchScreen
from memtui.tui.session import MessageBlock, MessageList, SessionScreen, warm_drawing
from memtui.tui.signals.keys import SCOPES as SIGNALS_SCOPES
from memtui.tui.watcher import StoreWatcher
from memtui.words import counted

_T = TypeVar("_T")

STOP_WAIT = 30.0  # seconds `memtui` waits, after the screen is gone, for the index to stop
MCP_STOP_WAIT = 3.0  # seconds the HTTP server gets to close its connections
STOP_WATCHER = 2.0  # seconds the store's watcher gets to notice the app ends
MCP_PORT = 10013  # SPEC's port for the HTTP MCP server
COUNT_EVERY = 1.0  # seconds between reads of the counts and lists while an index runs
WARM_AFTER = 0.5  # seconds after start: the first screen is drawn before the model loads


class MemtuiApp(App[str | None]):
    CSS_PATH = "app.tcss"
    TITLE = "memtui"
    # Laid out for 80 columns first: below 100 the sidebar narrows, below 70 it is slim.
    # Textual declares it `ClassVar[...] | None`, which mypy takes for an instance variable.
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [  # type: ignore[misc]
        (0, "-tiny"),
        (70, "-narrow"),
        (100, "-wide"),
    ]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit", id="app.quit"),
        # What people press to leave a terminal program; it copies a selection in a field,
        # and cancels a running search first.
        Binding("ctrl+c", "interrupt", "Quit", show=False, priority=True, id="app.interrupt"),
        Binding("question_mark", "keys", "Keys", id="app.keys"),
        # Escape closes the keys panel first: it went to the screen, whose back left it.
        Binding("escape", "hide_keys", "Hide keys", show=False, priority=True, id="app.hide_keys"),
        Binding("slash", "search", "Search", id="app.search"),
        # From every screen, a field too, while the demo runs (the status line says so);
        # outside the demo a field's own ctrl+d, delete, is left alone.
        Binding(
            "ctrl+d",
            "leave_demo",
            "Leave demo",
            show=False,
            priority=True,
            id="browse.leave_demo",
        ),
    ]

    counts: reactive[str] = reactive("")
    progress: reactive[ProgressEvent | None] = reactive(None, always_update=True)
    mcp_address: reactive[str] = reactive("")

    def __init__(
        self,
        memory: Memory,
        *,
        upkeep: bool = True,
        watch: bool = True,
        demo: bool = False,
        mcp_port: int | None = None,
    ) -> None:
        super().__init__()
        self.memory = memory
        self.demo = demo
        self._upkeep = upkeep
        self._watch = watch
        self.stop = threading.Event()  # set on quit: the index stops between batches
        self.upkeep_done = threading.Event()
        self.upkeep_done.set()
        self.first_read = threading.Event()  # the start's ingest is over (or not run)
        self.first_read.set()
        self.config_dir = memory.config.config_dir
        self.mcp_port = mcp_port  # None: no MCP server in this process (--no-mcp)
        self._mcp_task: asyncio.Task[None] | None = None
        self._counted = 0.0  # when the counts were last read during an index
        self._version: tuple[int, str] | None = None  # the archive's, as the lists show it
        self._watcher = StoreWatcher(memory.changes, self._store_changed, self.stop)

    def get_theme(self, theme_name: str) -> Theme | None:
        """A theme's colours, or in a terminal of 16 colours (TERM=xterm) the ANSI theme of its
        kind: a theme's greys all become white or bright white there, text and background
        alike. The name chosen is kept (and remembered) as it was."""
        theme = super().get_theme(theme_name)
        if theme is not None and not theme.ansi and self._sixteen_colours():
            return super().get_theme("ansi-dark" if theme.dark else "ansi-light")
        return theme

    def _sixteen_colours(self) -> bool:
        """A terminal of 16 colours; not a test's headless one, whatever its TERM says (nor
        before the driver says which: App.__init__ and a headless run's start ask too)."""
        console = getattr(self, "console", None)
        if console is None or getattr(self, "_driver", None) is None or self.is_headless:
            return False
        return console.color_system == "standard"

    def on_mount(self) -> None:
        theme = settings.load_theme(self.config_dir)
        if theme in self.available_themes:
            self.theme = theme
        if self._sixteen_colours():
            # The CSS was made before the driver said how many colours there are: again, in
            # the theme's ANSI kind (setting the theme it already has would not redo it).
            self._watch_theme(self.theme)
        self.theme_changed_signal.subscribe(  # the name chosen, not its 16-colour stand-in
            self, lambda _: settings.save_theme(self.config_dir, self.theme)
        )
        keymap = settings.load_keymap(self.config_dir)
        unknown = sorted(set(keymap.keys) - binding_ids())
        keys, problems = settings.checked_keymap(keymap.keys, key_scopes())
        self.set_keymap(keys)
        if keymap.problem:
            self.notify(keymap.problem, severity="warning", timeout=10)
        if unknown:
            ids = ", ".join(unknown)
            self.notify(f"keymap: no binding has the id {ids}", severity="warning", timeout=12)
        for problem in problems:
            self.notify(f"keymap: {problem}", severity="warning", timeout=12)
        self.push_screen(BrowseScreen())
        self.refresh_counts()
        self._watcher.start()
        self.set_timer(WARM_AFTER, self.warm)
        if self._upkeep:
            self.upkeep_done.clear()
            self.first_read.clear()
            self.keep_current()
        if self.mcp_port is not None:
            self._mcp_task = asyncio.create_task(self._serve_mcp(self.mcp_port))
        else:
            self.mcp_address = "MCP off"

    # -- the MCP server, in this process ----------------------------------------------------

    async def _serve_mcp(self, port: int) -> None:
        """Serve the same engine over streamable HTTP until the app ends (exactly as
        `memtui mcp --http`); a port in use is a notice, never the end of the app."""
        self.mcp_address = "MCP starting…"
        try:
            # mcp and uvicorn take a while to import: not on the loop that draws the screen
            http = await asyncio.to_thread(_mcp_http)
            await http.serve_http(self.memory, port=port, on_ready=self._mcp_ready)
        except OSError as exc:
            self.mcp_address = "MCP off"
            self.notify(
                f"MCP server not started: port {port} is taken ({exc.strerror or exc}). "
                "Start memtui with --port N to use another, or --no-mcp.",
                title="MCP",
                severity="warning",
                timeout=12,
            )
        except MemtuiError as exc:
            self.mcp_address = "MCP off"
            self.notify(error_line(exc), title="MCP", severity="error", timeout=12)

    def _mcp_ready(self, url: str) -> None:
        self.mcp_address = f"MCP {url}"
        settle()

    @work(thread=True, group="warm", exit_on_error=False)
    def warm(self) -> None:
        self.memory.warm()
        warm_drawing()
        settle()

    # -- background upkeep ------------------------------------------------------------------

    @work(thread=True, group="upkeep", exit_on_error=False)
    def keep_current(self) -> None:
        """Ingest what is new (with progress), then follow changes until quit."""
        up = self.memory.upkeep
        try:
            report = up.ingest(
                on_progress=lambda e: self.post_message(Progress(e)), cancel=self.stop, wait=False
            )
            self.first_read.set()
            self.post_message(Progress(None))
            self._changed()
            if report is None:
                self.call_from_thread(
                    self.notify, "another memtui is indexing: this one reads and follows"
                )
            if (
                self._watch
                and not self.stop.is_set()
                and any(root.is_dir() for _, root in up.folders())
            ):
                up.follow(stop=self.stop, on_ingest=lambda _: self._changed())
        except MemtuiError as exc:
            self.first_read.set()
            self.post_message(Progress(None))
            self.call_from_thread(self.notify, error_line(exc), severity="error", timeout=15)
        finally:
            self.first_read.set()
            self.upkeep_done.set()

    async def on_unmount(self) -> None:
        self.stop.set()  # however the app ends, the writer and the watcher stop
        if self._watcher.is_alive():
            await asyncio.to_thread(self._watcher.join, STOP_WATCHER)
        if self._mcp_task is not None:
            # Wait for uvicorn to shut down: a task left to the loop's teardown is cancelled
            # mid-lifespan, and logs a traceback.
            self._mcp_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, asyncio.TimeoutError):
                await asyncio.wait_for(self._mcp_task, MCP_STOP_WAIT)

    def _changed(self) -> None:
        try:
            self._version = self.memory.history.version()  # what the lists now show
            projects = self.memory.history.list_projects()
        except MemtuiError:
            return
        self.post_message(ArchiveChanged(projects))

    def on_progress(self, message: Progress) -> None:
        """While an index runs, what is stored already shows: the counts and lists are read
        again every COUNT_EVERY seconds, not only at the end."""
        self.progress = message.event
        now = time.monotonic()
        if message.event is not None and now - self._counted >= COUNT_EVERY:
            self._counted = now
            self.refresh_counts()

    def on_archive_changed(self, message: ArchiveChanged) -> None:
        self._show_counts(message)
        for screen in self.screen_stack:
            if isinstance(screen, BrowseScreen | SessionScreen | SearchScreen):
                screen.post_message(ArchiveChanged(message.projects))

    @work(thread=True, exit_on_error=False)
    def refresh_counts(self) -> None:
        self._changed()

    def _store_changed(self) -> None:
        self.post_message(StoreChanged())

    def on_store_changed(self, _: StoreChanged) -> None:
        """Something was committed: the screen on top reads again what it shows (a screen
        under it does when it comes back), and the archive's lists follow."""
        if not self.screen_stack:  # the app is ending: its screens are gone
            return
        self.screen_stack[-1].post_message(StoreChanged())
        self.check_archive()

    @work(thread=True, exclusive=True, group="archive-check", exit_on_error=False)
    def check_archive(self) -> None:
        """Another memtui (a `memtui forget`, Claude's MCP server) may change the archive
        without a transcript changing: read the lists again when its version moves."""
        try:
            now = self.memory.history.version()
        except MemtuiError:
            return
        if now != self._version:
            self._changed()

    def _show_counts(self, message: ArchiveChanged) -> None:
        p = message.projects
        sessions = sum(x.sessions for x in p)
        messages = sum(x.messages for x in p)
        self.counts = " · ".join(
            (counted(len(p), "project"), counted(sessions, "session"), counted(messages, "message"))
        )

    async def action_quit(self) -> None:
        """Leave at once: the index stops at its next batch boundary (nothing half-written)
        while the terminal is already back; `memtui` waits for it before it returns. A screen
        with work not saved (a note being written) asks first."""
        screen = self.screen
        if isinstance(screen, Unsaved) and screen.unsaved():

            def answered(yes: bool | None) -> None:
                if yes:
                    self._leave()

            ask = Confirm("Quit without saving?", "the note you are writing is not saved", "Quit")
            self.push_screen(ask, answered)
            return
        self._leave()

    def _leave(self) -> None:
        self.stop.set()
        self.exit()

    async def action_interrupt(self) -> None:
        focused = self.focused
        if isinstance(focused, Input) and not focused.selection.is_empty:
            focused.action_copy()
            return
        screen = self.screen
        if isinstance(screen, SearchScreen) and screen.cancel_search():
            self.notify("search cancelled: ctrl+c again quits")
            return
        await self.action_quit()

    # -- everywhere -------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "leave_demo":
            return self.demo
        if action == "hide_keys":  # else escape goes on to the screen
            return bool(self.screen.query("HelpPanel"))
        return True

    def action_leave_demo(self) -> None:
        self.exit("leave-demo")

    def action_keys(self) -> None:
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def action_hide_keys(self) -> None:
        self.action_hide_help_panel()

    def action_search(self) -> None:
        if not isinstance(self.screen, SearchScreen):
            self.push_screen(SearchScreen())

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """The palette: every action of the current screen, then those of Textual's own
        that do not repeat one by name (its Keys and Quit are ours)."""
        seen: set[str] = set()
        titles: set[str] = set()
        for key, active in screen.active_bindings.items():
            b = active.binding
            title = b.tooltip or b.description or b.action  # the footer's word, said whole
            if not active.enabled or b.action in seen or b.action == "command_palette":
                continue
            if title in titles:  # a widget's own key for what ours does (Top, Bottom)
                continue
            seen.add(b.action)
            titles.add(title)
            shown = self.get_key_display(b)
            yield SystemCommand(
                title, f"{shown} · {b.id or key}", partial(self.run_action, b.action, active.node)
            )
        for command in super().get_system_commands(screen):
            if command.title not in titles:
                titles.add(command.title)
                yield command

    # -- acting on a session ----------------------------------------------------------------

    def resume(self, info: SessionInfo) -> None:
        try:
            plan = actions.resume_plan(info)
        except actions.CannotResume as exc:
            self.notify(str(exc), title="Cannot resume", severity="error", timeout=10, markup=False)
            return
        except MemtuiError as exc:
            self.notify(error_line(exc), title="Cannot resume", severity="error", timeout=10)
            return
        try:
            with self.suspend():
                code = subprocess.call(plan.argv, cwd=plan.cwd)
        except SuspendNotSupported:  # no terminal to hand over (tests, web): run it anyway
            code = subprocess.call(
                plan.argv, cwd=plan.cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
            )
        self.refresh()
        if code:
            self.notify(f"{Path(plan.argv[0]).name} exited with status {code}", severity="warning")

    def ask(self, call: Callable[[], _T]) -> _T | None:
        """An engine call, from a worker thread: an engine error becomes a notification (and
        None), never a crash."""
        try:
            return call()
        except MemtuiError as exc:
            self.call_from_thread(self.notify, error_line(exc), severity="error")
            return None

    @work(thread=True, group="copy", exit_on_error=False)
    def copy_markdown(self, session_id: str) -> None:
        markdown = self.ask(partial(self.memory.history.session_markdown, session_id))
        if markdown is None:
            return
        blocked = actions.tmux_clipboard()
        buffered = blocked is not None and actions.tmux_buffer(markdown)
        self.call_from_thread(self._copied, markdown, blocked, buffered)

    def _copied(self, markdown: str, blocked: str | None, buffered: bool) -> None:
        """Copy through the terminal; where that cannot arrive (tmux without clipboard
        passthrough) say so, and say where the text is instead."""
        self.copy_to_clipboard(markdown)
        lines = f"{counted(markdown.count(chr(10)) + 1, 'line')} of Markdown"
        if blocked is None:
            self.notify(f"copied {lines} to the clipboard")
            return
        where = "it is in tmux's paste buffer (prefix ] pastes it)" if buffered else ""
        self.notify(
            f"{lines} sent to the clipboard, but {blocked}, so it may not arrive; "
            f"{where}{'; ' if where else ''}e exports it to a file",
            severity="warning",
            timeout=12,
        )

    def export_session(self, info: SessionInfo) -> None:
        suggested = str(actions.export_folder() / actions.export_name(info))

        def chosen(path: str | None) -> None:
            if not path:
                return
            target = actions.export_target(path, info)
            if not target.exists():
                self.write_export(info.session_id, target)
                return
            if target.is_dir():
                self.notify(f"not written: {target} is a folder", severity="error")
                return

            def overwrite(yes: bool | None) -> None:
                if yes:
                    self.write_export(info.session_id, target)
                else:
                    self.notify("export cancelled: the file was kept as it was")

            self.push_screen(
                Confirm(
                    f"{target} exists. Replace it?", "the file there is overwritten", "Replace"
                ),
                overwrite,
            )

        self.push_screen(
            Prompt(
                "Export the session as Markdown to (a file, or a folder):",
                suggested,
                f"default: {suggested}",
            ),
            chosen,
        )

    @work(thread=True, group="export", exit_on_error=False)
    def write_export(self, session_id: str, target: Path) -> None:
        try:
            written = actions.export(self.memory.history.session_markdown(session_id), target)
        except MemtuiError as exc:
            self.call_from_thread(self.notify, error_line(exc), severity="error")
        except OSError as exc:
            self.call_from_thread(self.notify, f"not written: {exc}", severity="error")
        else:
            self.call_from_thread(self.notify, f"exported to {written}")


# What is on screen together: a key may do one thing in each (the app's keys are in all).
SCOPES: tuple[tuple[type[object], ...], ...] = (
    (BrowseScreen, ProjectList),
    (BrowseScreen, SessionList),
    (SessionScreen, MessageList, MessageBlock),
    (SearchScreen, ResultList),
    (Prompt,),
    (Confirm,),
    (ForgetReceipt,),
    (RecallsScreen, RecallList),
    *NOTES_SCOPES,
    *SIGNALS_SCOPES,
)


def _bindings(owner: type[object]) -> list[Binding]:
    return [b for b in getattr(owner, "BINDINGS", []) if isinstance(b, Binding)]


def key_scopes() -> list[list[Binding]]:
    return [[*_bindings(MemtuiApp), *(b for o in scope for b in _bindings(o))] for scope in SCOPES]


def binding_ids() -> set[str]:
    """Every id a keymap file may name."""
    return {b.id for scope in key_scopes() for b in scope if b.id is not None}


def settle() -> None:
    """Hide every object alive now from the cyclic collector: the model, the indexes,
    Textual and the MCP server live as long as the app, and a full collection walking them
    held the screen for 100-170 ms every few seconds of use (bench/bench_tui.py)."""
    gc.freeze()


def _mcp_http() -> ModuleType:
    from memtui.mcp import http

    return http
