"""The recall log: what the hooks told Claude unasked, in a SQLite file of its own.

`recalls.db` beside the store, not a table in it: a hook writes here before every prompt,
and must never wait behind an ingest's write transaction on the store (a hook waits at most
BUSY_MS, then says nothing). Only hooks write it; forget purges it with the store.

- `recalls`: one row an injection (time, hook, session, what was said, its size);
- `recall_sources`: the conversations each one quoted (a forget of one removes the recall:
  its text holds that conversation's lines);
- `recall_keys`: what a session has been told (a past message, a file, a command), so a hook
  never says the same thing twice in one session.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

from memtui.store import db

FILE = "recalls.db"
BUSY_MS = 50  # a hook's wait for another hook's write, at most
HOOKS = ("session", "prompt", "tool")
VERSION = 1  # the schema's, in user_version: a log that has it is not set up again

_SCHEMA = """
CREATE TABLE IF NOT EXISTS recalls (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,                  -- ISO 8601 UTC
    epoch INTEGER NOT NULL,
    hook TEXT NOT NULL,                -- session, prompt, tool
    session_id TEXT NOT NULL,          -- the session it was said in
    cwd TEXT NOT NULL,
    text TEXT NOT NULL,
    chars INTEGER NOT NULL,
    tokens INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS recalls_epoch ON recalls(epoch);
CREATE INDEX IF NOT EXISTS recalls_session ON recalls(session_id);
CREATE TABLE IF NOT EXISTS recall_sources (
    recall_id INTEGER NOT NULL REFERENCES recalls(id) ON DELETE CASCADE,
    session_id TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS recall_sources_session ON recall_sources(session_id);
CREATE TABLE IF NOT EXISTS recall_keys (
    session_id TEXT NOT NULL,
    hook TEXT NOT NULL,
    key TEXT NOT NULL,
    PRIMARY KEY (session_id, hook, key)
) WITHOUT ROWID;
"""


# A recall as `latest` gives it: id, at, hook, session_id, cwd, text, chars, tokens.
RecallRow = tuple[int, str, str, str, str, str, int, int]


def path_of(data_dir: Path) -> Path:
    return data_dir / FILE


def open_log(data_dir: Path, busy_ms: int = BUSY_MS) -> sqlite3.Connection:
    """The log for writing (made owner-only on first use), waiting at most `busy_ms`."""
    path = path_of(data_dir)
    if not path.exists():
        db.create_private(path)
    conn = sqlite3.connect(path, timeout=busy_ms / 1000, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout = {busy_ms}")
    conn.execute("PRAGMA foreign_keys = ON")
    # A hook writes here before every prompt: no fsync at each commit (WAL keeps the log
    # whole; a power cut may lose its last lines, never the store's).
    conn.execute("PRAGMA synchronous = NORMAL")
    if conn.execute("PRAGMA user_version").fetchone()[0] != VERSION:
        if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.executescript(_SCHEMA)
        conn.execute(f"PRAGMA user_version = {VERSION}")
    return conn


def read_log(data_dir: Path, busy_ms: int = BUSY_MS) -> sqlite3.Connection | None:
    """The log for reading, or None when no hook has written one yet."""
    path = path_of(data_dir)
    if not path.exists():
        return None
    return db.read_only(path, busy_ms)


def told(conn: sqlite3.Connection, session_id: str, hook: str) -> set[str]:
    """The keys `hook` has already said in `session_id`."""
    rows = conn.execute(
        "SELECT key FROM recall_keys WHERE session_id = ? AND hook = ?", (session_id, hook)
    )
    return {r[0] for r in rows}


def add(
    conn: sqlite3.Connection,
    at: tuple[str, int],
    hook: str,
    session_id: str,
    cwd: str,
    text: str,
    tokens: int,
    sources: Iterable[str] = (),
    keys: Iterable[str] = (),
) -> int:
    """Log one injection with the conversations it quoted and the keys it said, at once."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        cur = conn.execute(
            "INSERT INTO recalls (at, epoch, hook, session_id, cwd, text, chars, tokens) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (at[0], at[1], hook, session_id, cwd, text, len(text), tokens),
        )
        rid = int(cur.lastrowid or 0)
        conn.executemany(
            "INSERT INTO recall_sources VALUES (?, ?)", [(rid, s) for s in set(sources)]
        )
        conn.executemany(
            "INSERT OR IGNORE INTO recall_keys VALUES (?, ?, ?)",
            [(session_id, hook, k) for k in keys],
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return rid


def latest(conn: sqlite3.Connection, limit: int) -> list[RecallRow]:
    rows = conn.execute(
        "SELECT id, at, hook, session_id, cwd, text, chars, tokens FROM recalls "
        "ORDER BY epoch DESC, id DESC LIMIT ?",
        (limit,),
    )
    return list(rows)


def totals(conn: sqlite3.Connection, since_epoch: int) -> dict[str, tuple[int, int]]:
    """Per hook since `since_epoch`: (injections, characters)."""
    rows = conn.execute(
        "SELECT hook, count(*), coalesce(sum(chars), 0) FROM recalls WHERE epoch >= ? "
        "GROUP BY hook",
        (since_epoch,),
    )
    return {hook: (n, chars) for hook, n, chars in rows}


def forget_sessions(conn: sqlite3.Connection, session_ids: Sequence[str]) -> int:
    """Remove every recall said in, or quoting, one of `session_ids`, and what they were
    told; the freed pages are overwritten (secure_delete). Returns the recalls removed."""
    conn.execute("PRAGMA secure_delete = ON")
    conn.execute("BEGIN IMMEDIATE")
    try:
        removed = 0
        for chunk in db.chunks(list(session_ids)):
            marks = db.marks(chunk)
            removed += conn.execute(
                f"""DELETE FROM recalls WHERE session_id IN ({marks}) OR id IN
                    (SELECT recall_id FROM recall_sources WHERE session_id IN ({marks}))""",
                [*chunk, *chunk],
            ).rowcount
            conn.execute(f"DELETE FROM recall_keys WHERE session_id IN ({marks})", chunk)
        # A recall naming one without a source row (SessionStart's): one pass over the log.
        removed += conn.execute(
            """DELETE FROM recalls WHERE EXISTS
               (SELECT 1 FROM json_each(?) WHERE instr(recalls.text, json_each.value) > 0)""",
            (json.dumps(list(session_ids)),),
        ).rowcount
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return removed
