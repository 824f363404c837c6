"""Search results as lines: three rows a hit, drawn only when on screen.

A list widget lays out every item when it is filled (OptionList wraps each option to learn
its height); a hit here has a fixed height, so filling the list costs nothing and a frame
draws only the rows in view (the line API, as toolong draws its logs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Generic, TypeVar

from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from memtui.engine import SearchResponse, SearchResult, SessionHit
from memtui.tui.format import agent_label, clip_lines, labelled, marked, project_name, when, who
from memtui.words import counted

ROWS = 3  # a hit: a heading line (who or what, when, where); then two lines of its snippet

H = TypeVar("H")


class HitList(ScrollView, Generic[H], can_focus=True, inherit_bindings=False):
    """Hits of ROWS rows each, drawn only when on screen; a subclass says how one reads
    (`heading`, `snippet`) and what keeps it the same hit across searches (`key`). Its own
    keys only: ScrollView's sideways ones would do nothing here."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # Priority, all of them, so that they keep their order: a step past an end moves the
        # focus (`on_past`) before the keys after it are sent on, and letters typed right
        # after `up` from the first hit reach the query.
        Binding("down,j", "move(1)", "Down", show=False, id="go.down", priority=True),
        Binding("up,k", "move(-1)", "Up", show=False, id="go.up", priority=True),
        Binding("pagedown", "page(1)", "Page down", show=False, id="go.page_down", priority=True),
        Binding("pageup", "page(-1)", "Page up", show=False, id="go.page_up", priority=True),
        Binding("home", "first", "First", show=False, id="go.top", priority=True),
        Binding("end", "last", "Last", show=False, id="go.bottom", priority=True),
        Binding("enter", "open", "Open", id="list.open", priority=True),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"hit-list--cursor", "hit-list--mark"}
    DEFAULT_CSS = """
    HitList { height: 1fr; background: $surface; overflow-x: hidden; }
    HitList > .hit-list--cursor { background: $block-cursor-blurred-background; }
    HitList:focus > .hit-list--cursor {
        background: $block-cursor-background; color: $block-cursor-foreground;
    }
    HitList > .hit-list--mark { text-style: bold reverse; }
    """

    highlighted: reactive[int | None] = reactive(None, always_update=True)

    class Hit(Message):
        def __init__(self, hit: object) -> None:
            super().__init__()
            self.hit = hit

    class Highlighted(Hit):
        """The cursor is on a hit."""

    class Selected(Hit):
        """A hit was chosen (Enter or a click)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.hits: list[H] = []
        self._drawn: dict[tuple[int, int], list[Text]] = {}  # (hit, width): its rows
        # Steps down asked for past the last hit while more load: taken once they are in.
        self.owed = 0
        # A step up from the first hit (-1) or down from the last (1): the screen may move on
        # to what is above or below. A call, not a message: the focus must move before the
        # next key of a burst is dispatched.
        self.on_past: Callable[[HitList[Any], int], None] | None = None

    def key(self, hit: H) -> object:
        """What makes a hit the same one when a search runs again."""
        raise NotImplementedError

    def heading(self, hit: H) -> Text:
        raise NotImplementedError

    def snippet(self, hit: H) -> str:
        raise NotImplementedError

    def facts(self, hit: H) -> Text | None:
        """A line under the heading, in place of the snippet's first (none by default)."""
        return None

    def show(self, hits: list[H], keep: bool = False) -> None:
        """New hits, the cursor at the top; with `keep` (the same search run again on a
        grown archive) it stays on its hit if the hit is still there."""
        was = self.current()
        self.hits = hits
        self.set_class(not hits, "-empty")
        self._drawn.clear()
        self.virtual_size = Size(self.scrollable_content_region.width, ROWS * len(hits))
        keys = [self.key(h) for h in hits]
        owed, self.owed = self.owed, 0
        if keep and was is not None and self.key(was) in keys:
            self.highlighted = min(keys.index(self.key(was)) + owed, len(hits) - 1)
            return
        self.scroll_to(0, 0, animate=False, immediate=True)
        self.highlighted = 0 if hits else None

    def current(self) -> H | None:
        at = self.highlighted
        return self.hits[at] if at is not None and at < len(self.hits) else None

    def watch_highlighted(self, new: int | None) -> None:
        self.refresh()
        hit = self.current()
        if new is not None and hit is not None:
            self._in_view(new)
            self.post_message(self.Highlighted(hit))

    def _in_view(self, index: int) -> None:
        self.scroll_to_region(
            Region(0, index * ROWS, 1, ROWS), animate=False, immediate=True, force=True
        )

    def on_resize(self) -> None:
        """A smaller terminal keeps the cursor's hit on screen (it was left below)."""
        if self.highlighted is not None and self.current() is not None:
            self.call_after_refresh(self._in_view, self.highlighted)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._drawn.clear()

    def _rows(self, index: int, width: int) -> list[Text]:
        key = (index, width)
        if key not in self._drawn:
            hit = self.hits[index]
            heads = [h for h in (self.heading(hit), self.facts(hit)) if h is not None]
            for head in heads:
                head.truncate(width, overflow="ellipsis")
            mark = self.get_component_rich_style("hit-list--mark")
            snippet = marked(" ".join(self.snippet(hit).split()), mark)
            self._drawn[key] = [*heads, *clip_lines(snippet, width, ROWS - len(heads))]
        return self._drawn[key]

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index, part = divmod(y + int(self.scroll_y), ROWS)
        base = self.rich_style
        if index >= len(self.hits):
            return Strip.blank(width, base)
        rows = self._rows(index, width - 2)
        line = rows[part] if part < len(rows) else Text()
        if index == self.highlighted:
            base = base + self.get_component_rich_style("hit-list--cursor")
        segments = [Segment(" "), *line.render(self.app.console), Segment(" ")]
        return Strip(segments).crop_extend(0, width, base).apply_style(base)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = (offset.y + int(self.scroll_y)) // ROWS
        if index < len(self.hits):
            self.highlighted = index
            self.action_open()

    def action_move(self, step: int) -> None:
        """One hit up or down; from an end, the screen may go on past it (`on_past`)."""
        now = self.highlighted or 0
        if now == (0 if step < 0 else max(0, len(self.hits) - 1)) and self.on_past is not None:
            self.on_past(self, step)
        self.step(step)

    def step(self, step: int) -> None:
        if self.hits:
            now = self.highlighted or 0
            self.owed += max(0, now + step - (len(self.hits) - 1))
            self.highlighted = max(0, min(len(self.hits) - 1, now + step))

    def action_page(self, direction: int) -> None:
        self.step(direction * max(1, self.size.height // ROWS))

    def action_first(self) -> None:
        self.step(-len(self.hits))

    def action_last(self) -> None:
        if self.hits:
            self.highlighted = len(self.hits) - 1

    def action_open(self) -> None:
        hit = self.current()
        if hit is not None:
            self.post_message(self.Selected(hit))


class ResultList(HitList[SearchResult]):
    """Message hits: who, when, the project and the session's title, then the snippet. By
    conversation each hit is a conversation's best message: the title, then its facts (the
    day, its size, how many of its messages match, the project), then the snippet."""

    class Highlighted(HitList.Highlighted):
        """The cursor is on a message hit."""

        hit: SearchResult

    class Selected(HitList.Selected):
        """A message hit was chosen."""

        hit: SearchResult

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.names: dict[str, str] = {}  # project path: its shortest telling name
        self.conversations: dict[str, SessionHit] = {}  # by session id, when by conversation
        self.agents = False  # each hit says which agent its conversation was with

    def show_response(self, response: SearchResponse, keep: bool = False) -> None:
        """A search's matches (by conversation: each one's best message); when nothing
        matched, the nearest by meaning, which the screen labels as no match."""
        self.conversations = {s.session.session_id: s for s in response.sessions}
        hits = response.results or response.nearest
        self.agents = labelled(h.agent for h in hits)
        self.show(hits, keep=keep)

    def key(self, hit: SearchResult) -> object:
        return hit.session_id, hit.message_index

    def _project(self, project: str) -> str:
        return self.names.get(project) or project_name(project)

    def heading(self, hit: SearchResult) -> Text:
        conversation = self.conversations.get(hit.session_id)
        if conversation is not None:
            return Text.assemble((conversation.session.title or "(untitled)", "bold"))
        head = Text()
        speaker = who(hit.role, hit.kind, hit.agent)
        stamp = when(hit.timestamp)
        if self.agents:
            # The agent before the project, never cut at 80 columns (`opencode` is the
            # longest); not again beside its own answer; the day without its time to make room.
            agent = agent_label(hit.agent)
            head.append(f"{speaker:<9}", style="bold")
            head.append(f"{'' if agent == speaker else agent:<9}", style="dim")
            stamp = stamp[:10]
        else:
            head.append(f"{speaker:<6} ", style="bold")  # `summary` keeps a space too
        head.append(f"{stamp}  ", style="dim")
        head.append(f"{self._project(hit.project)}  ", style="dim")
        head.append(hit.session_title or "(untitled)", style="italic")
        return head

    def facts(self, hit: SearchResult) -> Text | None:
        conversation = self.conversations.get(hit.session_id)
        if conversation is None:
            return None
        info = conversation.session
        size, matching = info.message_count, conversation.matches
        # The day, the agent, then the sizes, then the project: 80 columns cut from the end.
        by = f"{agent_label(info.agent)}  " if self.agents else ""
        return Text(
            f"{when(info.last_timestamp)[:10]}  {by}{size:,} msg{'s' * (size != 1)}, "
            f"{counted(matching, 'hit')}  {self._project(info.project)}",
            style="dim",
        )

    def snippet(self, hit: SearchResult) -> str:
        return hit.snippet
