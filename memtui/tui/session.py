"""One conversation: messages by role, Markdown with highlighted code, tool calls folded.

A session can hold thousands of messages; `MessageList` mounts a window of them around
where the reader is and grows it as they scroll, so opening one costs the same at any size.
"""

from __future__ import annotations

import asyncio
import io
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar

from rich.console import Console
from rich.markdown import Markdown
from rich.style import Style
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.reactive import reactive
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input, Static

from memtui.engine import AGENT_NAMES, MessageView, SessionInfo
from memtui.engine.validate import REACH
from memtui.errors import MemtuiError
from memtui.tui import forget
from memtui.tui.format import agent_label, error_line, home_short, one_line, when, who
from memtui.tui.messages import ArchiveChanged
from memtui.tui.notes import capture
from memtui.tui.status import Keys, StatusLine
from memtui.words import counted

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp

CODE_THEME = {True: "monokai", False: "friendly"}  # by whether the app's theme is dark
WARM_LANGUAGES = ("python", "typescript", "javascript", "bash", "json", "diff")
WINDOW = 16  # messages mounted at once when a session opens or jumps (a screen or two)
STEP = 20  # messages added when the reader nears an edge of the window
SUBAGENT_RUN = "subagent_run"  # the kind of the one line a folded subagent run shows
SUBAGENT_ID = 17  # the longest subagent id a header shows whole (Claude Code's agentId)
THINKING_ONLY = "(thinking only — t shows it)"  # a message of reasoning alone, while hidden
KIND_LABEL = {
    "tool_result": "⎿ tool",
    "meta": "meta",
    "compact_summary": "summary of earlier",
    SUBAGENT_RUN: "▸ folded",
}


def matches(message: MessageView, needle: str) -> bool:
    hay = [message.text, message.tool_output, *(c.arg for c in message.tool_calls)]
    return any(needle in part.lower() for part in hay if part)


@dataclass(slots=True)
class Fold:
    """A folded part of a message: a tool call or its output."""

    kind: str  # "tool-call" or "tool-result"
    title: str
    body: str
    open: bool = False


