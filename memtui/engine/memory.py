"""The one engine every front end talks to.

Memory is the composition root: it owns the store's connections, the indexes and their
locks, and hands out small domain services that hold the operations:

- `memory.history`: projects, sessions, messages, search (reads only);
- `memory.upkeep`: ingest, follow, reindex, doctor, stats (the writer's side).

Threading contract:
- Every history call, and `upkeep.stats`, may run on any thread, any number at once: each
  thread reads on its own SQLite connection (WAL), so reads see the last commit and never
  wait for a writer, in this process or another.
- Writes (`ingest`, `follow`, `reindex`, `doctor --repair`) take the process's write lock
  and the data dir's `ingest.lock`: run them from one worker thread. They may run while
  reads go on; `cancel` (a threading.Event) stops them between batches with nothing lost.
- A search never builds an index: while this process's writer is busy with the vectors,
  hybrid search answers from full text alone and says so.
- `close()` once, after every worker has stopped.
"""

from __future__ import annotations

import threading

from memtui.config import Config, private_dir
from memtui.engine.history import History
from memtui.engine.search import Searcher
from memtui.engine.upkeep import Upkeep
from memtui.store.archive import Archive
from memtui.store.db import Readers, translated
from memtui.store.indexes import Indexes


class Memory:
    """Opens one data dir; safe to share between threads (see the module's contract)."""

    def __init__(self, config: Config) -> None:
        self.config = config
        with translated(config.db_path):
            private_dir(config.data_dir)
            self._archive: Archive | None = None
            self._archive_lock = threading.Lock()
            self._archive_now()  # creates or migrates the store before anyone reads it
        self._readers = Readers(config.db_path)
        self._indexes: Indexes | None = None
        self._searcher: Searcher | None = None
        self._open_lock = threading.Lock()
        self.history = History(config.db_path, self._readers.get, self._search)
        self.upkeep = Upkeep(config, self._archive_now, self._index, self._readers.get)

    def _archive_now(self) -> Archive:
        with self._archive_lock:
            if self._archive is None:
                self._archive = Archive(self.config.db_path)
            return self._archive

    def _index(self) -> Indexes:
        """The indexes, opened on first use: a process that only lists sessions never loads
        Tantivy's files or the embedding model."""
        with self._open_lock:
            if self._indexes is None:
                with translated(self.config.db_path):
                    self._indexes = Indexes(
                        self.config.index_dir, self.config.db_path, self.config.model
                    )
            return self._indexes

    def _search(self) -> Searcher:
        with self._open_lock:
            ready = self._searcher
        if ready is not None:
            return ready
        indexes = self._index()
        with self._open_lock:
            if self._searcher is None:
                self._searcher = Searcher(self._readers.get, indexes)
            return self._searcher

    def close(self) -> None:
        if self._indexes is not None:
            self._indexes.close()
        self._readers.close()
        if self._archive is not None:
            self._archive.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
