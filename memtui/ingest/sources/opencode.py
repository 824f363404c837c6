"""OpenCode's sessions: `opencode.db` (SQLite), and the JSON tree older releases wrote.

OpenCode (packages/opencode/src/session/session.sql.ts) keeps `session` rows (directory,
title, parent_id) and `message` and `part` rows whose `data` column holds the JSON of each,
every row stamped `time_updated` in milliseconds on each write. A part is rewritten in place
as it runs, so the database is followed by `time_updated`, never by bytes: its checkpoint's
`offset` is the newest `time_updated` read, and `tail` a digest of the database and WAL
files' sizes and mtimes (unchanged: nothing to read); `line` counts the records read, each
stored with its number. Every run reads the messages with a row
written after the offset, whole (envelope and every part), in short autocommit queries on a
read-only connection: OpenCode's writers never wait for us, and a busy database is skipped
until the next run. Rows written within the last SETTLE_MS are read again next run: a writer
may commit a row stamped a moment before one we already saw; the store's uuids make that
re-read store nothing twice.

Older releases wrote `storage/session/<project>/<session>.json`, `storage/message/<session>/
<message>.json` and `storage/part/<message>/<part>.json`, each file rewritten in place: a
session of that tree is followed the same way by its files' mtimes. OpenCode copies the tree
into the database (storage/json-migration.ts, ids taken from the file names) and keeps it:
both copies give the same part ids, so each message is stored once, and once the database
exists the tree no longer changes and is read only once.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import Any

from memtui.ingest.parser import object_or_none, safe_id
from memtui.ingest.reader import BATCH, Unreadable, masked
from memtui.ingest.sources import Source
from memtui.ingest.sources.opencode_parts import Conversation, field, records
from memtui.store.archive import FileBatch, FileState
from memtui.store.mask import Masker
from memtui.store.records import Message, Title

log = logging.getLogger(__name__)

SETTLE_MS = 2_000
_CHUNK = 500  # messages per query: well under SQLite's limit on bound parameters
# Parts that never become records (step markers, snapshots, patches, files ...) stay unparsed
# in the database, known by how OpenCode's JSON.stringify starts them; any other start, a
# damaged row's included, comes through to be read (and counted).
_NOT_RECORDS = (
    '{"type":"step-',  # step-start, step-finish
    '{"type":"patch',
    '{"type":"snaps',
    '{"type":"file"',
    '{"type":"agent',
    '{"type":"compa',
    '{"type":"retry',
)
_RECORD_PARTS = f"substr(p.data, 1, 14) NOT IN ({', '.join(repr(s) for s in _NOT_RECORDS)})"
_NEWEST_PART = "SELECT max(time_updated) FROM part WHERE time_updated > ?"
# The messages with a row written since, by id. On a cold read every message row is, and
# SQLite never builds the list of changed parts: one scan of the part table fewer.
_CHANGED = (
    "SELECT id, time_updated FROM message WHERE time_updated > ?1"
    " OR id IN (SELECT message_id FROM part WHERE time_updated > ?1) ORDER BY id"
)
# The JSON as the bytes stored: orjson reads them as they are, and a row that is not UTF-8
# is one damaged row (as text, the sqlite3 module refuses the whole query).
_MESSAGES = (
    "SELECT m.id, m.session_id, CAST(m.data AS BLOB), p.id, CAST(p.data AS BLOB) FROM message m"
    f" LEFT JOIN part p ON p.message_id = m.id AND {_RECORD_PARTS}"
)
_first = itemgetter(0)
_BUSY_S = 0.5  # how long to wait for a lock before leaving the database for the next run
# Titles OpenCode gives a session until it has a real one (session/index.ts isDefaultTitle).
_DEFAULT_TITLE = re.compile(
    r"^(New session - |Child session - )\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"
)


@dataclass(frozen=True, slots=True)
class _Session:
    parent: str | None
    directory: str | None
    title: str | None
    updated: int


def default_root(environ: Mapping[str, str]) -> Path:
    # OpenCode's xdg-basedir: the same folder on macOS as on Linux.
    data = environ.get("XDG_DATA_HOME", "").strip()
    return (Path(data) if data else Path.home() / ".local" / "share") / "opencode"


def discover(root: Path) -> tuple[list[Path], list[str]]:
    """The older JSON tree's sessions first, then the databases (`opencode-<channel>.db` is
    a release channel's other than latest or beta)."""
    tree = sorted((root / "storage" / "session").glob("*/*.json"))
    databases = sorted(
        p
        for p in root.glob("opencode*.db")
        if p.name == "opencode.db" or p.name.startswith("opencode-")
    )
    return [p for p in [*tree, *databases] if p.is_file()], []


