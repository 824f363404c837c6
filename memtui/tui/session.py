"""One conversation: messages by role, Markdown with highlighted code, tool calls folded.

A session can hold thousands of messages; `MessageList` mounts a window of them around
where the reader is and grows it as they scroll, so opening one costs the same at any size.
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

from rich.markdown import Markdown
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Input, Static

from memtui.engine import MessageView, SessionInfo
from memtui.errors import MemtuiError
from memtui.tui.format import home_short, one_line, when
from memtui.tui.messages import ArchiveChanged
from memtui.tui.status import StatusLine

WINDOW = 16  # messages mounted at once when a session opens or jumps (a screen or two)
STEP = 20  # messages added when the reader nears an edge of the window
ROLE_LABEL = {"user": "you", "assistant": "claude"}
KIND_LABEL = {"tool_result": "⎿ tool", "meta": "meta", "compact_summary": "summary of earlier"}


def matches(message: MessageView, needle: str) -> bool:
    hay = [message.text, message.tool_output, *(c.arg for c in message.tool_calls)]
    return any(needle in part.lower() for part in hay if part)


class Fold(Static, can_focus=True):
    """A folded line that opens on click or Enter: a tool call, its output, thinking.
    One widget, not Collapsible's four: a window of messages holds dozens of these."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "toggle", "Open/close", show=False, id="fold.toggle")
    ]
    expanded: reactive[bool] = reactive(False, layout=True)

    def __init__(self, title: str, body: str, *, classes: str) -> None:
        super().__init__(classes=classes)
        self.title = title
        self.body = body

    def render(self) -> Text:
        text = Text(("▼ " if self.expanded else "▶ ") + self.title, style="bold dim")
        if self.expanded:
            text.append("\n")
            text.append(self.body, style="")
        return text

    def watch_expanded(self, expanded: bool) -> None:
        self.set_class(expanded, "-expanded")

    def action_toggle(self) -> None:
        self.expanded = not self.expanded

    def on_click(self) -> None:
        self.expanded = not self.expanded


class MessageBlock(Vertical):
    """One message: a header line, its text as Markdown, its tool calls and output folded."""

    def __init__(self, message: MessageView, code_theme: str) -> None:
        classes = f"-{message.role} -{message.kind}"
        if message.is_sidechain:
            classes += " -sidechain"
        super().__init__(id=f"m{message.message_index}", classes=classes)
        self.message = message
        self.code_theme = code_theme

    def compose(self) -> ComposeResult:
        m = self.message
        head = Text()
        label = KIND_LABEL.get(m.kind) or ROLE_LABEL.get(m.role, m.role)
        head.append(label, style="bold")
        if m.is_sidechain:
            head.append(f" · subagent {m.agent_id or ''}".rstrip())
        head.append(f"   {when(m.timestamp, seconds=True)}   #{m.message_index}", style="dim")
        yield Static(head, classes="msg-head")
        if m.thinking:
            yield Fold("thinking", m.thinking, classes="thinking")
        if m.text and m.kind != "tool_result":
            yield Static(Markdown(m.text, code_theme=self.code_theme), classes="msg-body")
        for call in m.tool_calls:
            yield Fold(f"{call.name}  {one_line(call.arg, 80)}", call.arg, classes="tool-call")
        output = m.tool_output or (m.text if m.kind == "tool_result" else "")
        if output:
            lines = output.count("\n") + 1
            title = f"result · {lines} line{'s' * (lines != 1)}  {one_line(output, 60)}"
            yield Fold(title, output, classes="tool-result")


class MessageList(VerticalScroll):
    """A scrolling window over a session's messages, grown at either edge on demand.

    Every change of the window holds `_lock`: a jump (g, G, n) and a grow started by the
    scroll must not interleave, or both would mount the same messages."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.messages: list[MessageView] = []
        self.start = 0
        self.end = 0
        self._growing = False
        self._lock = asyncio.Lock()

    def _block(self, index: int) -> MessageBlock:
        theme = "monokai" if self.app.current_theme.dark else "friendly"
        return MessageBlock(self.messages[index], theme)

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
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="session.back"),
        Binding("slash", "find", "Find", id="session.find"),
        Binding("n", "next_hit", "Next hit", id="session.next_hit"),
        Binding("N", "previous_hit", "Prev hit", id="session.previous_hit"),
        Binding("t", "toggle_thinking", "Thinking", id="session.thinking"),
        Binding("r", "resume", "Resume", id="session.resume"),
        Binding("y", "copy", "Copy MD", id="session.copy"),
        Binding("e", "export", "Export", id="session.export"),
        Binding("g", "top", "Top", show=False, id="session.top"),
        Binding("G", "bottom", "Bottom", show=False, id="session.bottom"),
        Binding("j", "scroll(1)", "Down", show=False, id="session.down"),
        Binding("k", "scroll(-1)", "Up", show=False, id="session.up"),
        Binding("ctrl+f", "search_all", "Search all", show=False, id="session.search_all"),
    ]

    def __init__(self, session_id: str, at: int | None = None) -> None:
        super().__init__()
        self.session_id = session_id
        self.at = at
        self.info: SessionInfo | None = None
        self.hits: list[int] = []  # positions in the message list
        self.hit = -1

    def compose(self) -> ComposeResult:
        yield StatusLine()
        yield Static("loading…", id="session-title")
        yield MessageList(id="messages")
        yield Input(placeholder="find in this session, enter to search", id="find")
        yield Footer()

    def on_mount(self) -> None:
        self.load(first=True)

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def load(self, first: bool = False) -> None:
        try:
            info, messages = self.app.memory.history.session_messages(self.session_id)
        except MemtuiError as exc:
            self.app.call_from_thread(self.app.notify, exc.line(), severity="error")
            return
        self.app.call_from_thread(self._loaded, info, messages, first)

    async def _loaded(self, info: SessionInfo, messages: list[MessageView], first: bool) -> None:
        self.info = info
        self._title()
        view = self.query_one(MessageList)
        if not first:
            await view.extend(messages)
            return
        at = 0
        if self.at is not None:
            at = next((i for i, m in enumerate(messages) if m.message_index >= self.at), 0)
        await view.show(messages, at)
        if self.at is not None:
            self._mark(at)
        view.focus()

    def _title(self) -> None:
        if self.info is None:
            return
        i = self.info
        title = Text(i.title or "(untitled)", style="bold")
        title.append(f"\n{home_short(i.project)}", style="dim")
        if i.git_branch:
            title.append(f"   ⎇ {i.git_branch}", style="dim")
        title.append(f"   {i.message_count} msgs", style="dim")
        if i.archived:
            title.append("   ⌂ archived (Claude Code deleted the transcript)", style="italic")
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
        find = self.query_one("#find", Input)
        if find.has_focus:
            find.remove_class("-open")
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
        await self.query_one(MessageList).goto(position)
        self._mark(position)
        self._title()

    async def action_next_hit(self) -> None:
        await self._step(1)

    async def action_previous_hit(self) -> None:
        await self._step(-1)

    def action_toggle_thinking(self) -> None:
        self.toggle_class("-show-thinking")

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

    def action_search_all(self) -> None:
        self.app.action_search()
