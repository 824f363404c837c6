"""The store of record itself: migrations, WAL, privacy."""

from __future__ import annotations

import platform
import sqlite3
import subprocess
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from memtui.errors import StoreUnavailable
from memtui.store import db, heap


def test_new_store_is_migrated_in_wal_and_private(tmp_path: Path) -> None:
    path = tmp_path / "data" / "memtui.db"
    conn = db.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == db.SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert path.stat().st_mode & 0o077 == 0
    conn.close()
    again = db.connect(path)  # reopening migrates nothing and loses nothing
    assert again.execute("SELECT value FROM meta WHERE key = 'seq'").fetchone()[0] == "0"
    again.close()


def test_store_from_a_newer_memtui_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "memtui.db"
    db.connect(path).close()
    raw = sqlite3.connect(path)
    raw.execute(f"PRAGMA user_version = {db.SCHEMA_VERSION + 1}")
    raw.close()
    with pytest.raises(StoreUnavailable, match="newer memtui"):
        db.connect(path)


def test_migration_statements_keep_a_trigger_body_whole() -> None:
    script = """
        CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
        CREATE TABLE log (note_id INTEGER, what TEXT);
        CREATE TRIGGER notes_changed AFTER UPDATE ON notes BEGIN
            INSERT INTO log VALUES (new.id, 'body; changed');
            DELETE FROM log WHERE note_id < 0;
        END;
    """
    parts = list(db.statements(script))
    assert len(parts) == 3 and parts[2].strip().endswith("END;")
    conn = sqlite3.connect(":memory:")
    for statement in parts:
        conn.execute(statement)
    conn.execute("INSERT INTO notes VALUES (1, 'a')")
    conn.execute("UPDATE notes SET body = 'b'")
    assert conn.execute("SELECT what FROM log").fetchall() == [("body; changed",)]


def test_readers_close_the_connections_of_ended_threads(tmp_path: Path) -> None:
    db.connect(tmp_path / "memtui.db").close()
    readers = db.Readers(tmp_path / "memtui.db")
    for _ in range(20):  # a front end starts a thread per worker
        worker = threading.Thread(target=lambda: readers.get().execute("SELECT 1"))
        worker.start()
        worker.join()
    readers.get()
    assert len(readers._open) <= 2
    readers.close()


_CLOSE_UNDER_A_READ = """
import sqlite3, sys, threading
from pathlib import Path
from memtui.errors import StoreUnavailable
from memtui.store import db

path = Path(sys.argv[1])
db.connect(path).close()
readers = db.Readers(path)
reading, outcome = threading.Event(), []

def read() -> None:
    conn = readers.get()
    # Set once the statement runs: an interrupt before it starts would be no interrupt.
    conn.set_progress_handler(lambda: reading.set(), 1000)
    try:  # a read that takes minutes unless interrupted
        conn.execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
            "SELECT count(*) FROM n WHERE i < 10000000000"
        ).fetchone()
        outcome.append("finished")
    except sqlite3.OperationalError as exc:
        outcome.append(str(exc))

worker = threading.Thread(target=read)
worker.start()
reading.wait()
readers.close()
worker.join(30)
try:
    readers.get()
except StoreUnavailable as exc:
    outcome.append(exc.line())
print(outcome)
"""


def test_closing_the_readers_under_a_running_read_neither_crashes_nor_waits(
    tmp_path: Path,
) -> None:
    """A front end quit while a worker thread read: closing that thread's connection under
    its statement crashed the process (a segfault in a TUI test). The read is interrupted,
    and the connection is closed by the thread that holds it."""
    done = subprocess.run(
        [sys.executable, "-c", _CLOSE_UNDER_A_READ, str(tmp_path / "memtui.db")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    outcome = done.stdout.strip()
    assert outcome.startswith("['interrupted', ") and "was closed" in outcome, outcome


def _open_at_once(path: str, start: float) -> str:
    from memtui.errors import MemtuiError

    while time.monotonic() < start:
        pass
    try:
        db.connect(Path(path)).close()
    except MemtuiError as exc:
        return exc.line()
    return "ok"


def test_processes_opening_a_new_store_at_once_all_get_it(tmp_path: Path) -> None:
    """Switching a new file to WAL tells a second opener "locked" at once, busy_timeout or
    not; each open must wait its turn instead (2 % of simultaneous starts failed)."""
    with ProcessPoolExecutor(2) as pool:
        pool.submit(int).result()  # both workers up before the clock starts
        for n in range(60):
            path = str(tmp_path / f"store-{n}.db")
            start = time.monotonic() + 0.05
            opened = [pool.submit(_open_at_once, path, start) for _ in range(2)]
            assert [f.result() for f in opened] == ["ok", "ok"]


def test_freed_heap_goes_back_to_the_system_on_glibc() -> None:
    """A catch-up trims glibc's arenas after each full-text batch; elsewhere it is a no-op."""
    if platform.libc_ver()[0] == "glibc":
        assert heap._TRIM is not None
    heap.release()
