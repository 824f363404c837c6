"""Keeps the two derived indexes in step with the store of record.

Every message row carries `seq`, bumped on each change. Each index remembers the highest `seq`
it holds and only ever moves that mark after its own commit, so a crash leaves an index
behind the store, never ahead of it or torn; the next catch-up replays from the mark, and
replaying is harmless (a replayed row replaces itself).

- Full text (Tantivy) is shared on disk: its mark lives in the store (`meta.fts_seq`) and one
  process at a time catches it up, under `sync.lock`.
- Vectors (hnswlib) live in each process's memory, loaded from the newest snapshot file and
  caught up from the store by embedding the rows after the snapshot's mark. The process that
  ingests saves a new snapshot now and then, so the others start close to the present.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memtui.bulk import paused_gc
from memtui.store import db
from memtui.store.embed import Embedder
from memtui.store.fts import FtsDoc, FullText
from memtui.store.locks import file_lock
from memtui.store.vectors import Vectors

log = logging.getLogger(__name__)

BATCH = 20_000  # rows per index commit during a catch-up
SNAPSHOT_EVERY = 2_000  # vectors ahead of the newest snapshot before the ingester saves one
QUERY_CATCHUP = 5_000  # at most this many rows embedded on a query's path; more waits for index

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

Progress = Callable[[str, int, int], None]


@dataclass(slots=True)
class IndexHealth:
    store_seq: int
    fts_seq: int
    vector_seq: int
    fts_docs: int
    vectors: int
    fts_bytes: int
    vector_bytes: int

    @property
    def in_step(self) -> bool:
        return self.fts_seq == self.store_seq and self.vector_seq == self.store_seq


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
        self.conn = db.connect(db_path)
        self.fts = FullText(root / "fts")
        self._model = model
        self._embedder: Embedder | None = None
        self._vectors: Vectors | None = None
        self._lock = threading.RLock()

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = Embedder(self._model)
        return self._embedder

    @property
    def vectors(self) -> Vectors:
        """Loaded on first use: a process that never asks for meaning never pays for the model."""
        with self._lock:
            if self._vectors is None:
                self._vectors = Vectors(self.root / "vectors", self.embedder.dim)
            return self._vectors

    # -- catching up -------------------------------------------------------------------------

    def catch_up(self, progress: Progress | None = None, *, save: bool = True) -> None:
        """Bring both indexes up to the store (the ingesting process calls this).

        The two run side by side: Tantivy indexes on its own threads and the embedder's
        tokenizer and hnswlib release the GIL, so a cold build takes the longer of the two.
        """
        fts = threading.Thread(target=self.catch_up_fts, args=(progress,), name="fts-catch-up")
        with paused_gc():
            fts.start()
            try:
                self.catch_up_vectors(progress)
            finally:
                fts.join()
        if save:
            self.save_vectors()

    def catch_up_fts(self, progress: Progress | None = None, *, wait: bool = True) -> bool:
        """Replay store rows after the full-text mark; False if another process holds the lock."""
        with file_lock(self.root / "sync.lock", blocking=wait) as held:
            if not held:
                return False
            conn = db.connect(self.db_path)  # its own: it may run beside a vector catch-up
            try:
                mark, target = _mark(conn, "fts_seq"), store_seq(conn)
                start = mark
                while mark < target:
                    rows = conn.execute(
                        _FTS_ROWS.format(
                            f"m.seq > ? AND m.seq <= ? AND m.{_FTS_WHERE} ORDER BY m.seq LIMIT ?"
                        ),
                        (mark, target, BATCH),
                    ).fetchall()
                    self.fts.write(_fts_doc(r) for r in rows)
                    mark = rows[-1][9] if len(rows) == BATCH else target
                    _set_mark(conn, "fts_seq", mark)
                    if progress:
                        progress("full text", mark - start, target - start)
            finally:
                conn.close()
            return True

    def catch_up_vectors(self, progress: Progress | None = None, limit: int | None = None) -> bool:
        """Embed store rows after this process's vector mark; False if more than `limit` wait."""
        with self._lock:
            vectors = self.vectors
            vectors.reload_if_newer()
            target = store_seq(self.conn)
            if vectors.watermark >= target:
                return True
            if limit is not None:
                (waiting,) = self.conn.execute(
                    f"SELECT count(*) FROM messages WHERE seq > ? AND {VECTOR_WHERE}",
                    (vectors.watermark,),
                ).fetchone()
                if waiting > limit:
                    return False
            start = mark = vectors.watermark
            while mark < target:
                rows = self.conn.execute(
                    f"""SELECT id, substr(text, 1, {VECTOR_TEXT_CHARS}), seq FROM messages
                        WHERE seq > ? AND seq <= ? AND {VECTOR_WHERE} ORDER BY seq LIMIT ?""",
                    (mark, target, BATCH),
                ).fetchall()
                mark = rows[-1][2] if len(rows) == BATCH else target
                self._embed(vectors, rows, mark)
                if progress:
                    progress("vectors", mark - start, target - start)
            return True

    def save_vectors(self, force: bool = False) -> None:
        """Write a snapshot when this process is well ahead of the newest one on disk."""
        with self._lock:
            if self._vectors is None:
                return
            if force or self._vectors.watermark - self._vectors.saved_watermark >= SNAPSHOT_EVERY:
                self._vectors.save()

    def fts_ready(self) -> None:
        """Before a search: finish a catch-up that a crashed or busy ingester left undone."""
        if _mark(self.conn, "fts_seq") < store_seq(self.conn):
            self.catch_up_fts(wait=False)

    def vectors_ready(self) -> bool:
        """Before a search: embed the few rows since our mark; False when too far behind."""
        return self.catch_up_vectors(limit=QUERY_CATCHUP)

    # -- upkeep ----------------------------------------------------------------------------

    def rebuild(self, progress: Progress | None = None) -> None:
        """Throw both indexes away and build them again from the store."""
        with file_lock(self.root / "sync.lock"):
            self.fts.clear()
            _set_mark(self.conn, "fts_seq", 0)
        with self._lock:
            self.vectors.clear()
        self.catch_up(progress, save=False)
        self.save_vectors(force=True)

    def health(self) -> IndexHealth:
        """Where each index stands; vectors as of the newest snapshot plus this process's work."""
        with self._lock:
            vectors = self.vectors
            vectors.reload_if_newer()
            return IndexHealth(
                store_seq=store_seq(self.conn),
                fts_seq=_mark(self.conn, "fts_seq"),
                vector_seq=vectors.watermark,
                fts_docs=self.fts.doc_count(),
                vectors=len(vectors),
                fts_bytes=self.fts.size_bytes(),
                vector_bytes=vectors.size_bytes(),
            )

    def differences(self) -> dict[str, tuple[set[int], set[int]]]:
        """For each index: (ids the store has that it lacks, ids it has that the store lacks)."""
        fts_want = {r[0] for r in self.conn.execute(f"SELECT id FROM messages WHERE {_FTS_WHERE}")}
        vec_want = {
            r[0] for r in self.conn.execute(f"SELECT id FROM messages WHERE {VECTOR_WHERE}")
        }
        with self._lock:
            self.catch_up_vectors()
            vec_have = self.vectors.ids()
        fts_have = self.fts.ids()
        return {
            "full text": (fts_want - fts_have, fts_have - fts_want),
            "vectors": (vec_want - vec_have, vec_have - vec_want),
        }

    def repair(self, diff: dict[str, tuple[set[int], set[int]]]) -> None:
        fts_missing, fts_extra = diff["full text"]
        if fts_missing or fts_extra:
            rows = self._rows(_FTS_ROWS.format("m.id IN ({})"), fts_missing)
            with file_lock(self.root / "sync.lock"):
                self.fts.write((_fts_doc(r) for r in rows), delete_ids=fts_extra)
        vec_missing, vec_extra = diff["vectors"]
        with self._lock:
            vectors = self.vectors
            vectors.remove(vec_extra)
            rows = self._rows(
                f"SELECT id, substr(text, 1, {VECTOR_TEXT_CHARS}) FROM messages WHERE id IN ({{}})",
                vec_missing,
            )
            self._embed(vectors, rows, vectors.watermark)
            if vec_missing or vec_extra:
                vectors.save()

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
