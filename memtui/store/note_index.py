"""The notes' own full-text and vector indexes, kept apart from the messages' (a message
search never meets a note, a note search never meets a message), under `index/notes/`.

They follow the store the way the message indexes do (see store/indexes.py): every note
change carries `seq` from `meta.note_seq`, deletions leave their id in `notes_gone`, and
each index moves its mark only after its own commit, so a crash leaves it behind the store,
never ahead; the next catch-up replays from the mark.

- Full text is shared on disk; its mark is `meta.notes_fts_seq`; one process at a time
  catches it up, under `sync.lock`.
- Vectors live in each process's memory, loaded from the newest snapshot and caught up by
  embedding the notes changed after the snapshot's mark (a note is ~1 ms to embed).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

import numpy as np

from memtui.store import db
from memtui.store import notes as store
from memtui.store.embed import Embedder
from memtui.store.fts import FtsDoc, FullText
from memtui.store.locks import file_lock
from memtui.store.vectors import Vectors

log = logging.getLogger(__name__)

FTS_MARK = "notes_fts_seq"
BATCH = 5_000  # notes per index commit during a catch-up
VECTOR_TEXT_CHARS = 1_000  # a note's vector: its title and the opening of its body
SAVE_AFTER = 300.0  # seconds between snapshots a long-running process writes
KIND = "note"

Row = tuple[int, str, str, str, str, str, str, int]  # store.changed_after's rows


def vector_text(title: str, body: str) -> str:
    return f"{title}\n{body}"[:VECTOR_TEXT_CHARS]


def _epoch(iso: str) -> int:
    try:
        return int(datetime.fromisoformat(iso).timestamp())
    except ValueError:
        return 0


def _doc(r: Row) -> FtsDoc:
    tags = " ".join(json.loads(r[5]))
    return FtsDoc(
        message_id=r[0],
        session_id=r[4],
        project=r[4],
        role=r[3],
        kind=KIND,
        timestamp=_epoch(r[6]),
        text=f"{r[1]}\n{r[2]}",
        tool_text=f"{tags}\n{r[4]}",
    )


def _mark(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (FTS_MARK,)).fetchone()
    return int(row[0]) if row else 0


def _set_mark(conn: sqlite3.Connection, value: int) -> None:
    conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (FTS_MARK, str(value)))


class NoteIndexes:
    """Tantivy and hnswlib over the notes of one data dir. Thread-safe.

    After a write the vectors catch up at once (in memory: about a millisecond a note, and
    the similar-note check needs them), and full text on a thread of its own: a Tantivy
    commit costs ~100 ms of fsync, which a save does not wait for. A search catches full
    text up first, so it always finds every note committed before it began.
    """

    def __init__(self, root: Path, db_path: Path, embedder: Callable[[], Embedder]) -> None:
        root.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.root = root
        self.conn = db.connect(db_path, migrate_schema=False)  # under _lock, with the vectors
        self._fts_conn = db.connect(db_path, migrate_schema=False)  # under _fts_lock
        self.fts = FullText(root / "fts")
        self._embedder = embedder
        self._vectors: Vectors | None = None
        self._lock = threading.RLock()
        self._fts_lock = threading.RLock()
        self._saved_at = time.monotonic()
        self._checked = False  # whether this process has checked the indexes are not torn
        self._wanted = threading.Event()
        self._closing = False
        self._follower: threading.Thread | None = None

    @property
    def embedder(self) -> Embedder:
        return self._embedder()

    @property
    def vectors(self) -> Vectors:
        with self._lock:
            if self._vectors is None:
                e = self.embedder
                self._vectors = Vectors(self.root / "vectors", e.dim, e.identity)
            return self._vectors

    def close(self) -> None:
        """Finish the full-text catch-up under way, save the vectors if ahead, close."""
        follower = self._follower
        if follower is not None:
            self._closing = True
            self._wanted.set()
            follower.join()
        with self._lock, self._fts_lock:
            if self._vectors is not None:
                try:
                    self.save_vectors()
                except (OSError, RuntimeError) as exc:
                    # Another process replaced the snapshot under us; it is derived data and
                    # the next process catches up from the store's mark.
                    log.warning("note vectors not saved at close: %s", exc)
            self.conn.close()
            self._fts_conn.close()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.encode(list(texts))

    # -- catching up -------------------------------------------------------------------------

    def catch_up(self) -> None:
        """Bring both indexes up to the store (before a search, doctor, a rebuild)."""
        self._check()
        self.catch_up_fts()
        self.catch_up_vectors()

    def after_write(self) -> None:
        """The vectors now, full text on the follower thread."""
        self._check()
        self.catch_up_vectors()
        with self._lock:
            if self._follower is None:
                self._follower = threading.Thread(
                    target=self._follow, name="notes-full-text", daemon=True
                )
                self._follower.start()
        self._wanted.set()

    def _follow(self) -> None:
        while True:
            self._wanted.wait()
            self._wanted.clear()
            try:
                self.catch_up_fts()
                if time.monotonic() - self._saved_at >= SAVE_AFTER:
                    self.save_vectors()
            except Exception:  # the next write or search tries again from the mark
                log.exception("notes full text: catch-up failed")
            if self._closing:
                return

    def catch_up_fts(self) -> None:
        with self._fts_lock:
            target = store.note_seq(self._fts_conn)
            if _mark(self._fts_conn) >= target:
                return
            with file_lock(self.root / "sync.lock"):
                self._fill_fts(self.fts, _mark(self._fts_conn), target, move_mark=True)

    def _fill_fts(self, fts: FullText, mark: int, target: int, move_mark: bool) -> None:
        conn = self._fts_conn
        while mark < target:
            rows = store.changed_after(conn, mark, target, BATCH)
            upto = rows[-1][7] if len(rows) == BATCH else target
            gone = store.gone_after(conn, mark, upto)
            fts.write((_doc(r) for r in rows), delete_ids=gone)
            mark = upto
            if move_mark:
                _set_mark(conn, mark)

    def catch_up_vectors(self) -> None:
        with self._lock:
            vectors = self.vectors
            vectors.reload_if_newer()
            if vectors.foreign:
                log.warning("the note vectors were made by another model: embedding them again")
                vectors.clear()
            self._fill_vectors(vectors, store.note_seq(self.conn))

    def _fill_vectors(self, vectors: Vectors, target: int) -> None:
        mark = vectors.watermark
        while mark < target:
            rows = store.changed_after(self.conn, mark, target, BATCH)
            upto = rows[-1][7] if len(rows) == BATCH else target
            vectors.remove(store.gone_after(self.conn, mark, upto))
            self._embed(vectors, rows, upto)
            mark = upto

    def _embed(self, vectors: Vectors, rows: Sequence[Row], mark: int) -> None:
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        vecs = self.encode([vector_text(r[1], r[2]) for r in rows])
        vectors.add(ids, vecs, mark)

    def save_vectors(self, force: bool = False) -> None:
        """A snapshot, when this process is ahead of the one on disk (or `force`d: a repair
        changed vectors below the mark)."""
        with self._lock:
            v = self._vectors
            if v is not None and not v.foreign and (force or v.watermark > v.saved_watermark):
                v.save()
                self._saved_at = time.monotonic()

    def _check(self) -> None:
        """Once a process: an index that does not hold what its mark says (a crash mid-write,
        a deleted folder) is cleared and filled again."""
        if self._checked:
            return
        with self._lock, self._fts_lock:
            if self._checked:
                return
            mark = _mark(self._fts_conn)
            if mark and not self._plausible(mark, self.fts.doc_count()):
                log.warning("the notes' full-text index is empty or torn: rebuilding it")
                with file_lock(self.root / "sync.lock"):
                    self.fts.clear()
                    _set_mark(self._fts_conn, 0)
            vectors = self.vectors
            vectors.reload_if_newer()
            torn = vectors.watermark and not vectors.foreign
            if torn and not self._plausible(vectors.watermark, len(vectors)):
                log.warning("the notes' vector index is torn: rebuilding it")
                vectors.clear()
            self._checked = True

    def _plausible(self, mark: int, have: int) -> bool:
        least, most = store.count_upto(self.conn, mark)
        most += len(store.gone_after(self.conn, mark, 1 << 62))
        return least <= have <= most

    # -- searching ---------------------------------------------------------------------------

    def nearest(
        self, vec: np.ndarray, k: int, allowed: set[int] | None = None
    ) -> list[tuple[int, float]]:
        """(note id, cosine distance), nearest first."""
        if not np.any(vec):
            return []
        with self._lock:
            return self.vectors.search(vec, k, allowed)

    def similarities(self, ids: list[int], vec: np.ndarray) -> dict[int, float]:
        """Each of `ids` that has a vector, and its similarity to `vec`."""
        with self._lock:
            return self.vectors.similarities(ids, vec)

    def vector_of(self, note_id: int) -> np.ndarray | None:
        with self._lock:
            if not self.vectors.live_among([note_id]):
                return None
            return self.vectors.vectors(np.array([note_id], dtype=np.int64))[0]

    def forget(self, ids: set[int]) -> None:
        """Remove forgotten notes so that no index file keeps them (engine/forget.py): the
        full-text segments that held them rewritten without them, a new vector snapshot with
        their vectors zeroed. The store has already lost the rows."""
        with self._lock, self._fts_lock:
            with file_lock(self.root / "sync.lock"):
                self.fts.purge(
                    ids, lambda kept: [_doc(r) for r in store.index_rows(self._fts_conn, kept)]
                )
            vectors = self.vectors
            vectors.reload_if_newer()
            vectors.remove(ids)
            self.catch_up_vectors()
            self.save_vectors(force=True)

    # -- upkeep ------------------------------------------------------------------------------

    def rebuild(self) -> None:
        """Both indexes again from the store (memtui reindex)."""
        with self._lock, self._fts_lock:
            target = store.note_seq(self._fts_conn)
            with file_lock(self.root / "sync.lock"):
                self.fts.clear()
                _set_mark(self._fts_conn, 0)
                self._fill_fts(self.fts, 0, target, move_mark=True)
            vectors = self.vectors
            vectors.clear()
            self._fill_vectors(vectors, target)
            self.save_vectors()

    def differences(self) -> dict[str, tuple[set[int], set[int]]]:
        """For each index: (note ids it lacks, ids it has that the store lacks); a sampled
        vector that is not its note's embedding counts as both."""
        self.catch_up()
        with self._lock:
            want = store.all_ids(self.conn)
            vec_have = self.vectors.ids()
            wrong = self._wrong_vectors(want & vec_have)
        fts_have = self.fts.ids()
        return {
            "notes full text": (want - fts_have, fts_have - want),
            "notes vectors": ((want - vec_have) | wrong, (vec_have - want) | wrong),
        }

    def _wrong_vectors(self, ids: set[int], sample: int = 500) -> set[int]:
        chosen = sorted(ids)[:: max(1, len(ids) // sample)]
        rows = store.index_rows(self.conn, chosen)
        if not rows:
            return set()
        want = self.encode([vector_text(r[1], r[2]) for r in rows])
        have = self.vectors.vectors(np.array([r[0] for r in rows], dtype=np.int64))
        sims = np.einsum("ij,ij->i", want, have)
        known = np.any(want, axis=1)
        return {r[0] for r, sim, k in zip(rows, sims, known, strict=True) if k and sim < 0.99}

    def repair(self, diff: dict[str, tuple[set[int], set[int]]]) -> None:
        missing, extra = diff["notes full text"]
        if missing or extra:
            with self._fts_lock, file_lock(self.root / "sync.lock"):
                rows = store.index_rows(self._fts_conn, sorted(missing))
                self.fts.write((_doc(r) for r in rows), delete_ids=extra)
        missing, extra = diff["notes vectors"]
        if missing or extra:
            with self._lock:
                vectors = self.vectors
                vectors.remove(extra - missing)
                rows = store.index_rows(self.conn, sorted(missing))
                if rows:
                    self._embed(vectors, rows, vectors.watermark)
                self.save_vectors(force=True)