class MessageBlock(Widget, can_focus=True):
    """One message drawn as lines: a header, its text as Markdown, its folds.

    One widget, not a container of many: a window of messages would otherwise mount
    dozens of widgets, and mounting, not drawing, is what a long session paid for. The
    lines are rendered once per width and served by `render_line`; a fold opens on a click
    on its title, and Enter opens or closes all of the message's tool calls and output."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "toggle_folds", "Open/close", show=False, id="message.toggle")
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"message--head", "message--fold"}
    show_thinking: reactive[bool] = reactive(False, layout=True)

    def __init__(
        self, message: MessageView, code_theme: str, show_thinking: bool, agent: str
    ) -> None:
        classes = f"-{message.role} -{message.kind}"
        if message.is_sidechain:
            classes += " -sidechain"
        super().__init__(id=f"m{message.message_index}", classes=classes)
        self.message = message
        self.code_theme = code_theme
        self.agent = agent  # whose session: its answers are that agent's
        self.set_reactive(MessageBlock.show_thinking, show_thinking)
        self.folds = folds_of(message)
        self._lines: list[Strip] = []
        self._width = -1
        self._fold_rows: list[tuple[int, int, Fold]] = []

    def watch_show_thinking(self) -> None:
        self._width = -1

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._width = -1  # a new theme or class: the kept lines have the old colours

    def _colour(self, component: str) -> Style:
        """A component's colour from the theme, resolved against this block's background
        (a muted colour is a blend, which a partial style cannot carry)."""
        return Style(color=self.get_component_rich_style(component).color)

    def _head(self) -> Text:
        """Who and when; the focused message and a search hit are marked in text and
        reverse video too, so they show in every theme and colour depth (TERM=xterm)."""
        m = self.message
        head = Text(style=self._colour("message--head"))
        if self.has_focus:
            head.append("▶ ", style="bold reverse")
        head.append(KIND_LABEL.get(m.kind) or who(m.role, m.kind, self.agent), style="bold")
        if m.is_sidechain:
            head.append(f" · subagent {subagent_name(m.agent_id)}".rstrip())
        head.append(f"   {when(m.timestamp, seconds=True)}   #{m.message_index}", style="dim")
        if self.has_class("-hit"):
            head.append("   ◆ hit ", style="bold reverse")
        if self.has_focus:
            head.stylize("reverse", 0, len(head))
        return head

    def _fold_text(self, fold: Fold) -> Text:
        text = Text()
        # small triangles: the focus marker is the large ▶, and a fold must not read as one
        text.append(("▾ " if fold.open else "▸ ") + fold.title, style=self._colour("message--fold"))
        if fold.open:
            text.append("\n" + fold.body)
        return text

    def lines(self, width: int) -> list[Strip]:
        """The message's lines at `width`, rendered on first need and kept until it changes."""
        if width == self._width:
            return self._lines
        console = self.app.console
        options = console.options.update_width(max(1, width))
        lines: list[Strip] = []
        self._fold_rows = []

        def add(renderable: Text | Markdown, fold: Fold | None = None) -> None:
            rendered = [Strip(line) for line in console.render_lines(renderable, options)]
            if fold is not None:
                self._fold_rows.append((len(lines), len(lines) + len(rendered), fold))
            lines.extend(rendered)

        add(self._head())
        m = self.message
        if m.thinking and self.show_thinking:
            style = self._colour("message--fold") + Style(italic=True)
            add(Text(f"thinking\n{m.thinking}", style=style))
        elif m.thinking and not m.text and not self.folds:  # else only a header would show
            add(Text(THINKING_ONLY, style=self._colour("message--fold")))
        if m.kind == "prompt":  # as typed, as Claude Code shows it: a pasted diff's +/- lines
            add(Text(m.text))  # or a log's * lines are not Markdown lists
        elif m.text and m.kind != "tool_result":
            add(Markdown(m.text, code_theme=self.code_theme))
        for fold in self.folds:
            add(self._fold_text(fold), fold)
        self._lines, self._width = lines, width
        return lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines(width))

    def render_line(self, y: int) -> Strip:
        width = self.content_region.width
        lines = self.lines(width)
        style = self.rich_style
        if y >= len(lines):
            return Strip.blank(width, style)
        return lines[y].crop_extend(0, width, style).apply_style(style)

    def _changed(self) -> None:
        self._width = -1
        self.refresh(layout=True)

    def on_focus(self) -> None:
        self._changed()

    def on_blur(self) -> None:
        self._changed()

    def open_folds_with(self, words: list[str]) -> None:
        """Open the folds that hold any of `words` (a search hit inside a tool's output)."""
        lowered = [w.lower() for w in words if w]
        for fold in self.folds:
            if any(w in fold.body.lower() for w in lowered):
                fold.open = True
        self._changed()

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        for first, last, fold in self._fold_rows:
            if first <= offset.y < last:
                self.toggle_fold(fold)
                return

    def fold_row(self, fold: Fold) -> int:
        """The content row of a fold's title (for a click on it)."""
        self.lines(self.content_region.width)
        return next(first for first, _, f in self._fold_rows if f is fold)

    def toggle_fold(self, fold: Fold) -> None:
        fold.open = not fold.open
        self._changed()

    def action_toggle_folds(self) -> None:
        opening = not any(f.open for f in self.folds)
        for fold in self.folds:
            fold.open = opening
        self._changed()


def subagent_name(agent_id: str | None) -> str:
    """A subagent as its messages' headers name it: Claude Code's agentId (7 or 17
    characters) whole; a longer id (an OpenCode child session's, 30) by its last characters,
    which tell two apart where its start (the time it began) would not."""
    if agent_id is None or len(agent_id) <= SUBAGENT_ID:
        return agent_id or ""
    return "…" + agent_id[-8:]


def warm_drawing() -> None:
    """Load what drawing the first message would (Markdown's parser, the code themes, the
    lexers of the languages sessions show most), off the event loop: the first session
    opened then costs what every later one does."""
    console = Console(file=io.StringIO(), width=80)
    for theme in CODE_THEME.values():
        for language in WARM_LANGUAGES:
            console.print(Markdown(f"# a\n`b` *c*\n```{language}\nx = 1\n```", code_theme=theme))


