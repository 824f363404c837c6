"""Keeps the two derived indexes in step with the store of record.

Every message row carries `seq`, bumped on each change. Each index remembers the highest `seq`
it holds and only ever moves that mark after its own commit, so a crash leaves an index
behind the store, never ahead of it or torn; the next catch-up replays from the mark, and
replaying is harmless (a replayed row replaces itself).

- Full text (Tantivy) is shared on disk: its mark lives in the store (`meta.text_seq`) and one
  process at a time catches it up, under `sync.lock`.
- Vectors (hnswlib) live in each process's memory, loaded from the newest snapshot file and
  caught up from the store by embedding the rows after the snapshot's mark. The process that
  ingests saves a new snapshot now and then, so the others start close to the present.
  Each snapshot names the model that embedded it: vectors of another model (MEMTUI_MODEL
  changed, even to one of the same width) are never mixed with this process's, and never
  searched; the ingester embeds everything again, as it does for a torn index.

A catch-up lets a forget in between two of its batches (`FileLock.give_way`): the forget
purges both indexes and zeroes its rows in the newest vector snapshot where they are, and
each process, before it adds to or saves its vectors, drops what it holds of messages a
forget removed since it last looked (`meta.forgets` moved).
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import sqlite3
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import numpy as np

from memtui.bulk import paused_gc
from memtui.progress import Meter, OnProgress, cancelled
from memtui.store import db, heap
from memtui.store.embed import Embedder, describe
from memtui.store.fts import FTS_DIR, FTS_PARTITIONS, FtsDoc, FullText
from memtui.store.health import IndexHealth
from memtui.store.locks import LOOK_EVERY, FileLock, file_lock, first
from memtui.store.signals import FORGETS
from memtui.store.vectors import Vectors

log = logging.getLogger(__name__)

BATCH = 20_000  # rows per index commit during a catch-up
# An empty full-text index commits this many first: a first run's search finds words seconds
# after they are stored, not after a whole batch has been read (issue 17).
FIRST_BATCH = 2_000
# A catch-up that wrote this share of the full text or more rewrites its crowded partitions in
# one pass (`_compact`): its commits, a batch each, left them in many segments.
COMPACT_SHARE = 0.25
# The partitioned index's folder and mark are new names: a memtui from before them (an MCP
# server a Claude Code window started before the upgrade) keeps its own `fts` and `fts_seq`,
# and would empty a folder of a format it does not know, on every search (FTS_DIR).
FTS_MARK = "text_seq"
LEGACY_FTS = "fts"
LEGACY_IDLE = 3600.0  # seconds without a commit after which no older memtui is using it
SNAPSHOT_EVERY = 2_000  # vectors ahead of the newest snapshot before the ingester saves one
# Seconds after which a smaller lead is saved too: often enough that other processes (which
# embed at most QUERY_CATCHUP rows themselves) stay near the present, rarely enough that
# following a live session does not rewrite a large file every few lines.
SAVE_AFTER = 300.0
# Rows a search may embed on its own path (~1 ms each): a reader process that is further
# behind searches the vectors it has, and the ingester's next snapshot brings it up to date.
QUERY_CATCHUP = 32
# Vectors a long catch-up embeds before it saves a snapshot and keeps going (bench/README.md:
# the cold index's peak memory).
SPILL = 100_000

# What each index holds (measured choices: bench/README.md).
# - Full text: every turn, tool output included; meta lines (caveats, command wrappers) are noise.
# - Vectors: one per message, over its opening characters (a static model averages its tokens,
#   so a long tail only blurs the opening's meaning). Prompts and compaction summaries always;
#   Claude's answers when they say something (at least VECTOR_MIN_CHARS), because one-liners
#   like "Let me read the file." repeat by the thousand, blur the neighbourhood graph and cost
#   embedding time. Tool output stays out: it is not prose.
FTS_KINDS = ("prompt", "assistant", "tool_result", "compact_summary")
VECTOR_KINDS = ("prompt", "assistant", "compact_summary")
VECTOR_TEXT_CHARS = 1_000
VECTOR_MIN_CHARS = 80

_FTS_WHERE = f"kind IN {FTS_KINDS}"
VECTOR_WHERE = (
    f"kind IN {VECTOR_KINDS} AND length(trim(text)) > 0 "
    f"AND (kind != 'assistant' OR length(text) >= {VECTOR_MIN_CHARS})"
)

# A message as the full-text index wants it; {} is the WHERE clause.
_FTS_ROWS = """
    SELECT m.id, m.session_id, p.path, m.role, m.kind, m.epoch, m.text, m.tool_calls,
           m.tool_output, m.seq
    FROM messages m JOIN sessions s ON s.id = m.session_id JOIN projects p ON p.id = s.project_id
    WHERE {}"""


store_seq = db.store_seq


def _mark(conn: sqlite3.Connection, key: str) -> int:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return int(row[0]) if row else 0


def _set_mark(conn: sqlite3.Connection, key: str, value: int) -> None:
    conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, str(value)))


class Indexes:
    """Tantivy and hnswlib over one data dir, with their catch-up from the store."""

    def __init__(self, root: Path, db_path: Path, model: str | None = None) -> None:
        root.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.root = root
        self.db_path = db_path
        self.conn = db.connect(db_path, migrate_schema=False)
        self.fts = FullText(root / FTS_DIR, FTS_PARTITIONS)
        self._model = model
        self._embedder: Embedder | None = None
        self._vectors: Vectors | None = None
        self._lock = threading.RLock()  # held by a catch-up, a save, a repair
        self._opening = threading.RLock()  # opening the model and the vectors, for a search too
        self._saved_at = 0.0  # monotonic time of this process's last vector snapshot
        self._forgets = ""  # meta.forgets when this process last checked its vectors
        # Whether this process has checked that each index can hold what its mark says. Once
        # is enough: an index is torn by a deleted folder or a replaced store, both seen at the
        # next start.
        self._checked = False

    def close(self) -> None:
        with self._lock:  # a catch-up or a search's forget check may be reading on it
            self.conn.close()

    @property
    def embedder(self) -> Embedder:
        with self._opening:
            if self._embedder is None:
                self._embedder = Embedder(self._model)
            return self._embedder

    @property
    def vectors(self) -> Vectors:
        """Loaded on first use: a process that never asks for meaning never pays for the model.
        Opening maps the newest snapshot's codes, and never waits for a catch-up."""
        with self._opening:
            if self._vectors is None:
                known = describe(self._model) if self._embedder is None else None
                dim, identity = known or (self.embedder.dim, self.embedder.identity)
                self._forgets = self._forget_count()
                self._vectors = Vectors(self.root / "vectors", dim, identity)
            return self._vectors

    @property
    def other_model(self) -> bool:
        """Whether the vectors loaded were embedded by another model (never waits for a lock)."""
        v = self._vectors
        return v is not None and v.foreign

    # -- catching up -------------------------------------------------------------------------

    def catch_up(
        self,
        on_progress: OnProgress | None = None,
        cancel: threading.Event | None = None,
        held: FileLock | None = None,
    ) -> None:
        """Bring both indexes up to the store (the ingesting process calls this, holding the
        writer's lock `held`, which it gives way to a forget between batches).

        The two run side by side: Tantivy indexes on its own threads and the embedder's
        tokenizer and hnswlib release the GIL, so a cold build takes the longer of the two.
        An index found empty or torn (its contents not what its mark says) is rebuilt.
        """
        failed: list[BaseException] = []

        def fts_side() -> None:
            try:
                self.catch_up_fts(on_progress, cancel)
            except BaseException as exc:  # re-raised on the caller's thread below
                failed.append(exc)

        fts = threading.Thread(target=fts_side, name="fts-catch-up")
        if not self._checked:
            self._check_vectors()
        with paused_gc():
            fts.start()
            try:
                self.catch_up_vectors(on_progress, cancel=cancel, held=held)
            finally:
                if held is not None:  # the full text may take longer: a forget goes first
                    held.join(fts)
                fts.join()
        if failed:
            raise failed[0]
        self._checked = True
        self.save_vectors()

    def catch_up_fts(
        self, on_progress: OnProgress | None = None, cancel: threading.Event | None = None
    ) -> None:
        """Replay store rows after the full-text mark, one commit a batch; a forget waiting
        to purge the full text goes between two."""
        with FileLock(self.root / "sync.lock") as held:
            self._drop_legacy()
            conn = db.connect(self.db_path, migrate_schema=False)  # beside a vector catch-up
            try:
                mark = _mark(conn, FTS_MARK)
                if not self._checked and self._fts_torn(conn, mark):
                    log.warning("the full-text index is empty or torn: rebuilding it")
                    self.fts.clear()
                    mark = 0
                    _set_mark(conn, FTS_MARK, 0)
                before = self.fts.doc_count()
                self._fill_fts(conn, self.fts, mark, FTS_MARK, on_progress, cancel, held=held)
                _compact(conn, self.fts, before, on_progress, cancel, held)
            finally:
                conn.close()

    def _fill_fts(
        self,
        conn: sqlite3.Connection,
        fts: FullText,
        mark: int,
        key: str | None,
        on_progress: OnProgress | None,
        cancel: threading.Event | None,
        target: int | None = None,
        held: FileLock | None = None,
    ) -> int:
        """Write store rows after `mark` into `fts`, moving the mark `key` after each commit
        (and giving way `held` after it); the mark reached (short of the target when
        cancelled)."""
        target = store_seq(conn) if target is None else target
        start, meter = mark, Meter("full text", on_progress)
        size = FIRST_BATCH if mark == 0 else BATCH
        while mark < target and not cancelled(cancel):
            rows = conn.execute(
                _FTS_ROWS.format(
                    f"m.seq > ? AND m.seq <= ? AND m.{_FTS_WHERE} ORDER BY m.seq LIMIT ?"
                ),
                (mark, target, size),
            ).fetchall()
            fts.write(_fts_doc(r) for r in rows)
            heap.release()
            mark = rows[-1][9] if len(rows) == size else target
            size = BATCH
            if key:
                _set_mark(conn, key, mark)
            meter(mark - start, target - start)
            if held is not None:
                held.give_way()  # the rows a forget removes meanwhile are not read after
        return mark

    def catch_up_vectors(
        self,
        on_progress: OnProgress | None = None,
        limit: int | None = None,
        cancel: threading.Event | None = None,
        held: FileLock | None = None,
    ) -> bool:
        """Embed store rows after this process's vector mark; False if more than `limit` wait.
        `held`: the writer's lock, given way to a forget between batches."""
        with self._lock:
            vectors = self.vectors
            vectors.reload_if_newer()
            self._follow_forgets(vectors)
            if vectors.foreign:
                if limit is not None:
                    return False  # a search never embeds a whole archive: the ingester does
                log.warning("the vectors were made by another model: embedding them again")
                vectors.clear()
            target = store_seq(self.conn)
            if vectors.watermark >= target:
                return True
            if limit is not None:
                # Read one row past the limit rather than count the backlog: counting a large
                # one scans it, on a search's path.
                rows = self.conn.execute(
                    f"""SELECT id, substr(text, 1, {VECTOR_TEXT_CHARS}) FROM messages
                        WHERE seq > ? AND seq <= ? AND {VECTOR_WHERE} ORDER BY seq LIMIT ?""",
                    (vectors.watermark, target, limit + 1),
                ).fetchall()
                if len(rows) > limit:
                    return False
                self._embed(vectors, rows, target)
                return True
            self._fill_vectors(self.conn, vectors, target, on_progress, cancel, held)
            return True

    def _check_vectors(self) -> None:
        """Vectors that are not what their snapshot's mark says (a torn or stale file) start
        again from nothing."""
        with self._lock:
            vectors = self.vectors
            vectors.reload_if_newer()
            if self._vectors_torn(vectors):
                log.warning("the vector index is torn: rebuilding it")
                vectors.clear()

    def _fts_torn(self, conn: sqlite3.Connection, mark: int) -> bool:
        """Whether full text cannot be what its mark says: emptied (a deleted folder) or
        ahead of the store (a store replaced under it). Tantivy commits whole, so this needs
        no count over the store (which reads every row: seconds at a million messages);
        `memtui doctor` compares the contents."""
        return bool(mark) and (self.fts.doc_count() == 0 or mark > store_seq(conn))

    def _vectors_torn(self, vectors: Vectors) -> bool:
        """Whether the vectors cannot be what their mark says: ahead of the store (a store
        replaced under them). A snapshot is written whole and renamed into place, and a
        damaged one is skipped for the next older, so no count over the store is needed."""
        return (
            bool(vectors.watermark)
            and not vectors.foreign
            and vectors.watermark > store_seq(self.conn)
        )

    def _fill_vectors(
        self,
        conn: sqlite3.Connection,
        vectors: Vectors,
        target: int,
        on_progress: OnProgress | None,
        cancel: threading.Event | None,
        held: FileLock | None = None,
    ) -> None:
        """Embed the rows after the vectors' mark up to `target`, a batch at a time. The next
        batch is embedded on a second thread while this one adds the last to hnswlib's graph
        (or saves a snapshot): each leaves a core idle on its own (bench/README.md). While a
        batch is embedded, a forget waiting for `held` goes in; the batches read before it
        keep only the rows it left."""
        start = mark = vectors.watermark
        meter = Meter("vectors", on_progress)
        embedder = self.embedder  # loaded here, not on the second thread
        spilled = False
        with embedder.bulk(), ThreadPoolExecutor(1, thread_name_prefix="memtui-embed") as pool:
            # (ids, their vectors to come, the mark they reach, read before a forget)
            ahead: list[tuple[np.ndarray, Future[np.ndarray], int, bool]] = []
            while ahead or (mark < target and not cancelled(cancel)):
                while len(ahead) < 2 and mark < target and not cancelled(cancel):
                    rows = conn.execute(
                        f"""SELECT id, substr(text, 1, {VECTOR_TEXT_CHARS}), seq FROM messages
                            WHERE seq > ? AND seq <= ? AND {VECTOR_WHERE} ORDER BY seq LIMIT ?""",
                        (mark, target, BATCH),
                    ).fetchall()
                    mark = rows[-1][2] if len(rows) == BATCH else target
                    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
                    texts = [r[1] for r in rows]
                    ahead.append((ids, pool.submit(embedder.encode, texts), mark, False))
                if held is not None and self._let_forget_in(held, ahead[0][1]):
                    self._follow_forgets(vectors)
                    ahead = [(i, f, m, True) for i, f, m, _ in ahead]
                ids, vecs, done, stale = ahead.pop(0)
                if stale:
                    keep = self._live(ids, done)
                    vectors.add(ids[keep], vecs.result()[keep], done)
                else:
                    vectors.add(ids, vecs.result(), done)
                del vecs
                heap.release()  # the embedding thread's arena too
                if vectors.unsaved >= SPILL and not self._nearly_done(conn, done, target):
                    # Saved as it goes: memory holds hnswlib's graph and at most SPILL vectors
                    # beside it, not a second copy of everything embedded.
                    vectors.save(keep_graph=True)
                    spilled = True
                meter(done - start, target - start)
        if spilled:  # the rest is saved whatever its size, and the graph goes with it
            vectors.save()
            self._saved_at = time.monotonic()

    @staticmethod
    def _nearly_done(conn: sqlite3.Connection, mark: int, target: int) -> bool:
        """Whether under a quarter of SPILL rows are left to embed after `mark`: the save at
        the end comes so soon that one now would write the whole snapshot twice."""
        left = conn.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM messages WHERE seq > ? AND seq <= ? "
            f"AND {VECTOR_WHERE} LIMIT {SPILL // 4})",
            (mark, target),
        ).fetchone()[0]
        return left < SPILL // 4

    def _let_forget_in(self, held: FileLock, embedding: Future[np.ndarray]) -> bool:
        """While a batch is embedded: give `held` way to a forget that waits, with the vectors'
        lock too (a forget in this process needs it). Whether one went in."""
        went = False
        while True:
            try:
                embedding.result(LOOK_EVERY)
                return went
            except TimeoutError:
                if held.waited_for():
                    self._lock.release()
                    try:
                        went |= held.give_way()
                    finally:
                        self._lock.acquire()

    def _follow_forgets(self, vectors: Vectors) -> None:
        """Drop from this process's vectors the messages forgotten since it last looked, and
        map the snapshot the forget rewrote (the caller holds the vectors' lock)."""
        count = self._forget_count()
        if count == self._forgets:
            return
        vectors.refresh(lambda ids: self._live(ids, vectors.watermark))
        self._forgets = count

    def _forget_count(self) -> str:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (FORGETS,)).fetchone()
        return str(row[0]) if row else ""

    def _live(self, ids: np.ndarray, mark: int) -> np.ndarray:
        """Which of `ids` the store still holds as they were up to `mark` (an id a forget
        freed may be a new message's since, with a later seq)."""
        found: set[int] = set()
        for chunk in db.chunks(ids.tolist()):
            found.update(
                r[0]
                for r in self.conn.execute(
                    f"SELECT id FROM messages WHERE id IN ({db.marks(chunk)}) AND seq <= ?",
                    (*chunk, mark),
                )
            )
        return np.isin(ids, np.fromiter(found, dtype=np.int64, count=len(found)))

    def save_vectors(self, force: bool = False) -> None:
        """Write a snapshot when this process is ahead of the newest one on disk: at once when
        far ahead, else once a while has passed, so that `memtui index` always leaves one and
        `--watch` does not rewrite a large file on every new line."""
        with self._lock:
            v = self._vectors
            if v is not None:
                self._follow_forgets(v)
            if v is None or (v.watermark <= v.saved_watermark and not force):
                return
            ahead = v.watermark - v.saved_watermark
            if force or ahead >= SNAPSHOT_EVERY or time.monotonic() - self._saved_at >= SAVE_AFTER:
                v.save()
                self._saved_at = time.monotonic()

    def vectors_ready(self) -> bool:
        """Before a search: embed the few rows since our mark. True when the vectors can
        answer: caught up, or behind but not empty (newer messages are then found by full
        text alone). A search never waits for a writer: while this process's catch-up holds
        them, it searches what they hold."""
        if not self._lock.acquire(blocking=False):
            # A catch-up (this process's follower or ingest) holds the vectors: search the
            # snapshot and what it embedded so far rather than fall back to full text.
            return self._writer_busy_vectors()
        try:
            ready = self.catch_up_vectors(limit=QUERY_CATCHUP)
            return ready or (len(self.vectors) > 0 and not self.vectors.foreign)
        finally:
            self._lock.release()

    def _writer_busy_vectors(self) -> bool:
        """Whether the vectors can answer while this process's writer works on them: opened
        (or opened now, from the newest snapshot), not empty, this model's, and not far
        ahead of their snapshot (a search scores everything unsaved exactly: while a large
        backlog is embedded, full text answers alone and says so)."""
        vectors = self._vectors or self.vectors
        return len(vectors) > 0 and not vectors.foreign and vectors.unsaved <= SNAPSHOT_EVERY

    # -- upkeep ----------------------------------------------------------------------------

    def rebuild(
        self, on_progress: OnProgress | None = None, cancel: threading.Event | None = None
    ) -> bool:
        """Build both indexes again from the store, beside the old ones, and swap them in
        only when both are complete: a failure or a cancel leaves the old ones serving.
        False if cancelled."""
        fresh = self.root / f"{FTS_DIR}.new"
        shutil.rmtree(fresh, ignore_errors=True)
        try:
            new_fts = FullText(fresh, FTS_PARTITIONS)
            new_vectors = Vectors(
                self.root / "vectors", self.embedder.dim, self.embedder.identity, load=False
            )
            target = store_seq(self.conn)
            self._fill_fts(self.conn, new_fts, 0, None, on_progress, cancel, target)
            _compact(self.conn, new_fts, 0, on_progress, cancel)
            self._fill_vectors(self.conn, new_vectors, target, on_progress, cancel)
            if cancelled(cancel):
                shutil.rmtree(fresh, ignore_errors=True)
                return False
            with self._lock:
                new_vectors.save()
                self._vectors = new_vectors
                self._saved_at = time.monotonic()
        except BaseException:  # a full disk, a crash of the embedder: the old ones serve on
            shutil.rmtree(fresh, ignore_errors=True)
            raise
        with file_lock(self.root / "sync.lock"):
            old = self.root / f"{FTS_DIR}.old"
            shutil.rmtree(old, ignore_errors=True)
            if (self.root / FTS_DIR).exists():
                os.replace(self.root / FTS_DIR, old)
            os.replace(fresh, self.root / FTS_DIR)
            _set_mark(self.conn, FTS_MARK, target)
            shutil.rmtree(old, ignore_errors=True)
        self.fts = FullText(self.root / FTS_DIR, FTS_PARTITIONS)
        return True

    def health(self) -> IndexHealth:
        """Where each index stands; vectors as of the newest snapshot plus this process's work."""
        with self._lock:
            vectors = self.vectors
            vectors.reload_if_newer()
            fts_seq = _mark(self.conn, FTS_MARK)
            torn = []
            if self._fts_torn(self.conn, fts_seq):
                torn.append("full text")
            if self._vectors_torn(vectors):
                torn.append("vectors")
            return IndexHealth(
                store_seq=store_seq(self.conn),
                fts_seq=fts_seq,
                vector_seq=vectors.watermark,
                fts_docs=self.fts.doc_count(),
                vectors=len(vectors),
                fts_bytes=self.fts.size_bytes(),
                vector_bytes=vectors.size_bytes(),
                torn=torn,
                other_model=vectors.foreign,
            )

    def differences(self) -> dict[str, tuple[set[int], set[int]]]:
        """For each index: (ids the store has that it lacks, ids it has that the store lacks);
        a sampled vector that is not its message's embedding counts as both, and so does every
        vector of another model."""
        fts_want = {r[0] for r in self.conn.execute(f"SELECT id FROM messages WHERE {_FTS_WHERE}")}
        with self._lock:
            vectors = self.vectors
            vectors.reload_if_newer()
            vec_all = {
                r[0]: r[1]
                for r in self.conn.execute(f"SELECT id, seq FROM messages WHERE {VECTOR_WHERE}")
            }
            # Stored after the snapshot (a follower that stopped before its next save): not
            # missing, the next catch-up embeds them (to_embed counts them).
            covered = vectors.watermark or max(vec_all.values(), default=0)
            vec_want = {i for i, seq in vec_all.items() if seq <= covered}
            if vectors.foreign:
                vec_have = vectors.ids()
                wrong = vec_have & vec_want
            else:
                # What the index on disk holds (with this process's own additions), not what a
                # catch-up here would make of it: a deleted or torn index must show as such.
                vec_have = vectors.ids()
                wrong = self._wrong_vectors(vec_want & vec_have)
        fts_have = self.fts.ids()
        return {
            "full text": (fts_want - fts_have, fts_have - fts_want),
            "vectors": ((vec_want - vec_have) | wrong, (vec_have - set(vec_all)) | wrong),
        }

    def to_embed(self) -> int:
        """Messages stored after the vector snapshot this process holds: the next catch-up
        embeds them (0 with no snapshot, where differences counts them missing)."""
        with self._lock:
            mark = self.vectors.watermark
        if not mark:
            return 0
        return int(
            self.conn.execute(
                f"SELECT count(*) FROM messages WHERE seq > ? AND {VECTOR_WHERE}", (mark,)
            ).fetchone()[0]
        )

    def _wrong_vectors(self, ids: set[int], sample: int = 500) -> set[int]:
        """Of a sample of `ids`, those whose stored vector is not their text's embedding."""
        chosen = set(sorted(ids)[:: max(1, len(ids) // sample)])
        rows = self._rows(
            f"SELECT id, substr(text, 1, {VECTOR_TEXT_CHARS}) FROM messages WHERE id IN ({{}})",
            chosen,
        )
        if not rows:
            return set()
        want = self.embedder.encode([r[1] for r in rows])
        have = self.vectors.vectors(np.array([r[0] for r in rows], dtype=np.int64))
        sims = np.einsum("ij,ij->i", want, have)
        known = np.any(want, axis=1)  # a text with no known tokens has no direction to compare
        return {r[0] for r, sim, k in zip(rows, sims, known, strict=True) if k and sim < 0.99}

    def repair(self, diff: dict[str, tuple[set[int], set[int]]]) -> None:
        fts_missing, fts_extra = diff["full text"]
        if fts_missing or fts_extra:
            rows = self._rows(_FTS_ROWS.format("m.id IN ({})"), fts_missing)
            with file_lock(self.root / "sync.lock"):
                self.fts.write((_fts_doc(r) for r in rows), delete_ids=fts_extra)
        vec_missing, vec_extra = diff["vectors"]
        with self._lock:
            vectors = self.vectors
            if vectors.foreign or not len(vectors) or self._vectors_torn(vectors):
                # Every vector wrong, or none there: embed them all again, from the start.
                if not vectors.foreign:
                    vectors.clear()
                self.catch_up_vectors()
                self.save_vectors(force=True)
                return
            vectors.remove(vec_extra - vec_missing)
            rows = self._rows(
                f"SELECT id, substr(text, 1, {VECTOR_TEXT_CHARS}) FROM messages WHERE id IN ({{}})",
                vec_missing,
            )
            self._embed(vectors, rows, vectors.watermark)
            if vec_missing or vec_extra:
                self.save_vectors(force=True)

    def forget(self, ids: set[int]) -> None:
        """Remove forgotten messages from both indexes so that no index file keeps them: the
        full-text segments that held them are rewritten without them, and their vectors are
        zeroed in the snapshot (or a new snapshot without them replaces the old ones). The
        store has already lost the rows (and moved its sequence on, so others reload)."""
        with first(self.root / "sync.lock"):  # before a catch-up's next batch
            # Copies of old contents (the purge removes its own .damaged), and an older memtui's
            # index, whoever still uses it.
            for leftover in (
                f"{FTS_DIR}.old",
                f"{FTS_DIR}.new",
                f"{FTS_DIR}.new.damaged",  # what a rebuild that ran out of disk once set aside
                *_legacy_names(),
            ):
                shutil.rmtree(self.root / leftover, ignore_errors=True)
            self.fts.purge(ids, functools.partial(_fts_docs, self.conn))
        with self._lock:
            vectors = self.vectors
            vectors.reload_if_newer()
            self._follow_forgets(vectors)
            # In place, in time in proportion to the forgotten rows, not the archive: renamed
            # to the store's mark when the snapshot covers the store (the rows since its mark
            # have nothing to embed), so that other processes load it; else under its own
            # mark, the rows after it left to the catch-up that embeds them (a forget during
            # an ingest does not embed the ingest's backlog).
            behind = self.conn.execute(
                f"SELECT 1 FROM messages WHERE seq > ? AND {VECTOR_WHERE} LIMIT 1",
                (vectors.saved_watermark,),
            ).fetchone()
            mark = vectors.saved_watermark if behind else store_seq(self.conn)
            if vectors.scrub(ids, mark):
                return
            vectors.remove(ids)
            if not vectors.foreign:
                self.catch_up_vectors()
            self.save_vectors(force=True)

    def _drop_legacy(self) -> None:
        """Remove an older memtui's full-text index once nothing has committed to it for
        LEGACY_IDLE: an MCP server started before the upgrade may still search it."""
        legacy = self.root / LEGACY_FTS
        try:
            idle = time.time() - (legacy / "meta.json").stat().st_mtime >= LEGACY_IDLE
        except FileNotFoundError:
            idle = True
        if idle:
            for name in _legacy_names():
                shutil.rmtree(self.root / name, ignore_errors=True)

    def _embed(self, vectors: Vectors, rows: list[sqlite3.Row], mark: int) -> None:
        """Embed (id, text) rows into `vectors`, which then cover the store up to `mark`."""
        if not rows:
            vectors.watermark = mark
            return
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        vectors.add(ids, self.embedder.encode([r[1] for r in rows]), mark)

    def _rows(self, sql: str, ids: set[int]) -> list[sqlite3.Row]:
        rows: list[sqlite3.Row] = []
        for chunk in db.chunks(sorted(ids)):
            rows += self.conn.execute(sql.format(db.marks(chunk)), chunk).fetchall()
        return rows


def _legacy_names() -> list[str]:
    return [LEGACY_FTS + suffix for suffix in ("", ".old", ".new", ".damaged")]


def _compact(
    conn: sqlite3.Connection,
    fts: FullText,
    before: int,
    on_progress: OnProgress | None,
    cancel: threading.Event | None,
    held: FileLock | None = None,
) -> None:
    """After a catch-up that wrote COMPACT_SHARE of the full text or more (a first build, a
    long absence; `before`: the documents it found), each crowded partition rewritten in one
    pass (FullText.compact), giving way to a forget between two. The cost is at most a few
    times what the catch-up wrote; a catch-up of a few messages never pays it."""
    after = fts.doc_count()
    if after - before < after * COMPACT_SHARE:
        return
    crowded = fts.crowded()
    meter = Meter("compacting full text", on_progress)
    for done, n in enumerate(crowded):
        if cancelled(cancel):
            return
        meter(done, len(crowded))
        fts.compact(n, functools.partial(_fts_docs, conn))
        if held is not None:
            held.give_way()
    meter(len(crowded), len(crowded))


def _fts_docs(conn: sqlite3.Connection, ids: set[int]) -> Iterator[FtsDoc]:
    """The full-text documents of `ids`, read in one pass (a purge rewrites many)."""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS purge_ids (id INTEGER PRIMARY KEY)")
    conn.execute("DELETE FROM temp.purge_ids")
    conn.executemany("INSERT INTO temp.purge_ids VALUES (?)", ((i,) for i in sorted(ids)))
    try:
        for row in conn.execute(_FTS_ROWS.format("m.id IN temp.purge_ids")):
            yield _fts_doc(row)
    finally:
        conn.execute("DELETE FROM temp.purge_ids")


def _fts_doc(row: sqlite3.Row) -> FtsDoc:
    calls = row[7]
    tool_text = (calls if calls != "[]" else "") + ("\n" + row[8] if row[8] else "")
    return FtsDoc(
        message_id=row[0],
        session_id=row[1],
        project=row[2],
        role=row[3],
        kind=row[4],
        timestamp=row[5],
        text=row[6],
        tool_text=tool_text,
    )
