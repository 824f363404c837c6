"""Reads never wait for writes, and long work stops when asked, losing nothing.

A person browsing the TUI, or Claude calling a tool, must get an answer while an ingest
runs, whether the ingest is a thread of the same process or another process. Cancelling an
ingest or a reindex stops within one batch, and the next run ends exactly where an
uninterrupted one would.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import corpus
import pytest

from memtui.config import Config
from memtui.engine import Memory, ProgressEvent
from memtui.ingest import reader
from memtui.store import indexes
from tests.cli_run import env_for
from tests.test_ingest_processes import assert_counts, stored_messages

LIMIT_MS = 100


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, corpus.CorpusStats]:
    root = tmp_path_factory.mktemp("big") / "projects"
    return root, corpus.generate(root, messages=30_000, seed=12)


def primed(tmp_path: Path) -> Config:
    """A data dir that already holds a small archive, indexed, as a returning user's does."""
    small = tmp_path / "small"
    corpus.generate(small, messages=500, seed=2)
    cfg = Config(tmp_path / "data", small, tmp_path / "logs")
    with Memory(cfg) as memory:
        memory.upkeep.ingest()
    return cfg


def timings(memory: Memory, session_id: str, busy: Callable[[], bool]) -> dict[str, list[float]]:
    """Milliseconds each read took, sampled while `busy()` holds."""
    calls: dict[str, Callable[[], object]] = {
        "list_projects": memory.history.list_projects,
        "get_session": lambda: memory.history.get_session(session_id, limit=20),
        "search fts": lambda: memory.history.search("flaky test", "fts"),
        "search hybrid": lambda: memory.history.search("docker image build", "hybrid"),
    }
    taken: dict[str, list[float]] = {name: [] for name in calls}
    while busy():
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            taken[name].append((time.perf_counter() - start) * 1000)
        time.sleep(0.02)
    return taken


def assert_prompt(taken: dict[str, list[float]]) -> None:
    for name, ms in taken.items():
        assert len(ms) >= 5, f"{name}: the ingest ended before it could be sampled"
        p90 = statistics.quantiles(ms, n=10)[-1]
        assert p90 <= LIMIT_MS, f"{name}: p90 {p90:.0f} ms, max {max(ms):.0f} ms over {len(ms)}"


def test_reads_answer_while_this_process_ingests(
    tmp_path: Path, big: tuple[Path, corpus.CorpusStats]
) -> None:
    cfg = primed(tmp_path)
    root, _ = big
    with Memory(cfg) as memory:
        session_id = memory.history.list_sessions(limit=1)[0].session_id
        memory.history.search("warm up", "hybrid")
        worker = threading.Thread(target=memory.upkeep.ingest, args=(root,))
        worker.start()
        taken = timings(memory, session_id, worker.is_alive)
        worker.join()
    assert_prompt(taken)


def test_reads_answer_while_another_process_ingests(
    tmp_path: Path, big: tuple[Path, corpus.CorpusStats]
) -> None:
    cfg = primed(tmp_path)
    root, _ = big
    other = subprocess.Popen(
        [sys.executable, "-m", "memtui", "index", "--source", str(root)],
        env=env_for(cfg),
        stderr=subprocess.DEVNULL,
    )
    with Memory(cfg) as memory:
        session_id = memory.history.list_sessions(limit=1)[0].session_id
        memory.history.search("warm up", "hybrid")
        taken = timings(memory, session_id, lambda: other.poll() is None)
    assert other.wait() == 0
    assert_prompt(taken)


def cancel_when(phase: str, cancel: threading.Event, at: list[int], cfg: Config) -> Callable:
    def on_progress(event: ProgressEvent) -> None:
        if event.phase == phase and event.done > 0 and not cancel.is_set():
            at.append(stored_messages(cfg))
            cancel.set()

    return on_progress


def test_cancelled_ingest_stops_within_a_batch_and_resumes_exactly(
    cfg: Config, big: tuple[Path, corpus.CorpusStats]
) -> None:
    root, expected = big
    cfg = Config(cfg.data_dir, root, cfg.log_dir)
    cancel, at = threading.Event(), []
    with Memory(cfg) as memory:
        report = memory.upkeep.ingest(
            on_progress=cancel_when("transcripts", cancel, at, cfg), cancel=cancel
        )
    assert report is not None and report.cancelled
    stored = stored_messages(cfg)
    assert stored - at[0] <= reader.BATCH  # at most the batch under way when asked
    assert stored < expected.prompts + expected.assistant + expected.tool_results
    with Memory(cfg) as memory:
        again = memory.upkeep.ingest()
        assert again is not None and not again.cancelled
        assert all(not m and not e for m, e in memory.upkeep.doctor().differences.values())
    assert_counts(cfg, expected)


def answers(memory: Memory) -> list[list[str]]:
    return [
        [r.uuid for r in memory.history.search(q, mode, limit=10).results]
        for q in ("flaky test", "docker image", "migration rollback")
        for mode in ("fts", "vector", "hybrid")
    ]


def test_cancelled_index_catch_up_resumes(
    cfg: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus.generate(cfg.claude_dir, messages=3_000, seed=6)
    monkeypatch.setattr(indexes, "BATCH", 300)  # several index commits on a small archive
    cancel = threading.Event()
    with Memory(cfg) as memory:
        report = memory.upkeep.ingest(
            on_progress=cancel_when("vectors", cancel, [], cfg), cancel=cancel
        )
        assert report is not None and report.cancelled
        assert not memory.upkeep.stats().index.in_step
    with Memory(cfg) as memory:
        memory.upkeep.ingest()
        assert memory.upkeep.stats().index.in_step
        assert memory.upkeep.doctor().ok
        resumed = answers(memory)
    clean = Config(tmp_path / "clean", cfg.claude_dir, cfg.log_dir)
    with Memory(clean) as memory:
        memory.upkeep.ingest()
        assert answers(memory) == resumed


def test_cancelled_reindex_keeps_the_old_indexes(
    cfg: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus.generate(cfg.claude_dir, messages=3_000, seed=7)
    monkeypatch.setattr(indexes, "BATCH", 300)
    with Memory(cfg) as memory:
        memory.upkeep.ingest()
        before = answers(memory)
        cancel = threading.Event()
        done = memory.upkeep.reindex(cancel_when("full text", cancel, [], cfg), cancel)
        assert done is False
        assert not (cfg.index_dir / "fts.new").exists()
        assert answers(memory) == before and memory.upkeep.doctor().ok
    with Memory(cfg) as memory:  # another process sees the old indexes too
        assert answers(memory) == before
        assert memory.upkeep.reindex() is True
        assert answers(memory) == before
