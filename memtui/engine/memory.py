"""The one engine every front end talks to.

Memory is the composition root: it owns the store's connections, the indexes and their
locks, and hands out small domain services that hold the operations:

- `memory.history`: projects, sessions, messages, search (reads only);
- `memory.upkeep`: ingest, follow, reindex, doctor, stats (the writer's side);
- `memory.notes`: notes, their links, rules and flashbacks (reads and writes; see notes.py);
- `memory.signals`, `memory.inferences`: patterns found, and the person's conclusions;
- `memory.context`, `memory.trace`: context for a session, a draft checked against the record;
- `memory.transfer`: export and import of the notes (JSONL, a Markdown folder; transfer.py);
- `memory.work`: what sessions did: files read and changed, commands run, errors and their
  fixes (work.py; work_index.py derives it from the messages, after each ingest).

Threading contract:
- Every history call, and `upkeep.stats`, may run on any thread, any number at once: each
  thread reads on its own SQLite connection (WAL), so reads see the last commit and never
  wait for a writer, in this process or another.
- Writes (`ingest`, `follow`, `reindex`) take the data dir's `ingest.lock`, which one thread
  of one process holds at a time: run them from one worker thread. They may run while
  reads go on; `cancel` (a threading.Event) stops them between batches with nothing lost.
  A `forget`, from any thread or process, goes in between two batches of an ingest.
- A search never builds an index: while this process's writer is busy with the vectors,
  hybrid search answers from full text alone and says so.
- `close()` once, after every worker has stopped.
"""

from __future__ import annotations

import threading

from memtui.config import Config, private_dir
from memtui.engine.context import Contexts
from memtui.engine.forget import Forgetter, Receipt
from memtui.engine.history import History
from memtui.engine.inferences import Inferences
from memtui.engine.notes import Notes
from memtui.engine.notes_types import Author
from memtui.engine.places import short_id
from memtui.engine.search import Searcher
from memtui.engine.signals import Signals
from memtui.engine.trace import Tracer
from memtui.engine.transfer import Transfer
from memtui.engine.upkeep import Upkeep
from memtui.engine.work import Work
from memtui.errors import MemtuiError
from memtui.progress import OnProgress
from memtui.store.archive import Archive
from memtui.store.db import Readers, translated
from memtui.store.indexes import Indexes
from memtui.store.locks import file_lock
from memtui.store.mask import Masker
from memtui.store.note_index import NoteIndexes


