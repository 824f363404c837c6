"""Message vectors (cosine). Derived from the SQLite store and rebuildable.

A snapshot is two files named for the store sequence number they cover and the model that
embedded them (`embed.model_identity`):

- `vectors-<watermark>-<model>.hnsw`: hnswlib's index file (graph and float vectors);
- `vectors-<watermark>-<model>.codes`: what a search reads, derived from that file: the live
  labels in order, the row of each in the .hnsw file, a binary code of each vector (the sign
  of each coordinate of the vector, centred and rotated, twice the width in bits), and an int8
  copy of every row's vector with its scale.

Both are written under temp names and renamed into place, the codes first, so a reader only
ever sees complete files; the codes record the .hnsw file's inode and size, so a pair that
does not belong together is never used. A reader that cannot read the newest falls back to
the next older snapshot, and derives the codes of a snapshot that has none, or has them in
an older format (before int8 copies). Vectors of another model (or of a file from before
names carried one) are `foreign`: they are not added to, and the ingester embeds everything
again.

A process maps the newest snapshot read-only and keeps only what it added since (`_Delta`)
in its own memory. A search counts the differing bits of every code (one pass over 96 bytes
a vector), takes the closest share as a shortlist, scores that from the int8 copies (384
bytes a vector), and scores the best of those exactly from the float vectors, read from the
.hnsw file without mapping them; plus the delta exactly; a small snapshot is scored exactly
whole. The codes file is the page cache's, shared by every memtui process on the data dir
(the TUI and one MCP server per Claude Code window): opening a snapshot reads its small
header, and a search touches the codes and the int8 rows it scores. The float rows (1.7 KB
each with hnswlib's links) are read, never mapped, so they do not pile up in each process's
memory as searches touch them. hnswlib's graph is loaded into a process's memory only to
write a snapshot. bench/README.md has the figures.
"""

from __future__ import annotations

import math
import os
import re
import struct
import threading
import weakref
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import hnswlib
import numpy as np

from memtui.store.locks import file_lock

_SNAPSHOT = re.compile(r"vectors-(\d{12})(?:-([0-9a-f]{16}))?\.hnsw")
_CODES_FILE = re.compile(r"vectors-(\d{12})(?:-([0-9a-f]{16}))?\.codes")
_M = 16
# hnswlib's graph is the snapshot's format, loaded only to write the next snapshot (searches
# use the codes), so it is built for speed: on 60k of the model's vectors, 32 takes two thirds
# of 64's CPU, and the graph's own recall@10 at ef 400 is 0.805 against 0.825.
_EF_CONSTRUCTION = 32
_ADD_THREADS = 2
_ADD_CHUNK = 20_000  # vectors handed to hnswlib at once: no copy of a whole delta

# The shortlist scored after the codes: the largest of these. Static-model vectors
# crowd together, so it grows with the snapshot, as its square root: the share of a snapshot
# that holds the true top 10 fell as snapshots grew (78k real vectors: 5% for recall@10 0.99,
# 20k: 10%). bench/bench_million.py measures recall@10 against exact scoring on held-back
# queries; bench/README.md has the figures.
_SHORTLIST_SCALE = 14.0  # x sqrt(vectors): 78k -> 3,900 scored from int8, 480k -> 9,700
_SHORTLIST_MIN = 2_000
_SHORTLIST_PER_HIT = 8
# The shortlist's best k by int8 score (at least _EXACT_MIN) are scored exactly: an int8 copy
# is within 0.001 of the float's similarity on average (p99 0.003 at 1M), so the true top
# ten is among its best k.
_EXACT_MIN = 64
_APPROX_TIE = 1e-5  # int8 scores this close tie: a matrix product's last bit differs by row
_SCORE_ROWS = 2_048  # int8 rows scored at a time, through reused buffers (~4 MB)
_HAMMING_BLOCK = 32_768  # codes per pass: the working buffers stay in the CPU's cache
_READ_ROWS = 4_096  # .hnsw rows read at a time when deriving codes
CENTRE_DRIFT = 0.01  # the share of the count that may change before the centre is summed again

# hnswlib's file header (hnswalg.h saveIndex): offsetLevel0, max_elements, cur_element_count,
# size_data_per_element, label_offset, offsetData, maxlevel, enterpoint, maxM, maxM0, M, mult,
# ef_construction.
_HEADER = struct.Struct("<6QiI3QdQ")
# The codes file: magic, version, dim, 64-bit words per code, live vectors, the .hnsw file's
# element count, size and inode; then the centre (dim float32), the rotation (dim x bits
# float32), every .hnsw row's int8 scale (float32, 0 for a deleted row) and int8 vector
# (dim int8), the live labels (int64, sorted), their rows (int64), the codes (words x live).
_CODES_MAGIC = b"memtuiVC"
_CODES_VERSION = 2
_CODES_HEADER = struct.Struct("<8sIIIIQQQQ")


_scratch = threading.local()  # each searching thread's buffers for the rows it scores


