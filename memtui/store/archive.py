"""Writes into the store of record: parsed records in, rows out, one transaction per batch.

A batch carries its file's new checkpoint, so the rows and "how far the file was read" commit
together: a crash loses the whole batch or nothing, and the next run starts where the last
commit left off. Every line uuid is remembered, so a re-read or a `--resume` copy of the same
lines never stores a message twice, whichever process reads it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from memtui.ingest.records import Kind, Message, Title
from memtui.store import db


@dataclass(slots=True)
class FileState:
    """How far one transcript file has been read."""

    path: str
    dev: int = 0
    ino: int = 0
    offset: int = 0
    line: int = 0
    tail: bytes = b""
    skipped: int = 0


@dataclass(slots=True)
class BatchResult:
    messages: int = 0  # new messages stored
    merged: int = 0  # lines folded into an existing message
    duplicates: int = 0  # lines already stored (re-read or copied by --resume)


def epoch_of(ts: str | None) -> int:
    if not ts:
        return 0
    try:
        return int(datetime.fromisoformat(ts).timestamp())
    except ValueError:
        return 0


def _chunks(items: Sequence[str], size: int = 500) -> Iterable[Sequence[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


class Archive:
    """The store of record, opened on one SQLite file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.conn = db.connect(path)

    def close(self) -> None:
        self.conn.close()

    # -- ingestion checkpoints -------------------------------------------------------------

    def file_state(self, path: str) -> FileState | None:
        row = self.conn.execute(
            "SELECT path, dev, ino, offset, line, tail, skipped FROM files WHERE path = ?", (path,)
        ).fetchone()
        if row is None:
            return None
        return FileState(row[0], row[1], row[2], row[3], row[4], row[5] or b"", row[6])

    def known_files(self, under: str) -> list[str]:
        prefix = under.rstrip("/") + "/"
        rows = self.conn.execute(
            "SELECT path FROM files WHERE missing = 0 AND substr(path, 1, ?) = ?",
            (len(prefix), prefix),
        )
        return [row[0] for row in rows]

    def mark_missing(self, paths: Iterable[str]) -> int:
        """Files Claude Code deleted: their sessions stay, marked archived once all are gone."""
        paths = list(paths)
        if not paths:
            return 0
        with self._transaction():
            self.conn.executemany("UPDATE files SET missing = 1 WHERE path = ?", ((p,) for p in paths))
            self.conn.execute(
                """UPDATE sessions SET archived = 1 WHERE archived = 0 AND id IN
                   (SELECT session_id FROM files WHERE missing = 1) AND id NOT IN
                   (SELECT session_id FROM files WHERE missing = 0 AND session_id IS NOT NULL)"""
            )
        return len(paths)

    # -- the batch write ---------------------------------------------------------------------

    def apply(
        self,
        state: FileState,
        records: Sequence[tuple[int, Message | Title]],
        *,
        fallback_project: str,
    ) -> BatchResult:
        """Store one batch of a file's records and its new checkpoint, atomically."""
        result = BatchResult()
        with self._transaction():
            file_id = self._save_state(state)
            seen = self._seen_uuids([r.uuid for _, r in records if isinstance(r, Message)])
            seq = int(self.conn.execute("SELECT value FROM meta WHERE key = 'seq'").fetchone()[0])
            sessions: dict[str, _SessionCursor] = {}
            for line_no, record in records:
                if isinstance(record, Title):
                    self._title(record)
                    continue
                if record.uuid in seen:
                    result.duplicates += 1
                    continue
                seen.add(record.uuid)
                cursor = sessions.get(record.session_id)
                if cursor is None:
                    cursor = self._session(record, fallback_project)
                    sessions[record.session_id] = cursor
                    self.conn.execute(
                        "UPDATE files SET session_id = ? WHERE id = ?", (record.session_id, file_id)
                    )
                seq += 1
                if record.api_id and self._merge(record, seq):
                    result.merged += 1
                    continue
                self._insert(record, cursor, file_id, line_no, seq)
                result.messages += 1
            for session_id, cursor in sessions.items():
                cursor.save(self.conn, session_id)
            self.conn.execute("UPDATE meta SET value = ? WHERE key = 'seq'", (str(seq),))
            if sessions:
                self._resolve_pending_titles()
        return result

    def _transaction(self) -> _Transaction:
        return _Transaction(self.conn)

    def _save_state(self, state: FileState) -> int:
        self.conn.execute(
            """INSERT INTO files (path, dev, ino, offset, line, tail, skipped, missing)
               VALUES (?, ?, ?, ?, ?, ?, ?, 0)
               ON CONFLICT(path) DO UPDATE SET dev = excluded.dev, ino = excluded.ino,
                 offset = excluded.offset, line = excluded.line, tail = excluded.tail,
                 skipped = excluded.skipped, missing = 0""",
            (state.path, state.dev, state.ino, state.offset, state.line, state.tail, state.skipped),
        )
        return self.conn.execute("SELECT id FROM files WHERE path = ?", (state.path,)).fetchone()[0]

    def _seen_uuids(self, uuids: list[str]) -> set[str]:
        seen: set[str] = set()
        for chunk in _chunks(uuids):
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(f"SELECT uuid FROM uuids WHERE uuid IN ({marks})", chunk)
            seen.update(row[0] for row in rows)
        return seen

    def _session(self, record: Message, fallback_project: str) -> _SessionCursor:
        row = self.conn.execute(
            "SELECT message_count, first_ts, last_ts, last_epoch, first_prompt, git_branch "
            "FROM sessions WHERE id = ?",
            (record.session_id,),
        ).fetchone()
        if row is not None:
            return _SessionCursor(*row)
        project = record.cwd or fallback_project
        self.conn.execute("INSERT OR IGNORE INTO projects (path) VALUES (?)", (project,))
        project_id = self.conn.execute(
            "SELECT id FROM projects WHERE path = ?", (project,)
        ).fetchone()[0]
        self.conn.execute(
            "INSERT INTO sessions (id, project_id) VALUES (?, ?)", (record.session_id, project_id)
        )
        return _SessionCursor(0, None, None, 0, None, None)

    def _merge(self, record: Message, seq: int) -> bool:
        """Fold a later line of one API message into the message its first line made."""
        row = self.conn.execute(
            "SELECT id, text, thinking, tool_calls, tool_output FROM messages "
            "WHERE session_id = ? AND api_id = ?",
            (record.session_id, record.api_id),
        ).fetchone()
        if row is None:
            return False
        calls = json.loads(row[3]) + [[c.name, c.arg] for c in record.tool_calls]
        self.conn.execute(
            "UPDATE messages SET text = ?, thinking = ?, tool_calls = ?, tool_output = ?, seq = ? "
            "WHERE id = ?",
            (
                _join(row[1], record.text),
                _join(row[2], record.thinking),
                json.dumps(calls, ensure_ascii=False),
                _join(row[4], record.tool_output),
                seq,
                row[0],
            ),
        )
        self.conn.execute("INSERT INTO uuids VALUES (?, ?)", (record.uuid, row[0]))
        return True

    def _insert(
        self, record: Message, cursor: _SessionCursor, file_id: int, line_no: int, seq: int
    ) -> None:
        epoch = epoch_of(record.timestamp)
        message_id = self.conn.execute(
            """INSERT INTO messages (session_id, idx, uuid, api_id, role, kind, ts, epoch,
                 is_sidechain, agent_id, text, thinking, tool_calls, tool_output, file_id, line, seq)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (
                record.session_id,
                cursor.count,
                record.uuid,
                record.api_id,
                record.role,
                str(record.kind),
                record.timestamp,
                epoch,
                int(record.is_sidechain),
                record.agent_id,
                record.text,
                record.thinking,
                json.dumps([[c.name, c.arg] for c in record.tool_calls], ensure_ascii=False),
                record.tool_output,
                file_id,
                line_no,
                seq,
            ),
        ).lastrowid
        self.conn.execute("INSERT INTO uuids VALUES (?, ?)", (record.uuid, message_id))
        cursor.add(record, epoch)

    def _title(self, title: Title) -> None:
        if title.session_id:
            self.conn.execute(
                "UPDATE sessions SET custom_title = ? WHERE id = ?", (title.title, title.session_id)
            )
        elif title.leaf_uuid:
            self.conn.execute(
                "INSERT OR REPLACE INTO pending_titles VALUES (?, ?)", (title.leaf_uuid, title.title)
            )
            self._resolve_pending_titles()

    def _resolve_pending_titles(self) -> None:
        rows = self.conn.execute(
            """SELECT p.leaf_uuid, p.title, m.session_id FROM pending_titles p
               JOIN uuids u ON u.uuid = p.leaf_uuid JOIN messages m ON m.id = u.message_id"""
        ).fetchall()
        for leaf, title, session_id in rows:
            self.conn.execute(
                "UPDATE sessions SET summary_title = ? WHERE id = ?", (title, session_id)
            )
            self.conn.execute("DELETE FROM pending_titles WHERE leaf_uuid = ?", (leaf,))


def _join(old: str, new: str) -> str:
    if not new:
        return old
    return f"{old}\n\n{new}" if old else new


@dataclass(slots=True)
class _SessionCursor:
    """A session's running totals within one batch, written back once at the end."""

    count: int
    first_ts: str | None
    last_ts: str | None
    last_epoch: int
    first_prompt: str | None
    git_branch: str | None

    def add(self, record: Message, epoch: int) -> None:
        self.count += 1
        if record.timestamp:
            if self.first_ts is None or record.timestamp < self.first_ts:
                self.first_ts = record.timestamp
            if self.last_ts is None or record.timestamp > self.last_ts:
                self.last_ts = record.timestamp
                self.last_epoch = epoch
        if self.first_prompt is None and record.kind is Kind.PROMPT and not record.is_sidechain:
            self.first_prompt = record.text[:200]
        if record.git_branch and not record.is_sidechain:
            self.git_branch = record.git_branch

    def save(self, conn: sqlite3.Connection, session_id: str) -> None:
        conn.execute(
            """UPDATE sessions SET message_count = ?, first_ts = ?, last_ts = ?, last_epoch = ?,
                 first_prompt = ?, git_branch = ?, archived = 0 WHERE id = ?""",
            (
                self.count,
                self.first_ts,
                self.last_ts,
                self.last_epoch,
                self.first_prompt,
                self.git_branch,
                session_id,
            ),
        )


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT: SQLite serialises writers, so `seq` grows in commit order."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *_: object) -> None:
        self.conn.execute("ROLLBACK" if exc_type else "COMMIT")
