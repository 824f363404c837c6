"""What `memory.notes` takes and answers with: plain dataclasses, and its two refusals.

Times are ISO 8601 strings in UTC (`2026-11-24T21:10:42.123456+00:00`); they sort as text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

from memtui.engine.types import NoteRef
from memtui.errors import MemtuiError

Layer = Literal["past", "state", "rule"]
Author = Literal["person", "agent"]  # who writes: the person (TUI, CLI) or an agent (MCP)
RuleStatus = Literal["provisional", "approved"]
OnConflict = Literal["skip", "overwrite", "error"]
Format = Literal["jsonl", "markdown"]  # of an export
LAYERS: tuple[Layer, ...] = get_args(Layer)
AUTHORS: tuple[Author, ...] = get_args(Author)
RULE_STATUSES: tuple[RuleStatus, ...] = get_args(RuleStatus)
ON_CONFLICT: tuple[OnConflict, ...] = get_args(OnConflict)
FORMATS: tuple[Format, ...] = get_args(Format)

MAX_BODY_BYTES = 100 * 1024  # SPEC: note content at most 100 KB (UTF-8)
MAX_TITLE_CHARS = 300
MIN_DUPLICATE = 0.70  # find_duplicates' threshold range (cosine similarity)
MAX_DUPLICATE = 0.95


@dataclass(slots=True)
class Note:
    id: int
    title: str
    body: str  # Markdown
    layer: str  # Layer
    folder: str  # "a/b", "" at the top
    tags: list[str]
    created: str
    updated: str
    author: str  # Author: who created it
    status: str | None = None  # RuleStatus for a rule, None for past and state
    source_session_id: str | None = None
    source_message_uuid: str | None = None
    # Another note whose title looks the same (confusable letters: lookalike.py), by id; set
    # by the listings (list, rules) and get, so a spoof is marked where the person reads.
    looks_like: int | None = None


@dataclass(slots=True)
class NoteLink:
    """A `[[target]]` or `[[target|shown]]` in a note's body, in order of appearance."""

    target: str  # the title as written in the link
    shown: str | None
    note_id: int | None  # None: dangling (no note has that title)


@dataclass(slots=True)
class NoteSource:
    """The conversation a note came from (the message, when it was given and is stored)."""

    session_id: str
    message_uuid: str | None
    message_index: int | None  # opens it: history.get_session(session_id, offset=...)
    project: str | None  # None when the session is not (or no longer) in the archive
    session_title: str


@dataclass(slots=True)
class NoteDetail:
    note: Note
    links: list[NoteLink]
    backlinks: list[NoteRef]  # "Referenced by": notes linking here, newest first
    source: NoteSource | None


@dataclass(slots=True)
class SimilarNote:
    note: NoteRef
    distance: float  # cosine distance; similarity = 1 - distance


@dataclass(slots=True)
class NoteFlashback:
    note: NoteRef
    age_days: int  # how much older than the anchor
    distance: float


@dataclass(slots=True)
class SessionFlashback:
    """A message from a past conversation in another project: opens at message_index."""

    session_id: str
    project: str
    session_title: str
    message_uuid: str
    message_index: int
    timestamp: str | None
    snippet: str
    age_days: int
    distance: float


@dataclass(slots=True)
class Flashbacks:
    notes: list[NoteFlashback] = field(default_factory=list)
    sessions: list[SessionFlashback] = field(default_factory=list)


@dataclass(slots=True)
class UpdatedNote(Note):
    """A note as an update left it, and how many other notes' `[[links]]` now name its
    new title (a rename rewrites them)."""

    relinked: int = 0


@dataclass(slots=True)
class SaveResult:
    note: Note
    similar: list[SimilarNote]  # nearer than MEMTUI_SIMILAR_DIST, nearest first
    flashbacks: Flashbacks


@dataclass(slots=True)
class NoteHit:
    note: NoteRef
    snippet: str  # matched words marked **like this**
    score: float
    found_by: list[str]  # "fts", "vector"


@dataclass(slots=True)
class NoteSearchResponse:
    results: list[NoteHit]  # the matches: notes with the query's words, or near in meaning
    total: int  # how many notes match
    mode: str  # the mode that answered ("hybrid" falls back to "fts" without vectors)
    flashbacks: Flashbacks  # anchored on the top result; empty without results
    offset: int = 0
    limit: int = 10
    # When no note matches: the nearest by meaning however far, with their similarity as
    # score, to be shown apart and said to be no match.
    nearest: list[NoteHit] = field(default_factory=list)


@dataclass(slots=True)
class FolderCount:
    folder: str
    count: int  # notes in this folder itself (not its subfolders)


@dataclass(slots=True)
class TagCount:
    tag: str
    count: int


@dataclass(slots=True)
class NoteDraft:
    """A note not saved yet: PastImmutable's ready amendment."""

    title: str
    body: str
    layer: str
    folder: str
    tags: list[str]


@dataclass(slots=True)
class ImportReport:
    added: int
    overwritten: int
    skipped: int


class PastImmutable(MemtuiError):
    """An agent tried to change or delete a `past` note; `suggestion` is the amendment to
    save instead (its body links back with [[title]])."""

    code = "PAST_IMMUTABLE"

    def __init__(self, message: str, suggestion: NoteDraft) -> None:
        super().__init__(
            message, f"save the suggested note {suggestion.title!r} instead: it links back"
        )
        self.suggestion = suggestion


class RuleUserOnly(MemtuiError):
    """An agent tried to change, delete or approve a rule: only the person may."""

    code = "RULE_USER_ONLY"
    hint = "ask the person to change it in memtui (TUI or `memtui note edit`)"
