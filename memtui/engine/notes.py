"""Notes: the `memory.notes` service. The guards are here, not in the front ends.

Every write names its caller (`by="person"` from the TUI and CLI, `by="agent"` over MCP),
validates every argument before touching the store (one InvalidArgument naming the field,
nothing partly written), commits, and only then brings the notes' own indexes up to the
store (full text and vectors, apart from the messages').
"""

from __future__ import annotations

from collections.abc import Sequence

from memtui.engine.notes_types import (
    Author,
    FolderCount,
    Flashbacks,
    HouseRules,
    ImportReport,
    Layer,
    Note,
    NoteDetail,
    NoteSearchResponse,
    OnConflict,
    SaveResult,
    SimilarNote,
    TagCount,
)


class Notes:
    def save(
        self,
        title: str,
        body: str,
        layer: Layer,
        *,
        by: Author,
        folder: str = "",
        tags: Sequence[str] = (),
        source_session_id: str | None = None,
        source_message_uuid: str | None = None,
        project: str | None = None,
    ) -> SaveResult:
        """Save a new note. Raises INVALID_ARGUMENT (bad field, a title another note has),
        NOT_FOUND (an unknown source session)."""
        raise NotImplementedError

    def get(self, note_id: int) -> NoteDetail:
        raise NotImplementedError

    def update(
        self,
        note_id: int,
        *,
        by: Author,
        title: str | None = None,
        body: str | None = None,
        tags: Sequence[str] | None = None,
        folder: str | None = None,
        layer: Layer | None = None,
    ) -> Note:
        raise NotImplementedError

    def delete(self, note_id: int, *, by: Author) -> Note:
        raise NotImplementedError

    def list(
        self,
        folder: str | None = None,
        tag: str | None = None,
        layer: Layer | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[Note]:
        raise NotImplementedError

    def count(
        self, folder: str | None = None, tag: str | None = None, layer: Layer | None = None
    ) -> int:
        raise NotImplementedError

    def folders(self) -> list[FolderCount]:
        raise NotImplementedError

    def tags(self) -> list[TagCount]:
        raise NotImplementedError

    def titles(self, prefix: str = "", limit: int = 20) -> list[str]:
        raise NotImplementedError

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        offset: int = 0,
        mode: str = "hybrid",
        layer: Layer | None = None,
        folder: str | None = None,
        tag: str | None = None,
        date_from: str | None = None,
        date_to: str | None = None,
        flashbacks: bool = True,
        project: str | None = None,
    ) -> NoteSearchResponse:
        raise NotImplementedError

    def find_duplicates(
        self,
        note_id: int | None = None,
        text: str | None = None,
        threshold: float = 0.85,
        limit: int = 10,
    ) -> list[SimilarNote]:
        raise NotImplementedError

    def flashbacks(self, note_id: int, project: str | None = None) -> Flashbacks:
        raise NotImplementedError

    def rules(self) -> list[Note]:
        raise NotImplementedError

    def approve(self, note_id: int, *, by: Author = "person") -> Note:
        raise NotImplementedError

    def house_rules(self) -> HouseRules:
        raise NotImplementedError

    def export_all(self) -> list[Note]:
        raise NotImplementedError

    def import_notes(self, notes: Sequence[Note], on_conflict: OnConflict = "error") -> ImportReport:
        raise NotImplementedError
