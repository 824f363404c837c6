"""Indexes kept in step with the store: reindex, doctor, crashes, and processes side by side."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import corpus
import numpy as np
import pytest

from memtui.config import Config
from memtui.engine import Memory
from memtui.store import indexes
from memtui.store.fts import FtsDoc

QUERIES = ["flaky test", "docker image", "useEffect cleanup", "migration rollback", "HTTP 503"]


def answers(memory: Memory) -> list[list[str]]:
    return [
        [r.uuid for r in memory.history.search(q, mode, limit=10).results]
        for q in QUERIES
        for mode in ("fts", "vector", "hybrid")
    ]


def test_reindex_after_incremental_equals_fresh(cfg: Config) -> None:
    """Indexes grown batch by batch answer exactly as ones rebuilt from the same store.

    Not compared with a second store: equal scores are ordered by message id, and another
    store numbers the same messages in the order it read them."""
    root = cfg.claude_dir
    corpus.generate(root, messages=1_500, seed=11)
    incremental = Memory(cfg)
    incremental.upkeep.ingest()
    session_file = next(root.glob("*/*.jsonl"))
    session_id = session_file.stem
    cwd = incremental.history.get_session(session_id).session.project
    for n in range(3):  # grow in small steps, each indexed as it comes
        corpus.append_session_lines(session_file, 4, session_id, cwd, seed=50 + n)
        incremental.upkeep.ingest()
    before = answers(incremental)
    incremental.upkeep.reindex()
    assert answers(incremental) == before
    incremental.close()


def test_doctor_counts_messages_newer_than_the_vector_snapshot_apart(
    cfg: Config, claude_dir: Path
) -> None:
    """A follower saves its vectors every few minutes: the lines it embedded since, when it
    stops, are not in any snapshot. Doctor says the next catch-up embeds them, not that
    they are missing; a vector lost from the snapshot itself still counts as missing."""
    corpus.generate(claude_dir, messages=400, seed=6)
    follower = Memory(cfg)
    follower.upkeep.ingest()  # its first save is at once, the next after SAVE_AFTER
    session_file = next(claude_dir.glob("*/*.jsonl"))
    cwd = follower.history.get_session(session_file.stem).session.project
    corpus.append_session_lines(session_file, 12, session_file.stem, cwd, seed=60)
    follower.upkeep.ingest()
    follower.close()  # as a Claude Code window closing
    doctor = Memory(cfg)
    report = doctor.upkeep.doctor()
    assert report.ok and report.to_embed > 0, report
    assert report.differences["vectors"] == (set(), set())
    lost = sorted(doctor._index().vectors.ids())[:3]
    doctor._index().vectors.remove(lost)
    assert doctor.upkeep.doctor().differences["vectors"] == (set(lost), set())
    doctor.close()


def test_doctor_finds_and_repairs_damage(memory: Memory, claude_dir: Path) -> None:
    corpus.generate(claude_dir, messages=600, seed=5)
    memory.upkeep.ingest()
    assert all(not m and not e for m, e in memory.upkeep.doctor().differences.values())
    fts_ids = sorted(memory._index().fts.ids())
    victims = fts_ids[:7]
    memory._index().fts.write([], delete_ids=victims)  # lost documents
    ghost = FtsDoc(10_000_000, "ghost", "/nowhere", "user", "prompt", 0, "boo", "")
    memory._index().fts.write([ghost])  # a document the store never had
    vectors = memory._index().vectors
    vector_victims = sorted(vectors.ids())[:5]
    vectors.remove(vector_victims)
    diff = memory.upkeep.doctor().differences
    assert diff["full text"] == (set(victims), {10_000_000})
    assert diff["vectors"] == (set(vector_victims), set())
    memory.upkeep.doctor(repair=True)
    assert all(not m and not e for m, e in memory.upkeep.doctor().differences.values())
    assert memory.history.search("boo", "fts").total == 0


def test_crash_between_store_and_index_is_finished_later(memory: Memory, claude_dir: Path) -> None:
    corpus.generate(claude_dir, messages=400, seed=9)
    memory.upkeep.ingest(index=False)  # as if the process died after the store commit
    health = memory._index().health()
    assert health.fts_seq == 0 and health.store_seq > 0
    # A reader never does the writer's job: full text stays behind until the next ingest.
    assert memory.history.search("test", "fts").results == []
    memory.upkeep.ingest()
    response = memory.history.search("test", "hybrid")
    assert response.results and response.mode == "hybrid"
    assert all(not m and not e for m, e in memory.upkeep.doctor().differences.values())


def test_vector_snapshot_is_shared_between_processes(cfg: Config, claude_dir: Path) -> None:
    corpus.generate(claude_dir, messages=3_000, seed=4)
    writer = Memory(cfg)
    writer.upkeep.ingest()
    snapshots = list((cfg.index_dir / "vectors").glob("vectors-*.hnsw"))
    assert len(snapshots) == 1
    reader = Memory(cfg)  # another process would load the same snapshot
    assert reader._index().vectors.watermark == writer._index().vectors.watermark
    vec = writer._index().embedder.encode(["flaky test"])[0]
    assert np.array_equal(
        [i for i, _ in reader._index().vectors.search(vec, 5)],
        [i for i, _ in writer._index().vectors.search(vec, 5)],
    )
    writer.close()
    reader.close()


SEARCH_LOOP = """
import json, sys, time
from memtui.engine import Memory, load
memory = Memory(load())
errors, rounds = [], 0
deadline = time.monotonic() + float(sys.argv[1])
while time.monotonic() < deadline:
    for mode in ("fts", "vector", "hybrid"):
        try:
            memory.history.search("webhook retry flaky", mode, limit=5)
        except Exception as exc:
            errors.append(repr(exc))
    rounds += 1
