"""Reads transcript files into batches of parsed records, each with the checkpoint after it.

A file that cannot be read (no permission, a folder named like a transcript, gone before it
was opened) becomes one Unreadable entry with the reason: it is logged and counted, and the
other files are read as usual.
"""

from __future__ import annotations

import errno
import logging
import os
import stat
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import BinaryIO

from memtui.ingest.follower import read_lines, start_state, tail_before
from memtui.ingest.parser import ARG_LIMIT, parse_line
from memtui.ingest.titles import prompt_title
from memtui.store.archive import FileBatch, FileState
from memtui.store.markers import cut
from memtui.store.mask import Masker
from memtui.store.records import Bad, Message, Title, ToolCall

log = logging.getLogger(__name__)

# Records per transaction. Each commit rewrites the pages it dirtied, and uuids land all over
# their index, so bigger batches are cheaper per record; 20,000 holds ~100 MB at most.
BATCH = 20_000

Work = list[tuple[Path, FileState | None]]
AGENT = "claude-code"  # what writes the transcripts this module reads


@dataclass(slots=True)
class Unreadable:
    path: str
    reason: str


def nameable(path: Path) -> bool:
    """A path SQLite can store: a name that is not valid UTF-8 decodes to lone surrogates."""
    try:
        str(path).encode()
    except UnicodeEncodeError:
        return False
    return True


def shown(path: Path) -> str:
    """A path as a log line or a message can hold it, whatever its bytes."""
    return str(path).encode(errors="backslashreplace").decode()


def unstorable(path: Path) -> str | None:
    """Why a file a reader found cannot be stored (logged), or None: its name is not UTF-8."""
    if nameable(path):
        return None
    log.warning("skipped %s: the name is not valid UTF-8", shown(path))
    return f"{shown(path)}: the name is not valid UTF-8"


def mtime(path: Path) -> float:
    """When the file last changed; 0 for one gone: readers list files oldest first."""
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def fallbacks(root: Path, path: Path) -> tuple[str, str]:
    """Project and session for records that lack `cwd` or `sessionId`."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        parts = path.parts[-2:]
    # The folder name is a lossy encoding of the cwd (every non-alphanumeric became "-").
    project = parts[0].replace("-", "/") if len(parts) > 1 else str(path.parent)
    session = parts[-3] if len(parts) >= 3 and parts[-2] == "subagents" else path.stem
    return project, session


def read_file(
    root: Path, path: Path, previous: FileState | None, masker: Masker | None = None
) -> Iterator[FileBatch | Unreadable]:
    """The new records of one file, in batches, each with the checkpoint that follows it;
    with `masker`, every text in them has its secrets masked."""
    return guarded(path, lambda f: _read_open(f, root, path, previous, masker))


def guarded(
    path: Path, read: Callable[[BinaryIO], Iterator[FileBatch | Unreadable]]
) -> Iterator[FileBatch | Unreadable]:
    """What `read` yields from the file opened; a file that cannot be opened or read to its
    end is one Unreadable (after the batches read before), never an exception. Every
    agent's reader opens its files through this."""
    name = str(path)
    try:
        f = open_regular(name)
    except OSError as exc:
        log.warning("skipped %s: %s", name, exc.strerror or exc)
        yield Unreadable(name, exc.strerror or str(exc))
        return
    with f:
        try:
            yield from read(f)
        except OSError as exc:
            log.warning("stopped reading %s: %s", name, exc.strerror or exc)
            yield Unreadable(name, exc.strerror or str(exc))


def open_regular(name: str) -> BinaryIO:
    """Open a transcript for reading; a folder, pipe or socket by that name is refused
    (O_NONBLOCK: opening a pipe with no writer would wait forever)."""
    fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _read_open(
    f: BinaryIO, root: Path, path: Path, previous: FileState | None, masker: Masker | None
) -> Iterator[FileBatch]:
    name = str(path)
    state, fresh = start_state(f, name, previous)
    if fresh:
        log.info("reading %s from the start", name)
    project, session = fallbacks(root, path)
    batch: list[tuple[int, Message | Title]] = []
    end, skipped_before = state.offset, state.skipped
    for line in read_lines(f, state):
        state.line = line.number
        end = line.end
        record = parse_line(line.data, session) if line.data is not None else Bad("too long")
        if isinstance(record, Bad):
            state.skipped += 1
            log.warning("%s:%d skipped: %s", name, line.number, record.reason)
        elif isinstance(record, Message | Title):
            batch.append((line.number, masked(masker, record)))
        if len(batch) >= BATCH:
            yield _checkpoint(f, state, end, batch, project, state.skipped - skipped_before)
            batch, skipped_before = [], state.skipped
    if batch or end != state.offset or fresh:
        yield _checkpoint(f, state, end, batch, project, state.skipped - skipped_before)


def _checkpoint(
    f: BinaryIO,
    state: FileState,
    end: int,
    batch: list[tuple[int, Message | Title]],
    project: str,
    skipped: int,
) -> FileBatch:
    state.offset = end
    state.tail = tail_before(f, end)
    return FileBatch(replace(state), batch, project, skipped, AGENT)


def read_all(
    root: Path,
    work: Work,
    masker: Masker | None = None,
    read: Callable[..., Iterator[FileBatch | Unreadable]] = read_file,
) -> Generator[tuple[int, FileBatch | Unreadable], None, None]:
    """The new records of every file in `work`, each batch with its file's index, read by
    `read` (an agent's `Source.read_file`: Claude Code's by default). A reader that fails on
    a file (a field of a shape it never met) makes that file one Unreadable, after the
    batches read before: the other files and agents are read as usual."""
    for number, (path, previous) in enumerate(work):
        try:
            for batch in read(root, path, previous, masker):
                yield number, batch
        except Exception as exc:
            log.exception("stopped reading %s", shown(path))
            yield number, Unreadable(shown(path), f"the reader failed ({type(exc).__name__})")


def masked(masker: Masker | None, record: Message | Title) -> Message | Title:
    """The record as it is stored (changed in place): with `masker`, the secrets of every
    text it carries masked; then the texts kept short are cut (a tool call's key argument,
    a prompt as a title). Masked first: a secret a cut splits is no longer recognised, and
    its first part would be kept in clear."""
    if isinstance(record, Title):
        if masker is not None:
            record.title = masker.mask(record.title)
        return record
    if masker is not None and masker.enabled:
        mask = masker.mask
        record.text = mask(record.text)
        record.thinking = mask(record.thinking)
        record.tool_output = mask(record.tool_output)
        if record.title is not None:
            record.title = prompt_title(record.text)  # the reader's was cut before masking
        if record.git_branch is not None:
            record.git_branch = mask(record.git_branch)
        if record.tool_calls:
            name = masker.mask_tool_name
            record.tool_calls = [
                ToolCall(name(c.name), mask(c.arg), c.id) for c in record.tool_calls
            ]
    for call in record.tool_calls:
        call.arg = cut(call.arg, ARG_LIMIT)
    return record
