"""The one engine every front end talks to: ingestion, sessions, search, stats."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from memtui import config as configuration
from memtui.engine import render, sessions
from memtui.engine.search import Searcher, SearchResponse
from memtui.engine.types import MessageView, ProjectInfo, SessionInfo, SessionPage
from memtui.ingest import pipeline, watcher
from memtui.ingest.pipeline import IngestReport, Progress
from memtui.store.archive import Archive
from memtui.store.indexes import Indexes, IndexHealth
from memtui.store.indexes import Progress as IndexProgress
from memtui.store.locks import file_lock


@dataclass(slots=True)
class Stats:
    projects: int
    sessions: int
    archived_sessions: int
    messages: int
    by_kind: dict[str, int]
    files: int
    skipped_lines: int
    last_ingest: str | None
    data_dir: str
    store_bytes: int
    index: IndexHealth | None = None


class Memory:
    """Opens the data dir once; safe to share between threads."""

    def __init__(self, cfg: configuration.Config | None = None) -> None:
        self.config = cfg or configuration.load()
        configuration.setup_logging(self.config)
        configuration.private_dir(self.config.data_dir)
        self.archive = Archive(self.config.db_path)
        self._lock = threading.RLock()  # one sqlite connection: one user at a time
        self._open_lock = threading.Lock()  # not _lock: a search must not wait for an ingest
        self._indexes: Indexes | None = None
        self._searcher: Searcher | None = None

    def close(self) -> None:
        if self._indexes is not None:
            self._indexes.conn.close()
        self.archive.close()

    @property
    def _conn(self) -> sqlite3.Connection:
        return self.archive.conn

    @property
    def indexes(self) -> Indexes:
        return self._open()[0]

    @property
    def searcher(self) -> Searcher:
        return self._open()[1]

    def _open(self) -> tuple[Indexes, Searcher]:
        """The indexes and their searcher, opened on first use on a connection of their own:
        a long catch-up or ingest transaction never blocks a search."""
        with self._open_lock:
            if self._indexes is None or self._searcher is None:
                self._indexes = Indexes(self.config.index_dir, self.config.db_path)
                self._searcher = Searcher(self._indexes.conn, self._indexes)
            return self._indexes, self._searcher

    # -- ingestion ------------------------------------------------------------------------

    def ingest(
        self,
        source: Path | None = None,
        paths: list[Path] | None = None,
        progress: Progress | None = None,
        wait: bool = True,
        index: bool = True,
        index_progress: IndexProgress | None = None,
    ) -> IngestReport | None:
        """Read what is new and index it. One process ingests at a time: None if another
        is and `wait` is false."""
        root = source or self.config.claude_dir
        with file_lock(self.config.data_dir / "ingest.lock", blocking=wait) as held:
            if not held:
                return None
            with self._lock:
                report = pipeline.ingest(self.archive, root, paths, progress)
                now = datetime.now(UTC).isoformat(timespec="seconds")
                self._conn.execute("INSERT OR REPLACE INTO meta VALUES ('last_ingest', ?)", (now,))
            if index:
                self.indexes.catch_up(index_progress)
        return report

    def follow(
        self,
        source: Path | None = None,
        stop: threading.Event | None = None,
        on_ingest: Callable[[IngestReport], None] | None = None,
        index: bool = True,
    ) -> None:
        """Ingest (and index) on every change under `source` until `stop` is set."""
        root = source or self.config.claude_dir

        def changed(paths: list[Path] | None) -> None:
            report = self.ingest(root, paths, index=index)
            if report is not None and on_ingest is not None:
                on_ingest(report)

        watcher.follow(root, changed, stop)

    # -- sessions -------------------------------------------------------------------------

    def resolve_session(self, session_id: str) -> str:
        with self._lock:
            return sessions.resolve(self._conn, session_id)

    def get_session(
        self,
        session_id: str,
        offset: int = 0,
        limit: int = 10,
        order: str = "asc",
        search: str | None = None,
    ) -> SessionPage:
        with self._lock:
            return sessions.get_session(self._conn, session_id, offset, limit, order, search)

    def session_markdown(self, session_id: str) -> str:
        with self._lock:
            info, messages = sessions.all_messages(self._conn, session_id)
        return render.session_markdown(info, messages)

    def read_session(
        self, session_id: str, start_line: int | None = None, end_line: int | None = None
    ) -> str:
        return render.numbered(self.session_markdown(session_id), start_line, end_line)

    def session_json(self, session_id: str) -> tuple[SessionInfo, list[MessageView]]:
        with self._lock:
            return sessions.all_messages(self._conn, session_id)

    def recent_sessions(self, cwd: str | None = None, limit: int = 5) -> list[SessionInfo]:
        with self._lock:
            return sessions.recent_sessions(self._conn, cwd, limit)

    def list_projects(self) -> list[ProjectInfo]:
        with self._lock:
            return sessions.list_projects(self._conn)

    # -- search ---------------------------------------------------------------------------

    def search(
        self,
        query: str | list[str],
        mode: str = "hybrid",
        *,
        project: str | None = None,
        cwd: str | None = None,
        session: str | None = None,
        role: str | None = None,
        after: str | None = None,
        before: str | None = None,
        limit: int = 10,
        offset: int = 0,
    ) -> SearchResponse:
        """Search the archive; `cwd` is another name for `project` (a working directory)."""
        searcher = self.searcher
        filt = searcher.filters(project or cwd, session, role, after, before)
        return searcher.search(query, mode, filt, limit, offset)

    def reindex(self, progress: IndexProgress | None = None) -> None:
        self.indexes.rebuild(progress)

    def doctor(self, repair: bool = False) -> dict[str, tuple[set[int], set[int]]]:
        """Differences between the store and each index; with `repair`, fixed, then re-checked."""
        diff = self.indexes.differences()
        if repair and any(missing or extra for missing, extra in diff.values()):
            self.indexes.repair(diff)
        return diff

    # -- stats ----------------------------------------------------------------------------

    def stats(self) -> Stats:
        with self._lock:

            def one(sql: str) -> int:
                return self._conn.execute(sql).fetchone()[0]

            by_kind = dict(self._conn.execute("SELECT kind, count(*) FROM messages GROUP BY kind"))
            last = self._conn.execute("SELECT value FROM meta WHERE key = 'last_ingest'").fetchone()
            return Stats(
                projects=one("SELECT count(*) FROM projects"),
                sessions=one("SELECT count(*) FROM sessions"),
                archived_sessions=one("SELECT count(*) FROM sessions WHERE archived = 1"),
                messages=one("SELECT count(*) FROM messages"),
                by_kind=by_kind,
                files=one("SELECT count(*) FROM files"),
                skipped_lines=one("SELECT coalesce(sum(skipped), 0) FROM files"),
                last_ingest=last[0] if last else None,
                data_dir=str(self.config.data_dir),
                store_bytes=sum(
                    p.stat().st_size
                    for p in self.config.data_dir.glob(self.config.db_path.name + "*")
                ),
                index=self.indexes.health(),
            )
