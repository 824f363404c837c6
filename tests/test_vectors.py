"""The vector index and its snapshots (hnswlib files and their codes), on real files in a temp
dir, with other processes reading, writing and being killed beside it."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import corpus
import numpy as np
import pytest

from memtui.config import Config
from memtui.engine import Memory
from memtui.store import indexes
from memtui.store import vectors as vectors_module
from memtui.store.vectors import Vectors

DIM = 32
MODEL = "0123456789abcdef"  # the identity of the model the vectors come from
QUERIES = ["flaky test", "docker image", "useEffect cleanup", "migration rollback", "HTTP 503"]


def unit(n: int, seed: int = 0) -> np.ndarray:
    vecs = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)


def ids(*ranges: range) -> np.ndarray:
    return np.fromiter((i for r in ranges for i in r), dtype=np.int64)


def short_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make a snapshot of a few thousand vectors search through its codes and a shortlist,
    as a large one does (a small one is scored exactly whole)."""
    monkeypatch.setattr(vectors_module, "_SHORTLIST_MIN", 50)
    monkeypatch.setattr(vectors_module, "_SHORTLIST_PER_HIT", 4)
    monkeypatch.setattr(vectors_module, "_SHORTLIST_SCALE", 4.0)


@pytest.fixture
def filled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Vectors, np.ndarray]:
    """3,000 vectors with ids 1..3000, added in batches and saved on the way, searched through
    their codes."""
    short_lists(monkeypatch)
    v = Vectors(tmp_path / "vectors", DIM, MODEL)
    vecs = unit(3_000)
    for start in range(0, 3_000, 700):
        v.add(ids(range(start + 1, min(start + 701, 3_001))), vecs[start : start + 700], start)
        if start == 1_400:
            v.save(keep_graph=True)
    v.add(ids(), np.empty((0, DIM), np.float32), 3_000)
    v.save()
    return v, vecs


def saved(path: Path, vecs: np.ndarray) -> Vectors:
    """`vecs` with ids 1..n in a snapshot covering mark n."""
    v = Vectors(path, DIM, MODEL)
    v.add(ids(range(1, len(vecs) + 1)), vecs, len(vecs))
    v.save()
    return v


def exact(vecs: np.ndarray, query: np.ndarray, allowed: set[int], k: int) -> list[int]:
    """The true nearest ids among `allowed` (ids are row + 1)."""
    rows = np.array(sorted(allowed)) - 1
    sims = vecs[rows] @ query
    return [int(rows[i]) + 1 for i in np.argsort(-sims)[:k]]


def test_finds_an_exact_vector_at_distance_zero(filled: tuple[Vectors, np.ndarray]) -> None:
    v, vecs = filled
    assert len(v) == 3_000 and v.watermark == 3_000
    for mid in (1, 777, 3_000):
        (best, dist), *_ = v.search(vecs[mid - 1], 5)
        assert best == mid
        assert dist == pytest.approx(0.0, abs=1e-5)
    hits = v.search(vecs[0], 10)
    assert len(hits) == 10
    assert [d for _, d in hits] == sorted(d for _, d in hits)


def test_small_sets_are_scored_exactly(tmp_path: Path) -> None:
    """Up to the shortlist's size every vector is scored, from the snapshot and from memory:
    the order is exact scoring's, before a snapshot, after one, with changes since, and
    within an allowed set."""
    v = Vectors(tmp_path / "vectors", DIM, MODEL)
    vecs = unit(1_500, seed=2)
    everything = set(range(1, 1_501))
    v.add(ids(range(1, 1_501)), vecs, 1_500)
    query = unit(1, seed=3)[0]
    assert [mid for mid, _ in v.search(query, 50)] == exact(vecs, query, everything, 50)
    v.save()
    assert [mid for mid, _ in v.search(query, 50)] == exact(vecs, query, everything, 50)
    best = exact(vecs, query, everything, 1)[0]
    vecs[best - 1] = unit(1, seed=4)[0]
    v.add(ids(range(best, best + 1)), vecs[best - 1 : best], 1_501)  # replaced since
    gone = exact(vecs, query, everything, 1)[0]
    v.remove([gone])
    live = everything - {gone}
    assert [mid for mid, _ in v.search(query, 50)] == exact(vecs, query, live, 50)
    some = set(range(1, 1_501, 3)) - {gone}
    assert [mid for mid, _ in v.search(query, 40, some)] == exact(vecs, query, some, 40)
    for mid, dist in v.search(query, 5):
        assert dist == pytest.approx(1.0 - float(vecs[mid - 1] @ query), abs=1e-5)


