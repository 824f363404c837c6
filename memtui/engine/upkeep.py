"""Keeping the archive current and sound: ingest, follow, reindex, doctor, stats."""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable
from contextlib import nullcontext
from datetime import UTC, datetime
from pathlib import Path

from memtui.config import Config
from memtui.engine import inferences, sessions, work_index
from memtui.engine.types import AGENT_NAMES, DoctorReport, Stats
from memtui.errors import Busy
from memtui.ingest import pipeline, watcher
from memtui.ingest.pipeline import IngestReport
from memtui.ingest.sources import Source
from memtui.ingest.sources.registry import CLAUDE_CODE, active
from memtui.progress import Meter, OnProgress, cancelled
from memtui.store import signals as signal_store
from memtui.store.archive import Archive
from memtui.store.db import translated
from memtui.store.indexes import FTS_DIR, Indexes
from memtui.store.locks import FileLock, file_lock
from memtui.store.mask import Masker, count_markers
from memtui.store.note_index import NoteIndexes
from memtui.store.remask import REBUILD, mask_store

log = logging.getLogger(__name__)

FULL_TEXT_EVERY = 1.5  # seconds between full-text catch-ups while a full scan reads
FULL_TEXT_FIRST = 0.5  # ... before the first: what is stored is searchable at once


# Where doctor counts masked secrets: each query's rows hold a marker (the parameter).
_MASKED_TEXTS = (
    "SELECT text, thinking, tool_calls, tool_output FROM messages "
    "WHERE instr(text || thinking || tool_calls || tool_output, ?) > 0",
    "SELECT title, body FROM notes WHERE instr(title || body, ?) > 0",
    "SELECT summary_title, custom_title FROM sessions "
    "WHERE instr(coalesce(summary_title, '') || coalesce(custom_title, ''), ?) > 0",
    "SELECT title FROM pending_titles WHERE instr(title, ?) > 0",
)


