"""Reads a transcript file from where the last run stopped, whole lines only.

A checkpoint is (device, inode, byte offset, the bytes just before the offset). The file is
read again from the start when it was replaced (another inode), truncated (shorter than the
offset) or rewritten in place (those bytes differ); the store's uuid memory keeps that re-read
from duplicating anything. A last line without its newline is left for the next run.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from memtui.store.archive import FileState

MAX_LINE = 16 * 1024 * 1024  # a longer line is skipped, never held in memory
TAIL = 64  # bytes kept before the offset to notice an in-place rewrite
_CHUNK = 1024 * 1024


@dataclass(slots=True)
class Line:
    number: int  # 1-based
    data: bytes | None  # None: the line was too long and was skipped
    end: int  # byte offset just past its newline


def start_state(f: BinaryIO, path: str, previous: FileState | None) -> tuple[FileState, bool]:
    """Where to resume reading the open file `f`, and whether that is a fresh start."""
    st = os.fstat(f.fileno())
    fresh = FileState(path=path, dev=st.st_dev, ino=st.st_ino)
    if previous is None or (previous.dev, previous.ino) != (st.st_dev, st.st_ino):
        return fresh, True
    if st.st_size < previous.offset or not _tail_matches(f, previous):
        return fresh, True
    return previous, False


def _tail_matches(f: BinaryIO, state: FileState) -> bool:
    if not state.tail:
        return True
    if state.tail.startswith(_DIGEST) and len(state.tail) == _DIGEST_LEN:
        length = int.from_bytes(state.tail[2:6], "little")
        if length > state.offset:
            return False
        f.seek(state.offset - length)
        return _digest(f.read(length)) == state.tail
    f.seek(state.offset - len(state.tail))  # a store from before tails were digests
    return f.read(len(state.tail)) == state.tail


# The tail is kept as its length and SHA-256, never the bytes: they are transcript text,
# secrets and forgotten sentences included.
_DIGEST = b"\x00h"
_DIGEST_LEN = 2 + 4 + 32


def _digest(data: bytes) -> bytes:
    return _DIGEST + len(data).to_bytes(4, "little") + hashlib.sha256(data).digest()


def read_lines(f: BinaryIO, state: FileState) -> Iterator[Line]:
    """Whole lines after `state.offset`; stops before a trailing line with no newline yet."""
    f.seek(state.offset)
    number = state.line
    pos = state.offset
    while True:
        data = f.readline(MAX_LINE + 1)
        if not data:
            return
        if not data.endswith(b"\n"):
            if len(data) <= MAX_LINE:
                return  # half-written: wait for the rest
            skipped = _skip_rest(f)
            if skipped is None:
                return
            number += 1
            pos += len(data) + skipped
            yield Line(number, None, pos)
            continue
        number += 1
        pos += len(data)
        yield Line(number, data, pos)


def _skip_rest(f: BinaryIO) -> int | None:
    """Skip to just past the next newline; None if the file ends first (line unfinished)."""
    skipped = 0
    while chunk := f.read(_CHUNK):
        cut = chunk.find(b"\n")
        if cut >= 0:
            skipped += cut + 1
            f.seek(cut + 1 - len(chunk), os.SEEK_CUR)
            return skipped
        skipped += len(chunk)
    return None


def tail_before(f: BinaryIO, offset: int) -> bytes:
    """Read through the handle already open: the file may be gone from its folder by now."""
    start = max(0, offset - TAIL)
    f.seek(start)
    return _digest(f.read(offset - start))
