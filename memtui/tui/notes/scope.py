"""Notes in the search screen: the scope switch (messages, notes or both) and the list of
note hits, drawn as the message hits are (three fixed rows a hit, only those on screen)."""

from __future__ import annotations

from typing import Literal, get_args

from rich.markdown import Markdown
from rich.text import Text

from memtui.engine import NoteHit, NoteSearchResponse, SearchResponse
from memtui.tui.format import when
from memtui.tui.results import HitList

Scope = Literal["messages", "notes", "both"]
SCOPES: tuple[Scope, ...] = get_args(Scope)


def summary(
    scope: str,
    messages: SearchResponse | None,
    notes: NoteSearchResponse | None,
    mode_label: dict[str, str],
    ended: bool = False,
) -> Text:
    """What the search found, in the scope asked for: the messages by which way they were
    found (`12 full-text matches · 40 near in meaning · hybrid`), the notes by their number;
    `no matches` first when nothing matched."""
    parts = []
    if scope != "notes" and messages is not None:
        parts.append(counted(messages, ended))
    if scope != "messages" and notes is not None:
        parts.append(_notes_found(notes.total, alone=scope == "notes"))
    if (
        scope == "both"
        and messages is not None
        and not (messages.by == "session" and messages.total)
    ):
        parts[0] = f"messages: {parts[0]}"  # (`7 conversations` says it itself)
    mode = (messages if scope != "notes" else notes) or notes or messages
    text = Text(" · ".join(parts) if parts else "searching…")
    if mode is not None:
        text.append(f" · {mode_label.get(mode.mode, mode.mode)}")
    if scope != "notes" and messages is not None and messages.note:
        text.append(f" · {messages.note}", style="italic")
    return text


def _notes_found(total: int, alone: bool) -> str:
    if not total:
        return "no matches" if alone else "no notes match"
    return f"{total:,} note{'s' * (total != 1)}" + (" found" if alone else "")


def counted(response: SearchResponse, ended: bool = False) -> str:
    """What the messages' total counts, each way apart: words that match, and neighbours
    near enough in meaning to mean something; by conversation, the conversations first;
    how many of them the list holds when it holds fewer, or, paged to its end (`ended`),
    that it ends there. When nothing matched, `no matches` leads: the nearest listed are
    not matches."""
    parts = []
    listed = len(response.results)
    if ended and response.more:
        parts.append(f"the list ends at {listed:,}")
    elif ended and response.by != "session":
        parts.append(f"{listed:,} listed")
    shown = f"{listed:,} of " if 0 < listed < response.total and not ended else ""
    total = f"{shown}{response.total:,}{'+' if response.more else ''}"
    if not response.total:
        parts.append("no matches")
    elif response.by == "session":
        parts.append(f"{total} conversation{'s' * (response.total != 1)}")
    elif shown:
        parts.append(total)
    return " · ".join(parts + response.counts())


def preview(hit: NoteHit, body: str, code_theme: str) -> Markdown:
    ref = hit.note
    head = f"# {ref.title}\n\n*{ref.layer} · {ref.folder or '(no folder)'} · {when(ref.updated)}*"
    return Markdown(f"{head}\n\n{body}", code_theme=code_theme)


class NoteHitList(HitList[NoteHit]):
    """Note hits: the layer, when, the title and folder, then the snippet."""

    class Highlighted(HitList.Highlighted):
        """The cursor is on a note."""

        hit: NoteHit

    class Selected(HitList.Selected):
        """A note was chosen."""

        hit: NoteHit

    def show_response(self, response: NoteSearchResponse) -> None:
        """The notes that match; when none does, the nearest by meaning, which the screen
        labels as no match."""
        self.show(response.results or response.nearest)

    def key(self, hit: NoteHit) -> object:
        return hit.note.id

    def heading(self, hit: NoteHit) -> Text:
        head = Text()
        head.append(f"{hit.note.layer:<7}", style="bold")
        head.append(f"{when(hit.note.updated)}  ", style="dim")
        head.append(hit.note.title, style="italic")
        head.append(f"  {hit.note.folder}", style="dim")
        return head

    def snippet(self, hit: NoteHit) -> str:
        return hit.snippet

    def on_focus(self) -> None:
        """In both scopes the preview follows the list the reader is in."""
        hit = self.current()
        if hit is not None:
            self.post_message(self.Highlighted(hit))
