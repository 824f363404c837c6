"""What the readers' tests share: one file read as the pipeline reads it, from the archive's
checkpoint, and the messages of the batches read."""

from __future__ import annotations

from pathlib import Path

from memtui.ingest.reader import Unreadable
from memtui.ingest.sources import ReadFile
from memtui.store.archive import Archive, FileBatch
from memtui.store.records import Message


def read(
    read_file: ReadFile, root: Path, path: Path, archive: Archive | None = None
) -> list[FileBatch]:
    """The batches of `path` after the checkpoint `archive` holds (none: from the start); an
    Unreadable fails the test."""
    previous = archive.file_states([str(path)]).get(str(path)) if archive else None
    batches = list(read_file(root, path, previous, None))
    assert not [b for b in batches if isinstance(b, Unreadable)]
    return [b for b in batches if isinstance(b, FileBatch)]


def messages(batches: list[FileBatch] | list[FileBatch | Unreadable]) -> list[Message]:
    return [
        r
        for b in batches
        if isinstance(b, FileBatch)
        for _, r in b.records
        if isinstance(r, Message)
    ]