def read_file(
    root: Path, path: Path, previous: FileState | None, masker: Masker | None = None
) -> Iterator[FileBatch | Unreadable]:
    """The new records of one database, or of one session of the JSON tree."""
    if path.suffix == ".db":
        yield from _read_database(path, previous, masker)
    else:
        yield from _read_tree_session(path, previous, masker)


def resume(session_id: str) -> list[str]:
    return ["opencode", "--session", session_id]


SOURCE = Source(
    agent="opencode",
    env="MEMTUI_OPENCODE_DIR",
    holds="`opencode.db` or `storage/` (as ~/.local/share/opencode)",
    default_root=default_root,
    discover=discover,
    read_file=read_file,
    resume=resume,
)


# -- the database ----------------------------------------------------------------------------


def _read_database(
    path: Path, previous: FileState | None, masker: Masker | None
) -> Iterator[FileBatch | Unreadable]:
    name = str(path)
    try:
        st = os.stat(path)
        stamp = _stamp(path)
    except OSError as exc:
        yield Unreadable(name, exc.strerror or str(exc))
        return
    same = previous is not None and (previous.dev, previous.ino) == (st.st_dev, st.st_ino)
    if same and previous is not None and previous.tail == stamp:
        return
    state = (
        replace(previous)
        if same and previous is not None
        else FileState(name, st.st_dev, st.st_ino)
    )
    try:
        conn = _connect(path)
    except sqlite3.Error as exc:
        yield from _refused(name, exc)
        return
    try:
        yield from _read_rows(conn, state, stamp, masker)
    except sqlite3.Error as exc:
        yield from _refused(name, exc)
    finally:
        conn.close()


def _connect(path: Path) -> sqlite3.Connection:
    # mode=ro: never a write, never a journal of ours; autocommit (isolation_level None):
    # each query is its own short read, no transaction held while the store writes.
    uri = f"{path.resolve().as_uri()}?mode=ro"
    conn = sqlite3.connect(uri, uri=True, timeout=_BUSY_S, isolation_level=None)
    conn.execute("PRAGMA query_only = 1")
    return conn


def _refused(name: str, exc: sqlite3.Error) -> Iterator[Unreadable]:
    if "locked" in str(exc) or "busy" in str(exc):
        log.info("skipped %s this run: %s", name, exc)
        return
    log.warning("skipped %s: %s", name, exc)
    yield Unreadable(name, str(exc))


def _read_rows(
    conn: sqlite3.Connection, state: FileState, stamp: bytes, masker: Masker | None
) -> Iterator[FileBatch]:
    since = state.offset
    now = int(time.time() * 1000)
    sessions = {
        row[0]: _Session(row[1], row[2] or None, row[3], row[4] or 0)
        for row in conn.execute(_session_query(conn))
    }
    # The newest time first: a row written after it is read next run, whatever comes between.
    (part_newest,) = conn.execute(_NEWEST_PART, (since,)).fetchone()
    changed = conn.execute(_CHANGED, (since,)).fetchall()
    newest = max(
        [
            since,
            part_newest or 0,
            *(row[1] for row in changed),
            *(s.updated for s in sessions.values()),
        ]
    )
    out = _Out(state, masker, str(Path(state.path).parent))
    known: dict[str, Conversation] = {}
    for chunk in _chunks([row[0] for row in changed]):
        # A row per part of each message, its envelope on each; a message OpenCode's undo
        # deleted since is not there.
        marks = ",".join("?" * len(chunk))
        query = f"{_MESSAGES} WHERE m.id IN ({marks}) ORDER BY m.id, p.id"
        for message_id, group in groupby(conn.execute(query, chunk).fetchall(), _first):
            rows = list(group)
            session_id, data = rows[0][1:3]
            conversation = known.get(session_id) or _conversation(session_id, sessions)
            known[session_id] = conversation
            # Parsed one message at a time: JSON objects kept for a whole chunk would
            # outlive the garbage collector's young generation, and it walks them again
            # and again (a sixth of a cold read's time on short texts).
            found = out.parsed(row[3:] for row in rows if row[3] is not None)
            out.add(conversation, message_id, _loads(data), found)
        yield from out.full()
    touched = {s for s, row in sessions.items() if row.updated > since} | out.roots
    out.titles(_titles(touched, sessions))
    # The newest row seen, less what a writer may still commit stamped earlier.
    state.offset = max(since, min(newest, now - SETTLE_MS))
    state.tail = stamp
    yield out.last()


