"""Doctor on a store that cannot be opened: what SQLite's integrity check says, what a recovery
would lose, and the recovery itself (the damaged file moved aside, kept, and the store rebuilt
from the transcripts still on disk).

Runs without a Memory: a damaged or emptied `memtui.db` is exactly when the person needs it.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from memtui.config import Config
from memtui.store.db import DAMAGED_MARK

_CHECK_LINES = 20


@dataclass(slots=True)
class StoreCheck:
    state: str  # "ok" | "new" (no store yet) | "empty" (a zero-byte file) | "damaged"
    problems: list[str] = field(default_factory=list)  # SQLite's integrity check, or why
    sessions: int | None = None  # sessions the damaged file still lists (None: unreadable)
    lost: int | None = None  # of them, those whose transcripts are gone (a rebuild loses them)
    transcripts: int = 0  # transcript files on disk a rebuild reads


def check_store(config: Config) -> StoreCheck:
    """The store file as SQLite sees it, read-only, whatever state it is in."""
    path = config.db_path
    transcripts = _transcripts(config.claude_dir)
    if not path.exists():
        return StoreCheck("new", transcripts=transcripts)
    if path.stat().st_size == 0:
        return StoreCheck(
            "empty",
            [f"{path} is 0 bytes: the archive it held is gone (a truncated or replaced file)"],
            transcripts=transcripts,
        )
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error as exc:
        return StoreCheck("damaged", [str(exc)], transcripts=transcripts)
    try:
        try:
            rows = [r[0] for r in conn.execute(f"PRAGMA integrity_check({_CHECK_LINES})")]
        except sqlite3.DatabaseError as exc:
            rows = [str(exc)]
        sessions = lost = None
        try:
            paths: dict[str, list[str]] = {}
            for sid, fpath in conn.execute(
                "SELECT s.id, f.path FROM sessions s LEFT JOIN files f ON f.session_id = s.id"
            ):
                paths.setdefault(sid, []).append(fpath or "")
            sessions = len(paths)
            lost = sum(not any(p and os.path.exists(p) for p in ps) for ps in paths.values())
        except sqlite3.DatabaseError:
            pass
    finally:
        conn.close()
    if rows == ["ok"]:
        return StoreCheck("ok", sessions=sessions, lost=lost, transcripts=transcripts)
    return StoreCheck("damaged", rows, sessions, lost, transcripts)


def recover_store(config: Config) -> Path:
    """Move the store (and its WAL) aside, keeping it, and drop the indexes built from it;
    the caller then ingests the transcripts into a new store. Returns where the old one went."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    aside = config.db_path.with_name(f"{config.db_path.name}.damaged-{stamp}")
    for suffix in ("", "-wal", "-shm"):
        source = Path(str(config.db_path) + suffix)
        if source.exists():
            os.replace(source, Path(str(aside) + suffix))
    shutil.rmtree(config.index_dir, ignore_errors=True)
    (config.data_dir / DAMAGED_MARK).unlink(missing_ok=True)
    return aside


def clear_damage_mark(config: Config) -> None:
    """The store checked whole again: commands may open it."""
    (config.data_dir / DAMAGED_MARK).unlink(missing_ok=True)


def _transcripts(root: Path) -> int:
    if not root.is_dir():
        return 0
    return sum(1 for _ in root.glob("*/*.jsonl")) + sum(
        1 for _ in root.glob("*/*/subagents/*.jsonl")
    )
