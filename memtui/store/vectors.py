"""Message vectors (hnswlib, cosine). Derived from the SQLite store and rebuildable.

Each process keeps the whole index in memory. Snapshots are files named for the store sequence
number they cover, `vectors-<watermark>.hnsw`, written under a temp name and renamed into
place, so a reader only ever sees complete files; a reader that cannot load the newest falls
back to the next older one. The snapshot a process loaded or wrote stays mapped read-only:
exact scoring of a small allowed set reads its vectors there.
"""

from __future__ import annotations

import os
import re
import struct
import threading
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

import hnswlib
import numpy as np

from memtui.store.locks import file_lock

_SNAPSHOT = re.compile(r"vectors-(\d{12})\.hnsw")
_M = 16
# 64 builds 200k x 384 random vectors in ~80 s on 2 threads (100: ~125 s) and loses under 1%
# recall@10 on clustered data.
_EF_CONSTRUCTION = 64
# Raised to k when more are asked for. Static-model vectors crowd together, and at ef 96 the
# graph missed half the true neighbours on bench/quality.py; 400 finds nearly all (~1 ms).
_EF_SEARCH = 400
# An allowed set is scored exactly when it is small both in size and as a share of the index:
# hnswlib's filter slows as the share falls (200k index, 1k/5k/20k allowed: 108/33/10 ms),
# exact scoring grows with the size.
_BRUTE_FORCE_MAX = 10_000
_BRUTE_FORCE_SHARE = 0.1
# A whole index this small is always scored exactly (10k vectors: ~2 ms): a graph can miss a
# true neighbour, and a small archive should get the same answer however its index grew.
_EXACT_INDEX = 10_000
_ADD_THREADS = 2

# hnswlib's file header (hnswalg.h saveIndex): offsetLevel0, max_elements, cur_element_count,
# size_data_per_element, label_offset, offsetData, maxlevel, enterpoint, maxM, maxM0, M, mult,
# ef_construction.
_HEADER = struct.Struct("<6QiI3QdQ")


@dataclass(slots=True)
class _Mapped:
    """A snapshot file mapped read-only, for exact scoring: gathering rows here is plain numpy,
    while hnswlib's get_items builds Python floats (~30 us a vector)."""

    labels: np.ndarray  # live labels, sorted
    rows: np.ndarray  # the file row of each
    vecs: np.ndarray  # (rows, dim) float32, normalised by hnswlib, a view into the file


