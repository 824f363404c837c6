"""Forget: a session, a project or a note leaves the archive with no copy left on disk.

One store transaction removes the rows, leaves a tombstone (ingest never brings the session
back, whichever transcript still holds it) and records the work left: purging both indexes.
SQLite's `secure_delete` zeroes the freed bytes, and a checkpoint that truncates the WAL
leaves no older page image behind. The indexes are then purged (`Indexes.forget`) and the
receipt appended to `forget-receipts.jsonl`; a forget interrupted after its commit (kill -9)
is finished by the next Memory opened on the data dir, one interrupted before it never
happened.

The receipt's `sha256` is over the removed ids, one a line, sorted: `session:<id>` for each
session, `message:<uuid>` for each message, `note:<id>` for each note.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from memtui.config import Config
from memtui.engine import note_fields, recall
from memtui.engine.notes_types import Author
from memtui.engine.sessions import resolve_project
from memtui.errors import Ambiguous, InvalidArgument, MemtuiError, NotConfirmed, NotFound
from memtui.store import db, signals, work
from memtui.store.locks import first

if TYPE_CHECKING:  # Tantivy and hnswlib: loaded by the Memory, not by importing a receipt
    from memtui.store.indexes import Indexes
    from memtui.store.note_index import NoteIndexes
    from memtui.store.notes import NoteRow

log = logging.getLogger(__name__)

RECEIPTS = "forget-receipts.jsonl"
CHECKPOINT_WAIT = 2.0  # seconds a forget waits for readers to let the WAL be truncated
CHECKPOINT_TRY_MS = 100  # each attempt's wait for them


@dataclass(slots=True)
class Receipt:
    """What a forget removed: counts, the time, and a SHA-256 over the removed ids."""

    what: str  # "session" | "project" | "note"
    target: str  # the session id, project path or note id
    sessions: int
    messages: int
    notes: int
    at: str  # ISO 8601 UTC
    sha256: str  # over the removed ids (see the module)
    session_ids: list[str] = field(default_factory=list)
    # False when a reader kept the WAL (which may hold the removed rows' old pages) from being
    # truncated; the next forget truncates it, and so does the last process closing the store.
    wal_truncated: bool = True


def removed_hash(session_ids: list[str], uuids: list[str], note_ids: list[int]) -> str:
    lines = sorted(
        [f"session:{s}" for s in session_ids]
        + [f"message:{u}" for u in uuids]
        + [f"note:{n}" for n in note_ids]
    )
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def _project(conn: sqlite3.Connection, project: str) -> str:
    """The project `project` names exactly (archived, or forgotten and blocked), or NotFound
    naming the whole directory a part of one meant."""
    path = project.rstrip("/") or "/"
    row = conn.execute("SELECT 1 FROM projects WHERE path = ?", (path,)).fetchone()
    blocked = conn.execute("SELECT 1 FROM blocked_projects WHERE path = ?", (path,)).fetchone()
    if row is None and blocked is None:
        raise NotFound(f"no project {path!r} in the archive", _whole(conn, path))
    return path


def _note(conn: sqlite3.Connection, note_id: int) -> NoteRow:
    """The note `note_id` names (a whole number from 1), or InvalidArgument or NotFound."""
    from memtui.store import notes

    if isinstance(note_id, bool) or not isinstance(note_id, int) or note_id < 1:
        raise InvalidArgument("note_id must be a whole number from 1")
    row = notes.get(conn, note_id)
    if row is None:
        raise NotFound(f"note {note_id} not found", "memtui notes lists them")
    return row


def _whole(conn: sqlite3.Connection, part: str) -> str:
    """What to give instead of a project's part (a search takes one, a forget does not: it
    names exactly what goes)."""
    try:
        return f"a forget takes the whole directory: {resolve_project(conn, part)}?"
    except Ambiguous as exc:
        return f"a forget takes the whole directory, one of: {', '.join(exc.candidates)}"
    except MemtuiError:
        return "memtui projects lists them; give the directory as shown"


class Forgetter:
    """The writer's side of forgetting; takes `ingest.lock`, as every writer does, but
    `first`: an ingest catching up lets it in between two batches, not after the last."""

    def __init__(
        self,
        config: Config,
        conn: sqlite3.Connection,
        indexes: Callable[[], Indexes],
        note_indexes: Callable[[], NoteIndexes],
    ) -> None:
        self.config = config
        self._conn = conn
        self._indexes = indexes
        self._note_indexes = note_indexes

    def forget(
        self,
        session_id: str | None = None,
        project: str | None = None,
        note_id: int | None = None,
        *,
        confirmed: object = False,
        by: Author = "person",
    ) -> Receipt:
        """Forget one session, project or note. `by` is the caller, as for the notes' writes:
        an agent is held to the same guards as its `delete_note` (rules, past notes)."""
        author = note_fields.author(by)
        given = [x for x in (session_id, project, note_id) if x is not None]
        if len(given) != 1:
            raise InvalidArgument(
                "forget takes exactly one of session_id, project, note_id",
                "give the one session, project or note to forget",
            )
        if confirmed is not True:
            raise NotConfirmed(
                "forget removes it for good and needs confirmed: true",
                "ask the person, then call again with confirmed set to the boolean true",
            )
        with first(self.config.data_dir / "ingest.lock"), db.translated(self.config.db_path):
            self.finish_pending()
            if note_id is not None:
                receipt, message_ids = self._forget_note(note_id, author)
            else:
                receipt, message_ids = self._forget_sessions(session_id, project)
            (pending_id,) = self._conn.execute("SELECT max(id) FROM forget_pending").fetchone()
            note_ids = [int(receipt.target)] if receipt.what == "note" else []
            receipt.wal_truncated = self._finish(
                pending_id, _receipt_dict(receipt), message_ids, note_ids
            )
        return receipt

    def target(
        self, session_id: str | None = None, project: str | None = None, note_id: int | None = None
    ) -> str:
        """What a forget of these would remove, named in full ("session <id>"), or the error it
        would meet (NOT_FOUND): asked before anyone is asked to confirm it."""
        with db.translated(self.config.db_path):
            if session_id is not None:
                return f"session {self._resolve_session(session_id)}"
            if project is not None:
                return f"project {_project(self._conn, project)}"
            assert note_id is not None
            return f"note {_note(self._conn, note_id).id}"

    def lift(self, project: str) -> bool:
        """Let the new sessions of a forgotten project be ingested again (`--undo`); the
        sessions forgotten stay forgotten. False if the project was not blocked."""
        with first(self.config.data_dir / "ingest.lock"), db.translated(self.config.db_path):
            cur = self._conn.execute(
                "DELETE FROM blocked_projects WHERE path = ?", (project.rstrip("/") or "/",)
            )
            return cur.rowcount > 0

    def pending(self) -> bool:
        return self._conn.execute("SELECT 1 FROM forget_pending LIMIT 1").fetchone() is not None

    def finish_pending(self) -> None:
        """Finish forgets a crash interrupted after their store commit (caller holds the lock)."""
        rows = self._conn.execute(
            "SELECT id, receipt, message_ids, note_ids FROM forget_pending ORDER BY id"
        ).fetchall()
        for pending_id, receipt, message_ids, note_ids in rows:
            log.info("finishing an interrupted forget")
            self._finish(
                pending_id, orjson.loads(receipt), orjson.loads(message_ids), orjson.loads(note_ids)
            )

    # -- the store's side ---------------------------------------------------------------------

    def _forget_sessions(
        self, session_id: str | None, project: str | None
    ) -> tuple[Receipt, list[int]]:
        conn = self._conn
        conn.execute("PRAGMA secure_delete = ON")
        conn.execute("BEGIN IMMEDIATE")
        try:
            if session_id is not None:
                sessions = [self._resolve_session(session_id)]
                what, target = "session", sessions[0]
            else:
                assert project is not None
                target = _project(conn, project)
                sessions = [
                    r[0]
                    for r in conn.execute(
                        "SELECT s.id FROM sessions s JOIN projects p ON p.id = s.project_id "
                        "WHERE p.path = ?",
                        (target,),
                    )
                ]
                what = "project"
            now = datetime.now(UTC).isoformat(timespec="seconds")
            ids, uuids = self._messages_of(sessions)
            for s in sessions:
                files = conn.execute(
                    "SELECT path, dev, ino FROM files WHERE session_id = ?", (s,)
                ).fetchall()
                conn.execute(
                    "INSERT OR REPLACE INTO forgotten_sessions VALUES (?, ?, ?)",
                    (s, orjson.dumps([list(f) for f in files]).decode(), now),
                )
            if what == "project":
                conn.execute("INSERT OR REPLACE INTO blocked_projects VALUES (?, ?)", (target, now))
            conn.execute("UPDATE uuids SET message_id = 0 WHERE message_id IN temp.forget_ids")
            # Copies kept by signals: the errors seen in them, their text as inference evidence
            # (which stays, emptied, so the inference reads stale), signals quoting them.
            conn.execute("DELETE FROM error_sightings WHERE message_id IN temp.forget_ids")
            work.forget(conn, sessions)  # what the sessions did: their files and commands
            signals.forget_evidence(conn, "message", uuids)
            signals.forget_signal_evidence(conn, ids, [])
            for chunk in db.chunks(ids):
                conn.execute(f"DELETE FROM messages WHERE id IN ({db.marks(chunk)})", chunk)
            for leaves in db.chunks(uuids):
                conn.execute(
                    f"DELETE FROM pending_titles WHERE leaf_uuid IN ({db.marks(leaves)})", leaves
                )
            for some in db.chunks(sessions):
                conn.execute(f"DELETE FROM sessions WHERE id IN ({db.marks(some)})", some)
            conn.execute(
                "DELETE FROM projects WHERE id NOT IN (SELECT project_id FROM sessions)"
                + (" AND path = ?" if what == "project" else ""),
                (target,) if what == "project" else (),
            )
            receipt = Receipt(
                what,
                target,
                len(sessions),
                len(ids),
                0,
                now,
                removed_hash(sessions, uuids, []),
                sessions,
            )
            self._record_pending(receipt, ids, [])
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return receipt, ids

    def _forget_note(self, note_id: int, author: Author) -> tuple[Receipt, list[int]]:
        from memtui.engine.notes import guard
        from memtui.store import notes

        conn = self._conn
        conn.execute("PRAGMA secure_delete = ON")
        conn.execute("BEGIN IMMEDIATE")
        try:
            row = _note(conn, note_id)
            if author == "agent":
                guard(conn, row, None, None, "forget")
            notes.delete(conn, note_id)
            signals.forget_evidence(conn, "note", [str(note_id)])
            signals.forget_signal_evidence(conn, [], [note_id])
            now = datetime.now(UTC).isoformat(timespec="seconds")
            receipt = Receipt(
                "note", str(note_id), 0, 0, 1, now, removed_hash([], [], [note_id]), []
            )
            self._record_pending(receipt, [], [note_id])
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return receipt, []

    def _resolve_session(self, session_id: str) -> str:
        from memtui.engine.sessions import resolve

        if not isinstance(session_id, str):
            raise InvalidArgument("session_id must be a string")
        return resolve(self._conn, session_id)

    def _messages_of(self, sessions: list[str]) -> tuple[list[int], list[str]]:
        """The ids of the sessions' messages (also left in temp.forget_ids) and every line
        uuid that names one of them (lines folded into a message keep their own)."""
        conn = self._conn
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS forget_ids (id INTEGER PRIMARY KEY)")
        conn.execute("DELETE FROM temp.forget_ids")
        for chunk in db.chunks(sessions):
            conn.execute(
                "INSERT INTO temp.forget_ids SELECT id FROM messages "
                f"WHERE session_id IN ({db.marks(chunk)})",
                chunk,
            )
        ids = [r[0] for r in conn.execute("SELECT id FROM temp.forget_ids")]
        uuids = [
            r[0]
            for r in conn.execute(
                "SELECT uuid FROM uuids WHERE message_id IN temp.forget_ids "
                "UNION SELECT uuid FROM messages WHERE id IN temp.forget_ids"
            )
        ]
        return ids, sorted(uuids)

    def _record_pending(self, receipt: Receipt, ids: list[int], note_ids: list[int]) -> None:
        seq = db.store_seq(self._conn) + 1  # other processes see the store moved: they reload
        self._conn.execute("UPDATE meta SET value = ? WHERE key = 'seq'", (str(seq),))
        signals.count_forget(self._conn)
        self._conn.execute(
            "INSERT INTO forget_pending (receipt, message_ids, note_ids) VALUES (?, ?, ?)",
            (
                orjson.dumps(_receipt_dict(receipt)).decode(),
                orjson.dumps(ids).decode(),
                orjson.dumps(note_ids).decode(),
            ),
        )

    # -- the rest: indexes, WAL, receipt -------------------------------------------------------

    def _finish(self, pending_id: int, receipt: dict, ids: list[int], note_ids: list[int]) -> bool:
        """Purge the indexes, truncate the WAL, write the receipt; whether the WAL was."""
        if ids:
            self._indexes().forget(set(ids))
        if note_ids:
            self._note_indexes().forget(set(note_ids))
        try:
            recall.forget(self.config, receipt.get("session_ids") or [])
        except sqlite3.Error as exc:  # the log's own trouble: never the store's, nor the forget's
            log.error("a forget could not clear the recall log (recalls.db): %s", exc)
            receipt = receipt | {"recalls_left": str(exc)}
        truncated = self._checkpoint()
        if not truncated:
            log.warning(
                "a reader kept the WAL from being truncated after a forget for %.0f s: the "
                "removed rows' old pages stay in it until the next checkpoint",
                CHECKPOINT_WAIT,
            )
        _append_receipt(self.config.data_dir / RECEIPTS, receipt | {"wal_truncated": truncated})
        self._conn.execute("PRAGMA secure_delete = ON")
        self._conn.execute("DELETE FROM forget_pending WHERE id = ?", (pending_id,))
        self._checkpoint()
        return truncated

    def _checkpoint(self) -> bool:
        """Copy the WAL into the store and truncate it, so no frame keeps a page as it was.
        A reader on an older snapshot blocks that: readers finish quickly, so try again for
        up to CHECKPOINT_WAIT seconds (never the connection's long busy timeout: a forget
        must not hang on a stuck reader). Whether the WAL was truncated."""
        conn = self._conn
        (timeout,) = conn.execute("PRAGMA busy_timeout").fetchone()
        conn.execute(f"PRAGMA busy_timeout = {CHECKPOINT_TRY_MS}")
        try:
            deadline = time.monotonic() + CHECKPOINT_WAIT
            while True:
                try:
                    busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
                except sqlite3.OperationalError:  # a writer holds the lock: as busy
                    busy = 1
                if not busy:
                    return True
                if time.monotonic() >= deadline:
                    return False
                time.sleep(0.02)
        finally:
            conn.execute(f"PRAGMA busy_timeout = {timeout}")


def _receipt_dict(receipt: Receipt) -> dict:
    return {
        "what": receipt.what,
        "target": receipt.target,
        "sessions": receipt.sessions,
        "messages": receipt.messages,
        "notes": receipt.notes,
        "at": receipt.at,
        "sha256": receipt.sha256,
        "session_ids": receipt.session_ids,
    }


def _append_receipt(path: Path, receipt: dict) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, orjson.dumps(receipt) + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
