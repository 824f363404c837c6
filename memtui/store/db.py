"""The store of record: one SQLite file in WAL mode, upgraded by numbered migrations."""

from __future__ import annotations

import operator
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TypeVar

from memtui.errors import StoreCorrupt, StoreUnavailable
from memtui.store import access

# Each entry moves the schema one version up; PRAGMA user_version records how far a file has come.
MIGRATIONS: list[str] = [
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO meta VALUES ('seq', '0');

    CREATE TABLE projects (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE          -- the cwd recorded in the transcript
    );

    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,               -- Claude Code's sessionId
        project_id INTEGER NOT NULL REFERENCES projects(id),
        summary_title TEXT,                -- from a `summary` line pointing into the session
        custom_title TEXT,                 -- from a `custom-title` line (wins over the summary)
        first_prompt TEXT,                 -- fallback title
        git_branch TEXT,
        first_ts TEXT,
        last_ts TEXT,
        last_epoch INTEGER NOT NULL DEFAULT 0,
        message_count INTEGER NOT NULL DEFAULT 0,
        archived INTEGER NOT NULL DEFAULT 0  -- every file of it is gone from disk
    );
    CREATE INDEX sessions_project ON sessions(project_id, last_epoch);

    CREATE TABLE files (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        session_id TEXT,                   -- the session its records belong to, once known
        dev INTEGER NOT NULL DEFAULT 0,
        ino INTEGER NOT NULL DEFAULT 0,
        offset INTEGER NOT NULL DEFAULT 0, -- bytes read up to the end of the last whole line
        line INTEGER NOT NULL DEFAULT 0,   -- lines read
        tail BLOB,                         -- the bytes just before offset: notices a rewrite
        skipped INTEGER NOT NULL DEFAULT 0,
        missing INTEGER NOT NULL DEFAULT 0
    );

    CREATE TABLE messages (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id),
        idx INTEGER NOT NULL,              -- position in the session
        uuid TEXT NOT NULL,
        api_id TEXT,
        role TEXT NOT NULL,
        kind TEXT NOT NULL,
        ts TEXT,
        epoch INTEGER NOT NULL DEFAULT 0,
        is_sidechain INTEGER NOT NULL DEFAULT 0,
        agent_id TEXT,
        text TEXT NOT NULL,
        thinking TEXT NOT NULL,
        tool_calls TEXT NOT NULL,          -- JSON list of [name, key argument]
        tool_output TEXT NOT NULL,
        file_id INTEGER REFERENCES files(id),
        line INTEGER NOT NULL DEFAULT 0,   -- 1-based line in that file
        seq INTEGER NOT NULL               -- bumped on every change: indexes follow it
    );
    CREATE UNIQUE INDEX messages_position ON messages(session_id, idx);
    CREATE INDEX messages_api ON messages(api_id) WHERE api_id IS NOT NULL;
    CREATE INDEX messages_seq ON messages(seq);

    -- Every line uuid ever stored: a --resume copy or a re-read never stores a line twice.
    CREATE TABLE uuids (uuid TEXT PRIMARY KEY, message_id INTEGER NOT NULL) WITHOUT ROWID;

    -- `summary` lines whose leaf message is not stored yet.
    CREATE TABLE pending_titles (leaf_uuid TEXT PRIMARY KEY, title TEXT NOT NULL) WITHOUT ROWID;
    """,
    # Notes (store/notes.py): their own sequence, so their indexes follow them apart from messages.
    """
    INSERT INTO meta VALUES ('note_seq', '0');

    CREATE TABLE notes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,  -- stable: never reused
        title TEXT NOT NULL,
        title_key TEXT NOT NULL UNIQUE,        -- the title casefolded: links resolve by it
        body TEXT NOT NULL,
        layer TEXT NOT NULL CHECK (layer IN ('past', 'state', 'rule')),
        folder TEXT NOT NULL DEFAULT '',
        tags TEXT NOT NULL DEFAULT '[]',       -- JSON list
        created TEXT NOT NULL,                 -- ISO 8601 UTC
        updated TEXT NOT NULL,
        author TEXT NOT NULL CHECK (author IN ('person', 'agent')),
        status TEXT CHECK (status IN ('provisional', 'approved')),  -- rules only
        source_session TEXT,
        source_uuid TEXT,
        seq INTEGER NOT NULL                   -- meta.note_seq at its last change
    );
    CREATE INDEX notes_updated ON notes(updated);
    CREATE INDEX notes_seq ON notes(seq);
    CREATE INDEX notes_folder ON notes(folder);

    CREATE TABLE note_tags (
        note_id INTEGER NOT NULL REFERENCES notes(id),
        tag_key TEXT NOT NULL,                 -- casefolded
        PRIMARY KEY (note_id, tag_key)
    ) WITHOUT ROWID;
    CREATE INDEX note_tags_tag ON note_tags(tag_key);

    -- Every [[link]] in a body; target_id NULL while dangling.
    CREATE TABLE note_links (
        source_id INTEGER NOT NULL REFERENCES notes(id),
        position INTEGER NOT NULL,
        target TEXT NOT NULL,                  -- as written
        target_key TEXT NOT NULL,              -- casefolded
        shown TEXT,
        target_id INTEGER,
        PRIMARY KEY (source_id, position)
    ) WITHOUT ROWID;
    CREATE INDEX note_links_key ON note_links(target_key);
    CREATE INDEX note_links_target ON note_links(target_id);

    -- Deleted notes, so that each index removes them when it passes `seq`.
    CREATE TABLE notes_gone (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL);
    CREATE INDEX notes_gone_seq ON notes_gone(seq);
    """,
    # Notes: tags listed as written without reading every note; lists by layer from an index.
    """
    ALTER TABLE note_tags ADD COLUMN tag TEXT NOT NULL DEFAULT '';
    UPDATE note_tags SET tag = tag_key;
    CREATE INDEX notes_layer ON notes(layer, status);
    """,
    # Signals, inferences and the errors seen in messages (store/signals.py).
    """
    CREATE TABLE signals (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        type TEXT NOT NULL,
        fingerprint TEXT NOT NULL UNIQUE,      -- the type and its evidence, hashed
        title TEXT NOT NULL,
        detail TEXT NOT NULL,                  -- one line on why it fired
        note_ids TEXT NOT NULL DEFAULT '[]',   -- JSON list of evidence notes
        message_ids TEXT NOT NULL DEFAULT '[]',-- JSON list of evidence messages (row ids)
        status TEXT NOT NULL DEFAULT 'new'
            CHECK (status IN ('new', 'dismissed', 'snoozed', 'synthesized')),
        snooze_until TEXT,
        live INTEGER NOT NULL DEFAULT 1,       -- 0: the last detection run no longer saw it
        created TEXT NOT NULL,
        updated TEXT NOT NULL
    );
    CREATE INDEX signals_status ON signals(status, live);

    CREATE TABLE inferences (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        title TEXT NOT NULL,
        summary TEXT NOT NULL,
        confidence REAL NOT NULL,
        signal_id INTEGER,
        created TEXT NOT NULL
    );

    CREATE TABLE inference_evidence (
        inference_id INTEGER NOT NULL REFERENCES inferences(id),
        kind TEXT NOT NULL CHECK (kind IN ('note', 'message')),
        ref TEXT NOT NULL,                     -- a note id, or a message uuid
        title TEXT NOT NULL,                   -- what it was called at mint time
        text TEXT NOT NULL,                    -- its text at mint time (for the diff)
        hash TEXT NOT NULL,                    -- sha256 of that text
        PRIMARY KEY (inference_id, kind, ref)
    ) WITHOUT ROWID;

    -- Errors seen in messages, found by an incremental pass (meta.errors_seq).
    CREATE TABLE error_sightings (
        signature TEXT NOT NULL,
        message_id INTEGER NOT NULL,
        session_id TEXT NOT NULL,
        epoch INTEGER NOT NULL,
        PRIMARY KEY (signature, message_id)
    ) WITHOUT ROWID;
    CREATE INDEX error_sightings_message ON error_sightings(message_id);
    -- stale_state asks, for each old state note, whether its folder has a newer note.
    CREATE INDEX notes_folder_updated ON notes(folder, updated);
    """,
    # Trust: secrets masked in place (the engine does it when it sees mask_pending), and what
    # the person forgot kept out for good.
    """
    -- A forgotten session: ingest drops its records, whichever file they come from.
    CREATE TABLE forgotten_sessions (
        session_id TEXT PRIMARY KEY,
        files TEXT NOT NULL,               -- JSON list of [path, dev, ino] it was read from
        at TEXT NOT NULL
    ) WITHOUT ROWID;
    -- A forgotten project: its new sessions are not ingested until the person lifts it.
    CREATE TABLE blocked_projects (path TEXT PRIMARY KEY, at TEXT NOT NULL) WITHOUT ROWID;
    -- A forget committed in the store whose indexes are not purged yet: finished on next start.
    CREATE TABLE forget_pending (
        id INTEGER PRIMARY KEY,
        receipt TEXT NOT NULL,             -- JSON
        message_ids TEXT NOT NULL,         -- JSON list: the documents to purge from the indexes
        note_ids TEXT NOT NULL DEFAULT '[]'
    );
    INSERT OR REPLACE INTO meta VALUES ('mask_pending', '1');
    """,
    # Masking learned more places and kinds (git branches, MCP tool names, note tags and
    # folders, `scheme://:password@`, `--password`, `mysql -p`): mask a masked archive again.
    """
    INSERT OR REPLACE INTO meta VALUES ('mask_pending', '1');
    """,
    # And more kinds (issue 25: AWS secret keys in prose, .netrc, Docker, Azure, Twilio,
    # PuTTY, tokens split or in base64, passwords on more command lines and in prose).
    """
    INSERT OR REPLACE INTO meta VALUES ('mask_pending', '1');
    """,
    # What each session did (store/work.py), derived from its tool calls and followed by
    # `meta.work_seq`: the archive's messages are read for it on the first start. Messages
    # keep from now on what pairs a call with its result, and whether the result was an error.
    """
    ALTER TABLE messages ADD COLUMN tool_ids TEXT;     -- JSON: the calls' ids, or those answered
    ALTER TABLE messages ADD COLUMN is_error INTEGER;  -- a tool result: 1 marked an error, else 0

    CREATE TABLE work (
        session_id TEXT NOT NULL,
        idx INTEGER NOT NULL,               -- the call's message, by its place in the session
        n INTEGER NOT NULL,                 -- the call's place in that message
        message_id INTEGER NOT NULL,
        project_id INTEGER NOT NULL,
        agent_id TEXT,                      -- a subagent's call: its own thread of work
        prompt_id INTEGER,                  -- the person's request it answered
        epoch INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('read', 'edit', 'write', 'run')),
        target TEXT NOT NULL,               -- the file (from the project), or the command
        command TEXT,                       -- a run's command normalised: what "the same" is
        result_id INTEGER,                  -- the result's message; NULL: none stored (yet)
        failed INTEGER,                     -- 1 an error, 0 done, NULL no outcome
        exit_code INTEGER,
        error TEXT,                         -- a failed run's error, normalised
        error_line TEXT,                    -- the line saying it, as written
        fixed_idx INTEGER,                  -- a failed run: the run that passed after it
        fixed_n INTEGER,
        PRIMARY KEY (session_id, idx, n)
    ) WITHOUT ROWID;
    -- Covering what the hook reads of a file's latest calls: its lookup reads no row.
    CREATE INDEX work_files ON work(target, project_id, epoch, kind, failed, prompt_id)
        WHERE kind != 'run';
    CREATE INDEX work_failures ON work(project_id, command, epoch) WHERE failed = 1;
    CREATE INDEX work_errors ON work(error, epoch) WHERE error IS NOT NULL;
    INSERT OR REPLACE INTO meta VALUES ('work_seq', '0');
    """,
    # Every coding agent's conversations (issue 28): which agent wrote each session. An
    # archive from before held Claude Code's alone.
    """
    ALTER TABLE sessions ADD COLUMN agent TEXT NOT NULL DEFAULT 'claude-code';
    """,
    # The work index knows every agent's file and command tools (store/work.py TOOLS): it is
    # derived again, so that the other agents' sessions already stored have their work.
    """
    DELETE FROM work;
    INSERT OR REPLACE INTO meta VALUES ('work_seq', '0');
    """,
    # A signal's pattern (its type and key, hashed: the same missing link, error, arc) apart
    # from its evidence, so that a decision on it holds when part of the evidence goes.
    """
    ALTER TABLE signals ADD COLUMN pattern TEXT;
    """,
]

SCHEMA_VERSION = len(MIGRATIONS)
# Left in the data dir when a command finds the store damaged, so that every command says so
# (not only those that happen to read a damaged page) until `memtui doctor` has looked.
DAMAGED_MARK = "store-damaged"
CHUNK = 500  # ids per `IN (...)`: well under SQLite's limit on bound parameters

_T = TypeVar("_T")


def chunks(items: Sequence[_T]) -> Iterator[Sequence[_T]]:
    """`items` in slices small enough for one `IN (...)` query each."""
    for start in range(0, len(items), CHUNK):
        yield items[start : start + CHUNK]


def store_seq(conn: sqlite3.Connection) -> int:
    """The sequence number of the store's last change (indexes follow it)."""
    return int(conn.execute("SELECT value FROM meta WHERE key = 'seq'").fetchone()[0])


