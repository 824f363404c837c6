"""Cross-process write locks: one writer per derived index, whichever process it lives in.

A long writer (an ingest catching up a large archive) holds its lock for minutes; a request
the person is waiting for (a forget) must not wait that long. It takes the lock `first`: it
holds the lock's wait file while it waits for the lock itself, and the long writer, between
two of its batches, sees the wait file held, lets go, waits for the request to be done and
takes the lock again (`FileLock.give_way`).
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOOK_EVERY = 0.05  # seconds between looks for a request waiting, while the holder waits


class FileLock:
    """An exclusive flock on `path` (created 0600), held across calls. flock is released by
    the kernel when the process dies, so a crash never leaves a stale lock; each FileLock has
    a descriptor of its own, so two in one process exclude each other too."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._wait_fd: int | None = None  # the wait file, opened once a holder looks at it

    def acquire(self, blocking: bool = True) -> bool:
        fd = _open(self.path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if blocking else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return True

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the only descriptor releases the flock
            self._fd = None
        if self._wait_fd is not None:
            os.close(self._wait_fd)
            self._wait_fd = None

    def waited_for(self) -> bool:
        """Whether a request taking this lock `first` waits for it (two syscalls)."""
        if self._wait_fd is None:
            self._wait_fd = _open(_wait_file(self.path))
        try:
            fcntl.flock(self._wait_fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(self._wait_fd, fcntl.LOCK_UN)
        return False

    def give_way(self) -> bool:
        """Between two batches of the holder's work: when a request waits for this lock, let
        it go, wait until that request is done with it and take it again. Whether it did."""
        if self._fd is None or not self.waited_for():
            return False
        assert self._wait_fd is not None
        os.close(self._fd)
        self._fd = None
        # The request holds the wait file until it has the lock: wait for that, then queue
        # for the lock behind it (taking it straight back could win the race every time).
        fcntl.flock(self._wait_fd, fcntl.LOCK_SH)
        fcntl.flock(self._wait_fd, fcntl.LOCK_UN)
        self.acquire()
        return True

    def join(self, thread: threading.Thread) -> None:
        """Wait for `thread` to end, giving way meanwhile (it may work for a while yet)."""
        while thread.is_alive():
            thread.join(LOOK_EVERY)
            self.give_way()

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(self, *_: object) -> None:
        self.release()


@contextmanager
def file_lock(path: Path, *, blocking: bool = True) -> Iterator[bool]:
    """Hold an exclusive flock on `path` for the block; yield whether it was taken."""
    lock = FileLock(path)
    taken = lock.acquire(blocking)
    try:
        yield taken
    finally:
        lock.release()


@contextmanager
def first(path: Path) -> Iterator[None]:
    """Hold the lock at `path` for the block, taken before a long holder's next batch rather
    than after its last: for what the person is waiting for. Such requests queue on the
    wait file, one at a time."""
    wait = FileLock(_wait_file(path))
    lock = FileLock(path)
    with wait:
        lock.acquire()
    try:
        yield
    finally:
        lock.release()


def _wait_file(path: Path) -> Path:
    return path.with_suffix(".wait")


def _open(path: Path) -> int:
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