print(json.dumps({"rounds": rounds, "errors": errors}))
"""


def test_indexing_while_another_process_searches(cfg: Config, claude_dir: Path) -> None:
    env = {**os.environ, "MEMTUI_DATA_DIR": str(cfg.data_dir), "MEMTUI_CLAUDE_DIR": str(claude_dir)}
    index = [sys.executable, "-m", "memtui", "index"]
    corpus.generate(claude_dir, messages=500, seed=1)
    first = subprocess.run(index, env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    searcher = subprocess.Popen(
        [sys.executable, "-c", SEARCH_LOOP, "20"], env=env, stdout=subprocess.PIPE, text=True
    )
    writers = []
    for n in range(3):  # the corpus grows while the other process searches
        grown = corpus.generate(claude_dir.parent / f"grow{n}", messages=400, seed=20 + n)
        assert grown.sessions
        for folder in (claude_dir.parent / f"grow{n}").iterdir():
            folder.rename(claude_dir / f"{folder.name}-{n}")
        writers.append(subprocess.run(index, env=env, capture_output=True, text=True))
        time.sleep(0.5)
    out, _ = searcher.communicate(timeout=120)
    report = json.loads(out.strip().splitlines()[-1])
    assert report["errors"] == [] and report["rounds"] > 0
    assert all(w.returncode == 0 for w in writers), [w.stderr for w in writers]
    # Afterwards a reader finds everything: the store and both indexes agree.
    memory = Memory(cfg)
    assert all(not m and not e for m, e in memory.upkeep.doctor().differences.values())
    health = memory._index().health()
    assert health.fts_seq == health.store_seq and health.fts_docs > 0
    memory.close()


def test_hybrid_says_so_while_vectors_are_behind(
    memory: Memory, claude_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus.generate(claude_dir, messages=300, seed=2)
    memory.upkeep.ingest(index=False)
    memory._index().catch_up_fts()
    monkeypatch.setattr(indexes, "QUERY_CATCHUP", 10)  # too many to embed on a query's path
    response = memory.history.search("test", "hybrid")
    assert response.mode == "fts" and response.note and "full text only" in response.note
    assert response.results
    assert memory.history.search("test", "vector").results == []
    memory._index().catch_up()
    assert memory.history.search("test", "hybrid").mode == "hybrid"


def test_a_small_index_run_leaves_a_snapshot(cfg: Config, claude_dir: Path) -> None:
    """Fewer than SNAPSHOT_EVERY new rows are saved too: the next process starts in step."""
    corpus.generate(claude_dir, messages=300, seed=13)
    with Memory(cfg) as memory:
        memory.upkeep.ingest()
    with Memory(cfg) as other:
        health = other._index().health()
        assert 0 < health.vectors < indexes.SNAPSHOT_EVERY and health.in_step


def test_warm_loads_the_model_and_survives_an_empty_archive(memory: Memory) -> None:
    memory.warm()  # nothing archived yet: no error, nothing to report
    assert memory._index()._embedder is not None, "the first search will not load the model"
