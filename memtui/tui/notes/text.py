"""A note drawn as lines: its Markdown and, below it, the lists of what it leads to
(backlinks, flashbacks, its source), with one cursor over every openable thing.

The parts are rendered once per width; a cursor move restyles the lines on screen only
(the line API, as `ResultList` draws its hits), so moving between links costs nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from memtui.tui.notes.links import restyle, target_of


@dataclass(frozen=True, slots=True)
class Target:
    """Something a note leads to: another note (by id, or by the title a link names) or a
    message of a past conversation."""

    label: str
    note_id: int | None = None
    title: str | None = None
    session_id: str | None = None
    message_index: int | None = None

    @property
    def missing(self) -> bool:
        """A link to a title no note has (yet)."""
        return self.title is not None and self.note_id is None and self.session_id is None


class NoteText(ScrollView, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "move(1)", "Next link", id="note.next_link"),
        Binding("shift+tab", "move(-1)", "Prev link", show=False, id="note.previous_link"),
        Binding("enter", "open", "Open", id="note.open_link"),
        Binding("j", "scroll_down", "Down", show=False, id="go.down"),
        Binding("k", "scroll_up", "Up", show=False, id="go.up"),
        Binding("g", "scroll_home", "Top", show=False, id="go.top"),
        Binding("G", "scroll_end", "Bottom", show=False, id="go.bottom"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"note-text--link", "note-text--cursor"}
    DEFAULT_CSS = """
    NoteText { padding: 0 1; }
    NoteText > .note-text--link { color: $text-accent; text-style: underline; }
    NoteText > .note-text--cursor { color: $block-cursor-foreground;
        background: $block-cursor-background; text-style: bold; }
    """

    current: reactive[int | None] = reactive(None, always_update=True)

    class Opened(Message):
        """The person chose a target (Enter or a click)."""

        def __init__(self, target: Target) -> None:
            super().__init__()
            self.target = target

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.parts: list[RenderableType] = []
        self.targets: list[Target] = []
        self._lines: list[list[Segment]] = []
        self._rows: dict[int, int] = {}  # target: the first row it is drawn on
        self._width = -1
        self._missing: frozenset[int] = frozenset()
        self._looks: tuple[Style, Style] | None = None

    def show(self, parts: Sequence[RenderableType], targets: list[Target]) -> None:
        """New content: `parts` mark each target's text with the style link `memtui:N`."""
        self.parts = list(parts)
        self.targets = targets
        self._missing = frozenset(i for i, t in enumerate(targets) if t.missing)
        self._width = -1
        self._layout()
        self.scroll_to(0, 0, animate=False, immediate=True)
        self.current = None  # the first tab selects the first target, as tab does elsewhere

    def _layout(self) -> None:
        width = max(1, self.scrollable_content_region.width)
        if width == self._width:
            return
        console = self.app.console
        options = console.options.update_width(width)
        lines: list[list[Segment]] = []
        for part in self.parts:
            lines.extend(console.render_lines(part, options, pad=False))
        self._rows = {}
        for row, line in enumerate(lines):
            for seg in line:
                place = target_of(seg.style)
                if place is not None:
                    self._rows.setdefault(place, row)
        self._lines, self._width = lines, width
        self.virtual_size = Size(width, len(lines))

    def on_resize(self) -> None:
        self._layout()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._looks = None
        self.refresh()

    def looks(self) -> tuple[Style, Style]:
        """The link and cursor styles, resolved once per theme (not once per line)."""
        if self._looks is None:
            self._looks = (
                self.get_component_rich_style("note-text--link", partial=True),
                self.get_component_rich_style("note-text--cursor", partial=True),
            )
        return self._looks

    def render_line(self, y: int) -> Strip:
        self._layout()
        width = self.scrollable_content_region.width
        row = y + int(self.scroll_y)
        base = self.rich_style
        if row >= len(self._lines):
            return Strip.blank(width, base)
        link, cursor = self.looks()
        segments = restyle(self._lines[row], self.current, link, cursor, self._missing)
        return Strip(segments).crop_extend(0, width, base).apply_style(base)

    def watch_current(self, new: int | None) -> None:
        self.refresh()
        if new is None:
            return
        row = self._rows.get(new)
        if row is not None:
            self.scroll_to_region(Region(0, row, 1, 1), animate=False, immediate=True)

    def action_move(self, step: int) -> None:
        if self.targets:
            if self.current is None:  # nothing selected yet: tab the first, shift+tab the last
                self.current = 0 if step > 0 else len(self.targets) - 1
            else:
                self.current = (self.current + step) % len(self.targets)

    def action_open(self) -> None:
        if self.current is not None and self.current < len(self.targets):
            self.post_message(self.Opened(self.targets[self.current]))

    def action_open_target(self, place: int) -> None:
        if place < len(self.targets):
            self.current = place
            self.action_open()