def marks(items: Sequence[object]) -> str:
    """The `?, ?, ...` placeholders for `items`."""
    return ",".join("?" * len(items))


def create_private(path: Path) -> None:
    """Create the database file readable by its owner only, before SQLite makes it 0644."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))


# Text read back as valid Unicode, each byte that is not UTF-8 a U+FFFD: memtui writes only
# valid text, but a store another tool wrote to (or a damaged page) may hold such bytes, and
# one of them must not stop every read of the archive. A C callable: about 0.1 µs a value
# more than SQLite's own `str`, which raises on one.
_TEXT = operator.methodcaller("decode", "utf-8", "replace")


def connect(path: Path, *, migrate_schema: bool = True) -> sqlite3.Connection:
    """Open the store, creating or migrating it. Autocommit: callers open transactions.

    Every connection may write (a WAL reader still maps the -shm file read-write); readers
    simply never open a transaction that writes, so they never wait for the writer.
    """
    with translated(path):
        _refuse_damaged(path)
        create_private(path)
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            conn.row_factory = sqlite3.Row
            conn.text_factory = _TEXT
            conn.execute("PRAGMA busy_timeout = 30000")
            _use_wal(conn)
            conn.execute("PRAGMA synchronous = NORMAL")
            if migrate_schema:
                migrate(conn)
            else:
                conn.execute("SELECT 1 FROM meta LIMIT 1").fetchall()
        except BaseException:
            conn.close()
            raise
        return conn


def read_only(path: Path, busy_ms: int) -> sqlite3.Connection:
    """A connection that can only read, creates nothing, and waits at most `busy_ms` for a
    lock: for the callers that must never hold anyone up (a hook, a handshake)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=busy_ms / 1000)
    conn.text_factory = _TEXT
    return conn