def folded(messages: list[MessageView]) -> list[MessageView]:
    """`messages` with each run of one subagent's messages as a single line that says so."""
    out: list[MessageView] = []
    run: list[MessageView] = []

    def close() -> None:
        if run:
            first = run[0]
            count = f"{len(run)} message{'s' * (len(run) != 1)}"
            out.append(
                replace(
                    first,
                    kind=SUBAGENT_RUN,
                    text=f"*{count} folded: a opens them*",
                    thinking="",
                    tool_calls=[],
                    tool_output="",
                )
            )
            run.clear()

    for m in messages:
        if m.is_sidechain and run and run[0].agent_id != m.agent_id:
            close()
        if m.is_sidechain:
            run.append(m)
        else:
            close()
            out.append(m)
    close()
    return out


def folds_of(m: MessageView) -> list[Fold]:
    folds = []
    for call in m.tool_calls:
        folds.append(Fold("tool-call", f"{call.name}  {one_line(call.arg, 80)}", call.arg))
    output = m.tool_output or (m.text if m.kind == "tool_result" else "")
    if output:
        lines = output.count("\n") + 1
        title = f"result · {lines} line{'s' * (lines != 1)}  {one_line(output, 60)}"
        folds.append(Fold("tool-result", title, output))
    return folds


class MessageList(VerticalScroll):
    """A scrolling window over a session's messages, grown at either edge on demand.

    Every change of the window holds `_lock`: a jump (g, G, n) and a grow started by the
    scroll must not interleave, or both would mount the same messages."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # the session's ends, not the ends of the messages mounted now
        Binding("home,g", "end(0)", "Top", show=False, id="go.top"),
        Binding("end,G", "end(1)", "Bottom", show=False, id="go.bottom"),
        Binding("tab", "focus_from_view(1)", "Next message", show=False, id="session.next"),
        Binding(
            "shift+tab", "focus_from_view(-1)", "Prev message", show=False, id="session.previous"
        ),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.messages: list[MessageView] = []
        self.agent = "claude-code"  # whose session it is: its answers are that agent's
        self.start = 0
        self.end = 0
        self._growing = False
        self._lock = asyncio.Lock()
        self.show_thinking = False

    def action_end(self, bottom: int) -> None:
        """Jump to the session's first or last message. The jump remounts this list's
        children, so it runs on the screen's message loop: awaited on this list's own loop
        it would wait on itself."""
        screen = self.screen
        if isinstance(screen, SessionScreen):
            screen.call_later(screen.action_bottom if bottom else screen.action_top)

    def action_focus_from_view(self, step: int) -> None:
        """Focus the next (or previous) message from where the reader is: the one after the
        focused message if it is in view, else the first (or last) message in view."""
        blocks = list(self.query(MessageBlock))
        if not blocks:
            return
        top, bottom = self.scroll_y, self.scroll_y + self.size.height
        seen = [b for b in blocks if b.virtual_region.bottom > top and b.virtual_region.y < bottom]
        focused = self.screen.focused
        if isinstance(focused, MessageBlock) and focused in seen:
            at = blocks.index(focused) + step
            target = blocks[max(0, min(len(blocks) - 1, at))]
        elif seen:
            target = seen[0] if step > 0 else seen[-1]
        else:
            target = blocks[0]
        target.focus(scroll_visible=False)
        region = target.virtual_region
        if region.y < top or region.y >= bottom:
            self.scroll_to(y=region.y, animate=False)

    def _block(self, index: int) -> MessageBlock:
        theme = CODE_THEME[self.app.current_theme.dark]
        return MessageBlock(self.messages[index], theme, self.show_thinking, self.agent)

    def toggle_thinking(self) -> None:
        """Show or hide thinking, in the messages mounted now and those mounted later."""
        self.show_thinking = not self.show_thinking
        for block in self.query(MessageBlock):
            block.show_thinking = self.show_thinking

    async def show(self, messages: list[MessageView], at: int = 0) -> None:
        """Mount the window around message `at` and bring it to the top of the view."""
        async with self._lock:
            self.messages = messages
            at = max(0, min(at, len(messages) - 1))
            self.start = max(0, at - 3)
            self.end = min(len(messages), self.start + WINDOW)
            self.start = max(0, min(self.start, self.end - WINDOW))
            await self.remove_children()
            await self.mount_all([self._block(i) for i in range(self.start, self.end)])
        self.call_after_refresh(self.reveal, at)

    def reveal(self, index: int) -> None:
        for block in self.query(MessageBlock):
            if block.message.message_index == self.messages[index].message_index:
                self.scroll_to_widget(block, top=True, animate=False)
                return

    async def goto(self, index: int) -> None:
        if self.start <= index < self.end:
            self.reveal(index)
        else:
            await self.show(self.messages, index)

    async def extend(self, messages: list[MessageView]) -> None:
        """The session grew: take the new list, mount the new tail if the reader is there."""
        async with self._lock:
            at_tail = self.end == len(self.messages)
            self.messages = messages
            if at_tail and self.end < len(messages):
                new = range(self.end, min(len(messages), self.end + STEP))
                self.end = new.stop
                await self.mount_all([self._block(i) for i in new])

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._growing or not self.messages:
            return
        if new_value >= self.max_scroll_y - self.size.height and self.end < len(self.messages):
            self._growing = True
            self.run_worker(self._grow_down(), group="grow")
        elif new_value <= 1 and self.start > 0:
            self._growing = True
            self.run_worker(self._grow_up(), group="grow")

    async def _grow_down(self) -> None:
        try:
            async with self._lock:
                new = range(self.end, min(len(self.messages), self.end + STEP))
                self.end = new.stop
                await self.mount_all([self._block(i) for i in new])
        finally:
            self._growing = False

    async def _grow_up(self) -> None:
        async with self._lock:
            if self.start == 0 or not self.children:
                self._growing = False
                return
            anchor = self.children[0]
            new = range(max(0, self.start - STEP), self.start)
            self.start = new.start
            await self.mount_all([self._block(i) for i in new], before=anchor)
        self.call_after_refresh(self._hold_anchor, anchor)

    def _hold_anchor(self, anchor: Widget) -> None:
        self.scroll_to_widget(anchor, top=True, animate=False)
        self._growing = False


class SessionScreen(Screen[None]):
    app: MemtuiApp
    AUTO_FOCUS = "#messages"  # the keys work before the messages arrive
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="screen.back"),
        Binding("slash", "find", "Find", id="session.find"),
        Binding("n", "next_hit", "Next hit", id="session.next_hit"),
        Binding("N", "previous_hit", "Prev hit", show=False, id="session.previous_hit"),
        Binding("t", "toggle_thinking", "Thinking", show=False, id="session.thinking"),
        Binding("r", "resume", "Resume", id="session.resume"),
        Binding("y", "copy", "Copy", id="session.copy"),
        Binding("e", "export", "Export", id="session.export"),
        Binding(
            "a",
            "toggle_subagents",
            "Subagents",
            tooltip="Fold or open each subagent's messages",
            id="session.subagents",
        ),
        Binding("j", "scroll(1)", "Down", show=False, id="go.down"),
        Binding("k", "scroll(-1)", "Up", show=False, id="go.up"),
        Binding("ctrl+f", "search_all", "Search all", show=False, id="session.search_all"),
        Binding("s", "save_note", "Save note", show=False, id="session.save_note"),
        Binding("S", "save_note(True)", "Save exchange", show=False, id="session.save_exchange"),
        Binding(forget.KEY, "forget", "Forget session", show=False, id="session.forget"),
    ]

    def __init__(
        self,
        session_id: str,
        at: int | None = None,
        words: list[str] | None = None,
        asked: tuple[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.session_id = session_id
        self.at = at
        self.words = words or []  # a search's matched words: the folds holding them open
        self.asked = asked  # opened from a search (its query, mode): n and N step its hits
        self.info: SessionInfo | None = None
        self.messages: list[MessageView] = []  # the whole session, in time order
        self.fold_subagents = False
        self.hits: list[int] = []  # positions in the message list
        self.hit = -1
        self.needle = ""  # what the find bar found, lowercased

    def compose(self) -> ComposeResult:
        yield StatusLine()
        yield Static("loading…", id="session-title")
        yield MessageList(id="messages")
        yield Input(placeholder="find in this session, enter to search", id="find")
        yield Keys()

    def on_mount(self) -> None:
        self.load(first=True)

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def load(self, first: bool = False) -> None:
        try:
            info, messages = self.app.memory.history.session_messages(self.session_id)
        except MemtuiError as exc:
            self.app.call_from_thread(self.app.notify, error_line(exc), severity="error")
            return
        # Textual types the callback as returning T or Awaitable[T]: mypy finds no T for a
        # coroutine function.
        self.app.call_from_thread(self._loaded, info, messages, first)  # type: ignore[arg-type]

    async def _loaded(self, info: SessionInfo, messages: list[MessageView], first: bool) -> None:
        self.info = info
        self.messages = messages
        self._title()
        view = self.query_one(MessageList)
        view.agent = info.agent
        shown = folded(messages) if self.fold_subagents else messages
        if not first:
            await view.extend(shown)
            return
        at = 0
        if self.at is not None:
            at = next((i for i, m in enumerate(shown) if m.message_index == self.at), 0)
        await view.show(shown, at)
        if self.asked is not None:
            self.find_search_hits(*self.asked)
        if self.at is not None:
            self._mark(at)
            for block in view.query(MessageBlock):
                if block.message.message_index == self.at:
                    block.open_folds_with(self.words)
            view.call_after_refresh(view.reveal, at)

    @work(thread=True, exclusive=True, group="search-hits", exit_on_error=False)
    def find_search_hits(self, query: str, mode: str) -> None:
        """The search's matches in this session, for n and N, with the one opened current."""
        try:
            found = self.app.memory.history.search(
                query, mode, session=self.session_id, limit=REACH
            )
        except MemtuiError:
            return  # the session stays readable; / still finds in it
        indexes = {r.message_index for r in found.results}
        self.app.call_from_thread(self._search_hits, indexes)

    def _search_hits(self, indexes: set[int]) -> None:
        if self.needle:  # the find bar was used meanwhile: its hits stay
            return
        view = self.query_one(MessageList)
        self.hits = [i for i, m in enumerate(view.messages) if m.message_index in indexes]
        at = next((i for i, m in enumerate(view.messages) if m.message_index == self.at), -1)
        self.hit = self.hits.index(at) if at in self.hits else -1
        self._title()

    def _title(self) -> None:
        self.refresh_bindings()
        if self.info is None:
            return
        i = self.info
        title = Text(i.title or "(untitled)", style="bold")
        title.append(f"\n{home_short(i.project)}", style="dim")
        if i.git_branch:
            title.append(f"   ⎇ {i.git_branch}", style="dim")
        title.append(f"   {counted(i.message_count, 'msg')}", style="dim")
        if i.agent != "claude-code":
            title.append(f"   {agent_label(i.agent)}", style="dim")
        if i.archived:
            title.append(
                f"   ⌂ archived ({AGENT_NAMES[i.agent]} deleted the transcript)", style="italic"
            )
        if self.hits:
            title.append(f"   hit {self.hit + 1}/{len(self.hits)}", style="bold")
        self.query_one("#session-title", Static).update(title)

    def on_archive_changed(self, _: ArchiveChanged) -> None:
        if self.info is not None:
            self.load()

    def _mark(self, position: int) -> None:
        view = self.query_one(MessageList)
        for block in view.query(".-hit"):
            block.remove_class("-hit")
        index = view.messages[position].message_index
        for block in view.query(MessageBlock):
            if block.message.message_index == index:
                block.add_class("-hit")

    def action_back(self) -> None:
        """An open find bar closes first (its hits stay: n and N still step), then the
        session is left."""
        find = self.query_one("#find", Input)
        if find.has_class("-open"):
            find.remove_class("-open")
            if find.has_focus:
                self.query_one(MessageList).focus()
            return
        self.dismiss()

    def action_find(self) -> None:
        find = self.query_one("#find", Input)
        find.add_class("-open")
        find.focus()

    @on(Input.Submitted, "#find")
    async def _find(self, event: Input.Submitted) -> None:
        needle = event.value.strip().lower()
        self.needle = needle
        view = self.query_one(MessageList)
        self.hits = [i for i, m in enumerate(view.messages) if needle and matches(m, needle)]
        self.hit = -1
        view.focus()
        if not self.hits:
            self.notify(f"no message in this session has {event.value!r}", severity="warning")
            self._title()
            return
        await self._step(1)

    async def _step(self, direction: int) -> None:
        if not self.hits:
            self.notify("nothing to step through: / finds in this session", severity="warning")
            return
        self.hit = (self.hit + direction) % len(self.hits)
        position = self.hits[self.hit]
        view = self.query_one(MessageList)
        await view.goto(position)
        self._mark(position)
        self._title()
        self._show_in_fold(view, position)

    def _show_in_fold(self, view: MessageList, position: int) -> None:
        """A hit in a tool's call or output opens its fold; when the message's own text does
        not hold it, the view goes to the fold."""
        index = view.messages[position].message_index
        block = next(
            (b for b in view.query(MessageBlock) if b.message.message_index == index), None
        )
        if block is None or not self.needle:
            return
        block.open_folds_with([self.needle])
        holding = next((f for f in block.folds if f.open and self.needle in f.body.lower()), None)
        if holding is None or self.needle in block.message.text.lower():
            return

        def to_fold() -> None:
            view.scroll_to(y=block.virtual_region.y + block.fold_row(holding), animate=False)

        view.call_after_refresh(to_fold)

    async def action_next_hit(self) -> None:
        await self._step(1)

    async def action_previous_hit(self) -> None:
        await self._step(-1)

    async def action_toggle_subagents(self) -> None:
        """Fold each subagent's run of messages into one line, or open them all again."""
        view = self.query_one(MessageList)
        if not self.messages:
            return
        self.fold_subagents = not self.fold_subagents
        shown = folded(self.messages) if self.fold_subagents else self.messages
        self.hits, self.hit = [], -1
        self._title()
        await view.show(shown, 0)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("next_hit", "previous_hit"):
            return bool(self.hits)
        if action == "toggle_subagents":
            return any(m.is_sidechain for m in self.messages)
        return True

    def action_toggle_thinking(self) -> None:
        if self.info is not None and not any(m.thinking for m in self.messages):
            self.notify("this session has no thinking")
            return
        self.query_one(MessageList).toggle_thinking()

    async def action_top(self) -> None:
        await self.query_one(MessageList).goto(0)

    async def action_bottom(self) -> None:
        view = self.query_one(MessageList)
        await view.goto(len(view.messages) - 1)
        view.call_after_refresh(view.scroll_end, animate=False)

    def action_scroll(self, lines: int) -> None:
        view = self.query_one(MessageList)
        view.scroll_relative(y=lines * 3, animate=False)

    def action_resume(self) -> None:
        if self.info is not None:
            self.app.resume(self.info)

    def action_copy(self) -> None:
        self.app.copy_markdown(self.session_id)

    def action_export(self) -> None:
        if self.info is not None:
            self.app.export_session(self.info)

    def action_forget(self) -> None:
        if self.info is not None:
            forget.session(self.app, self.info, then=self._forgotten)

    def _forgotten(self) -> None:
        if self.is_current:
            self.dismiss()

    def action_search_all(self) -> None:
        self.app.action_search()

    def action_save_note(self, whole_exchange: bool = False) -> None:
        """The highlighted message (or its exchange) as a new `past` note."""
        position = self._highlighted()
        if self.info is not None and position is not None:
            messages = self.query_one(MessageList).messages
            capture.save_from_session(self.app, self.info, messages, position, whole_exchange)

    def _highlighted(self) -> int | None:
        """The focused message, else the marked hit, else the first one in view."""
        view = self.query_one(MessageList)
        focused = self.focused
        block = focused if isinstance(focused, MessageBlock) else None
        block = block or next(iter(view.query(".-hit").results(MessageBlock)), None)
        if block is None:
            top = view.region.y
            block = next((b for b in view.query(MessageBlock) if b.region.bottom > top), None)
        if block is None:
            return None
        index = block.message.message_index
        return next((i for i, m in enumerate(view.messages) if m.message_index == index), None)
