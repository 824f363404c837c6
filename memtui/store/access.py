"""Why memtui cannot use its data dir, when the reason is the folder's and not the store's
bytes: another user owns it (one `sudo memtui …` makes root its owner), it is on a read-only
file system, a mode leaves no write, or its disk is full. None of these is damage: each is
said with what to do, and nothing is repaired or moved for it.

POSIX calls only (os.access, os.statvfs, pwd): Linux and macOS alike.
"""

from __future__ import annotations

import errno
import os
import pwd
from collections.abc import Iterator
from pathlib import Path

from memtui.errors import StoreUnavailable

FULL_BYTES = 1024 * 1024  # less room than this left: a write of the store or an index fails
_WALK_LIMIT = 10_000  # entries looked at under the data dir: an index holds a few hundred
_FOLDER = os.R_OK | os.W_OK | os.X_OK


def unavailable(data_dir: Path) -> StoreUnavailable | None:
    """What keeps memtui from reading and writing `data_dir` and everything in it, or None."""
    if _read_only(data_dir):
        return StoreUnavailable(
            f"the data dir {data_dir} is on a read-only file system",
            "remount it read-write, or set MEMTUI_DATA_DIR to a folder you can write",
        )
    blocked = next(_blocked(data_dir), None)
    if blocked is None:
        return None
    try:
        owner = blocked.stat().st_uid
    except OSError:
        owner = os.geteuid()
    if not blocked.is_relative_to(data_dir):  # a folder on the way: not memtui's to change
        return StoreUnavailable(
            f"the data dir {data_dir} cannot be reached: {blocked} is {_user(owner)}'s"
            f" (mode {_mode(blocked)})",
            "set MEMTUI_DATA_DIR to a folder of yours",
        )
    if owner != os.geteuid():
        return StoreUnavailable(
            f"{blocked} is owned by {_user(owner)}",
            f"run `sudo chown -R {_user(os.geteuid())} {data_dir}`, or set MEMTUI_DATA_DIR"
            " to a folder of yours",
        )
    change = "u+rwx" if blocked.is_dir() else "u+rw"
    return StoreUnavailable(
        f"{blocked} is not writable (mode {_mode(blocked)})", f"run `chmod {change} {blocked}`"
    )


def full(data_dir: Path, exc: BaseException) -> StoreUnavailable | None:
    """The disk is full, if `exc` (an OSError, SQLite's SQLITE_FULL) or the disk says so."""
    said = (isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)) or (
        "disk is full" in str(exc) or "No space left" in str(exc)
    )
    if not said:
        try:
            room = os.statvfs(_nearest_existing(data_dir))
            free = room.f_bfree if os.geteuid() == 0 else room.f_bavail  # root has reserve
            said = free * room.f_frsize < FULL_BYTES
        except OSError:
            said = False
    if not said:
        return None
    return StoreUnavailable(
        f"disk is full: no room left for the data dir {data_dir}",
        "free some space on that disk, then run it again",
    )


def _nearest_existing(path: Path) -> Path:
    while not os.path.exists(path) and path.parent != path:
        path = path.parent
    return path


def _read_only(data_dir: Path) -> bool:
    try:
        return bool(os.statvfs(_nearest_existing(data_dir)).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _blocked(data_dir: Path) -> Iterator[Path]:
    """The first path memtui needs and cannot use: a folder on the way it cannot pass (or,
    where the data dir is not made yet, cannot make it in), the data dir or a folder in it
    it cannot read and write, a file in it it cannot read and write."""
    last = Path(data_dir.anchor)
    for folder in (*reversed(data_dir.parents), data_dir):
        if not os.path.lexists(folder):
            if not os.access(last, os.W_OK | os.X_OK):
                yield last
            return
        if folder != data_dir and not os.access(folder, os.X_OK):
            yield folder
            return
        last = folder
    if not os.access(data_dir, _FOLDER):
        yield data_dir
        return
    seen = 0
    for walked, dirs, files in os.walk(data_dir):
        here = Path(walked)
        dirs[:] = [d for d in dirs if not (here / d).is_symlink()]
        files = [f for f in files if not (here / f).is_symlink()]
        needed = [(d, _FOLDER) for d in dirs] + [(f, os.R_OK | os.W_OK) for f in files]
        for name, mode in needed:
            if not os.access(here / name, mode):
                yield here / name
                return
        seen += len(needed)
        if seen > _WALK_LIMIT:
            return


def _user(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"user {uid}"


def _mode(path: Path) -> str:
    try:
        return f"{path.stat().st_mode & 0o777:04o}"
    except OSError:
        return "unknown"
