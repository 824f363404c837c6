"""Search results as lines: three rows a hit, drawn only when on screen.

A list widget lays out every item when it is filled (OptionList wraps each option to learn
its height); a hit here has a fixed height, so filling the list costs nothing and a frame
draws only the rows in view (the line API, as toolong draws its logs).
"""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from memtui.engine import SearchResult
from memtui.tui.format import clip_lines, marked, project_name, when, who

ROWS = 3  # a hit: who, when, session and project; then two lines of its snippet


class ResultList(ScrollView, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,j", "move(1)", "Down", show=False, id="go.down"),
        Binding("up,k", "move(-1)", "Up", show=False, id="go.up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="go.page_down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="go.page_up"),
        Binding("home", "first", "First", show=False, id="go.top"),
        Binding("end", "last", "Last", show=False, id="go.bottom"),
        Binding("enter", "open", "Open", id="list.open"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"result-list--cursor", "result-list--mark"}

    highlighted: reactive[int | None] = reactive(None, always_update=True)

    class Hit(Message):
        def __init__(self, result: SearchResult) -> None:
            super().__init__()
            self.result = result

    class Highlighted(Hit):
        """The cursor is on a hit."""

    class Selected(Hit):
        """A hit was chosen (Enter or a click)."""

    def __init__(self, **kwargs: str) -> None:
        super().__init__(**kwargs)
        self.results: list[SearchResult] = []
        self.names: dict[str, str] = {}  # project path: its shortest telling name
        self._drawn: dict[tuple[int, int], list[Text]] = {}  # (hit, width): its rows

    def show(self, results: list[SearchResult], keep: bool = False) -> None:
        """New results, the cursor at the top; with `keep` (the same search run again on a
        grown archive) it stays on its hit if the hit is still there."""
        was = self.current()
        self.results = results
        self._drawn.clear()
        self.virtual_size = Size(self.scrollable_content_region.width, ROWS * len(results))
        keys = [(r.session_id, r.message_index) for r in results]
        kept = (was.session_id, was.message_index) if was is not None else None
        if keep and kept in keys:
            self.highlighted = keys.index(kept)
            return
        self.scroll_to(0, 0, animate=False, immediate=True)
        self.highlighted = 0 if results else None

    def current(self) -> SearchResult | None:
        at = self.highlighted
        return self.results[at] if at is not None and at < len(self.results) else None

    def watch_highlighted(self, new: int | None) -> None:
        self.refresh()
        hit = self.current()
        if new is not None and hit is not None:
            self.scroll_to_region(
                Region(0, new * ROWS, 1, ROWS), animate=False, immediate=True, force=True
            )
            self.post_message(self.Highlighted(hit))

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._drawn.clear()

    def _rows(self, index: int, width: int) -> list[Text]:
        key = (index, width)
        if key not in self._drawn:
            r = self.results[index]
            head = Text()
            head.append(f"{who(r.role, r.kind):<7}", style="bold")
            head.append(f"{when(r.timestamp)}  ", style="dim")
            name = self.names.get(r.project) or project_name(r.project)
            head.append(f"{name}  ", style="dim")
            head.append(r.session_title or "(untitled)", style="italic")
            head.truncate(width, overflow="ellipsis")
            mark = self.get_component_rich_style("result-list--mark")
            body = clip_lines(marked(" ".join(r.snippet.split()), mark), width, ROWS - 1)
            self._drawn[key] = [head, *body]
        return self._drawn[key]

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        row = y + int(self.scroll_y)
        index, part = divmod(row, ROWS)
        base = self.rich_style
        if index >= len(self.results):
            return Strip.blank(width, base)
        rows = self._rows(index, width - 2)
        line = rows[part] if part < len(rows) else Text()
        if index == self.highlighted:
            base = base + self.get_component_rich_style("result-list--cursor")
        segments = [Segment(" "), *line.render(self.app.console), Segment(" ")]
        return Strip(segments).crop_extend(0, width, base).apply_style(base)

    def _hit_at(self, y: int) -> int | None:
        index = (y + int(self.scroll_y)) // ROWS
        return index if index < len(self.results) else None

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        index = None if offset is None else self._hit_at(offset.y)
        if index is not None:
            self.highlighted = index
            self.action_open()

    def action_move(self, step: int) -> None:
        if self.results:
            now = self.highlighted or 0
            self.highlighted = max(0, min(len(self.results) - 1, now + step))

    def action_page(self, direction: int) -> None:
        self.action_move(direction * max(1, self.size.height // ROWS))

    def action_first(self) -> None:
        self.action_move(-len(self.results))

    def action_last(self) -> None:
        self.action_move(len(self.results))

    def action_open(self) -> None:
        hit = self.current()
        if hit is not None:
            self.post_message(self.Selected(hit))