def clustered(n: int, seed: int = 0) -> np.ndarray:
    """Vectors that crowd together as a static model's do: a shared direction, clusters."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((40, DIM)) + 3.0
    vecs = centres[rng.integers(0, 40, n)] + 0.6 * rng.standard_normal((n, DIM))
    vecs = vecs.astype(np.float32)
    return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)


def test_the_codes_shortlist_finds_the_exact_neighbours(tmp_path: Path) -> None:
    """Past the shortlist's size a search scores only the vectors whose codes are closest:
    on crowded vectors the top 10 still nearly all are exact scoring's, every distance is
    the exact one, and with a shortlist of everything the answer is exact."""
    n = 30_000
    vecs = clustered(n)
    v = saved(tmp_path / "vectors", vecs)
    everything = set(range(1, n + 1))
    queries = clustered(60, seed=9)
    found = 0
    for query in queries:
        hits = v.search(query, 10)
        found += len({mid for mid, _ in hits} & set(exact(vecs, query, everything, 10)))
        for mid, dist in hits:
            assert dist == pytest.approx(1.0 - float(vecs[mid - 1] @ query), abs=1e-5)
    # 32-dim vectors get 64-bit codes; the model's 384 get 768 (bench_million.py: recall@10
    # against exact scoring at 1M).
    assert found / (10 * len(queries)) >= 0.85
    reader = Vectors(tmp_path / "vectors", DIM, MODEL)
    reader_hits = [reader.search(q, 10) for q in queries[:5]]
    assert reader_hits == [v.search(q, 10) for q in queries[:5]]


def test_a_shortlist_of_everything_is_exact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vecs = clustered(5_000, seed=1)
    v = saved(tmp_path / "vectors", vecs)
    monkeypatch.setattr(vectors_module, "_SHORTLIST_SCALE", 100.0)
    everything = set(range(1, 5_001))
    for query in clustered(10, seed=2):
        assert [mid for mid, _ in v.search(query, 30)] == exact(vecs, query, everything, 30)


def test_k_larger_than_the_index(tmp_path: Path) -> None:
    v = Vectors(tmp_path / "vectors", DIM, MODEL)
    assert v.search(unit(1)[0], 10) == []
    v.add(ids(range(1, 4)), unit(3), 1)
    assert len(v.search(unit(1)[0], 10)) == 3


def test_replace_an_id(filled: tuple[Vectors, np.ndarray]) -> None:
    v, vecs = filled
    new = unit(1, seed=99)[0]
    v.add(ids(range(5, 6)), new[None, :], 3_001)
    assert len(v) == 3_000
    assert v.search(new, 1)[0][0] == 5
    assert v.search(new, 1)[0][1] == pytest.approx(0.0, abs=1e-5)
    assert 5 not in [mid for mid, _ in v.search(vecs[4], 3)]


def test_remove(filled: tuple[Vectors, np.ndarray]) -> None:
    v, vecs = filled
    v.remove([10, 20, 123_456])  # an unknown id is ignored
    v.remove([10])  # and so is one removed already
    assert len(v) == 2_998
    assert not {10, 20} & v.ids()
    assert 10 not in [mid for mid, _ in v.search(vecs[9], 20)]
    assert v.search(vecs[9], 5, allowed={10, 20}) == []
    v.add(ids(range(10, 11)), vecs[9:10], 3_001)  # a removed id can come back
    assert v.search(vecs[9], 1)[0][0] == 10


def test_allowed_returns_k_allowed_results(filled: tuple[Vectors, np.ndarray]) -> None:
    """A large allowed set goes through the codes like the whole index, a small one is scored
    exactly."""
    v, vecs = filled
    rng = np.random.default_rng(1)
    allowed = set((rng.choice(3_000, 2_000, replace=False) + 1).tolist())
    query = unit(1, seed=7)[0]
    hits = v.search(query, 25, allowed | {50_000})  # unknown ids in `allowed` are ignored
    assert len(hits) == 25
    assert {mid for mid, _ in hits} <= allowed
    found = [mid for mid, _ in hits]
    # random 32-dim vectors (64-bit codes) and a shortlist of 219: most, not all
    assert len(set(found) & set(exact(vecs, query, allowed, 25))) >= 15
    few = set(list(allowed)[:30])
    assert [mid for mid, _ in v.search(query, 10, few)] == exact(vecs, query, few, 10)
    assert len(v.search(query, 1_000, few)) == 30  # all of them when k is larger


def test_exact_scoring_after_a_snapshot_sees_later_changes(
    filled: tuple[Vectors, np.ndarray],
) -> None:
    """Scoring reads the mapped snapshot for old vectors and memory for changed ones."""
    v, vecs = filled
    new = unit(2, seed=5)
    v.add(ids(range(3, 4), range(4_001, 4_002)), new, 3_001)
    allowed = {1, 2, 3, 4, 4_001}
    assert v.search(new[0], 1, allowed)[0][0] == 3
    assert v.search(new[1], 1, allowed)[0][0] == 4_001
    (mid, dist), *_ = v.search(vecs[1], 1, allowed)
    assert mid == 2 and dist == pytest.approx(0.0, abs=1e-5)
    loaded = Vectors(v._path, DIM, MODEL)
    assert loaded.search(vecs[2], 1, allowed)[0][0] == 3  # the snapshot still has the old one
    assert exact(vecs, vecs[99], set(range(1, 200)), 5) == [
        mid for mid, _ in loaded.search(vecs[99], 5, set(range(1, 200)))
    ]


def snapshots(path: Path) -> list[str]:
    return sorted(f.name for f in path.iterdir() if f.name.endswith((".hnsw", ".codes")))


def pair(mark: int, model: str = MODEL) -> list[str]:
    """The two files of one snapshot."""
    return [f"vectors-{mark:012d}-{model}.codes", f"vectors-{mark:012d}-{model}.hnsw"]


def test_save_and_load_the_newest(filled: tuple[Vectors, np.ndarray]) -> None:
    v, vecs = filled
    path = v._path
    v.remove([1])
    v.add(ids(range(5_000, 5_001)), vecs[:1], 3_100)
    v.save()
    assert snapshots(path) == pair(3_100)
    loaded = Vectors(path, DIM, MODEL)
    assert loaded.watermark == loaded.saved_watermark == 3_100
    assert loaded.ids() == v.ids()
    assert 1 not in loaded.ids()  # deletions survive a save
    assert loaded.search(vecs[0], 1)[0][0] == 5_000
    assert loaded.size_bytes() > 3_000 * DIM * 4


def test_leftover_temp_and_corrupt_snapshots_are_skipped(
    filled: tuple[Vectors, np.ndarray],
) -> None:
    v, vecs = filled
    path = v._path
    v.save()
    good = path / f"vectors-000000003000-{MODEL}.hnsw"
    (path / ".vectors-000000009000.4242.tmp").write_bytes(good.read_bytes()[:5000])
    (path / f"vectors-000000009001-{MODEL}.hnsw").write_bytes(np.random.bytes(20_000))
    data = good.read_bytes()
    (path / f"vectors-000000009002-{MODEL}.hnsw").write_bytes(data[: len(data) // 2])
    (path / f"vectors-000000009003-{MODEL}.hnsw").write_bytes(data[:-100])  # links cut short
    (path / f"vectors-000000009005-{MODEL}.hnsw").write_bytes(b"")
    wrong_dim = Vectors(path / "other", DIM * 2, MODEL)
    wrong_dim.add(ids(range(1, 3)), np.eye(2, DIM * 2, dtype=np.float32), 1)
    wrong_dim.save()
    shutil.copy(
        path / "other" / f"vectors-000000000001-{MODEL}.hnsw",
        path / f"vectors-000000009004-{MODEL}.hnsw",
    )

    loaded = Vectors(path, DIM, MODEL)
    assert loaded.watermark == 3_000
    assert len(loaded) == 3_000
    assert loaded.search(vecs[41], 1)[0][0] == 42

    loaded.add(ids(range(1, 2)), vecs[:1], 9_100)
    loaded.save()  # clears the temp file and everything older than itself
    assert snapshots(path) == pair(9_100)
    assert not list(path.glob("*.tmp"))


def test_another_models_vectors_are_foreign(tmp_path: Path) -> None:
    """Vectors of another model, or from a snapshot that does not say, are loaded but never
    added to; a snapshot of this model's at the same mark replaces them."""
    path = tmp_path / "vectors"
    other = Vectors(path, DIM, "fedcba9876543210")
    other.add(ids(range(1, 51)), unit(50), 10)
    other.save()
    mine = Vectors(path, DIM, MODEL)
    assert mine.foreign and mine.made_by == "fedcba9876543210" and len(mine) == 50
    with pytest.raises(ValueError, match="another model"):
        mine.add(ids(range(51, 52)), unit(1), 11)
    writer = Vectors(path, DIM, MODEL, load=False)
    writer.add(ids(range(1, 51)), unit(50, seed=1), 10)
    writer.save()  # same mark, this model: the other model's snapshot goes
    assert snapshots(path) == pair(10)
    assert mine.reload_if_newer() and not mine.foreign
    assert mine.search(unit(50, seed=1)[3], 1)[0][0] == 4
    assert not mine.reload_if_newer()  # and then no reload at every search
    (path / f"vectors-000000000010-{MODEL}.hnsw").rename(path / "vectors-000000000010.hnsw")
    old = Vectors(path, DIM, MODEL)
    assert old.foreign and old.made_by is None and len(old) == 50
    old.clear()
    assert not old.foreign and snapshots(path) == []