class Memory:
    """Opens one data dir; safe to share between threads (see the module's contract)."""

    def __init__(self, config: Config, *, upgrade: bool = True) -> None:
        self.config = config
        with translated(config.db_path):
            private_dir(config.data_dir)
            self._archive = Archive(config.db_path)  # creates or migrates the store first
            # Every text stored passes this masker: transcripts at ingest, notes when saved.
            self.masker = Masker.load(config.data_dir, config.config_dir, config.mask_secrets)
        self._readers = Readers(config.db_path)
        self._indexes: Indexes | None = None
        self._searcher: Searcher | None = None
        self._open_lock = threading.Lock()
        self.history = History(config.db_path, self._readers.get, self._search)
        self._note_indexes: NoteIndexes | None = None
        self.upkeep = Upkeep(
            config, self._archive, self._index, self._readers.get, self.masker, self._note_index
        )
        self.notes = Notes(config, self._readers.get, self._note_index, self._index, self.masker)
        self.signals = Signals(config, self._readers.get, self._note_index)
        self.inferences = Inferences(config, self._readers.get, self.masker)
        self.context = Contexts(config, self._readers.get, self._related)
        self.trace = Tracer(self._readers.get, self._note_hits, self._message_hits)
        self.transfer = Transfer(self.notes, self.inferences)
        self.work = Work(self._readers.get)
        self._forgetter = Forgetter(config, self._archive.conn, self._index, self._note_index)
        if upgrade:
            self.finish_interrupted()

    def changes(self) -> int:
        """A number that moves whenever anything is committed to the store, by this process
        or another: SQLite's data_version on the calling thread's read connection (which
        never writes, so every commit is another's). Compare numbers read on one thread. A
        front end watches this one number instead of polling each thing it shows."""
        with translated(self.config.db_path):
            return int(self._readers.get().execute("PRAGMA data_version").fetchone()[0])

    # -- trust: forget, and the work a crash or an upgrade left ----------------------------

    def unfinished(self) -> bool:
        """Whether a forget was interrupted, the archive predates masking, or the work index
        has messages to read (an archive from before it)."""
        with translated(self.config.db_path):
            return (
                self._forgetter.pending()
                or self.upkeep.upgrade_pending()
                or self.upkeep.work_behind()
            )

    def finish_interrupted(self, on_progress: OnProgress | None = None) -> None:
        """Finish a forget a crash interrupted, mask an archive made before masking, and
        read the work of messages the work index has not (the constructor does, unless
        `upgrade=False`: the CLI then calls this with a progress bar). Another process
        writing meanwhile has done it, or will: this one goes on."""
        if not self.unfinished():
            return
        lock = file_lock(self.config.data_dir / "ingest.lock", blocking=False)
        with translated(self.config.db_path), lock as held:
            if not held:
                return
            if self._forgetter.pending():
                self._forgetter.finish_pending()
            if self.upkeep.upgrade_pending():
                self.upkeep.mask_archive(on_progress, locked=True)
            if self.upkeep.work_behind():
                self.upkeep.catch_up_work(on_progress)

    def forget(
        self,
        session_id: str | None = None,
        project: str | None = None,
        note_id: int | None = None,
        *,
        confirmed: object = False,
        by: Author = "person",
    ) -> Receipt:
        """Remove a session, a project or a note from the store, both indexes and every file
        under the data dir, for good; refused unless `confirmed` is the boolean true. An agent
        (`by="agent"`) may not forget a rule or a past note, as it may not delete one."""
        return self._forgetter.forget(session_id, project, note_id, confirmed=confirmed, by=by)

    def forget_target(
        self, session_id: str | None = None, project: str | None = None, note_id: int | None = None
    ) -> str:
        """What `forget` would remove, named in full; NotFound when it names nothing."""
        return self._forgetter.target(session_id, project, note_id)

    def unforget_project(self, project: str) -> bool:
        """Ingest a forgotten project's new sessions again (its forgotten ones stay gone)."""
        return self._forgetter.lift(project)

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

    def _note_index(self) -> NoteIndexes:
        """The notes' own indexes, beside the messages' and sharing their embedding model."""
        with self._open_lock:
            if self._note_indexes is None:
                with translated(self.config.db_path):
                    self._note_indexes = NoteIndexes(
                        self.config.index_dir / "notes",
                        self.config.db_path,
                        lambda: self._index().embedder,
                    )
            return self._note_indexes

    def _search(self) -> Searcher:
        indexes = self._index()
        with self._open_lock:
            if self._searcher is None:
                self._searcher = Searcher(self._readers.get, indexes)
            return self._searcher

    def _note_hits(self, text: str) -> list[int]:
        found = self.notes.search(text, limit=5, flashbacks=False)
        return [hit.note.id for hit in found.results]

    def _message_hits(self, text: str) -> list[str]:
        return [hit.uuid for hit in self.history.search(text, "hybrid", limit=5).results]

    def _related(self, query: str, cwd: str | None) -> list[str]:
        """The notes and past messages nearest `query`, a line each, for the context: of the
        messages, the project's first. Searched across projects and then sorted, because a
        search narrowed to a project reads the ids of every message in it (130 ms on a
        project of 136k messages, bench/README.md), where the context has 100 ms in all.
        Only matches come: what has the words or is near in meaning (search.fuse)."""
        notes = [
            h
            for h in self.notes.search(query, limit=10, flashbacks=False).results
            # A rule is the house rules' to give (a provisional one never is).
            if h.note.layer != "rule"
        ]
        lines = [f"- note #{h.note.id} {h.note.title}: {h.snippet}" for h in notes[:3]]
        hits = self.history.search(query, "hybrid", limit=10).results
        if cwd:  # the project of cwd: at it, under it, or holding it
            here = cwd.rstrip("/") + "/"
            hits.sort(key=lambda h: not _nested(h.project.rstrip("/") + "/", here))
        for hit in hits[:3]:
            when = (hit.timestamp or "")[:10]
            lines.append(f"- {when} {hit.session_title or short_id(hit.session_id)}: {hit.snippet}")
        return lines

    def warm(self) -> None:
        """Open the indexes and load the embedding model now, so that a person's first
        search does not wait for them. A front end calls it in the background; a failure
        is left for that first search to report."""
        try:
            self.history.search("warm", "hybrid", limit=1)
        except MemtuiError:
            return

    def close(self) -> None:
        self.notes.close()
        self.signals.close()
        self.inferences.close()
        if self._note_indexes is not None:
            self._note_indexes.close()
        if self._indexes is not None:
            self._indexes.close()
        self._readers.close()
        self._archive.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _nested(a: str, b: str) -> bool:
    """One of two folders (each ending in /) holds the other, or they are the same."""
    return a.startswith(b) or b.startswith(a)
