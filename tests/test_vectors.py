"""The hnswlib vector index and its snapshots, on real files in a temp dir."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from memtui.store import vectors as vectors_module
from memtui.store.vectors import Vectors

DIM = 32
MODEL = "0123456789abcdef"  # the identity of the model the vectors come from


def unit(n: int, seed: int = 0) -> np.ndarray:
    vecs = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)


def ids(*ranges: range) -> np.ndarray:
    return np.fromiter((i for r in ranges for i in r), dtype=np.int64)


@pytest.fixture
def filled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Vectors, np.ndarray]:
    """3,000 vectors with ids 1..3000, added in batches so the index has to grow.

    An index this small is normally scored exactly; here the graph answers, as at full size."""
    monkeypatch.setattr(vectors_module, "_EXACT_INDEX", 0)
    v = Vectors(tmp_path / "vectors", DIM, MODEL)
    vecs = unit(3_000)
    for start in range(0, 3_000, 700):
        v.add(ids(range(start + 1, min(start + 701, 3_001))), vecs[start : start + 700], start)
    v.add(ids(), np.empty((0, DIM), np.float32), 3_000)
    return v, vecs


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


def test_a_small_index_is_scored_exactly(
    filled: tuple[Vectors, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    v, vecs = filled
    monkeypatch.setattr(vectors_module, "_EXACT_INDEX", 5_000)

    def graph(*args: object) -> None:
        raise AssertionError("the graph answered")

    monkeypatch.setattr(Vectors, "_knn", graph)
    query = unit(1, seed=3)[0]
    everything = set(range(1, 3_001))
    assert [mid for mid, _ in v.search(query, 50)] == exact(vecs, query, everything, 50)
    # After a snapshot, the whole mapped file is scored in one pass; changes since come from
    # hnswlib: a replaced vector, a removed one.
    v.save()
    best = exact(vecs, query, everything, 1)[0]
    vecs[best - 1] = unit(1, seed=4)[0]
    v.add(ids(range(best, best + 1)), vecs[best - 1 : best], 3_001)
    v.remove([exact(vecs, query, everything, 1)[0]])
    live = everything - {exact(vecs, query, everything, 1)[0]}
    assert [mid for mid, _ in v.search(query, 50)] == exact(vecs, query, live, 50)


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


@pytest.mark.parametrize("exact_scoring", [True, False])
def test_allowed_returns_k_allowed_results(
    filled: tuple[Vectors, np.ndarray], monkeypatch: pytest.MonkeyPatch, exact_scoring: bool
) -> None:
    """Small allowed sets are scored exactly; large ones go through hnswlib's filter."""
    v, vecs = filled
    rng = np.random.default_rng(1)
    allowed = set((rng.choice(3_000, 400, replace=False) + 1).tolist())
    query = unit(1, seed=7)[0]

    def wrong_path(*args: object) -> None:
        raise AssertionError("the other path was taken")

    monkeypatch.setattr(vectors_module, "_BRUTE_FORCE_SHARE", 1.0 if exact_scoring else 0.0)
    monkeypatch.setattr(Vectors, "_knn" if exact_scoring else "_exact", wrong_path)
    hits = v.search(query, 25, allowed | {50_000})  # unknown ids in `allowed` are ignored
    assert len(hits) == 25
    assert {mid for mid, _ in hits} <= allowed
    found = [mid for mid, _ in hits]
    assert len(set(found) & set(exact(vecs, query, allowed, 25))) >= 20
    monkeypatch.undo()
    assert len(v.search(query, 1_000, allowed)) == 400  # all of them when k is larger


def test_exact_scoring_after_a_snapshot_sees_later_changes(
    filled: tuple[Vectors, np.ndarray],
) -> None:
    """Exact scoring reads the mapped snapshot for old vectors and hnswlib for changed ones."""
    v, vecs = filled
    v.save()
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
    return sorted(f.name for f in path.iterdir() if f.name.endswith(".hnsw"))


def test_save_and_load_the_newest(filled: tuple[Vectors, np.ndarray]) -> None:
    v, vecs = filled
    path = v._path
    v.save()
    v.remove([1])
    v.add(ids(range(5_000, 5_001)), vecs[:1], 3_100)
    v.save()
    assert snapshots(path) == [f"vectors-000000003100-{MODEL}.hnsw"]
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
    assert snapshots(path) == [f"vectors-000000009100-{MODEL}.hnsw"]
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
    assert snapshots(path) == [f"vectors-000000000010-{MODEL}.hnsw"]
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
