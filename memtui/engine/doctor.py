"""Doctor on a store that cannot be opened: what SQLite's integrity check says, what a recovery
would lose, and the recovery itself.

The recovery moves the damaged file aside (kept), reads from it what only the store holds (the
notes with their tags and links, rules' status, decisions on signals, inferences) table by
table and row by row past the pages that cannot be read, into an export file; makes a new
store holding every forget (the damaged file's tombstones where they can be read, and always
those of `forget-receipts.jsonl`), so that the rebuild from the transcripts never brings back
a forgotten session, nor a session of a forgotten project; then imports the export file into
it and ingests the transcripts (`rebuild_store`).

Runs without a Memory: a damaged or emptied `memtui.db` is exactly when the person needs it.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import sqlite3
from collections.abc import Callable, Collection
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from memtui.config import Config
from memtui.engine.forget import RECEIPTS
from memtui.engine.inferences import Portable
from memtui.engine.notes_types import Note
from memtui.engine.transfer import export_jsonl, inference_record, signal_record
from memtui.errors import InvalidArgument
from memtui.progress import OnProgress
from memtui.store import access, db
from memtui.store.db import DAMAGED_MARK
from memtui.store.notes import COLUMNS as NOTE_COLUMNS
from memtui.store.notes import row as note_row
from memtui.store.signals import EvidenceRow, InferenceRow, SignalRow
from memtui.words import counted

if TYPE_CHECKING:
    from memtui.ingest.pipeline import IngestReport

_CHECK_LINES = 20
_BUSY_MS = 5000  # how long doctor waits for a lock another process holds on the store
_AUTOINCREMENT = {"notes", "signals", "inferences"}
_SIGNAL_COLUMNS = (
    "id, type, fingerprint, title, detail, note_ids, message_ids, status, snooze_until, "
    "created, updated"
)


@dataclass(slots=True)
class Salvage:
    """What a damaged store still holds that the transcripts do not."""

    notes: list[Note] = field(default_factory=list)
    triage: list[SignalRow] = field(default_factory=list)  # signals decided on
    inferences: list[Portable] = field(default_factory=list)
    # Rows that could not be read, by what they are; None: how many cannot be told.
    lost: dict[str, int | None] = field(default_factory=dict)
    forgotten: dict[str, str] = field(default_factory=dict)  # session id: its files (JSON)
    blocked: set[str] = field(default_factory=set)  # forgotten projects still blocked

    def saved(self) -> str:
        return (
            f"{counted(len(self.notes), 'note')} (with their tags and links), "
            f"{counted(len(self.triage), 'decision')} on signals, "
            f"{counted(len(self.inferences), 'inference')}"
        )

    def forgets(self) -> str:
        return (
            f"{counted(len(self.forgotten), 'session')}, {counted(len(self.blocked), 'project')}"
            f" (from it and {RECEIPTS})"
        )

    def lost_text(self) -> str:
        """The rows that could not be read, each kind named even when none was lost."""
        return (
            ", ".join(
                counted(n, what) if n is not None else f"every {what} (unreadable)"
                for what, n in self.lost.items()
            )
            + " in pages that cannot be read"
        )


@dataclass(slots=True)
class StoreCheck:
    state: str  # "ok" | "new" (no store yet) | "empty" (a zero-byte file) | "damaged"
    problems: list[str] = field(default_factory=list)  # SQLite's integrity check, or why
    sessions: int | None = None  # sessions the damaged file still lists (None: unreadable)
    lost: int | None = None  # of them, those whose transcripts are gone (a rebuild loses them)
    transcripts: int = 0  # transcript files on disk a rebuild reads
    salvage: Salvage | None = None  # a damaged file: what a recovery keeps from it


@dataclass(slots=True)
class Recovery:
    aside: Path  # where the damaged store went
    salvage: Salvage
    export: Path  # the salvaged notes, decisions and inferences, for memory.transfer.import_


@dataclass(slots=True)
class Rebuilt:
    aside: Path  # where the damaged store went, kept
    salvage: Salvage
    not_saved: str  # why the salvage could not be imported ("" when it was)
    export: Path  # when it could not: the salvage, to fix and import by hand
    report: IngestReport  # the ingest that rebuilt the archive from the transcripts


def check_store(config: Config) -> StoreCheck:
    """The store file as SQLite sees it, read-only, whatever state it is in. A data dir
    memtui cannot use as it stands (another user's, on a read-only file system, a mode
    without write) is StoreUnavailable, saying what to do: it is not damage, and moving
    such a store aside to rebuild it would lose what only it holds."""
    problem = access.unavailable(config.data_dir)
    if problem is not None:
        raise problem
    path = config.db_path
    transcripts = _transcripts(config.claude_dir)
    if not path.exists():
        return StoreCheck("new", transcripts=transcripts)
    if path.stat().st_size == 0:
        return StoreCheck(
            "empty",
            [f"{path} is 0 bytes: the archive it held is gone (a truncated or replaced file)"],
            transcripts=transcripts,
            salvage=salvage(config, path),
        )
    try:
        conn = db.read_only(path, _BUSY_MS)
    except sqlite3.Error as exc:
        _not_the_files(config, exc)
        return StoreCheck(
            "damaged", [str(exc)], transcripts=transcripts, salvage=salvage(config, path)
        )
    try:
        try:
            rows = [r[0] for r in conn.execute(f"PRAGMA integrity_check({_CHECK_LINES})")]
        except sqlite3.DatabaseError as exc:
            _not_the_files(config, exc)
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
    return StoreCheck("damaged", rows, sessions, lost, transcripts, salvage(config, path))


def _not_the_files(config: Config, exc: sqlite3.Error) -> None:
    """Raise StoreUnavailable when SQLite could not read the store for a reason of the
    disk's (full: it could not even read a WAL store) rather than the file's bytes."""
    if isinstance(exc, sqlite3.OperationalError) and "malformed" not in str(exc):
        problem = db.unusable(config.data_dir, exc)
        if problem is not None:
            raise problem from exc


def recover_store(config: Config, found: Salvage) -> Recovery:
    """Move the store (and its WAL) aside, keeping it; save what only it holds (`found`, the
    check's salvage: read once) to an export file beside it; drop the indexes built from it;
    make a new store holding every forget. The caller then imports `export` and ingests the
    transcripts into the new store."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    aside = config.db_path.with_name(f"{config.db_path.name}.damaged-{stamp}")
    for suffix in ("", "-wal", "-shm"):
        source = Path(str(config.db_path) + suffix)
        if source.exists():
            os.replace(source, Path(str(aside) + suffix))
    shutil.rmtree(config.index_dir, ignore_errors=True)
    (config.data_dir / DAMAGED_MARK).unlink(missing_ok=True)
    export = config.data_dir / f"notes-salvaged-{stamp}.jsonl"
    extra = [signal_record(r) for r in found.triage]
    extra += [inference_record(i) for i in found.inferences]
    export_jsonl(export, found.notes, False, extra)
    os.chmod(export, 0o600)
    now = datetime.now(UTC).isoformat(timespec="seconds")
    conn = db.connect(config.db_path)
    try:
        with db.translated(config.db_path):
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany(
                "INSERT OR IGNORE INTO forgotten_sessions VALUES (?, ?, ?)",
                [(sid, files, now) for sid, files in found.forgotten.items()],
            )
            conn.executemany(
                "INSERT OR IGNORE INTO blocked_projects VALUES (?, ?)",
                [(path, now) for path in found.blocked],
            )
            conn.execute("COMMIT")
    finally:
        conn.close()
    return Recovery(aside, found, export)


def rebuild_store(config: Config, found: Salvage, on_progress: OnProgress | None) -> Rebuilt:
    """The recovery `check_store` offered for a damaged store: move it aside, make a new one
    holding every forget, import what was salvaged from the damaged one, ingest the
    transcripts on disk."""
    from memtui.engine.memory import Memory

    recovery = recover_store(config, found)
    not_saved = ""
    with Memory(config) as memory:
        try:
            memory.transfer.import_(recovery.export, "overwrite")
            recovery.export.unlink()  # no copy a later forget would miss
        except InvalidArgument as exc:  # damaged bytes that read as a bad note
            not_saved = str(exc)
        report = memory.upkeep.ingest(on_progress=on_progress)
    assert report is not None  # a waiting ingest always runs
    return Rebuilt(recovery.aside, found, not_saved, recovery.export, report)


def clear_damage_mark(config: Config) -> None:
    """The store checked whole again: commands may open it."""
    (config.data_dir / DAMAGED_MARK).unlink(missing_ok=True)


def salvage(config: Config, path: Path) -> Salvage:
    """What a recovery keeps from the store file at `path` (read-only) and the receipts."""
    out = Salvage()
    receipts = _receipts(config.data_dir / RECEIPTS)
    try:
        conn = db.read_only(path, _BUSY_MS)
    except sqlite3.Error:
        conn = None
    if conn is None or path.stat().st_size == 0:
        out.lost = {"note": None, "signal": None, "inference": None}
        projects_read = False
    else:
        try:
            # A file shorter than its header says (truncated) is refused whole without this;
            # the connection is read-only, so nothing is written.
            conn.execute("PRAGMA writable_schema = ON")
            projects_read = _read_store(conn, out, receipts)
        finally:
            conn.close()
    for receipt in receipts:
        sessions = receipt.get("session_ids")
        for sid in sessions if isinstance(sessions, list) else []:
            out.forgotten.setdefault(str(sid), "[]")
        # A project lifted since (`--undo`) is not in a readable blocked_projects: it stays
        # lifted; when that table cannot be read, every forgotten project is blocked again.
        if receipt.get("what") == "project" and not projects_read:
            out.blocked.add(str(receipt.get("target")))
    forgotten_notes = {str(r.get("target")) for r in receipts if r.get("what") == "note"}
    out.notes = [n for n in out.notes if str(n.id) not in forgotten_notes]
    return out


def _read_store(conn: sqlite3.Connection, out: Salvage, receipts: list[dict]) -> bool:
    """Read the tombstones (adding to `receipts` the forgets cut short before writing theirs),
    notes, decisions and inferences, each as far as it can be. Whether the forgotten projects
    could be read."""
    with suppress(sqlite3.DatabaseError):  # the receipts name every session forgotten too
        out.forgotten.update(conn.execute("SELECT session_id, files FROM forgotten_sessions"))
    try:
        out.blocked.update(p for (p,) in conn.execute("SELECT path FROM blocked_projects"))
        projects_read = True
    except sqlite3.DatabaseError:
        projects_read = False
    pending, _ = _rows(conn, "forget_pending", "id, receipt")
    cut_short, _ = _converted(pending, lambda r: orjson.loads(r[1]))
    receipts += [r for r in cut_short if isinstance(r, dict)]
    gone: set[int] = set()
    with suppress(sqlite3.DatabaseError):
        gone = {i for (i,) in conn.execute("SELECT id FROM notes_gone")}
    rows, missed = _rows(conn, "notes", NOTE_COLUMNS, gone)
    out.notes, bad = _converted(rows, _note)
    out.lost["note"] = None if missed is None else missed + bad
    signals, missed = _rows(conn, "signals", _SIGNAL_COLUMNS)
    decided, bad = _converted(signals, _signal)
    prints = {s.id: s.fingerprint for s in decided}
    out.triage = [s for s in decided if s.status != "new"]
    out.lost["signal"] = None if missed is None else missed + bad
    rows, missed = _rows(conn, "inferences", "id, title, summary, confidence, signal_id, created")
    found, bad = _converted(rows, lambda r: InferenceRow(*r))
    unread = 0
    for row in found:
        try:
            evidence = [
                EvidenceRow(*e)
                for e in conn.execute(
                    "SELECT kind, ref, title, text, hash FROM inference_evidence "
                    "WHERE inference_id = ? ORDER BY kind DESC, CAST(ref AS INTEGER), ref",
                    (row.id,),
                )
            ]
        except sqlite3.DatabaseError:
            unread += 1  # an inference without its evidence cannot be checked: lost
            continue
        out.inferences.append(Portable(row, evidence, prints.get(row.signal_id or 0)))
    out.lost["inference"] = None if missed is None else missed + bad + unread
    return projects_read


def _rows(
    conn: sqlite3.Connection, table: str, columns: str, gone: Collection[int] = ()
) -> tuple[list[tuple], int | None]:
    """The rows of a rowid table that can be read, by rowid, and how many could not (ids in
    the unreadable stretches, less `gone`: ids known deleted); None when nothing can say."""
    try:
        (top,) = conn.execute(f"SELECT max(rowid) FROM {table}").fetchone()
    except sqlite3.DatabaseError:
        try:
            row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = ?", (table,))
            # An AUTOINCREMENT table gets its row there with its first row: none, never one.
            top = (row.fetchone() or (0 if table in _AUTOINCREMENT else None,))[0]
        except sqlite3.DatabaseError:
            top = None
    out: list[tuple] = []
    missed = 0
    start = 1
    while top is None or start <= top:
        try:
            for r in conn.execute(
                f"SELECT rowid, {columns} FROM {table} WHERE rowid >= ? ORDER BY rowid", (start,)
            ):
                out.append(r[1:])
                start = r[0] + 1
            return out, missed
        except sqlite3.DatabaseError:
            if top is None:
                return out, None
            after = _next_readable(conn, table, start, top)
            missed += after - start - sum(start <= i < after for i in gone)
            start = after
    return out, missed


def _next_readable(conn: sqlite3.Connection, table: str, start: int, top: int) -> int:
    """The first rowid from `start` on whose page can be reached (past `top`: none)."""

    def reads(at: int) -> bool:
        try:
            conn.execute(f"SELECT rowid FROM {table} WHERE rowid >= ? LIMIT 1", (at,)).fetchone()
            return True
        except sqlite3.DatabaseError:
            return False

    step = 1
    while start + step <= top and not reads(start + step):
        step *= 2
    low, high = start + step // 2, min(start + step, top + 1)  # low fails, high reads (or past)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if reads(middle) else (middle, high)
    return high


def _converted(rows: list[tuple], make: Callable[[tuple], object]) -> tuple[list, int]:
    """Each row as its record; a row whose damaged bytes do not make one is counted."""
    out = []
    bad = 0
    for r in rows:
        try:
            out.append(make(r))
        except (ValueError, TypeError, IndexError):
            bad += 1
    return out, bad


def _note(r: tuple) -> Note:
    note = Note(*dataclasses.astuple(note_row(r)))
    if not isinstance(note.id, int) or note.id < 1 or None in (note.title, note.body, note.layer):
        raise ValueError("a row torn to nulls")  # an import would refuse the whole file for it
    return note


def _signal(r: tuple) -> SignalRow:
    return SignalRow(*[*r[:5], orjson.loads(r[5]), orjson.loads(r[6]), *r[7:]])


def _receipts(path: Path) -> list[dict]:
    """Every forget's receipt (a torn last line left out)."""
    try:
        lines = path.read_bytes().splitlines()
    except FileNotFoundError:
        return []
    out = []
    for line in lines:
        try:
            receipt = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(receipt, dict):
            out.append(receipt)
    return out


def _transcripts(root: Path) -> int:
    try:
        return sum(1 for _ in root.glob("*/*.jsonl")) + sum(
            1 for _ in root.glob("*/*/subagents/*.jsonl")
        )
    except OSError:  # a folder this user cannot read: none a rebuild could read either
        return 0
