"""Writes into the store of record: parsed records in, rows out, one transaction per batch.

A batch carries its file's new checkpoint, so the rows and "how far the file was read" commit
together: a crash loses the whole batch or nothing, and the next run starts where the last
commit left off. Every line uuid is remembered, so a re-read or a `--resume` copy of the same
lines never stores a message twice, whichever process reads it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import orjson

from memtui.store import db
from memtui.store.records import LAST_EPOCH, Kind, Message, Title


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
class FileBatch:
    """New records of one file, with the checkpoint that follows them."""

    state: FileState
    records: Sequence[tuple[int, Message | Title]]
    fallback_project: str
    skipped: int = 0  # unreadable lines among them (counted in the checkpoint too)
    agent: str = "claude-code"  # which agent wrote the file (SPEC's names)


@dataclass(slots=True)
class BatchResult:
    messages: int = 0  # new messages stored
    merged: int = 0  # lines folded into an existing message
    duplicates: int = 0  # lines already stored (re-read or copied by --resume)
    forgotten: int = 0  # lines of sessions the person forgot: never stored again


class Archive:
    """The store of record, opened on one SQLite file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.conn = db.connect(path)
        # The writer's batches touch pages all over the uuid and message indexes: a bigger
        # cache and rarer checkpoints make a cold ingest of 200k messages ~20% faster.
        self.conn.execute("PRAGMA cache_size = -65536")
        self.conn.execute("PRAGMA wal_autocheckpoint = 10000")

    def close(self) -> None:
        self.conn.close()

    # -- ingestion checkpoints -------------------------------------------------------------

    def file_states(self, paths: Sequence[str]) -> dict[str, FileState]:
        """The checkpoints of those of `paths` read before."""
        states: dict[str, FileState] = {}
        for chunk in db.chunks(paths):
            rows = self.conn.execute(
                "SELECT path, dev, ino, offset, line, tail, skipped FROM files "
                f"WHERE path IN ({db.marks(chunk)})",
                chunk,
            )
            states.update(
                (r[0], FileState(r[0], r[1], r[2], r[3], r[4], r[5] or b"", r[6])) for r in rows
            )
        return states

    def known_files(self, under: str) -> list[str]:
        prefix = under.rstrip("/") + "/"
        rows = self.conn.execute(
            "SELECT path FROM files WHERE missing = 0 AND substr(path, 1, ?) = ?",
            (len(prefix), prefix),
        )
        return [row[0] for row in rows]

    def mark_missing(self, paths: Iterable[str]) -> int:
        """Files the agent deleted: their sessions stay, marked archived once all are gone.
        How many of them held what no file left holds: a file replaced by another holding
        the same session (a Codex rollout by its `.zst`) archives nothing."""
        paths = list(paths)
        if not paths:
            return 0
        with self._transaction():
            self.conn.executemany(
                "UPDATE files SET missing = 1 WHERE path = ?", ((p,) for p in paths)
            )
            self.conn.execute(
                """UPDATE sessions SET archived = 1 WHERE archived = 0 AND id IN
                   (SELECT session_id FROM files WHERE missing = 1) AND id NOT IN
                   (SELECT session_id FROM files WHERE missing = 0 AND session_id IS NOT NULL)"""
            )
            held = {
                row[0]
                for row in self.conn.execute(
                    "SELECT DISTINCT session_id FROM files WHERE missing = 0"
                )
            }
            gone = 0
            for chunk in db.chunks(paths):
                rows = self.conn.execute(
                    f"SELECT session_id FROM files WHERE path IN ({db.marks(chunk)})", chunk
                )
                gone += sum(row[0] is None or row[0] not in held for row in rows)
        return gone

    def mark_present(self, paths: Iterable[str]) -> None:
        """Files on disk (`paths`, all read by now) are present, and a session one of them
        holds is not archived: a transcript moved back, restored from a backup or under
        another name. A file that came back unchanged, or holding only lines already stored,
        writes no session, so no batch would say so."""
        back: list[str] = []
        revived: set[str] = set()
        for chunk in db.chunks(list(paths)):  # read first: most runs have nothing to write
            rows = self.conn.execute(
                f"""SELECT f.path, f.missing, s.id FROM files f
                    LEFT JOIN sessions s ON s.id = f.session_id AND s.archived = 1
                    WHERE f.path IN ({db.marks(chunk)}) AND (f.missing = 1 OR s.id IS NOT NULL)""",
                chunk,
            )
            for path, missing, archived in rows:
                if missing:
                    back.append(path)
                if archived is not None:
                    revived.add(archived)
        if not back and not revived:
            return
        with self._transaction():
            for chunk in db.chunks(back):
                self.conn.execute(
                    f"UPDATE files SET missing = 0 WHERE path IN ({db.marks(chunk)})", chunk
                )
            for part in db.chunks(sorted(revived)):
                self.conn.execute(
                    f"UPDATE sessions SET archived = 0 WHERE id IN ({db.marks(part)})", part
                )

    # -- the batch write ---------------------------------------------------------------------

    def apply(self, batches: Sequence[FileBatch]) -> BatchResult:
        """Store the records of one or more files and their new checkpoints, atomically.

        Many small files share one transaction: a commit costs milliseconds, a row microseconds.
        """
        result = BatchResult()
        messages = [r for b in batches for _, r in b.records if isinstance(r, Message)]
        with self._transaction():
            seen = self._seen_uuids([r.uuid for r in messages])
            forgotten = self._forgotten({r.session_id for r in messages})
            stored = self._stored_api_ids({r.api_id for r in messages if r.api_id})
            seq = db.store_seq(self.conn)
            (next_id,) = self.conn.execute(
                "SELECT coalesce(max(id), 0) + 1 FROM messages"
            ).fetchone()
            sessions: dict[str, _SessionCursor] = {}
            rows: list[_Row] = []
            by_api: dict[tuple[str, str], _Row] = {}
            uuids: list[tuple[str, int]] = []
            for batch in batches:
                file_id = self._save_state(batch.state)
                file_sessions: set[str] = set()
                copied: set[str] = set()  # sessions of its records stored before
                for line_no, record in batch.records:
                    if not isinstance(record, Message):
                        continue
                    if record.uuid in seen:
                        result.duplicates += 1
                        copied.add(record.session_id)
                        continue
                    seen.add(record.uuid)
                    if record.session_id in forgotten:
                        result.forgotten += 1
                        continue
                    cursor = sessions.get(record.session_id)
                    if cursor is None:
                        cursor = self._session(record, batch)
                        if cursor is None:  # a new session of a project the person forgot
                            forgotten.add(record.session_id)
                            result.forgotten += 1
                            continue
                        sessions[record.session_id] = cursor
                    file_sessions.add(record.session_id)
                    seq += 1
                    key = (record.session_id, record.api_id or "")
                    row = by_api.get(key) if record.api_id else None
                    if row is None and record.api_id and key in stored:
                        row = by_api[key] = self._load_row(stored[key])
                    if row is not None:
                        # A later line of one API message: fold it into the message.
                        row.merge(record, seq)
                        uuids.append((record.uuid, row.id))
                        result.merged += 1
                        continue
                    row = _Row.new(record, next_id, cursor.count, file_id, line_no, seq)
                    next_id += 1
                    rows.append(row)
                    if record.api_id:
                        by_api[key] = row
                    uuids.append((record.uuid, row.id))
                    cursor.add(record, row.epoch)
                    result.messages += 1
                if file_sessions:
                    self.conn.execute(
                        "UPDATE files SET session_id = ? WHERE id = ?",
                        (min(file_sessions), file_id),
                    )
                elif copied:
                    # Records all stored from another file (a Codex rollout, now its .zst):
                    # it holds that session too, and the other one gone archives nothing.
                    self.conn.execute(
                        "UPDATE files SET session_id = ? WHERE id = ? AND session_id IS NULL",
                        (min(copied), file_id),
                    )
            self._write_rows(by_api.values(), rows)
            # In key order, neighbouring inserts land on the same B-tree pages: ~5% of a cold
            # ingest, the same for the lookups in _seen_uuids.
            uuids.sort()
            self.conn.executemany("INSERT INTO uuids VALUES (?, ?)", uuids)
            for session_id, cursor in sessions.items():
                cursor.save(self.conn, session_id)
            self.conn.execute("UPDATE meta SET value = ? WHERE key = 'seq'", (str(seq),))
            titles = [r for b in batches for _, r in b.records if isinstance(r, Title)]
            for title in titles:
                self._title(title)
            if sessions:
                self._resolve_pending_titles()
        return result

    def _stored_api_ids(self, api_ids: set[str]) -> dict[tuple[str, str], int]:
        """Messages already stored for these API message ids (a message split across batches)."""
        found: dict[tuple[str, str], int] = {}
        for chunk in db.chunks(sorted(api_ids)):
            rows = self.conn.execute(
                f"SELECT session_id, api_id, id FROM messages WHERE api_id IN ({db.marks(chunk)})",
                chunk,
            )
            found.update(((r[0], r[1]), r[2]) for r in rows)
        return found

    def _load_row(self, message_id: int) -> _Row:
        row = self.conn.execute(
            "SELECT text, thinking, tool_calls, tool_output, tool_ids FROM messages WHERE id = ?",
            (message_id,),
        ).fetchone()
        calls = orjson.loads(row[2])
        # A message stored before the ids were kept has none: "" keeps the two lists aligned.
        ids = orjson.loads(row[4]) if row[4] else [""] * len(calls)
        return _Row.stored(message_id, row[0], row[1], calls, row[3], ids)

    def _write_rows(self, touched: Iterable[_Row], new: list[_Row]) -> None:
        self.conn.executemany(
            """INSERT INTO messages (id, session_id, idx, uuid, api_id, role, kind, ts, epoch,
                 is_sidechain, agent_id, text, thinking, tool_calls, tool_output, file_id, line,
                 seq, tool_ids, is_error)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            [row.values() for row in new],
        )
        self.conn.executemany(
            "UPDATE messages SET text = ?, thinking = ?, tool_calls = ?, tool_output = ?, seq = ?, "
            "tool_ids = ? WHERE id = ?",
            [
                (r.text, r.thinking, _calls_json(r.calls), r.output, r.seq, _ids_json(r.ids), r.id)
                for r in touched
                if r.loaded
            ],
        )

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
        for chunk in db.chunks(sorted(uuids)):
            rows = self.conn.execute(
                f"SELECT uuid FROM uuids WHERE uuid IN ({db.marks(chunk)})", chunk
            )
            seen.update(row[0] for row in rows)
        return seen

    def _forgotten(self, session_ids: set[str]) -> set[str]:
        found: set[str] = set()
        for chunk in db.chunks(sorted(session_ids)):
            rows = self.conn.execute(
                "SELECT session_id FROM forgotten_sessions "
                f"WHERE session_id IN ({db.marks(chunk)})",
                chunk,
            )
            found.update(row[0] for row in rows)
        return found

    def _session(self, record: Message, batch: FileBatch) -> _SessionCursor | None:
        """The running totals of the record's session, created if new (written by the
        batch's agent); None when it is a new session of a forgotten project (it is then
        forgotten too, for good)."""
        state = batch.state
        row = self.conn.execute(
            "SELECT message_count, first_ts, last_ts, last_epoch, first_prompt, git_branch "
            "FROM sessions WHERE id = ?",
            (record.session_id,),
        ).fetchone()
        if row is not None:
            return _SessionCursor(*row)
        project = record.cwd or batch.fallback_project
        blocked = self.conn.execute(
            "SELECT at FROM blocked_projects WHERE path = ?", (project,)
        ).fetchone()
        if blocked is not None:
            self.conn.execute(
                "INSERT OR IGNORE INTO forgotten_sessions VALUES (?, ?, ?)",
                (
                    record.session_id,
                    orjson.dumps([[state.path, state.dev, state.ino]]).decode(),
                    blocked[0],
                ),
            )
            return None
        self.conn.execute("INSERT OR IGNORE INTO projects (path) VALUES (?)", (project,))
        project_id = self.conn.execute(
            "SELECT id FROM projects WHERE path = ?", (project,)
        ).fetchone()[0]
        self.conn.execute(
            "INSERT INTO sessions (id, project_id, agent) VALUES (?, ?, ?)",
            (record.session_id, project_id, batch.agent),
        )
        return _SessionCursor(0, None, None, 0, None, None)

    def _title(self, title: Title) -> None:
        if title.session_id:
            self.conn.execute(
                "UPDATE sessions SET custom_title = ? WHERE id = ?", (title.title, title.session_id)
            )
        elif title.leaf_uuid:
            leaf = self.conn.execute(
                "SELECT message_id FROM uuids WHERE uuid = ?", (title.leaf_uuid,)
            ).fetchone()
            if leaf is not None and leaf[0] == 0:
                return  # a summary of a forgotten message (its uuid kept, pointing nowhere)
            self.conn.execute(
                "INSERT OR REPLACE INTO pending_titles VALUES (?, ?)",
                (title.leaf_uuid, title.title),
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


@dataclass(slots=True)
class _Row:
    """A message being written in this batch, or a stored one that a later line extends."""

    id: int
    text: str
    thinking: str
    calls: list[list[str]]
    output: str
    ids: list[str]  # the calls' tool_use ids, or the ids a tool result answers
    seq: int = 0
    loaded: bool = False  # already in the store: written back with UPDATE
    record: Message | None = None
    idx: int = 0
    epoch: int = 0
    file_id: int = 0
    line: int = 0

    @classmethod
    def new(
        cls, record: Message, message_id: int, idx: int, file_id: int, line: int, seq: int
    ) -> _Row:
        return cls(
            id=message_id,
            text=record.text,
            thinking=record.thinking,
            calls=[[c.name, c.arg] for c in record.tool_calls],
            output=record.tool_output,
            ids=[c.id for c in record.tool_calls] or list(record.answers),
            seq=seq,
            record=record,
            idx=idx,
            epoch=record.epoch if 0 <= record.epoch <= LAST_EPOCH else 0,
            file_id=file_id,
            line=line,
        )

    @classmethod
    def stored(
        cls, message_id: int, text: str, thinking: str, calls: list, output: str, ids: list[str]
    ) -> _Row:
        return cls(message_id, text, thinking, calls, output, ids, loaded=True)

    def merge(self, record: Message, seq: int) -> None:
        self.text = _join(self.text, record.text)
        self.thinking = _join(self.thinking, record.thinking)
        self.calls.extend([c.name, c.arg] for c in record.tool_calls)
        self.ids.extend(c.id for c in record.tool_calls)
        self.output = _join(self.output, record.tool_output)
        self.seq = seq

    def values(self) -> tuple[object, ...]:
        r = self.record
        assert r is not None
        return (
            self.id,
            r.session_id,
            self.idx,
            r.uuid,
            r.api_id,
            r.role,
            str(r.kind),
            r.timestamp,
            self.epoch,
            int(r.is_sidechain),
            r.agent_id,
            self.text,
            self.thinking,
            _calls_json(self.calls),
            self.output,
            self.file_id,
            self.line,
            self.seq,
            _ids_json(self.ids),
            None if r.is_error is None else int(r.is_error),
        )


def _calls_json(calls: list[list[str]]) -> str:
    # orjson: this runs once per stored message, where json.dumps cost ~8% of an ingest.
    return orjson.dumps(calls).decode() if calls else "[]"


def _ids_json(ids: list[str]) -> str | None:
    return orjson.dumps(ids).decode() if ids else None


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
        # A subagent's prompt titles a session made only of subagent transcripts.
        if self.first_prompt is None and record.kind is Kind.PROMPT and record.title:
            self.first_prompt = record.title
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