def test_reload_if_newer(tmp_path: Path) -> None:
    path = tmp_path / "vectors"
    writer, reader = Vectors(path, DIM, MODEL), Vectors(path, DIM, MODEL)
    assert not reader.reload_if_newer()
    vecs = unit(50)
    writer.add(ids(range(1, 51)), vecs, 10)
    writer.save()
    assert reader.reload_if_newer()
    assert reader.watermark == 10
    assert reader.search(vecs[7], 1)[0][0] == 8
    assert not reader.reload_if_newer()
    reader.add(ids(range(51, 52)), unit(1, seed=3), 20)  # memory ahead of disk: keep it
    assert not reader.reload_if_newer()
    assert len(reader) == 51


def test_clear_forgets_memory_and_snapshots(filled: tuple[Vectors, np.ndarray]) -> None:
    v, vecs = filled
    v.save()
    v.clear()
    assert len(v) == 0 and v.watermark == 0 and v.saved_watermark == 0
    assert snapshots(v._path) == []
    assert not v.reload_if_newer()
    assert v.search(vecs[0], 5) == []
    v.add(ids(range(1, 3)), vecs[:2], 5)
    assert v.search(vecs[1], 1)[0][0] == 2


def test_a_reader_searches_the_mapped_snapshot_without_a_graph(tmp_path: Path) -> None:
    """Every memtui process shares the snapshot through the page cache; none but the one
    writing a snapshot builds hnswlib's graph in its own memory."""
    rng = np.random.default_rng(3)
    vecs = rng.standard_normal((3_000, DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    writer = Vectors(tmp_path, DIM, MODEL)
    writer.add(ids(range(3_000)), vecs, 3_000)
    writer.save()
    assert writer._graph is None  # dropped once the file is written
    reader = Vectors(tmp_path, DIM, MODEL)
    assert reader.search(vecs[42], 3)[0][0] == 42
    reader.add(ids([5_000]), vecs[7:8], 3_001)  # a reader embeds a few new rows itself
    assert [i for i, _ in reader.search(vecs[7], 2)] in ([7, 5_000], [5_000, 7])
    assert reader._graph is None and reader._mapped is not None


def test_a_snapshot_without_codes_gets_them(tmp_path: Path) -> None:
    """A snapshot from before codes existed (or whose codes are another file's) is read: its
    codes are derived from the .hnsw file once, for every process after."""
    path = tmp_path / "vectors"
    v = Vectors(path, DIM, MODEL)
    vecs = clustered(3_000, seed=4)
    v.add(ids(range(1, 3_001)), vecs, 3_000)
    v.remove([5])
    v.save()
    codes = path / f"vectors-000000003000-{MODEL}.codes"
    original = codes.read_bytes()
    codes.unlink()
    upgraded = Vectors(path, DIM, MODEL)
    assert codes.read_bytes() == original
    assert len(upgraded) == 2_999 and 5 not in upgraded.ids()
    query = vecs[77]
    assert upgraded.search(query, 20) == v.search(query, 20)
    # codes that belong to another .hnsw file (a copy: another inode) are never used
    hnsw = codes.with_suffix(".hnsw")
    shutil.copy(hnsw, tmp_path / "copy")
    os.replace(tmp_path / "copy", hnsw)
    again = Vectors(path, DIM, MODEL)
    assert again.search(query, 20) == v.search(query, 20)
    assert vectors_module._map(hnsw, DIM).labels.tolist() == sorted(set(range(1, 3_001)) - {5})


def test_a_changed_model_never_mixes_vectors(tmp_path: Path) -> None:
    """A process of another model reads the snapshot as foreign (never adds to it, never saves
    its own vectors into it); once it clears and saves its own, a process of the first model
    sees those as foreign in turn, and neither ever searches a mixture."""
    path = tmp_path / "vectors"
    first = Vectors(path, DIM, MODEL)
    first.add(ids(range(1, 101)), unit(100), 100)
    first.save()
    second = Vectors(path, DIM, "fedcba9876543210")
    assert second.foreign
    with pytest.raises(ValueError, match="another model"):
        second.add(ids(range(101, 102)), unit(1), 101)
    second.clear()
    second.add(ids(range(1, 101)), unit(100, seed=5), 101)
    second.save()
    assert snapshots(path) == pair(101, "fedcba9876543210")
    assert first.reload_if_newer() and first.foreign
    assert Vectors(path, DIM, MODEL).foreign
    with pytest.raises(ValueError, match="another model"):
        first.add(ids(range(1, 2)), unit(1), 102)


# -- other processes -------------------------------------------------------------------------

_CHILD = """
import sys, time
import numpy as np
from pathlib import Path
from memtui.store.vectors import Vectors
DIM, MODEL = 32, "0123456789abcdef"
path, role, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
def batch(start, count):
    rng = np.random.default_rng(start)
    vecs = rng.standard_normal((count, DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1)[:, None]
    return np.arange(start, start + count, dtype=np.int64), vecs
if role == "writer":
    v = Vectors(path, DIM, MODEL)
    for step in range(n):
        start = v.watermark
        ids, vecs = batch(start, 500)
        v.add(ids, vecs, start + 500)
        print("saving", v.watermark, flush=True)
        v.save()
        print("saved", v.watermark, flush=True)
elif role == "reader":
    v = Vectors(path, DIM, MODEL)
    seen = set()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        v.reload_if_newer()
        mark = v.watermark
        assert len(v) == mark, (len(v), mark)  # a whole snapshot, never a torn one
        if mark:
            ids, vecs = batch(mark - 500, 500)
            assert v.search(vecs[7], 1)[0][0] == ids[7]
        seen.add(mark)
        if mark >= n * 500:
            break
    print(len(seen), flush=True)
"""


def child(path: Path, role: str, n: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(path), role, str(n)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )


def test_a_snapshot_built_by_one_process_is_read_by_another_while_a_third_writes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "vectors"
    first = child(path, "writer", 1)  # builds the first snapshot and exits
    assert first.wait(60) == 0
    reader = child(path, "reader", 30)
    writer = child(path, "writer", 29)
    assert writer.wait(120) == 0
    out, _ = reader.communicate(timeout=120)
    assert reader.returncode == 0
    assert int(out) >= 2  # it saw the snapshots change under it
    final = Vectors(path, DIM, MODEL)
    assert final.watermark == len(final) == 30 * 500
    assert snapshots(path) == pair(30 * 500)


def test_kill_9_while_a_snapshot_is_written_leaves_the_older_one(tmp_path: Path) -> None:
    """A writer killed at any moment of a save leaves a readable snapshot (the last one
    complete) and at most leftovers that the next save clears."""
    path = tmp_path / "vectors"
    assert child(path, "writer", 2).wait(60) == 0
    for delay in (0.0, 0.02, 0.05, 0.1, 0.2):
        writer = child(path, "writer", 1_000)
        assert writer.stdout is not None
        while not writer.stdout.readline().startswith("saving"):
            pass
        time.sleep(delay)
        writer.send_signal(signal.SIGKILL)
        writer.wait(10)
        v = Vectors(path, DIM, MODEL)
        assert v.watermark > 0 and len(v) == v.watermark
        rng = np.random.default_rng(v.watermark - 500)
        last = rng.standard_normal((500, DIM)).astype(np.float32)
        assert v.search(last[3], 1)[0][0] == v.watermark - 500 + 3
    v.add(ids(range(10**6, 10**6 + 1)), unit(1), v.watermark + 1)
    v.save()
    assert snapshots(path) == pair(v.watermark)
    assert not list(path.glob(".*"))


def test_a_long_catch_up_saves_as_it_goes(cfg: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    """A catch-up past SPILL vectors saves a snapshot and keeps going with hnswlib's graph in
    memory and only what came since beside it; the end is what one save at the end gives."""
    corpus.generate(cfg.claude_dir, messages=1_500, seed=11)
    monkeypatch.setattr(indexes, "BATCH", 100)
    monkeypatch.setattr(indexes, "SPILL", 150)
    saves: list[int] = []
    real_save = Vectors.save

    def save(self: Vectors, *, keep_graph: bool = False) -> None:
        saves.append(self.unsaved)
        real_save(self, keep_graph=keep_graph)

    monkeypatch.setattr(Vectors, "save", save)
    with Memory(cfg) as memory:
        memory.upkeep.ingest()
        index = memory._index()
        assert len(saves) >= 3 and max(saves) < 150 + 100
        assert index.vectors._graph is None  # dropped after the last save
        spilled = [memory.history.search(q, "vector", limit=10).results for q in QUERIES]
        vectors = index.vectors
        assert vectors.unsaved == 0 and len(vectors) > 500
    monkeypatch.setattr(indexes, "SPILL", 10**9)
    shutil.rmtree(cfg.data_dir / "index" / "vectors")
    with Memory(cfg) as memory:
        memory.upkeep.ingest()
        once = [memory.history.search(q, "vector", limit=10).results for q in QUERIES]
    assert [[r.uuid for r in rs] for rs in spilled] == [[r.uuid for r in rs] for rs in once]


def test_a_search_while_this_process_catches_up_answers_hybrid(cfg: Config) -> None:
    """A new MCP server's follower holds the index lock while it checks every transcript:
    a search meanwhile searches the snapshot, never falls back to full text."""
    corpus.generate(cfg.claude_dir, messages=600, seed=5)
    with Memory(cfg) as memory:
        memory.upkeep.ingest()
    with Memory(cfg) as memory:
        index = memory._index()
        held, release = threading.Event(), threading.Event()

        def catch_up() -> None:
            with index._lock:
                held.set()
                release.wait(30)

        holder = threading.Thread(target=catch_up)
        holder.start()
        try:
            held.wait(30)
            response = memory.history.search("flaky test", "hybrid")
            assert response.mode == "hybrid" and response.note is None
            assert "vector" in {f for r in response.results for f in r.found_by}
        finally:
            release.set()
            holder.join()


def test_a_saved_snapshot_keeps_no_removed_vector(tmp_path: Path) -> None:
    """hnswlib only flags a removed element; the save zeroes its vector in the file."""
    v = Vectors(tmp_path / "vectors", DIM, MODEL)
    v.add(ids(range(1, 501)), unit(500), 500)
    v.save(keep_graph=True)  # the graph stays loaded: a removal flags its element
    v.remove([7, 300])
    v.save()
    snapshot = next((tmp_path / "vectors").glob("*.hnsw"))
    lay = vectors_module._layout(snapshot, DIM, snapshot.stat().st_size)
    rows = np.fromfile(snapshot, np.uint8, offset=vectors_module._HEADER.size)
    rows = rows[: lay.count * lay.per_element].reshape(lay.count, lay.per_element)
    labels = rows[:, lay.label_at : lay.label_at + 8].copy().view("<u8").ravel()
    vecs = rows[:, lay.data_at : lay.data_at + DIM * 4]
    empty = {int(label) for label, vec in zip(labels, vecs, strict=True) if not vec.any()}
    assert empty == {7, 300}
    m = vectors_module._map(snapshot, DIM)  # the int8 copies a search scores first: zeros too
    zeroed = {int(label) for label, row in zip(labels, m.int8s, strict=True) if not row.any()}
    assert zeroed == {7, 300}
    assert {int(labels[r]) for r in np.flatnonzero(m.scales == 0)} == {7, 300}


def test_a_scrub_zeroes_the_forgotten_vectors_everywhere(tmp_path: Path) -> None:
    """A forget's scrub rewrites the codes without the ids and zeroes their float rows and
    int8 copies; the rest is still found with its exact distance."""
    vecs = unit(400)
    v = saved(tmp_path / "vectors", vecs)
    assert v.scrub({5, 123}, 401)
    snapshot = next((tmp_path / "vectors").glob("*.hnsw"))
    m = vectors_module._map(snapshot, DIM)
    rows = {int(label): int(row) for label, row in zip(m.labels, m.rows, strict=True)}
    assert 5 not in rows and 123 not in rows and len(rows) == 398
    gone = [r for r in range(len(m.scales)) if r not in rows.values()]
    assert len(gone) == 2
    assert not m.int8s[gone].any() and not m.scales[gone].any() and not m.vecs[gone].any()
    reader = Vectors(tmp_path / "vectors", DIM, MODEL)
    hits = reader.search(vecs[122], 3)
    assert 123 not in {mid for mid, _ in hits}
    for mid, dist in reader.search(vecs[200], 5):
        assert dist == pytest.approx(1.0 - float(vecs[mid - 1] @ vecs[200]), abs=1e-5)


def test_a_scrub_removes_what_a_crashed_codes_derivation_left(tmp_path: Path) -> None:
    """A process killed while it derived a snapshot's codes leaves them under a temp name,
    int8 copies of every vector included: a forget's scrub must not leave that copy of the
    forgotten ones behind (only a whole save removed it)."""
    path = tmp_path / "vectors"
    vecs = unit(400)
    v = saved(path, vecs)
    snapshot = next(path.glob("*.hnsw"))
    vectors_module._write_codes(snapshot, path / ".vectors-codes.4242.tmp", DIM)  # the crash's
    forgotten = vectors_module._quantised(vecs[4:5])[0].tobytes()
    assert forgotten in (path / ".vectors-codes.4242.tmp").read_bytes()
    assert v.scrub({5}, 401)
    assert not list(path.glob("*.tmp"))
    assert not any(forgotten in f.read_bytes() for f in path.iterdir())


def test_a_scrub_removes_an_older_pair_a_crashed_save_left(tmp_path: Path) -> None:
    """A save killed after its renames, before it removed the older pair (a forget that
    wrote a whole snapshot): the forget, run again, scrubs the newest in place and must
    remove that older pair, which still holds the forgotten vectors."""
    path = tmp_path / "vectors"
    vecs = unit(400)
    v = saved(path, vecs)
    older = sorted(path.glob("vectors-*"))
    for f in older:
        os.link(f, tmp_path / f.name)
    v.remove([5])
    v.add(ids(), np.empty((0, DIM), np.float32), 401)
    v.save()
    for f in older:  # as the crash left them
        os.link(tmp_path / f.name, f)
    assert Vectors(path, DIM, MODEL).scrub({5}, 402)
    assert snapshots(path) == pair(402)
    forgotten = vectors_module._quantised(vecs[4:5])[0].tobytes()
    assert not any(forgotten in f.read_bytes() for f in path.iterdir())


def test_closest_takes_the_smallest_distances_in_order() -> None:
    """The shortlist's pick: exactly n positions, in order, none farther than one left out,
    ties at the cut taken first come."""
    rng = np.random.default_rng(4)
    distance = rng.integers(0, 40, 10_000).astype(np.uint16)
    distance[::7] = 769  # the stale ones: farther than any code
    for n in (1, 37, 500, 8_000):
        chosen = vectors_module._closest(distance, n)
        assert len(chosen) == n and (np.diff(chosen) > 0).all()
        left = np.setdiff1d(np.arange(len(distance)), chosen)
        assert distance[chosen].max() <= distance[left].min()
        cut = distance[chosen].max()
        tied = np.flatnonzero(distance == cut)
        taken = int((distance[chosen] == cut).sum())
        assert set(chosen[distance[chosen] == cut]) == set(tied[len(tied) - taken :])
    assert len(vectors_module._closest(distance, 0)) == 0


def test_top_breaks_ties_by_the_largest_id_and_near_ties_when_asked() -> None:
    scores = np.array([0.3, 0.9, 0.9, 0.9 - 1e-7, 0.95], np.float32)
    labels = np.array([10, 20, 30, 50, 40])
    top = vectors_module._top
    assert labels[top(scores, labels, 3)].tolist() == [40, 30, 20]
    # int8 scores a last bit apart are one tie: the largest ids are kept, best first.
    assert labels[top(scores, labels, 3, within=1e-5)].tolist() == [40, 30, 50]
    assert labels[top(scores, labels, 9)].tolist() == [40, 30, 20, 50, 10]
    assert top(scores, labels, 0).tolist() == []


def test_equal_vectors_cut_at_the_last_archived_however_the_index_grew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hundreds of messages with the same text have the same vector. A search cut inside
    their group keeps the largest ids, at every k, whether the group is in the snapshot (codes,
    int8 copies and exact scoring each cut it) or added since, in a store built in another
    order: search.settled need not fetch the whole group to order it."""
    short_lists(monkeypatch)
    others = clustered(3_000, seed=6)
    same = clustered(1, seed=7)[0]
    group = list(range(3_001, 3_401))  # 400 equal vectors, the last of 3,400
    vecs = np.concatenate([others, np.tile(same, (400, 1))])
    labels = ids(range(1, 3_401))
    first = Vectors(tmp_path / "a", DIM, MODEL)
    first.add(labels, vecs, 3_400)
    first.save()
    # Another order, and the group added after the snapshot, with a few others.
    later = np.isin(labels, group) | (labels % 37 == 0)
    order = np.random.default_rng(8).permutation(int((~later).sum()))
    second = Vectors(tmp_path / "b", DIM, MODEL)
    second.add(labels[~later][order], vecs[~later][order], 3_000)
    second.save()
    second.add(labels[later][::-1], vecs[later][::-1], 3_400)
    for k in (1, 7, 60, 399):
        want = group[::-1][:k]
        for v in (first, second):
            assert [mid for mid, _ in v.search(same, k)] == want, k
            assert [mid for mid, _ in v.search(same, k, allowed=set(group[:300]))] == (
                group[:300][::-1][:k]
            )


def test_a_second_search_of_a_query_reuses_its_shortlist_until_the_vectors_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search asks again with a larger k when scores tie at its cut: the answer is the one a
    fresh search gives, and a vector added meanwhile is found at once."""
    short_lists(monkeypatch)
    vecs = clustered(4_000, seed=3)
    v = saved(tmp_path / "vectors", vecs)
    query = clustered(1, seed=5)[0]
    v.search(query, 10)
    again = v.search(query, 40)
    assert again == Vectors(tmp_path / "vectors", DIM, MODEL).search(query, 40)
    v.add(ids(range(9_001, 9_002)), query[None, :], 4_001)
    assert v.search(query, 40)[0] == (9_001, pytest.approx(0.0, abs=1e-6))
    v.remove([9_001, again[0][0]])
    assert {mid for mid, _ in v.search(query, 40)}.isdisjoint({9_001, again[0][0]})


def test_similarities_of_given_ids_and_the_centre(filled: tuple[Vectors, np.ndarray]) -> None:
    """A search scores its full-text matches' vectors (int8 copies of a snapshot's, exact for
    those added since) and measures lifts from the mean of the live vectors (near.py)."""
    v, vecs = filled
    extra = unit(5, seed=9)
    v.add(ids(range(3_001, 3_006)), extra, 3_005)  # unsaved: in memory only
    v.remove([7])
    query = unit(1, seed=4)[0]
    wanted = [1, 7, 2_500, 3_002, 99_999]  # 7 removed, 99,999 never added
    found = v.similarities(wanted, query)
    assert set(found) == {1, 2_500, 3_002}
    assert found[3_002] == pytest.approx(float(extra[1] @ query), abs=1e-6)
    for i in (1, 2_500):
        assert found[i] == pytest.approx(float(vecs[i - 1] @ query), abs=0.01)
    centre, count = v.centre()
    live = np.vstack([np.delete(vecs, 6, axis=0), extra])
    assert count == len(live) == len(v)
    # The snapshot's centre is kept from when it was written (7 was in it then).
    assert np.allclose(centre, live.mean(axis=0), atol=0.01)