def _session_query(conn: sqlite3.Connection) -> str:
    """The session columns a reader needs; one a release does not have reads as NULL."""
    have = {row[1] for row in conn.execute("PRAGMA table_info(session)")}
    wanted = ("parent_id", "directory", "title", "time_updated")
    columns = ", ".join(c if c in have else "NULL" for c in wanted)
    return f"SELECT id, {columns} FROM session"


def _stamp(path: Path) -> bytes:
    """Changes whenever OpenCode writes: the database's and its WAL's sizes and mtimes."""
    parts = []
    for name in (str(path), f"{path}-wal"):
        try:
            st = os.stat(name)
        except FileNotFoundError:
            parts.append("-")
            continue
        parts.append(f"{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256(" ".join(parts).encode()).digest()


def _conversation(session_id: str, sessions: Mapping[str, _Session]) -> Conversation:
    """A child (subagent) session belongs to its root, as Claude Code's subagents do."""
    root, seen = session_id, {session_id}
    while (row := sessions.get(root)) and row.parent in sessions and row.parent not in seen:
        root = row.parent or root  # in `sessions`: never None
        seen.add(root)
    own = sessions.get(session_id)
    top = sessions.get(root)
    directory = (top.directory if top else None) or (own.directory if own else None) or None
    # The root's id is what `opencode --session` reopens: an id OpenCode would not write
    # (`--…`) is made one.
    child = session_id if root != session_id else None
    return Conversation(safe_id(root, root), child, directory)


def _titles(session_ids: Iterable[str], sessions: Mapping[str, _Session]) -> list[Title]:
    found = []
    for session_id in sorted(session_ids):
        row = sessions.get(session_id)
        if row and row.parent is None and row.title and not _DEFAULT_TITLE.match(row.title):
            found.append(Title(title=row.title, session_id=safe_id(session_id, session_id)))
    return found


# -- the older JSON tree ---------------------------------------------------------------------


def _read_tree_session(
    path: Path, previous: FileState | None, masker: Masker | None
) -> Iterator[FileBatch | Unreadable]:
    name = str(path)
    storage = path.parents[2]
    if previous is not None and (storage.parent / "opencode.db").is_file():
        return  # migrated: OpenCode writes the database now, and this copy was read
    try:
        st = os.stat(path)
    except OSError as exc:
        yield Unreadable(name, exc.strerror or str(exc))
        return
    same = previous is not None and (previous.dev, previous.ino) == (st.st_dev, st.st_ino)
    state = (
        replace(previous)
        if same and previous is not None
        else FileState(name, st.st_dev, st.st_ino)
    )
    since, now = state.offset, int(time.time() * 1000)
    newest = max(since, _mtime(path))
    out = _Out(state, masker, str(storage.parent))
    session_id = path.stem  # OpenCode's migration takes ids from file names too
    own = _load(path, now)
    if own is _RECENT:
        return  # OpenCode is rewriting it: read next run
    out.skipped += own is _DAMAGED and _mtime(path) > since  # counted once, not every run
    sessions = _tree_sessions(path, session_id)
    conversation = _conversation(session_id, sessions)
    for message_id, message, message_written in _json_files(storage / "message" / session_id):
        part_files = _json_files(storage / "part" / message_id)
        written = max([message_written, *(p[2] for p in part_files)])
        if written <= since:
            continue
        newest = max(newest, written)
        # A file caught mid-rewrite is read again next run (it is newer than the settle).
        parts = []
        for part_id, part, part_written in part_files:
            value = _load_written(part, part_written, now)
            if value is _DAMAGED:
                out.skipped += 1
            elif value is not _RECENT:
                parts.append((part_id, value))
        out.add(conversation, message_id, _load_written(message, message_written, now), parts)
        yield from out.full()
    if _mtime(path) > since or out.roots:
        out.titles(_titles([conversation.session_id], sessions))
    state.offset = max(since, min(newest, now - SETTLE_MS))
    yield out.last()


def _tree_sessions(path: Path, session_id: str) -> dict[str, _Session]:
    """The session and its ancestors (a child session's file sits beside its parent's)."""
    sessions: dict[str, _Session] = {}
    current: str | None = session_id
    while current and current not in sessions:
        data = _load(path.with_name(f"{current}.json"), None)
        if not isinstance(data, dict):
            break
        times = field(data, "time", dict, {})
        parent = field(data, "parentID", str, None)
        directory = field(data, "directory", str, None)
        title = field(data, "title", str, None)
        updated = field(times, "updated", int, 0)
        sessions[current] = _Session(parent, directory or None, title, updated)
        current = parent
    return sessions


def _mtime(path: Path) -> int:
    try:
        return os.stat(path).st_mtime_ns // 1_000_000
    except OSError:
        return 0


_DAMAGED = object()  # a row or file that is not a JSON object
_RECENT = object()  # a file that is not JSON yet: written as we read it, read again next run


def _loads(data: object) -> Any:
    if not isinstance(data, str | bytes):
        return _DAMAGED
    # As every reader reads JSON: a lone surrogate escape (half an emoji) made U+FFFD.
    value = object_or_none(data.encode() if isinstance(data, str) else data)
    return _DAMAGED if value is None else value


def _json_files(folder: Path) -> list[tuple[str, str, int]]:
    """(id, path, mtime in ms) of the JSON files in a folder of the tree, by id."""
    found = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.endswith(".json"):
                    try:
                        written = entry.stat().st_mtime_ns // 1_000_000
                    except OSError:
                        continue  # gone since it was listed
                    found.append((entry.name[:-5], entry.path, written))
    except OSError:
        return []
    return sorted(found)


def _load(path: Path, now: int | None) -> Any:
    return _load_written(str(path), _mtime(path), now)


def _load_written(path: str, written: int, now: int | None) -> Any:
    try:
        with open(path, "rb") as f:
            value = _loads(f.read())
    except OSError:
        return _DAMAGED
    if value is _DAMAGED and now is not None and written > now - SETTLE_MS:
        return _RECENT
    return value


# -- batches ---------------------------------------------------------------------------------


class _Out:
    """Records in batches of BATCH, each with the checkpoint: only the last one carries the
    new offset, so a run stopped midway reads its messages again (stored once)."""

    def __init__(self, state: FileState, masker: Masker | None, project: str) -> None:
        self.state = state
        self.masker = masker
        # Where a session with no directory (or a message whose session row is gone) goes:
        # OpenCode's own folder, a project the person can name and forget, as Codex's
        # rollouts folder is for a rollout that names no cwd.
        self.project = project
        self.batch: list[tuple[int, Message | Title]] = []
        self.skipped = 0
        self.roots: set[str] = set()

    def add(
        self, conversation: Conversation, message_id: str, info: Any, parts: list[tuple[str, Any]]
    ) -> None:
        """Add one message's records; its parts are whole, `info` may be _DAMAGED."""
        if not isinstance(info, dict):
            self.skipped += info is _DAMAGED
            return
        found = records(conversation, message_id, info, parts)
        if not found:
            return
        line, masker = self.state.line, self.masker
        for record in found:
            line += 1
            self.batch.append((line, masked(masker, record)))
        self.state.line = line
        self.roots.add(conversation.session_id)

    def parsed(self, rows: Iterable[tuple[str, bytes]]) -> list[tuple[str, Any]]:
        """The parts of `rows` that are JSON objects; the others are counted."""
        parts = []
        for part_id, data in rows:
            value = _loads(data)
            if value is _DAMAGED:
                self.skipped += 1
            else:
                parts.append((part_id, value))
        return parts

    def titles(self, titles: list[Title]) -> None:
        for title in titles:
            self.batch.append((0, masked(self.masker, title)))

    def full(self) -> Iterator[FileBatch]:
        if len(self.batch) >= BATCH:
            yield self._take(replace(self.state))

    def last(self) -> FileBatch:
        return self._take(replace(self.state))

    def _take(self, state: FileState) -> FileBatch:
        state.skipped += self.skipped
        self.state.skipped += self.skipped
        batch = FileBatch(state, self.batch, self.project, self.skipped, agent="opencode")
        self.batch, self.skipped = [], 0
        return batch


def _chunks(ids: list[str]) -> Iterator[list[str]]:
    for start in range(0, len(ids), _CHUNK):
        yield ids[start : start + _CHUNK]