class Vectors:
    def __init__(self, path: Path, dim: int, *, load: bool = True) -> None:
        """The newest readable snapshot in `path`; with `load` false, an empty index that a
        rebuild fills and then saves over the old snapshots."""
        path.mkdir(parents=True, exist_ok=True)
        self._path = path
        self._dim = dim
        self._mutex = threading.Lock()  # a reload swaps the index under a running query
        self.watermark = 0  # store sequence number the in-memory contents cover
        self.saved_watermark = 0  # ... and the snapshot this process last loaded or wrote
        self._index = self._empty()
        self._live: set[int] = set()  # hnswlib keeps deleted labels; these are the others
        self._mapped: _Mapped | None = None
        self._fresh: set[int] = set()  # ids whose vector changed since the mapped snapshot
        if load:
            self._load_newest(above=-1)

    def add(self, ids: np.ndarray, vecs: np.ndarray, watermark: int) -> None:
        """Add or replace vectors (L2-normalised float32, one row per id)."""
        ids = np.asarray(ids, dtype=np.int64)
        vecs = np.asarray(vecs, dtype=np.float32).reshape(len(ids), self._dim)
        with self._mutex:
            if len(ids):
                # An existing label is updated in place, so this over-counts: harmless.
                needed = self._index.element_count + len(ids)
                capacity = self._index.max_elements
                if needed > capacity:
                    self._index.resize_index(max(needed, capacity * 3 // 2))
                self._index.add_items(vecs, ids, num_threads=_ADD_THREADS)
                self._live.update(ids.tolist())
                self._fresh.update(ids.tolist())
            self.watermark = watermark

    def remove(self, ids: Iterable[int]) -> None:
        with self._mutex:
            for i in ids:
                if i in self._live:
                    self._index.mark_deleted(i)
                    self._live.discard(i)
                    self._fresh.discard(i)

    def clear(self) -> None:
        """Forget everything, in memory and on disk (a rebuild starts from nothing)."""
        with file_lock(self._path / "write.lock"), self._mutex:
            for _, snapshot in self._snapshots():
                snapshot.unlink(missing_ok=True)
            self._index = self._empty()
            self._live, self._mapped, self._fresh = set(), None, set()
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
            return self._exact(query, k, candidates)

    def save(self) -> None:
        """Write a snapshot for the current watermark and drop older ones."""
        with file_lock(self._path / "write.lock"):
            for stale in self._path.glob(".vectors-*.tmp"):  # a crashed save's leftovers
                stale.unlink(missing_ok=True)
            with self._mutex:
                watermark = self.watermark
                target = self._path / f"vectors-{watermark:012d}.hnsw"
                tmp = self._path / f".vectors-{watermark:012d}.{os.getpid()}.tmp"
                self._index.save_index(str(tmp))
                # The mapping survives the rename below: it holds the inode, not the name.
                self._mapped, self._fresh = _map(tmp, self._dim), set()
            with open(tmp, "rb") as f:
                os.fsync(f.fileno())
            os.replace(tmp, target)
            _fsync_dir(self._path)
            self.saved_watermark = watermark
            for mark, snapshot in self._snapshots():
                if mark < watermark:
                    snapshot.unlink(missing_ok=True)

    def reload_if_newer(self) -> bool:
        """Load the newest readable snapshot that covers more than memory does."""
        return self._load_newest(above=self.watermark)

    def vectors(self, ids: np.ndarray) -> np.ndarray:
        """The stored (normalised) vectors of live `ids`, one row each."""
        with self._mutex:
            return np.asarray(self._index.get_items(ids), dtype=np.float32).reshape(-1, self._dim)

    def ids(self) -> set[int]:
        with self._mutex:
            return set(self._live)

    def __len__(self) -> int:
        return len(self._live)

    def size_bytes(self) -> int:
        return sum(f.stat().st_size for f in self._path.iterdir() if f.is_file())

    # -- internals -------------------------------------------------------------------------

    def _empty(self, capacity: int = 1024) -> hnswlib.Index:
        index = hnswlib.Index(space="cosine", dim=self._dim)
        index.init_index(capacity, M=_M, ef_construction=_EF_CONSTRUCTION)
        return index

    def _knn(
        self, query: np.ndarray, k: int, filt: Callable[[int], bool] | None
    ) -> list[tuple[int, float]]:
        self._index.set_ef(max(_EF_SEARCH, k))
        labels, dists = self._index.knn_query(query, k=k, num_threads=1, filter=filt)
        return list(zip(labels[0].tolist(), dists[0].tolist(), strict=True))

    def _exact(self, query: np.ndarray, k: int, candidates: set[int]) -> list[tuple[int, float]]:
        ids = np.fromiter(candidates, dtype=np.int64, count=len(candidates))
        q = query[0] / (np.linalg.norm(query[0]) or 1.0)
        sims = self._similarities(ids, q)
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top])]
        return [(int(ids[i]), float(1.0 - sims[i])) for i in top]

    def _similarities(self, ids: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Cosine similarity of `q` to each live id's vector: hnswlib's cosine space stores
        normalised copies, so it is a dot product. Vectors come from the mapped snapshot
        unless they changed since."""
        m = self._mapped
        sims = np.empty(len(ids), dtype=np.float32)
        fresh = np.ones(len(ids), dtype=bool)  # no snapshot yet: every vector from hnswlib
        if m is not None:
            fresh = np.isin(ids, np.fromiter(self._fresh, dtype=np.int64, count=len(self._fresh)))
            rows = m.rows[np.searchsorted(m.labels, ids[~fresh])]
            # Gathering rows costs far more than reading them in order (78k of 78k: 50 ms
            # against 9 ms), so a large share is scored in one pass over the whole file.
            if len(rows) > len(m.vecs) // 8:
                sims[~fresh] = (m.vecs @ q)[rows]
            else:
                sims[~fresh] = m.vecs[rows] @ q
        where = np.flatnonzero(fresh)
        for i in range(0, len(where), _BRUTE_FORCE_MAX):
            part = where[i : i + _BRUTE_FORCE_MAX]
            sims[part] = self._index.get_items(ids[part]) @ q
        return sims

    def _snapshots(self) -> list[tuple[int, Path]]:
        """Complete snapshot files, newest first (temp files never match the name)."""
        found = []
        for f in self._path.iterdir():
            if m := _SNAPSHOT.fullmatch(f.name):
                found.append((int(m.group(1)), f))
        return sorted(found, reverse=True)

    def _load_newest(self, above: int) -> bool:
        for mark, snapshot in self._snapshots():
            if mark <= above:
                return False
            try:
                index, mapped = self._read(snapshot)
            except Exception:
                if not snapshot.exists():  # a newer save replaced it while we read: list again
                    return self._load_newest(above)
                continue  # damaged: try the next older
            with self._mutex:
                self._index, self._mapped, self._fresh = index, mapped, set()
                self._live = set(mapped.labels.tolist())
                self.watermark = self.saved_watermark = mark
            return True
        return False

    def _read(self, snapshot: Path) -> tuple[hnswlib.Index, _Mapped]:
        mapped = _map(snapshot, self._dim)
        index = hnswlib.Index(space="cosine", dim=self._dim)
        index.load_index(str(snapshot))
        if index.element_count != len(mapped.vecs):
            raise ValueError("header and contents disagree")
        return index, mapped


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
    raw = np.memmap(
        snapshot, dtype=np.uint8, mode="r", offset=_HEADER.size, shape=(count, per_element)
    )
    labels = raw[:, label_at : label_at + 8].copy().view("<u8").ravel().astype(np.int64)
    rows = np.flatnonzero((raw[:, level0 + 2] & 1) == 0)  # hnswlib's DELETE_MARK
    rows = rows[np.argsort(labels[rows])]
    return _Mapped(labels[rows], rows, raw[:, data_at : data_at + dim * 4].view(np.float32))


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
