"""Message vectors (cosine). Derived from the SQLite store and rebuildable.

Snapshots are hnswlib index files named for the store sequence number they cover and the
model that embedded them, `vectors-<watermark>-<model>.hnsw` (`embed.model_identity`),
written under a temp name and renamed into place, so a reader only ever sees complete files;
a reader that cannot read the newest falls back to the next older one. Vectors of another
model (or of a file from before names carried one) are `foreign`: they are not added to,
and the ingester embeds everything again.

A process maps the newest snapshot read-only and keeps only what it added since (`_Delta`)
in its own memory. Searches score exactly: one matrix-vector product over the mapping
(78k vectors: ~9 ms) plus the delta. The mapping is the page cache's, shared by every
memtui process on the data dir (the TUI and one MCP server per Claude Code window), so a
fifth process costs its delta, not another copy of the index. hnswlib's graph is loaded
into a process's memory only to write a snapshot (the ingester) or to search an index too
large to score exactly (`_EXACT_INDEX`).
"""

from __future__ import annotations

import os
import re
import struct
import threading
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import hnswlib
import numpy as np

from memtui.store.locks import file_lock

_SNAPSHOT = re.compile(r"vectors-(\d{12})(?:-([0-9a-f]{16}))?\.hnsw")
_M = 16
# 64 builds 200k x 384 random vectors in ~80 s on 2 threads (100: ~125 s) and loses under 1%
# recall@10 on clustered data.
_EF_CONSTRUCTION = 64
# Raised to k when more are asked for. Static-model vectors crowd together, and at ef 96 the
# graph missed half the true neighbours on bench/quality.py; 400 finds nearly all (~1 ms).
_EF_SEARCH = 400
# On an index past _EXACT_INDEX, an allowed set is still scored exactly when it is small both
# in size and as a share of the index: hnswlib's filter slows as the share falls (200k index,
# 1k/5k/20k allowed: 108/33/10 ms).
_BRUTE_FORCE_MAX = 10_000
_BRUTE_FORCE_SHARE = 0.1
# Up to this many vectors every search is exact: the graph misses true neighbours among
# static-model vectors (bench/quality_results.md), and exact scoring of the mapped snapshot
# takes ~1 ms per 10k vectors with no private copy of the index. Past it (about 1.2M
# messages) the graph answers, loaded on first use.
_EXACT_INDEX = 500_000
_ADD_THREADS = 2

# hnswlib's file header (hnswalg.h saveIndex): offsetLevel0, max_elements, cur_element_count,
# size_data_per_element, label_offset, offsetData, maxlevel, enterpoint, maxM, maxM0, M, mult,
# ef_construction.
_HEADER = struct.Struct("<6QiI3QdQ")


@dataclass(slots=True)
class _Mapped:
    """A snapshot file mapped read-only: gathering rows here is plain numpy, while hnswlib's
    get_items builds Python floats (~30 us a vector)."""

    path: Path
    labels: np.ndarray  # live labels, sorted
    rows: np.ndarray  # the file row of each
    vecs: np.ndarray  # (rows, dim) float32, normalised by hnswlib, a view into the file


@dataclass(slots=True)
class _Delta:
    """Vectors added or replaced since the mapped snapshot, in this process's memory."""

    dim: int
    rows: dict[int, int] = field(default_factory=dict)  # id -> row in vecs
    vecs: np.ndarray = field(init=False)
    used: int = 0

    def __post_init__(self) -> None:
        self.vecs = np.zeros((0, self.dim), dtype=np.float32)

    def put(self, ids: np.ndarray, vecs: np.ndarray) -> None:
        new = [i for i in dict.fromkeys(ids.tolist()) if i not in self.rows]
        if self.used + len(new) > len(self.vecs):
            size = max(self.used + len(new), 2 * len(self.vecs), 64)
            grown = np.zeros((size, self.dim), dtype=np.float32)
            grown[: self.used] = self.vecs[: self.used]
            self.vecs = grown
        for i in new:
            self.rows[i] = self.used
            self.used += 1
        at = np.fromiter((self.rows[i] for i in ids.tolist()), dtype=np.int64, count=len(ids))
        self.vecs[at] = vecs

    def discard(self, i: int) -> None:
        self.rows.pop(i, None)  # its row stays unused until the next snapshot

    def get(self, ids: np.ndarray) -> np.ndarray:
        at = np.fromiter((self.rows[i] for i in ids.tolist()), dtype=np.int64, count=len(ids))
        return self.vecs[at]