class Upkeep:
    """The writer's side. One writer at a time per data dir, thread or process: each takes
    `ingest.lock` through a descriptor of its own, and flock serialises those even within
    one process. Reads never wait for it; a forget waits for one batch at most."""

    def __init__(
        self,
        config: Config,
        archive: Archive,
        indexes: Callable[[], Indexes],
        reader: Callable[[], sqlite3.Connection],
        masker: Masker,
        notes: Callable[[], NoteIndexes] | None = None,
    ) -> None:
        self.config = config
        self.masker = masker
        self._archive = archive
        self._indexes = indexes
        self._conn = reader
        self._notes = notes

    def ingest(
        self,
        source: Path | None = None,
        paths: list[Path] | None = None,
        *,
        on_progress: OnProgress | None = None,
        cancel: threading.Event | None = None,
        wait: bool = True,
        index: bool = True,
    ) -> IngestReport | None:
        """Archive what is new in every agent's files (or Claude Code's under `source` only,
        or just the changed `paths`) and index it.

        Another process ingesting: with `wait`, wait for it; without, return None at once.
        `cancel` stops between batches, keeping every batch already written.
        """
        targets = self._targets(source)
        held = FileLock(self.config.data_dir / "ingest.lock")
        with translated(self.config.db_path):
            if not held.acquire(blocking=wait):
                return None
            try:
                sessions.retitle(self._archive.conn)
                if index and paths is None:
                    report = self._ingest_searchable(targets, on_progress, cancel, held)
                else:
                    report = self._read(targets, paths, on_progress, cancel, held)
                self._record_ingest(report)
                if not report.cancelled:
                    work_index.catch_up(self._archive.conn, cancel=cancel, held=held)
                if index and not report.cancelled:
                    self._indexes().catch_up(on_progress, cancel, held)
                    report.cancelled = cancelled(cancel)
            finally:
                held.release()
        return report

    def folders(self, source: Path | None = None) -> list[tuple[str, Path]]:
        """The agents whose files are read, each with where; Claude Code's alone when
        `source` (`--source`) names its folder."""
        return [(src.agent, root) for src, root in self._targets(source)]

    def set_but_empty(self, report: IngestReport) -> list[tuple[str, Path, str]]:
        """The agents whose folder the person set (MEMTUI_<AGENT>_DIR) but where the last full
        scan found no conversation, each as (setting, folder, what it should hold): a folder
        named one level off reads as an agent with no history."""
        environ = self.config.environ or {}
        return [
            (src.env, root, f"{AGENT_NAMES[src.agent]} keeps {src.holds}")
            for src, root in self._targets(None)
            if src.agent in report.empty and environ.get(src.env, "").strip()
        ]

    def _targets(self, source: Path | None) -> list[tuple[Source, Path]]:
        if source is not None:
            return [(CLAUDE_CODE, source)]
        return active(self.config.claude_dir, self.config.environ)

    def _read(
        self,
        targets: list[tuple[Source, Path]],
        paths: list[Path] | None,
        on_progress: OnProgress | None,
        cancel: threading.Event | None,
        held: FileLock,
    ) -> IngestReport:
        """Each agent's new records in turn. Changed `paths` go to the agent whose folder
        holds them: Claude Code's reader reads just those, another agent's looks at all its
        files (its checkpoints skip what it has)."""
        report = IngestReport()
        for src, root in targets:
            mine = None if paths is None else [p for p in paths if p.is_relative_to(root)]
            if mine is not None and not mine:
                continue
            part = pipeline.ingest(
                self._archive,
                root,
                mine if src is CLAUDE_CODE else None,
                on_progress,
                cancel,
                masker=self.masker,
                held=held,
                source=src,
            )
            if paths is None and not part.files_seen and not part.unreadable:
                part.empty.append(src.agent)
            report.add(part)
            if report.cancelled:
                break
        return report

    def _ingest_searchable(
        self,
        targets: list[tuple[Source, Path]],
        on_progress: OnProgress | None,
        cancel: threading.Event | None,
        held: FileLock,
    ) -> IngestReport:
        """A full scan with the full-text index following the store a batch behind, so a
        first run of a large archive finds words within seconds, not after the last file."""
        read = threading.Event()

        def follow_full_text() -> None:
            wait = FULL_TEXT_FIRST
            try:
                while not read.wait(wait) and not cancelled(cancel):
                    self._indexes().catch_up_fts(cancel=read)
                    wait = FULL_TEXT_EVERY
            except Exception:  # the catch-up after the read meets it again, and reports it
                log.warning("the full text did not follow the first read", exc_info=True)

        follower = threading.Thread(target=follow_full_text, name="fts-follow", daemon=True)
        follower.start()
        try:
            return self._read(targets, None, on_progress, cancel, held)
        finally:
            read.set()
            held.join(follower)  # its batch under way may take seconds: a forget goes first

    def _record_ingest(self, report: IngestReport) -> None:
        now = datetime.now(UTC).isoformat(timespec="seconds")
        conn = self._archive.conn
        conn.executemany(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)",
            [("last_ingest", now), ("unreadable_files", str(len(report.unreadable)))],
        )

    def follow(
        self,
        source: Path | None = None,
        stop: threading.Event | None = None,
        on_ingest: Callable[[IngestReport], None] | None = None,
    ) -> None:
        """Ingest and index on every change in the agents' files (Claude Code's under
        `source` only, when given) until `stop` is set. Another process already ingesting is
        left to it: this one waits its turn, change by change."""

        def changed(paths: list[Path] | None) -> None:
            report = self.ingest(source, paths, cancel=stop)
            if report is not None and on_ingest is not None:
                on_ingest(report)

        targets = self._targets(source)
        claude = [root for src, root in targets if src is CLAUDE_CODE]
        others = [root for src, root in targets if src is not CLAUDE_CODE]
        watcher.follow(claude, others, changed, stop)

    def reindex(
        self, on_progress: OnProgress | None = None, cancel: threading.Event | None = None
    ) -> bool:
        """Rebuild both indexes from the store beside the old ones, swapped in on success.
        False if cancelled (the old indexes stay as they were)."""
        lock = file_lock(self.config.data_dir / "ingest.lock", blocking=False)
        with translated(self.config.db_path), lock as held:
            if not held:
                raise Busy(
                    "another memtui is indexing this data dir",
                    "wait for it to finish, then run memtui reindex again",
                )
            done = self._indexes().rebuild(on_progress, cancel)
            if done and self._notes is not None:
                self._notes().rebuild()
            if done:
                work_index.rebuild(self._archive.conn, on_progress)
            return done

    def doctor(self, repair: bool = False) -> DoctorReport:
        """SQLite's integrity check, then what each index lacks or has too many of; with
        `repair`, fixed and checked again."""
        with translated(self.config.db_path):
            rows = [r[0] for r in self._conn().execute("PRAGMA integrity_check").fetchall()]
            store = "ok" if rows == ["ok"] else "; ".join(rows[:5])
            if store != "ok":
                return DoctorReport(store)
            indexes = self._indexes()
            diff = indexes.differences()
            notes = self._notes() if self._notes is not None else None
            if notes is not None:
                diff |= notes.differences()
            diff["work"] = work_index.differences(self._conn())
            other_model = indexes.other_model
            if repair and any(m or e for m, e in diff.values()):
                indexes.repair(diff)
                after = indexes.differences()
                if notes is not None:
                    notes.repair(diff)
                    after |= notes.differences()
                if any(diff["work"]):
                    self._rebuild_work()
                after["work"] = work_index.differences(self._conn())
                return DoctorReport(store, after, repaired=True)
            return DoctorReport(store, diff, other_model=other_model, to_embed=indexes.to_embed())

    def _rebuild_work(self) -> None:
        """The work index derived again, under the writer's lock (doctor holds none)."""
        with file_lock(self.config.data_dir / "ingest.lock"):
            work_index.rebuild(self._archive.conn)

    def work_behind(self) -> bool:
        """Whether messages are stored that the work index has not read (an archive from
        before it, or an older memtui ingested)."""
        return work_index.behind(self._archive.conn)

    def catch_up_work(self, on_progress: OnProgress | None = None) -> None:
        """Read what the work index has not (the caller holds the writer's lock)."""
        with translated(self.config.db_path):
            work_index.catch_up(self._archive.conn, on_progress)

    # -- upgrades a crash or a new release left to do ---------------------------------------

    def upgrade_pending(self) -> bool:
        """Whether the store holds texts from before masking (and masking is on)."""
        row = self._archive.conn.execute(
            "SELECT value FROM meta WHERE key = 'mask_pending'"
        ).fetchone()
        return self.masker.enabled and row is not None and row[0] == "1"

    def mask_archive(self, on_progress: OnProgress | None = None, locked: bool = False) -> int:
        """Mask an archive stored before masking, in place, then rebuild every index from the
        masked store (the old index files go): the migration's work, done once. Returns the
        messages that held secrets. Another process doing it: this one waits (unless the
        caller holds the writer's lock already, `locked`)."""
        lock = nullcontext() if locked else file_lock(self.config.data_dir / "ingest.lock")
        with translated(self.config.db_path), lock:
            if not self.upgrade_pending():
                return 0
            conn = self._archive.conn
            changed, notes = mask_store(conn, self.masker, Meter("masking", on_progress))
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (REBUILD,)).fetchone()
            if row is not None and row[0] == "1":
                if (self.config.index_dir / FTS_DIR).exists():
                    self._indexes().rebuild(on_progress)
                if self._notes is not None and (self.config.index_dir / "notes").exists():
                    self._notes().rebuild()
                work_index.rebuild(conn)  # its rows copied texts from before the masking
            conn.execute("UPDATE meta SET value = '0' WHERE key IN ('mask_pending', ?)", (REBUILD,))
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            log.info(
                "masked an archive made before masking: %d messages and %d notes held secrets",
                changed,
                notes,
            )
            return changed

    def masked_counts(self) -> dict[str, int]:
        """How many secrets the store holds masked, by kind (never the values): in messages,
        notes and session titles (a first prompt is its message's copy, counted there)."""
        with translated(self.config.db_path):
            conn = self._conn()
            texts = (
                t
                for sql in _MASKED_TEXTS
                for row in conn.execute(sql, ("\u2039secret:",))
                for t in row
                if t is not None
            )
            return dict(sorted(count_markers(texts).items()))

    def stats(self) -> Stats:
        with translated(self.config.db_path):
            conn = self._conn()

            def one(sql: str) -> int:
                return conn.execute(sql).fetchone()[0]

            def meta(key: str) -> str | None:
                row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
                return row[0] if row else None

            return Stats(
                projects=one("SELECT count(*) FROM projects"),
                sessions=one("SELECT count(*) FROM sessions"),
                archived_sessions=one("SELECT count(*) FROM sessions WHERE archived = 1"),
                messages=one("SELECT count(*) FROM messages"),
                by_kind=dict(conn.execute("SELECT kind, count(*) FROM messages GROUP BY kind")),
                files=one("SELECT count(*) FROM files"),
                skipped_lines=one("SELECT coalesce(sum(skipped), 0) FROM files"),
                unreadable_files=int(meta("unreadable_files") or 0),
                last_ingest=meta("last_ingest"),
                data_dir=str(self.config.data_dir),
                store_bytes=sum(
                    p.stat().st_size
                    for p in self.config.data_dir.glob(self.config.db_path.name + "*")
                ),
                notes=dict(conn.execute("SELECT layer, count(*) FROM notes GROUP BY layer")),
                signals=signal_store.counts(conn, datetime.now(UTC).isoformat()),
                inferences=dict(Counter(i.status for i in inferences.checked(conn, None))),
                index=self._indexes().health(),
            )