def _refuse_damaged(path: Path) -> None:
    """A store known damaged, or a zero-byte file where an archive was (its data dir has its
    key or indexes), is not opened: SQLite would take the empty file for a new store."""
    if (path.parent / DAMAGED_MARK).exists():
        raise StoreCorrupt(f"the store {path} was found damaged")
    try:
        empty = path.stat().st_size == 0
    except FileNotFoundError:
        return
    if empty and ((path.parent / "mask.key").exists() or (path.parent / "index").exists()):
        raise StoreCorrupt(f"the store {path} is 0 bytes: the archive it held is gone")


def _use_wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL. A new file switches once, alone: a second process opening it at that
    moment is told "locked" at once, busy_timeout or not (2 % of simultaneous first starts
    here), so it tries again for a while."""
    deadline = time.monotonic() + 30
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


@contextmanager
def translated(path: Path) -> Iterator[None]:
    """SQLite's and the disk's failures as memtui errors that say what to do."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        error = _translate(exc, path)
        if isinstance(error, StoreCorrupt):
            with suppress(OSError):
                (path.parent / DAMAGED_MARK).touch(mode=0o600)
        raise error from exc
    except OSError as exc:
        raise unusable(path.parent, exc) or StoreUnavailable(
            f"cannot use the data dir {path.parent}: {exc.strerror or exc}",
            "check that the disk has room and the folder is yours and writable",
        ) from exc


