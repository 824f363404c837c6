"""Notes in the search screen: the scope switch (messages, notes or both) and the list of
note hits, drawn as the message hits are (three fixed rows a hit, only those on screen)."""

from __future__ import annotations

from typing import ClassVar, Literal, get_args

from rich.markdown import Markdown
from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from memtui.engine import NoteHit, NoteSearchResponse, SearchResponse
from memtui.engine.search import DEPTH, REACH
from memtui.tui.format import clip_lines, marked, when

Scope = Literal["messages", "notes", "both"]
SCOPES: tuple[Scope, ...] = get_args(Scope)
ROWS = 3  # a hit: title, layer, folder and when; then two lines of its snippet


def summary(
    scope: str,
    messages: SearchResponse | None,
    notes: NoteSearchResponse | None,
    mode_label: dict[str, str],
) -> Text:
    """What the search found, in the scope asked for: the messages by which way they were
    found (`12 full-text matches · 40 near in meaning · hybrid`), the notes by their number."""
    parts = []
    if scope != "notes" and messages is not None:
        parts.append(counted(messages))
    if scope != "messages" and notes is not None:
        parts.append(f"{notes.total:,} notes" + (" found" if scope == "notes" else ""))
    if scope == "both" and messages is not None:
        parts[0] = f"messages: {parts[0]}"
    mode = (messages if scope != "notes" else notes) or notes or messages
    text = Text(" · ".join(parts) if parts else "searching…")
    if mode is not None:
        text.append(f" · {mode_label.get(mode.mode, mode.mode)}")
    if scope != "notes" and messages is not None and messages.note:
        text.append(f" · {messages.note}", style="italic")
    return text


def counted(response: SearchResponse) -> str:
    """What the messages' total counts, each way apart: words that match, and neighbours
    near enough in meaning to mean something (a list may add the few nearest beside them)."""
    parts = []
    fts, near = response.fts_total, response.vector_total
    if fts is not None:
        plus = "+" if fts >= REACH else ""
        parts.append(
            f"{fts:,}{plus} full-text match{'es' * (fts != 1)}" if fts else "no full-text match"
        )
    if near is not None:
        plus = "+" if near >= DEPTH else ""
        if near:
            parts.append(f"{near:,}{plus} near in meaning")
        else:  # the few nearest are listed however far: say they are not close
            listed = response.results and not fts
            parts.append("none near in meaning" + (", the nearest listed" if listed else ""))
    return " · ".join(parts) or f"{response.total:,} messages found"


def preview(hit: NoteHit, body: str, code_theme: str) -> Markdown:
    ref = hit.note
    head = f"# {ref.title}\n\n*{ref.layer} · {ref.folder or '(no folder)'} · {when(ref.updated)}*"
    return Markdown(f"{head}\n\n{body}", code_theme=code_theme)


class NoteHitList(ScrollView, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,j", "move(1)", "Down", show=False, id="go.down"),
        Binding("up,k", "move(-1)", "Up", show=False, id="go.up"),
        Binding("enter", "open", "Open", id="list.open"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"note-hits--cursor", "note-hits--mark"}
    DEFAULT_CSS = """
    NoteHitList { height: 1fr; background: $surface; overflow-x: hidden; }
    NoteHitList > .note-hits--cursor { background: $block-cursor-blurred-background; }
    NoteHitList:focus > .note-hits--cursor {
        background: $block-cursor-background; color: $block-cursor-foreground;
    }
    NoteHitList > .note-hits--mark { text-style: bold reverse; }
    """

    highlighted: reactive[int | None] = reactive(None, always_update=True)

    class Hit(Message):
        def __init__(self, hit: NoteHit) -> None:
            super().__init__()
            self.hit = hit

    class Highlighted(Hit):
        """The cursor is on a note."""

    class Selected(Hit):
        """A note was chosen (Enter or a click)."""

    def __init__(self, **kwargs: str) -> None:
        super().__init__(**kwargs)
        self.hits: list[NoteHit] = []
        self._drawn: dict[tuple[int, int], list[Text]] = {}

    def show(self, hits: list[NoteHit]) -> None:
        self.hits = hits
        self._drawn.clear()
        self.virtual_size = Size(self.scrollable_content_region.width, ROWS * len(hits))
        self.scroll_to(0, 0, animate=False, immediate=True)
        self.highlighted = 0 if hits else None

    def current(self) -> NoteHit | None:
        at = self.highlighted
        return self.hits[at] if at is not None and at < len(self.hits) else None

    def watch_highlighted(self, new: int | None) -> None:
        self.refresh()
        hit = self.current()
        if new is not None and hit is not None:
            self.scroll_to_region(
                Region(0, new * ROWS, 1, ROWS), animate=False, immediate=True, force=True
            )
            self.post_message(self.Highlighted(hit))

    def on_focus(self) -> None:
        """In both scopes the preview follows the list the reader is in."""
        hit = self.current()
        if hit is not None:
            self.post_message(self.Highlighted(hit))

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._drawn.clear()

    def _rows(self, index: int, width: int) -> list[Text]:
        key = (index, width)
        if key not in self._drawn:
            h = self.hits[index]
            head = Text()
            head.append(f"{h.note.layer:<7}", style="bold")
            head.append(f"{when(h.note.updated)}  ", style="dim")
            head.append(h.note.title, style="italic")
            head.append(f"  {h.note.folder}", style="dim")
            head.truncate(width, overflow="ellipsis")
            mark = self.get_component_rich_style("note-hits--mark")
            body = clip_lines(marked(" ".join(h.snippet.split()), mark), width, ROWS - 1)
            self._drawn[key] = [head, *body]
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
            base = base + self.get_component_rich_style("note-hits--cursor")
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
        if self.hits:
            now = self.highlighted or 0
            self.highlighted = max(0, min(len(self.hits) - 1, now + step))

    def action_open(self) -> None:
        hit = self.current()
        if hit is not None:
            self.post_message(self.Selected(hit))