@dataclass(slots=True, weakref_slot=True)
class _Mapped:
    """A snapshot mapped read-only: its codes file whole, its .hnsw file for a small
    snapshot's exact scan; the float rows a search scores exactly are read from `fd`."""

    path: Path
    fd: int  # the .hnsw file, open (closed with this): a rename or a newer save never moves it
    labels: np.ndarray  # live labels, sorted
    rows: np.ndarray  # the .hnsw row of each
    codes: np.ndarray  # (words, live) uint64, column i the code of labels[i]
    centre: np.ndarray  # (dim,) float32
    rotation: np.ndarray  # (dim, bits) float32
    scales: np.ndarray  # (rows,) float32: a row's vector is about int8s[row] * scales[row]
    int8s: np.ndarray  # (rows, dim) int8
    vecs: np.ndarray  # (rows, dim) float32, normalised by hnswlib, a view into the .hnsw file
    lay: _Layout

    def encode(self, vecs: np.ndarray) -> np.ndarray:
        return _encode(vecs, self.centre, self.rotation)

    def positions(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each id: its position in `labels`, and whether it is there."""
        at = np.searchsorted(self.labels, ids)
        found = at < len(self.labels)
        found[found] = self.labels[at[found]] == ids[found]
        return at, found

    def approx(self, pos: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Similarities to `q` of the positions `pos` (sorted) from their int8 copies."""
        return self._int8_scores(self.rows[pos], q)

    def best(
        self, pos: np.ndarray, approx: np.ndarray, q: np.ndarray, k: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Labels and exact similarities to `q` of the best k of the positions `pos` by their
        `approx` similarities."""
        rows = self.rows[pos]
        best = min(len(pos), max(_EXACT_MIN, k))
        if best < len(pos):
            top = np.sort(_top(approx, self.labels[pos], best, within=_APPROX_TIE))
            pos, rows = pos[top], rows[top]
        return self.labels[pos], _dot(self.floats(rows), q)

    def _int8_scores(self, rows: np.ndarray, q: np.ndarray) -> np.ndarray:
        """`int8s[rows] @ q * scales[rows]`, through this thread's reused buffers a block of
        rows at a time: a new array each search either stays in the heap once freed or,
        mapped apart, faults its pages in again every time."""
        dim = self.int8s.shape[1]
        small: np.ndarray | None = getattr(_scratch, "int8", None)
        if small is None or small.shape[1] != dim:
            small = _scratch.int8 = np.empty((_SCORE_ROWS, dim), np.int8)
            _scratch.floats = np.empty((_SCORE_ROWS, dim), np.float32)
        wide: np.ndarray = _scratch.floats
        out = np.empty(len(rows), np.float32)
        for start in range(0, len(rows), _SCORE_ROWS):
            part = rows[start : start + _SCORE_ROWS]
            n = len(part)
            np.take(self.int8s, part, axis=0, out=small[:n], mode="clip")  # "raise" copies
            wide[:n] = small[:n]
            np.matmul(wide[:n], q, out=out[start : start + n])
        return out * self.scales[rows]

    def floats(self, rows: np.ndarray) -> np.ndarray:
        """`vecs[rows]`, read from the file rather than through the map (pages a map touches
        stay in this process's memory)."""
        dim, fd = self.int8s.shape[1], self.fd
        at = _HEADER.size + self.lay.data_at
        got = b"".join(os.pread(fd, dim * 4, at + r * self.lay.per_element) for r in rows.tolist())
        return np.frombuffer(got, np.float32).reshape(len(rows), dim)


class _NoCodes(ValueError):
    """A readable .hnsw file whose codes file is missing or is not its own."""


_BLOCK = 16_384  # delta rows per block: growing never copies what is there


@dataclass(slots=True)
class _Delta:
    """Vectors added or replaced since the mapped snapshot, in this process's memory."""

    dim: int
    rows: dict[int, int] = field(default_factory=dict)  # id -> row
    blocks: list[np.ndarray] = field(default_factory=list)
    used: int = 0

    def __len__(self) -> int:
        return len(self.rows)

    def put(self, ids: np.ndarray, vecs: np.ndarray) -> None:
        for i in ids.tolist():
            if i not in self.rows:
                self.rows[i] = self.used
                self.used += 1
        while len(self.blocks) * _BLOCK < self.used:
            self.blocks.append(np.zeros((_BLOCK, self.dim), dtype=np.float32))
        at = self._at(ids)
        for b, sel in self._by_block(at):
            self.blocks[b][at[sel] % _BLOCK] = vecs[sel]

    def discard(self, i: int) -> None:
        self.rows.pop(i, None)  # its row stays unused until the next snapshot

    def get(self, ids: np.ndarray) -> np.ndarray:
        at = self._at(ids)
        out = np.empty((len(ids), self.dim), dtype=np.float32)
        for b, sel in self._by_block(at):
            out[sel] = self.blocks[b][at[sel] % _BLOCK]
        return out

    def ids(self) -> np.ndarray:
        return np.fromiter(self.rows, dtype=np.int64, count=len(self.rows))

    def similarities(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every id here and its vector's dot product with `q`, block by block."""
        if not self.rows:
            return np.empty(0, np.int64), np.empty(0, np.float32)
        sims = np.concatenate([_dot(block, q) for block in self.blocks])
        at = np.fromiter(self.rows.values(), dtype=np.int64, count=len(self.rows))
        return self.ids(), sims[at]

    def chunks(self) -> Iterable[tuple[np.ndarray, np.ndarray]]:
        """(ids, vectors) of everything here, _ADD_CHUNK at a time."""
        ids = self.ids()
        for start in range(0, len(ids), _ADD_CHUNK):
            part = ids[start : start + _ADD_CHUNK]
            yield part, self.get(part)

    def _at(self, ids: np.ndarray) -> np.ndarray:
        return np.fromiter((self.rows[i] for i in ids.tolist()), dtype=np.int64, count=len(ids))

    @staticmethod
    def _by_block(at: np.ndarray) -> Iterable[tuple[int, np.ndarray]]:
        blocks = at // _BLOCK
        for b in np.unique(blocks).tolist():
            yield b, blocks == b


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
        # Searches hold _mutex, only while they read; changes hold _writing throughout and
        # _mutex only while they change what a search reads, so a search never waits for
        # hnswlib's graph to be built or a snapshot to be written.
        self._mutex = threading.Lock()
        self._writing = threading.RLock()
        self.watermark = 0  # store sequence number the contents cover
        self.saved_watermark = 0  # ... and the snapshot this process last loaded or wrote
        self._mapped: _Mapped | None = None
        self._delta = _Delta(dim)
        self._removed: set[int] = set()  # snapshot labels deleted since
        self._count = 0  # live vectors
        self._graph: hnswlib.Index | None = None  # when loaded, it holds exactly the live ones
        self._changes = 0  # bumped by every change to what a search reads
        self._last = threading.local()  # each thread's last shortlist (_all_similarities)
        # The centre (Vectors.centre): the snapshot it was summed with, the mean, the count.
        self._centre: tuple[Path | None, np.ndarray, int] | None = None
        if load:
            self._load_newest(above=-1)

    @property
    def foreign(self) -> bool:
        """Whether the contents were embedded by another model than this process's."""
        return self.made_by != self.model

    @property
    def unsaved(self) -> int:
        """Vectors added or replaced since the snapshot this process last loaded or wrote."""
        return len(self._delta)

    def add(self, ids: np.ndarray, vecs: np.ndarray, watermark: int) -> None:
        """Add or replace vectors (L2-normalised float32, one row per id)."""
        if self.foreign:
            raise ValueError("these vectors come from another model: clear them first")
        ids = np.asarray(ids, dtype=np.int64)
        vecs = np.asarray(vecs, dtype=np.float32).reshape(len(ids), self._dim)
        with self._writing:
            with self._mutex:
                if len(ids):
                    self._count += len(np.unique(ids[~self._live_mask(ids)]))
                    self._delta.put(ids, vecs)
                    self._removed.difference_update(ids.tolist())
                    self._changes += 1
                # Never back: a forget may have had this process map a snapshot past it.
                self.watermark = max(self.watermark, watermark)
            if len(ids) and self._graph is not None:
                _graph_add(self._graph, ids, vecs)

    def remove(self, ids: Iterable[int]) -> None:
        with self._writing, self._mutex:
            self._changes += 1
            for i in ids:
                if not self._is_live(i):
                    continue
                self._count -= 1
                self._delta.discard(i)
                if self._in_snapshot(i):
                    self._removed.add(i)
                if self._graph is not None:
                    self._graph.mark_deleted(i)

    def clear(self) -> None:
        """Forget everything, in memory and on disk (a rebuild starts from nothing)."""
        with file_lock(self._path / "write.lock"), self._writing, self._mutex:
            for f in self._path.iterdir():
                if _SNAPSHOT.fullmatch(f.name) or _CODES_FILE.fullmatch(f.name):
                    f.unlink(missing_ok=True)
            self._reset(None, self.model)
            self.watermark = self.saved_watermark = 0

    def search(
        self, vec: np.ndarray, k: int, allowed: Collection[int] | None = None
    ) -> list[tuple[int, float]]:
        """(id, cosine distance), nearest first; only ids in `allowed` when given. Of equal
        distances the last archived (the largest id) come first, at every cut a search makes
        (codes, int8 copies, exact): the k nearest are the first k of a larger k's answer."""
        query = np.asarray(vec, dtype=np.float32).reshape(self._dim)
        q = query / (np.linalg.norm(query) or 1.0)
        with self._mutex:
            if allowed is None:
                ids, sims = self._all_similarities(q, k)
            else:
                wanted = np.fromiter(allowed, dtype=np.int64, count=len(allowed))
                ids, sims = self._similarities(np.unique(wanted), q, k)
        top = _top(sims, ids, k)
        return [(int(ids[i]), float(1.0 - sims[i])) for i in top]

    def save(self, *, keep_graph: bool = False) -> None:
        """Write a snapshot for the current watermark and drop older ones. `keep_graph`: keep
        hnswlib's graph in memory for the next save (a long catch-up saves as it goes)."""
        with file_lock(self._path / "write.lock"):
            self._drop_leftovers()
            with self._writing:
                watermark = self.watermark
                target = self._path / f"vectors-{watermark:012d}-{self.model}.hnsw"
                tmp = self._path / f".vectors-{watermark:012d}.{os.getpid()}.tmp"
                codes_tmp = self._path / f".vectors-{watermark:012d}.{os.getpid()}.codes.tmp"
                graph = self._load_graph()
                try:
                    graph.save_index(str(tmp))
                    _scrub(tmp, _write_codes(tmp, codes_tmp, self._dim), self._dim)
                    _fsync(tmp)
                    os.replace(codes_tmp, target.with_suffix(".codes"))
                    os.replace(tmp, target)
                except BaseException:  # a full disk: no half-written snapshot stays behind
                    tmp.unlink(missing_ok=True)
                    codes_tmp.unlink(missing_ok=True)
                    raise
                _fsync_dir(self._path)
                mapped = _map(target, self._dim)
                with self._mutex:
                    self._reset(mapped, self.model)
                # Else dropped: the next save loads it again from this file, so a process that
                # once ingested does not keep a private copy of the index.
                self._graph = graph if keep_graph else None
            self.saved_watermark = watermark
            self._drop_older(target, watermark)

    def scrub(self, ids: Collection[int], watermark: int) -> bool:
        """Forget `ids` in the newest snapshot in place, in time proportional to them rather
        than to the snapshot: their rows of the .hnsw file are zeroed and marked deleted and
        a codes file without them is written. With `watermark` past the snapshot's mark (the
        caller vouches that the store has no row to embed between the two), the pair is
        renamed to cover it, so other processes load it; at the snapshot's own mark it keeps
        its name, and this process keeps what it added since, less `ids`. With no snapshot
        on disk, only this process's memory holds them. False, changing nothing, when it
        would be renamed while this process holds vectors the snapshot lacks, or another
        process saved a newer one: the caller then writes a whole new snapshot. Each step
        leaves a readable pair, and running it again after a crash finishes it."""
        wanted = np.unique(np.fromiter(ids, dtype=np.int64, count=len(ids)))
        with file_lock(self._path / "write.lock"), self._writing:
            self._drop_leftovers()  # they may hold the forgotten vectors
            m = self._mapped
            snapshots = self._snapshots()
            if m is None and not snapshots and not self.foreign:
                self.remove(wanted.tolist())
                return True
            renamed = watermark > self.saved_watermark
            if (
                m is None
                or self.foreign
                or (renamed and not set(self._delta.rows) <= set(wanted.tolist()))
                or not snapshots
                or snapshots[0][2] != m.path
                or watermark < self.saved_watermark
            ):
                return False
            at, found = m.positions(wanted)
            rows = m.rows[at[found]]
            lay = m.lay  # checked against the file when it was mapped
            if len(rows):
                raw = np.memmap(
                    m.path, np.uint8, "r+", _HEADER.size, shape=(lay.count, lay.per_element)
                )
                raw[rows, lay.data_at : lay.data_at + self._dim * 4] = 0
                raw[rows, lay.level0 + 2] |= 1  # hnswlib's DELETE_MARK
                raw.flush()
                del raw
                _fsync(m.path)
            target = self._path / f"vectors-{watermark:012d}-{self.model}.hnsw"
            keep = np.ones(len(m.labels), dtype=bool)
            keep[at[found]] = False
            tmp = self._path / f".vectors-{watermark:012d}.{os.getpid()}.codes.tmp"
            _write_kept_codes(m, keep, tmp, self._dim)
            os.replace(tmp, target.with_suffix(".codes"))
            if target != m.path:
                os.replace(m.path, target)
                m.path.with_suffix(".codes").unlink(missing_ok=True)
            # An older pair a crashed save left (it had not yet removed them) holds the
            # forgotten vectors too.
            self._drop_older(target, watermark)
            _fsync_dir(self._path)
            mapped = _map(target, self._dim)
            with self._mutex:
                if renamed:
                    self._reset(mapped, self.model)
                    self.watermark = self.saved_watermark = watermark
                else:
                    self._remap(mapped, wanted)
            return True

    def refresh(self, live: Callable[[np.ndarray], np.ndarray]) -> None:
        """After a forget (which may have rewritten the newest snapshot in place): map the
        newest snapshot again, and keep of what this process added since only the ids
        `live` says the store still holds."""
        newest = self._snapshots()
        if self.foreign or not newest or newest[0][1] != self.model:
            return
        mark, _, snapshot = newest[0]
        try:
            mapped = self._open(snapshot)  # before _writing: it may take write.lock
        except (OSError, ValueError):
            return  # gone or damaged meanwhile: the next reload finds the newest
        with self._writing:
            added = self._delta.ids()
            gone = added[~live(added)] if len(added) else added
            with self._mutex:
                self._remap(mapped, gone)
                self.watermark = max(self.watermark, mark)
            self.saved_watermark = mark

    def _drop_older(self, target: Path, watermark: int) -> None:
        """The snapshots `target` (covering `watermark`) replaces, and orphan codes."""
        for mark, _, snapshot in self._snapshots():
            if mark <= watermark and snapshot != target:
                snapshot.unlink(missing_ok=True)
                snapshot.with_suffix(".codes").unlink(missing_ok=True)
        self._drop_orphan_codes()

    def _drop_leftovers(self) -> None:
        """The temp files of a save, scrub or codes derivation that crashed (each writes them
        under write.lock, which the caller holds): copies of vectors, int8 ones included."""
        for stale in self._path.glob(".vectors-*.tmp"):
            stale.unlink(missing_ok=True)

    def _drop_orphan_codes(self) -> None:
        """Codes whose .hnsw never came, or went (a crash between two renames)."""
        for f in self._path.iterdir():
            if _CODES_FILE.fullmatch(f.name) and not f.with_suffix(".hnsw").exists():
                f.unlink(missing_ok=True)

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
                out[~fresh] = m.floats(m.rows[np.searchsorted(m.labels, ids[~fresh])])
            return out

    def similarities(self, ids: Collection[int], vec: np.ndarray) -> dict[int, float]:
        """Each live one of `ids` and its similarity to `vec` (normalised): from the int8
        copies for a snapshot's vectors (within 0.001 of exact on average), exactly for those
        added since. A few rows each, never a pass over the index."""
        wanted = np.unique(np.fromiter(ids, dtype=np.int64, count=len(ids)))
        q = np.asarray(vec, dtype=np.float32).reshape(self._dim)
        with self._mutex:
            fresh = np.array([i in self._delta.rows for i in wanted.tolist()], dtype=bool)
            added = wanted[fresh]
            out = dict(zip(added.tolist(), _dot(self._delta.get(added), q).tolist(), strict=True))
            m = self._mapped
            if m is None or fresh.all():
                return out
            rest = wanted[~fresh]
            if self._removed:
                rest = rest[~np.isin(rest, self._removed_array())]
            at, found = m.positions(rest)
            out.update(zip(rest[found].tolist(), m.approx(at[found], q).tolist(), strict=True))
            return out

    def centre(self) -> tuple[np.ndarray, int]:
        """The mean of the live vectors and how many there are: the snapshot's centre (its
        codes file keeps it) and what was added since, by their counts. Kept while the
        snapshot is the same and the count moved by under CENTRE_DRIFT of it: an ingest adds
        vectors between every two searches, and summing a large delta each time would cost a
        search milliseconds for a mean that a few more vectors hardly move."""
        with self._mutex:
            cached = self._centre
            m = self._mapped
            if (
                cached is not None
                and cached[0] == (m.path if m is not None else None)
                and abs(self._count - cached[2]) <= max(CENTRE_DRIFT * cached[2], 1)
            ):
                return cached[1], cached[2]
            total = np.zeros(self._dim, dtype=np.float64)
            n = len(self._delta)
            for _, vecs in self._delta.chunks():
                total += vecs.sum(axis=0, dtype=np.float64)
            if m is not None:
                kept = len(m.labels) - len(self._removed)
                total += m.centre.astype(np.float64) * kept
                n += kept
            mean = (total / max(n, 1)).astype(np.float32)
            self._centre = (m.path if m is not None else None, mean, n)
            return mean, n

    def ids(self) -> set[int]:
        with self._mutex:
            found = set(self._delta.rows)
            if self._mapped is not None:
                found.update(self._mapped.labels.tolist())
            return found - (self._removed - self._delta.rows.keys())

    def live_among(self, ids: Collection[int]) -> set[int]:
        wanted = np.fromiter(ids, dtype=np.int64, count=len(ids))
        with self._mutex:
            return set(wanted[self._live_mask(wanted)].tolist())

    def __len__(self) -> int:
        return self._count

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
        self._count = 0 if mapped is None else len(mapped.labels)
        self._graph = None
        self._changes += 1

    def _remap(self, mapped: _Mapped, gone: np.ndarray) -> None:
        """Contents = the snapshot `mapped` (rewritten, or newer) and what this process added
        since, less `gone`; hnswlib's graph is loaded again from the file when next needed."""
        dropped = set(gone.tolist())
        keep = np.array([i for i in self._delta.rows if i not in dropped], dtype=np.int64)
        delta = _Delta(self._dim)
        if len(keep):
            delta.put(keep, self._delta.get(keep))
        _, found = mapped.positions(self._removed_array())
        self._removed = set(self._removed_array()[found].tolist()) - dropped
        self._mapped = mapped
        self._delta = delta
        live = np.setdiff1d(mapped.labels, self._removed_array(), assume_unique=True)
        self._count = len(np.union1d(live, keep))
        self._graph = None
        self._changes += 1

    def _in_snapshot(self, i: int) -> bool:
        m = self._mapped
        if m is None:
            return False
        at = int(np.searchsorted(m.labels, i))
        return at < len(m.labels) and int(m.labels[at]) == i

    def _is_live(self, i: int) -> bool:
        return i in self._delta.rows or (i not in self._removed and self._in_snapshot(i))

    def _live_mask(self, ids: np.ndarray) -> np.ndarray:
        """Which of `ids` are live (in the delta, or in the snapshot and not removed)."""
        live = np.array([i in self._delta.rows for i in ids.tolist()], dtype=bool)
        if self._mapped is not None:
            _, found = self._mapped.positions(ids)
            if self._removed:
                found &= ~np.isin(ids, self._removed_array())
            live |= found
        return live

    def _removed_array(self) -> np.ndarray:
        return np.fromiter(self._removed, dtype=np.int64, count=len(self._removed))

    def _load_graph(self) -> hnswlib.Index:
        """hnswlib's graph of the live vectors: the snapshot's, with what changed since."""
        if self._graph is None:
            graph = hnswlib.Index(space="cosine", dim=self._dim)
            if self._mapped is not None:
                graph.load_index(str(self._mapped.path), max_elements=self._count + 1024)
                for i in self._removed:
                    graph.mark_deleted(i)
            else:
                graph.init_index(self._count + 1024, M=_M, ef_construction=_EF_CONSTRUCTION)
            for ids, vecs in self._delta.chunks():
                _graph_add(graph, ids, vecs)
            self._graph = graph
        return self._graph

    def _shortlist(self, n: int, k: int) -> int:
        return max(
            _SHORTLIST_MIN, _SHORTLIST_PER_HIT * k, math.ceil(_SHORTLIST_SCALE * math.sqrt(n))
        )

    def _all_similarities(self, q: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Live ids and their similarity to `q`: every one in the delta, and in the snapshot
        either every one (small) or the shortlist of the closest codes."""
        ids, sims = self._delta.similarities(q)
        m = self._mapped
        if m is None:
            return ids, sims
        changed = np.concatenate([ids, self._removed_array()])
        at, found = m.positions(changed)
        stale = at[found]  # positions whose snapshot vector no longer counts
        n = len(m.labels)
        if n <= self._shortlist(n, k):
            keep = np.ones(n, dtype=bool)
            keep[stale] = False
            snap_sims = _dot(m.vecs, q)[m.rows[keep]]  # rows read in order, deleted rows too
            return np.concatenate([ids, m.labels[keep]]), np.concatenate([sims, snap_sims])
        short = min(self._shortlist(n, k), n - len(stale))
        # The next page of a search, and a list of concepts' tie at its cut (search.settled),
        # ask the same query again: the shortlist and its int8 scores are the same, so this
        # thread keeps the last.
        key = (q.tobytes(), short, self._changes)
        last = getattr(self._last, "shortlist", None)
        if last is not None and last[0] == key:
            pos, approx = last[1], last[2]
        else:
            distance = _hamming(m.codes, m.encode(q[None, :])[0], None)
            distance[stale] = 64 * len(m.codes) + 1  # farther than any code: never picked
            pos = _closest(distance, short)
            approx = m.approx(pos, q)
            self._last.shortlist = (key, pos, approx)
        snap_ids, snap_sims = m.best(pos, approx, q, k)
        return np.concatenate([ids, snap_ids]), np.concatenate([sims, snap_sims])

    def _similarities(
        self, wanted: np.ndarray, q: np.ndarray, k: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Like `_all_similarities`, among the ids `wanted` (unique) only."""
        fresh = np.array([i in self._delta.rows for i in wanted.tolist()], dtype=bool)
        ids, sims = wanted[fresh], _dot(self._delta.get(wanted[fresh]), q)
        m = self._mapped
        if m is None:
            return ids, sims
        rest = wanted[~fresh]
        if self._removed:
            rest = rest[~np.isin(rest, self._removed_array())]
        at, found = m.positions(rest)
        pos = np.sort(at[found])
        short = self._shortlist(len(m.labels), k)
        if len(pos) > short:
            pos = pos[_closest(_hamming(m.codes, m.encode(q[None, :])[0], pos), short)]
        snap_ids, snap_sims = m.best(pos, m.approx(pos, q), q, k)
        return np.concatenate([ids, snap_ids]), np.concatenate([sims, snap_sims])

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
                mapped = self._open(snapshot)
            except (OSError, ValueError):
                if not snapshot.exists():  # a newer save replaced it while we read: list again
                    return self._load_newest(above)
                continue  # damaged: try the next older
            with self._writing, self._mutex:
                self._reset(mapped, model)
                self.watermark = self.saved_watermark = mark
            return True
        return False

    def _open(self, snapshot: Path) -> _Mapped:
        """Map a snapshot; one without its codes (written before they existed) gets them."""
        try:
            return _map(snapshot, self._dim)
        except _NoCodes:
            pass
        with file_lock(self._path / "write.lock"):
            if not snapshot.exists():
                raise FileNotFoundError(snapshot)
            try:
                return _map(snapshot, self._dim)  # another process wrote them meanwhile
            except _NoCodes:
                pass
            tmp = self._path / f".vectors-codes.{os.getpid()}.tmp"
            _write_codes(snapshot, tmp, self._dim)
            os.replace(tmp, snapshot.with_suffix(".codes"))
            return _map(snapshot, self._dim)


def _graph_add(graph: hnswlib.Index, ids: np.ndarray, vecs: np.ndarray) -> None:
    # An existing label is updated in place, so this over-counts: harmless.
    needed = graph.element_count + len(ids)
    if needed > graph.max_elements:
        graph.resize_index(max(needed, graph.max_elements * 3 // 2))
    graph.add_items(vecs, ids, num_threads=_ADD_THREADS)


def _closest(distance: np.ndarray, n: int) -> np.ndarray:
    """Positions of the `n` smallest of `distance` (uint16; of a tie at the cut, the last
    positions: the largest ids), in order: one count of each distance finds the cut, several
    times faster than a partition of the whole array."""
    if n <= 0:
        return np.empty(0, np.int64)
    cut = int(np.searchsorted(np.cumsum(np.bincount(distance)), n))
    chosen = distance < cut
    short = n - int(np.count_nonzero(chosen))
    if short:
        chosen[np.flatnonzero(distance == cut)[-short:]] = True
    return np.flatnonzero(chosen)


def _top(scores: np.ndarray, ids: np.ndarray, k: int, within: float = 0.0) -> np.ndarray:
    """Indexes of the `k` highest `scores`, best first; of scores equal (or `within` of the
    k-th) the largest `ids` first, so that a tie cut at k keeps the same members however the
    index was built."""
    k = min(k, len(scores))
    if k <= 0:
        return np.empty(0, np.int64)
    kth = np.partition(scores, len(scores) - k)[len(scores) - k]
    above = np.flatnonzero(scores > kth + within)
    tied = np.flatnonzero((scores >= kth - within) & (scores <= kth + within))
    tied = tied[np.argsort(-ids[tied], kind="stable")][: k - len(above)]
    top = np.concatenate([above, tied])
    return top[np.lexsort((-ids[top], -scores[top]))]


def _dot(rows: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Each row's dot product with `q`, the same for equal rows wherever they are: a matrix
    product takes another path for its last rows, and equal vectors would differ in their
    last bit there, so equal texts would not tie."""
    return np.einsum("ij,j->i", rows, q)


def _hamming(codes: np.ndarray, query: np.ndarray, positions: np.ndarray | None) -> np.ndarray:
    """Differing bits between `query` (words,) and each code of `codes` (words, n), or of
    its columns at `positions`: uint16, one word column at a time in cache-sized blocks."""
    n = codes.shape[1] if positions is None else len(positions)
    out = np.zeros(n, dtype=np.uint16)
    xor = np.empty(min(n, _HAMMING_BLOCK), dtype=np.uint64)
    count = np.empty(min(n, _HAMMING_BLOCK), dtype=np.uint8)
    for start in range(0, n, _HAMMING_BLOCK):
        stop = min(n, start + _HAMMING_BLOCK)
        x, c, acc = xor[: stop - start], count[: stop - start], out[start:stop]
        for w, word in enumerate(codes):
            part = word[start:stop] if positions is None else word[positions[start:stop]]
            np.bitwise_xor(part, query[w], out=x)
            np.bitwise_count(x, out=c)
            acc += c
    return out


@dataclass(slots=True)
class _Layout:
    """Where things are in a .hnsw file (checked against its size)."""

    count: int
    per_element: int
    level0: int
    label_at: int
    data_at: int


def _layout(snapshot: Path, dim: int, size: int) -> _Layout:
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
    return _Layout(count, per_element, level0, label_at, data_at)


def _encode(vecs: np.ndarray, centre: np.ndarray, rotation: np.ndarray) -> np.ndarray:
    """Binary codes of (n, dim) vectors: (n, words) uint64, a bit per rotated coordinate."""
    bits = (vecs - centre) @ rotation > 0
    return np.packbits(bits, axis=1).view(np.uint64)


def _width(dim: int) -> int:
    """64-bit words per code: twice the vector's width in bits, rounded up to a word."""
    return (2 * dim + 63) // 64


def _rotation(dim: int) -> np.ndarray:
    """A fixed random (dim, 64 x words) projection: orthogonal blocks of dim columns."""
    bits = 64 * _width(dim)
    rng = np.random.default_rng(20)
    blocks: list[np.ndarray] = []
    while sum(b.shape[1] for b in blocks) < bits:
        blocks.append(np.linalg.qr(rng.standard_normal((dim, dim)))[0])
    return np.concatenate(blocks, axis=1)[:, :bits].astype(np.float32)


@dataclass(slots=True)
class _CodesLayout:
    """Where each part of a codes file starts, and where it ends."""

    centre: int
    rotation: int
    scales: int
    int8s: int
    labels: int
    rows: int
    codes: int
    end: int


def _codes_layout(dim: int, count: int, live: int) -> _CodesLayout:
    sizes = [_CODES_HEADER.size, dim * 4, dim * 64 * _width(dim) * 4, count * 4, count * dim]
    sizes += [live * 8, live * 8, _width(dim) * live * 8]
    return _CodesLayout(*(int(x) for x in np.cumsum(sizes)))


def _map(snapshot: Path, dim: int) -> _Mapped:
    """Map a snapshot after checking that its codes belong to its .hnsw file and that file's
    header, so a damaged or mismatched file never reaches a search."""
    with open(snapshot, "rb") as f:
        st = os.fstat(f.fileno())
        lay = _layout(snapshot, dim, st.st_size)
        try:
            codes = open(snapshot.with_suffix(".codes"), "rb")  # noqa: SIM115
        except FileNotFoundError:
            raise _NoCodes("no codes") from None
        with codes:
            head = codes.read(_CODES_HEADER.size)
            size = os.fstat(codes.fileno()).st_size
            if len(head) < _CODES_HEADER.size:
                raise _NoCodes("truncated codes")
            magic, version, cdim, words, _, live, count, hnsw_size, inode = _CODES_HEADER.unpack(
                head
            )
            if (magic, version, cdim, words) != (_CODES_MAGIC, _CODES_VERSION, dim, _width(dim)):
                raise _NoCodes("codes of another shape")
            if (count, hnsw_size, inode) != (lay.count, st.st_size, st.st_ino):
                raise _NoCodes("codes of another file")
            at = _codes_layout(dim, count, live)
            if at.end != size:
                raise _NoCodes("codes cut short")
            elements = _memmap(f, np.uint8, _HEADER.size, (lay.count, lay.per_element))
            mapped = _Mapped(
                path=snapshot,
                labels=_memmap(codes, np.int64, at.labels, (live,)),
                rows=_memmap(codes, np.int64, at.rows, (live,)),
                codes=_memmap(codes, np.uint64, at.codes, (words, live)),
                centre=np.array(_memmap(codes, np.float32, at.centre, (dim,))),
                rotation=np.array(_memmap(codes, np.float32, at.rotation, (dim, 64 * words))),
                scales=_memmap(codes, np.float32, at.scales, (count,)),
                int8s=_memmap(codes, np.int8, at.int8s, (count, dim)),
                vecs=elements[:, lay.data_at : lay.data_at + dim * 4].view(np.float32),
                lay=lay,
                fd=os.dup(f.fileno()),
            )
    weakref.finalize(mapped, os.close, mapped.fd)
    return mapped


def _memmap(f: BinaryIO, dtype: type, offset: int, shape: tuple[int, ...]) -> np.ndarray:
    """A read-only mapping of `shape` at `offset` of the open file `f` (it stays mapped once
    the file is closed), as a plain array (a memmap's slicing costs microseconds a call); an
    empty array when it holds nothing."""
    if math.prod(shape) == 0:
        return np.zeros(shape, dtype=dtype)
    return np.memmap(f, dtype=dtype, mode="r", offset=offset, shape=shape).view(np.ndarray)


def _quantised(vecs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row of `vecs` as int8s and a scale: the row is about int8s * scale."""
    scales = np.abs(vecs).max(axis=1) / 127
    safe = np.where(scales > 0, scales, 1)
    return np.rint(vecs / safe[:, None]).astype(np.int8), scales.astype(np.float32)


def _write_codes(snapshot: Path, out: Path, dim: int) -> np.ndarray:
    """Derive the codes file of a .hnsw file: read it in blocks of rows (through the page
    cache, never all at once), twice: the centre of the live vectors, then their codes and
    int8 copies. A .hnsw file whose link lists do not end with it is refused (hnswlib would
    read past a torn one). Returns the rows hnswlib flags deleted (the codes leave them out,
    their int8 copies are zeros)."""
    size = snapshot.stat().st_size
    lay = _layout(snapshot, dim, size)
    _check_links(snapshot, _HEADER.size + lay.count * lay.per_element, lay.count, size)
    rotation = _rotation(dim)
    words = _width(dim)
    labels = np.empty(lay.count, dtype=np.int64)
    alive = np.empty(lay.count, dtype=bool)
    total = np.zeros(dim, dtype=np.float64)
    for start, block in _blocks(snapshot, lay):
        labels[start : start + len(block)] = (
            block[:, lay.label_at : lay.label_at + 8].copy().view("<u8").ravel()
        )
        live = (block[:, lay.level0 + 2] & 1) == 0  # hnswlib's DELETE_MARK
        alive[start : start + len(block)] = live
        total += _floats(block, lay, dim)[live].sum(axis=0, dtype=np.float64)
    rows = np.flatnonzero(alive)
    centre = (total / max(1, len(rows))).astype(np.float32)
    at = _codes_layout(dim, lay.count, len(rows))
    codes = np.empty((lay.count, words), dtype=np.uint64)
    with open(out, "wb") as f:
        ino = os.stat(snapshot).st_ino
        f.write(
            _CODES_HEADER.pack(
                _CODES_MAGIC, _CODES_VERSION, dim, words, 0, len(rows), lay.count, size, ino
            )
        )
        f.write(centre.tobytes())
        f.write(rotation.tobytes())
        f.flush()
        for start, block in _blocks(snapshot, lay):
            vecs = _floats(block, lay, dim)
            codes[start : start + len(block)] = _encode(vecs, centre, rotation)
            int8s, scales = _quantised(vecs)
            dead = ~alive[start : start + len(block)]
            int8s[dead], scales[dead] = 0, 0
            os.pwrite(f.fileno(), scales.tobytes(), at.scales + start * 4)
            os.pwrite(f.fileno(), int8s.tobytes(), at.int8s + start * dim)
        order = rows[np.argsort(labels[rows], kind="stable")]
        f.seek(at.labels)
        f.write(labels[order].tobytes())
        f.write(order.astype(np.int64).tobytes())
        for word in range(words):  # a word's column at a time: no second copy of every code
            f.write(codes[order, word].tobytes())
        f.flush()
        os.fsync(f.fileno())
    return np.flatnonzero(~alive)


def _write_kept_codes(m: _Mapped, keep: np.ndarray, out: Path, dim: int) -> None:
    """The codes file of `m`'s snapshot with only the vectors `keep` selects, the others'
    int8 copies zeroed (the centre is left as it was: a few vectors fewer hardly move it, and
    the codes stay comparable)."""
    st = os.fstat(m.fd)  # the file mapped, whatever its name now
    lay = m.lay
    words = _width(dim)
    gone = np.zeros(lay.count, dtype=bool)
    gone[m.rows[~keep]] = True
    with open(out, "wb") as f:
        f.write(
            _CODES_HEADER.pack(
                _CODES_MAGIC,
                _CODES_VERSION,
                dim,
                words,
                0,
                int(keep.sum()),
                lay.count,
                st.st_size,
                st.st_ino,
            )
        )
        f.write(m.centre.tobytes())
        f.write(m.rotation.tobytes())
        f.write(np.where(gone, 0, m.scales).astype(np.float32).tobytes())
        for start in range(0, lay.count, _READ_ROWS):
            int8s = np.array(m.int8s[start : start + _READ_ROWS])
            int8s[gone[start : start + _READ_ROWS]] = 0
            f.write(int8s.tobytes())
        f.write(np.ascontiguousarray(m.labels[keep]).tobytes())
        f.write(np.ascontiguousarray(m.rows[keep]).tobytes())
        f.write(np.ascontiguousarray(m.codes[:, keep]).tobytes())
        f.flush()
        os.fsync(f.fileno())


def _blocks(snapshot: Path, lay: _Layout) -> Iterable[tuple[int, np.ndarray]]:
    """The .hnsw file's level-0 rows, _READ_ROWS at a time: (first row, rows as bytes)."""
    buffer = bytearray(_READ_ROWS * lay.per_element)
    with open(snapshot, "rb", buffering=0) as f:
        f.seek(_HEADER.size)
        for start in range(0, lay.count, _READ_ROWS):
            n = min(_READ_ROWS, lay.count - start)
            view = memoryview(buffer)[: n * lay.per_element]
            if f.readinto(view) != len(view):
                raise ValueError("rows cut short")
            yield start, np.frombuffer(view, dtype=np.uint8).reshape(n, lay.per_element)


def _floats(block: np.ndarray, lay: _Layout, dim: int) -> np.ndarray:
    return block[:, lay.data_at : lay.data_at + dim * 4].copy().view(np.float32)


def _scrub(snapshot: Path, deleted: np.ndarray, dim: int) -> None:
    """Zero the vectors of the `deleted` rows (from `_write_codes`, which reads the flags in
    blocks through the page cache): hnswlib only flags them, and a forgotten message's vector
    must not stay in the file (it is a bag of its words' meanings). Written row by row, never
    through a map of the file: touching every page of a map counted the whole file (800 MB at
    1M) in this process's RSS at once."""
    if not deleted.size:
        return
    lay = _layout(snapshot, dim, snapshot.stat().st_size)
    zeros = bytes(dim * 4)
    with open(snapshot, "r+b") as f:
        for row in deleted.tolist():
            os.pwrite(f.fileno(), zeros, _HEADER.size + row * lay.per_element + lay.data_at)


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


def _fsync(path: Path) -> None:
    with open(path, "rb") as f:
        os.fsync(f.fileno())


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