def unusable(data_dir: Path, exc: BaseException) -> StoreUnavailable | None:
    """What the data dir lacks, that `exc` (SQLite's or the disk's) was about, said plainly:
    a full disk, another owner, a read-only file system, a mode without write."""
    return access.full(data_dir, exc) or access.unavailable(data_dir)


def _translate(exc: sqlite3.DatabaseError, path: Path) -> StoreUnavailable | StoreCorrupt:
    text = str(exc)
    if isinstance(exc, sqlite3.OperationalError) and "malformed" not in text:
        return unusable(path.parent, exc) or StoreUnavailable(
            f"cannot use the store {path}: {text}",
            "check that the disk has room and the data dir is yours and writable",
        )
    return StoreCorrupt(f"the store {path} is damaged: {text}")


class Writer:
    """A service's one write connection, opened on first use. `transaction()` holds it, under
    a lock, for one transaction taken at once (BEGIN IMMEDIATE), so writers queue, in this
    process on the lock and in others on SQLite's."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if self._conn is None:
                self._conn = connect(self.path, migrate_schema=False)
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


class Readers:
    """One read connection per thread: reads never share a connection, or a lock, with the
    writer, and WAL lets each see the last commit while an ingest writes the next. A thread
    that has ended leaves its connection behind; the next new one closes it (front ends
    start a thread per worker)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self._open: dict[threading.Thread, sqlite3.Connection] = {}
        self._lock = threading.Lock()
        self._closed = False

    def get(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.path, migrate_schema=False)
            conn.execute("PRAGMA query_only = 1")
            with self._lock:
                if self._closed:
                    conn.close()
                    raise StoreUnavailable(
                        f"the store {self.path} was closed", "this memtui is stopping"
                    )
                for thread in [t for t in self._open if not t.is_alive()]:
                    self._open.pop(thread).close()
                self._open[threading.current_thread()] = conn
            self._local.conn = conn
        return conn

    def close(self) -> None:
        """Close every read connection. One that another thread may be reading on is
        interrupted and let go instead: closing it under a running statement crashes the
        process (a front end quit during a search). It closes when that thread lets go."""
        me = threading.current_thread()
        with self._lock:
            self._closed = True
            for thread, conn in self._open.items():
                if thread is me or not thread.is_alive():
                    conn.close()
                else:
                    conn.interrupt()
            self._open.clear()
        self._local = threading.local()


def statements(script: str) -> Iterator[str]:
    """The statements of a script, whole: a trigger's body (BEGIN ...; END) holds semicolons,
    so a statement ends where SQLite says it is complete, not at every `;`."""
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n\t;"):
                yield pending
            pending = ""
    if pending.strip(" \n\t;"):
        yield pending


def migrate(conn: sqlite3.Connection) -> None:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StoreUnavailable(
            f"the data dir was written by a newer memtui (schema {version} > {SCHEMA_VERSION})",
            "upgrade memtui, or point MEMTUI_DATA_DIR at another folder",
        )
    if version == SCHEMA_VERSION:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Another process may have migrated while we waited for the lock.
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        for number in range(version, SCHEMA_VERSION):
            for statement in statements(MIGRATIONS[number]):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number + 1}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
