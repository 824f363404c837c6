"""What the readers' tests share: one file read as the pipeline reads it, from the archive's
checkpoint, the messages of the batches read, and secrets where a reader cuts a text."""

from __future__ import annotations

from pathlib import Path

from memtui.ingest.reader import Unreadable
from memtui.ingest.sources import ReadFile
from memtui.store.archive import Archive, FileBatch
from memtui.store.markers import MARKER, OPEN
from memtui.store.records import Message

# Built from parts: no secret scanner flags the repository.
TOKEN = "ghp_" + "Q1w2E3r4T5" * 3 + "y6U7i8"
PASSWORD = "Hunter2" + "Secret99"
# Commands whose secret crosses where a tool call's key argument is cut (200 characters): the
# token from 166, the password of the connection string from 191.
CUT_COMMANDS = (
    "echo " + "y" * 160 + " " + TOKEN,
    "echo " + "x" * 160 + " && psql postgres://admin:" + PASSWORD + "@db.example.com/prod",
)
# A prompt whose token crosses where a title is cut (200 characters).
CUT_PROMPT = "w" * 180 + " " + TOKEN + " please"


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


def kept_whole(text: str) -> bool:
    """Whether a text cut from CUT_COMMANDS or CUT_PROMPT holds no part of their secrets and
    no part of a marker."""
    head = TOKEN[:8]
    return (
        len(text) <= 200
        and head not in text
        and PASSWORD[:5] not in text
        and text.count(OPEN) == len(MARKER.findall(text))
    )


def assert_cut_after_masking(found: list[Message]) -> None:
    """The two tool arguments and the title of CUT_COMMANDS and CUT_PROMPT, each cut after it
    was masked: no part of a secret, no part of a marker."""
    args = [c.arg for m in found for c in m.tool_calls]
    titles = [m.title for m in found if m.title]
    assert len(args) == 2 and len(titles) == 1  # the tests failed before the fix
    assert all(kept_whole(t) for t in [*args, *titles]), [*args, *titles]