class Vectors:
    def __init__(self, path: Path, dim: int, model: str, *, load: bool = True) -> None:
        """The newest readable snapshot in `path`; with `load` false, an empty index that a
        rebuild fills and then saves over the old snapshots. `model` is the identity of the
        model whose vectors this process adds."""
        path.mkdir(parents=True, exist_ok=True)
        self._path = path
        self._dim = dim
        self.model = model
        self.made_by: str | None = model  # the model of the contents; None: not recorded
        self._mutex = threading.Lock()  # a reload swaps the snapshot under a running query
        self.watermark = 0  # store sequence number the contents cover
        self.saved_watermark = 0  # ... and the snapshot this process last loaded or wrote
        self._mapped: _Mapped | None = None
        self._delta = _Delta(dim)
        self._removed: set[int] = set()  # snapshot labels deleted since
        self._live: set[int] = set()
        self._graph: hnswlib.Index | None = None  # when loaded, it holds exactly _live
        if load:
            self._load_newest(above=-1)

    @property
    def foreign(self) -> bool:
        """Whether the contents were embedded by another model than this process's."""
        return self.made_by != self.model

    def add(self, ids: np.ndarray, vecs: np.ndarray, watermark: int) -> None:
        """Add or replace vectors (L2-normalised float32, one row per id)."""
        if self.foreign:
            raise ValueError("these vectors come from another model: clear them first")
        ids = np.asarray(ids, dtype=np.int64)
        vecs = np.asarray(vecs, dtype=np.float32).reshape(len(ids), self._dim)
        with self._mutex:
            if len(ids):
                self._delta.put(ids, vecs)
                self._live.update(ids.tolist())
                self._removed.difference_update(ids.tolist())
                if self._graph is not None:
                    _graph_add(self._graph, ids, vecs)
            self.watermark = watermark

    def remove(self, ids: Iterable[int]) -> None:
        with self._mutex:
            for i in ids:
                if i not in self._live:
                    continue
                self._live.discard(i)
                self._delta.discard(i)
                if self._in_snapshot(i):
                    self._removed.add(i)
                if self._graph is not None:
                    self._graph.mark_deleted(i)

    def clear(self) -> None:
        """Forget everything, in memory and on disk (a rebuild starts from nothing)."""
        with file_lock(self._path / "write.lock"), self._mutex:
            for _, _, snapshot in self._snapshots():
                snapshot.unlink(missing_ok=True)
            self._reset(None, self.model)
            self.watermark = self.saved_watermark = 0

    def search(
        self, vec: np.ndarray, k: int, allowed: Collection[int] | None = None
    ) -> list[tuple[int, float]]:
        """(id, cosine distance), nearest first; only ids in `allowed` when given."""
        query = np.asarray(vec, dtype=np.float32).reshape(1, self._dim)
        with self._mutex:
            candidates = self._live if allowed is None else self._live.intersection(allowed)
            k = min(k, len(candidates))
            if k <= 0:
                return []
            small = len(candidates) <= min(_BRUTE_FORCE_MAX, len(self._live) * _BRUTE_FORCE_SHARE)
            if not small and len(self._live) > _EXACT_INDEX:
                try:
                    return self._knn(query, k, None if allowed is None else candidates.__contains__)
                except RuntimeError:
                    pass  # fewer than k reachable through the graph: score them all instead
            return self._exact(query, k, None if allowed is None else candidates)

    def save(self) -> None:
        """Write a snapshot for the current watermark and drop older ones."""
        with file_lock(self._path / "write.lock"):
            for stale in self._path.glob(".vectors-*.tmp"):  # a crashed save's leftovers
                stale.unlink(missing_ok=True)
            with self._mutex:
                watermark = self.watermark
                target = self._path / f"vectors-{watermark:012d}-{self.model}.hnsw"
                tmp = self._path / f".vectors-{watermark:012d}.{os.getpid()}.tmp"
                self._load_graph().save_index(str(tmp))
                _scrub(tmp, self._dim)
                with open(tmp, "rb") as f:
                    os.fsync(f.fileno())
                os.replace(tmp, target)
                _fsync_dir(self._path)
                # The graph is dropped: the next save loads it again from this file, so a
                # process that once ingested does not keep a private copy of the index.
                self._reset(_map(target, self._dim), self.model)
            self.saved_watermark = watermark
            for mark, _, snapshot in self._snapshots():
                if mark <= watermark and snapshot != target:
                    snapshot.unlink(missing_ok=True)

    def reload_if_newer(self) -> bool:
        """Map the newest readable snapshot that covers more than memory does, or as much in
        this model's space when memory holds another model's."""
        return self._load_newest(above=self.watermark)

    def vectors(self, ids: np.ndarray) -> np.ndarray:
        """The stored (normalised) vectors of live `ids`, one row each."""
        ids = np.asarray(ids, dtype=np.int64)
        with self._mutex:
            out = np.empty((len(ids), self._dim), dtype=np.float32)
            fresh = np.array([i in self._delta.rows for i in ids.tolist()], dtype=bool)
            out[fresh] = self._delta.get(ids[fresh])
            m = self._mapped
            if m is not None and (~fresh).any():
                out[~fresh] = m.vecs[m.rows[np.searchsorted(m.labels, ids[~fresh])]]
            return out

    def ids(self) -> set[int]:
        with self._mutex:
            return set(self._live)

    def live_among(self, ids: Collection[int]) -> set[int]:
        with self._mutex:
            return self._live.intersection(ids)

    def __len__(self) -> int:
        return len(self._live)

    def size_bytes(self) -> int:
        return sum(f.stat().st_size for f in self._path.iterdir() if f.is_file())

    # -- internals -------------------------------------------------------------------------

    def _reset(self, mapped: _Mapped | None, made_by: str | None) -> None:
        """Contents = the snapshot `mapped` (nothing added or removed since), embedded by the
        model `made_by`."""
        self._mapped = mapped
        self.made_by = made_by
        self._delta = _Delta(self._dim)
        self._removed = set()
        self._live = set() if mapped is None else set(mapped.labels.tolist())
        self._graph = None

    def _in_snapshot(self, i: int) -> bool:
        m = self._mapped
        if m is None:
            return False
        at = int(np.searchsorted(m.labels, i))
        return at < len(m.labels) and int(m.labels[at]) == i

    def _load_graph(self) -> hnswlib.Index:
        """hnswlib's graph of the live vectors: the snapshot's, with what changed since."""
        if self._graph is None:
            graph = hnswlib.Index(space="cosine", dim=self._dim)
            if self._mapped is not None:
                graph.load_index(str(self._mapped.path), max_elements=len(self._live) + 1024)
                for i in self._removed:
                    graph.mark_deleted(i)
            else:
                graph.init_index(len(self._live) + 1024, M=_M, ef_construction=_EF_CONSTRUCTION)
            fresh = np.fromiter(self._delta.rows, dtype=np.int64, count=len(self._delta.rows))
            if len(fresh):
                _graph_add(graph, fresh, self._delta.get(fresh))
            self._graph = graph
        return self._graph

    def _knn(
        self, query: np.ndarray, k: int, filt: Callable[[int], bool] | None
    ) -> list[tuple[int, float]]:
        graph = self._load_graph()
        graph.set_ef(max(_EF_SEARCH, k))
        labels, dists = graph.knn_query(query, k=k, num_threads=1, filter=filt)
        return list(zip(labels[0].tolist(), dists[0].tolist(), strict=True))

    def _exact(
        self, query: np.ndarray, k: int, candidates: set[int] | None
    ) -> list[tuple[int, float]]:
        """The k nearest of `candidates` (None: every live vector), scored exactly."""
        q = query[0] / (np.linalg.norm(query[0]) or 1.0)
        if candidates is None:
            ids, sims = self._all_similarities(q)
        else:
            ids = np.fromiter(candidates, dtype=np.int64, count=len(candidates))
            sims = self._similarities(ids, q)
        k = min(k, len(ids))
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top])]
        return [(int(ids[i]), float(1.0 - sims[i])) for i in top]

    def _changed(self) -> np.ndarray:
        """Ids whose snapshot vector no longer counts: replaced in the delta, or removed."""
        delta = np.fromiter(self._delta.rows, dtype=np.int64, count=len(self._delta.rows))
        removed = np.fromiter(self._removed, dtype=np.int64, count=len(self._removed))
        return np.concatenate([delta, removed])

    def _all_similarities(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every live id and its similarity to `q`: one pass over the mapped snapshot (rows
        read in order: 78k vectors ~9 ms) and one over the delta, no Python-level loop."""
        fresh = np.fromiter(self._delta.rows, dtype=np.int64, count=len(self._delta.rows))
        ids, sims = [fresh], [self._delta.get(fresh) @ q]
        m = self._mapped
        if m is not None:
            kept = ~np.isin(m.labels, self._changed())
            ids.append(m.labels[kept])
            sims.append((m.vecs @ q)[m.rows[kept]])
        return np.concatenate(ids), np.concatenate(sims).astype(np.float32)

    def _similarities(self, ids: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Cosine similarity of `q` to each of `ids` (live): vectors are stored normalised,
        so it is a dot product. From the delta when changed since the snapshot, else from
        the mapped snapshot."""
        sims = np.empty(len(ids), dtype=np.float32)
        fresh = np.isin(ids, np.fromiter(self._delta.rows, np.int64, len(self._delta.rows)))
        if fresh.any():
            sims[fresh] = self._delta.get(ids[fresh]) @ q
        m = self._mapped
        if m is not None and not fresh.all():
            rows = m.rows[np.searchsorted(m.labels, ids[~fresh])]
            # Gathering rows costs far more than reading them in order (78k of 78k: 50 ms
            # against 9 ms), so a large share is scored in one pass over the whole file.
            if len(rows) > len(m.vecs) // 8:
                sims[~fresh] = (m.vecs @ q)[rows]
            else:
                sims[~fresh] = m.vecs[rows] @ q
        return sims

    def _snapshots(self) -> list[tuple[int, str | None, Path]]:
        """Complete snapshot files and the model of each, newest first (temp files never match
        the name); of two with the same mark, this process's model's first."""
        found = []
        for f in self._path.iterdir():
            if m := _SNAPSHOT.fullmatch(f.name):
                found.append((int(m.group(1)), m.group(2), f))
        return sorted(found, key=lambda s: (s[0], s[1] == self.model), reverse=True)

    def _load_newest(self, above: int) -> bool:
        for mark, model, snapshot in self._snapshots():
            if mark < above or (mark == above and not (self.foreign and model == self.model)):
                return False
            try:
                mapped = _map(snapshot, self._dim)
            except (OSError, ValueError):
                if not snapshot.exists():  # a newer save replaced it while we read: list again
                    return self._load_newest(above)
                continue  # damaged: try the next older
            with self._mutex:
                self._reset(mapped, model)
                self.watermark = self.saved_watermark = mark
            return True
        return False


def _graph_add(graph: hnswlib.Index, ids: np.ndarray, vecs: np.ndarray) -> None:
    # An existing label is updated in place, so this over-counts: harmless.
    needed = graph.element_count + len(ids)
    if needed > graph.max_elements:
        graph.resize_index(max(needed, graph.max_elements * 3 // 2))
    graph.add_items(vecs, ids, num_threads=_ADD_THREADS)


def _map(snapshot: Path, dim: int) -> _Mapped:
    """Map a snapshot after checking its header, so a damaged file never reaches hnswlib.

    hnswlib does not tell which labels are deleted, so the flags are read here too.
    """
    size = snapshot.stat().st_size
    with open(snapshot, "rb") as f:
        head = f.read(_HEADER.size)
    if len(head) < _HEADER.size:
        raise ValueError("truncated header")
    level0, capacity, count, per_element, label_at, data_at = _HEADER.unpack(head)[:6]
    links0 = _M * 2 * 4 + 4  # maxM0 neighbour ids plus the count word
    if (
        per_element != links0 + dim * 4 + 8
        or count > capacity
        or _HEADER.size + count * per_element > size
    ):
        raise ValueError("not a snapshot of this shape")
    _check_links(snapshot, _HEADER.size + count * per_element, count, size)
    raw = np.memmap(
        snapshot, dtype=np.uint8, mode="r", offset=_HEADER.size, shape=(count, per_element)
    )
    labels = raw[:, label_at : label_at + 8].copy().view("<u8").ravel().astype(np.int64)
    rows = np.flatnonzero((raw[:, level0 + 2] & 1) == 0)  # hnswlib's DELETE_MARK
    rows = rows[np.argsort(labels[rows])]
    return _Mapped(
        snapshot, labels[rows], rows, raw[:, data_at : data_at + dim * 4].view(np.float32)
    )


def _scrub(snapshot: Path, dim: int) -> None:
    """Zero the vectors of deleted elements: hnswlib only flags them, and a forgotten
    message's vector must not stay in the file (it is a bag of its words' meanings)."""
    with open(snapshot, "rb") as f:
        head = f.read(_HEADER.size)
    if len(head) < _HEADER.size:
        return
    level0, _, count, per_element, _, data_at = _HEADER.unpack(head)[:6]
    if not count:
        return
    raw = np.memmap(
        snapshot, dtype=np.uint8, mode="r+", offset=_HEADER.size, shape=(count, per_element)
    )
    deleted = np.flatnonzero(raw[:, level0 + 2] & 1)
    if len(deleted):
        raw[deleted, data_at : data_at + dim * 4] = 0
        raw.flush()
    del raw


def _check_links(snapshot: Path, start: int, count: int, size: int) -> None:
    """The upper layers' link lists follow level 0, each a 4-byte length then that many bytes:
    they must end exactly at the end of the file, or hnswlib would read past a torn one."""
    with open(snapshot, "rb") as f:
        f.seek(start)
        data = f.read()
    at = 0
    for _ in range(count):
        if at + 4 > len(data):
            raise ValueError("link lists cut short")
        (length,) = struct.unpack_from("<I", data, at)
        at += 4 + length
    if start + at != size:
        raise ValueError("link lists do not end with the file")


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
