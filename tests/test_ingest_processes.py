"""Ingestion across processes: kill -9 in the middle, two ingesters at once, real transcripts."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import corpus
import psutil
import pytest

from memtui.config import Config
from memtui.engine.memory import Memory
from memtui.ingest import pipeline


def start_index(cfg: Config) -> subprocess.Popen[bytes]:
    """`memtui index` in the background; what it says goes to a file beside the data dir."""
    env = {
        **os.environ,
        "MEMTUI_DATA_DIR": str(cfg.data_dir),
        "MEMTUI_CLAUDE_DIR": str(cfg.claude_dir),
    }
    cfg.data_dir.parent.mkdir(parents=True, exist_ok=True)
    said = open(cfg.data_dir.parent / f"index-{time.monotonic_ns()}.err", "wb")  # noqa: SIM115
    with said:
        return subprocess.Popen(
            [sys.executable, "-m", "memtui", "index"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=said,
        )


def what_index_said(cfg: Config) -> str:
    return "\n".join(p.read_text() for p in sorted(cfg.data_dir.parent.glob("index-*.err")))


def stored_messages(cfg: Config) -> int:
    try:
        with sqlite3.connect(f"file:{cfg.db_path}?mode=ro", uri=True, timeout=30) as conn:
            return conn.execute("SELECT count(*) FROM messages").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def assert_counts(cfg: Config, expected: corpus.CorpusStats) -> None:
    memory = Memory(cfg)
    try:
        stats = memory.upkeep.stats()
        assert stats.projects == expected.projects
        assert stats.sessions == expected.sessions
        assert stats.by_kind.get("prompt", 0) == expected.prompts
        assert stats.by_kind.get("assistant", 0) == expected.assistant
        assert stats.skipped_lines == expected.broken_lines
        (dupes,) = memory._archive.conn.execute(
            "SELECT count(*) FROM (SELECT uuid FROM messages GROUP BY uuid HAVING count(*) > 1)"
        ).fetchone()
        assert dupes == 0
    finally:
        memory.close()


@pytest.fixture(scope="module")
def big_corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, corpus.CorpusStats]:
    root = tmp_path_factory.mktemp("corpus") / "projects"
    return root, corpus.generate(root, messages=30_000, seed=7)


def copy_config(cfg: Config, root: Path) -> Config:
    return Config(data_dir=cfg.data_dir, claude_dir=root, log_dir=cfg.log_dir)


def test_kill_9_mid_ingest_then_rerun(
    cfg: Config, big_corpus: tuple[Path, corpus.CorpusStats]
) -> None:
    root, expected = big_corpus
    cfg = copy_config(cfg, root)
    proc = start_index(cfg)
    deadline = time.monotonic() + 60
    while stored_messages(cfg) == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    readers = psutil.Process(proc.pid).children()
    assert readers, "a corpus this big is read by a second process"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    _, alive = psutil.wait_procs(readers, timeout=30)
    assert not alive, "the reader outlived the killed ingester"
    partial = stored_messages(cfg)
    assert 0 < partial < expected.prompts + expected.assistant + expected.tool_results
    rerun = start_index(cfg)
    assert rerun.wait(timeout=300) == 0
    assert_counts(cfg, expected)


def test_two_ingesting_processes_at_once(cfg: Config, tmp_path: Path) -> None:
    root = tmp_path / "projects"
    expected = corpus.generate(root, messages=6_000, seed=7)  # both at once: size is not it
    cfg = copy_config(cfg, root)
    first, second = start_index(cfg), start_index(cfg)
    done = first.wait(timeout=300), second.wait(timeout=300)
    assert done == (0, 0), what_index_said(cfg)
    assert_counts(cfg, expected)


def test_generated_corpus_counts_exact(memory: Memory, tmp_path: Path) -> None:
    root = tmp_path / "gen"
    expected = corpus.generate(root, messages=3_000, seed=3)
    report = memory.upkeep.ingest(root)
    assert report is not None and report.skipped == expected.broken_lines
    assert_counts(memory.config, expected)


def test_reader_process_stores_what_reading_in_process_stores(tmp_path: Path) -> None:
    root = tmp_path / "gen"
    expected = corpus.generate(root, messages=3_000, seed=5)
    tables = []
    for parallel in (False, True):
        cfg = Config(tmp_path / f"data-{parallel}", root, tmp_path / "logs")
        memory = Memory(cfg)
        try:
            report = pipeline.ingest(memory._archive, root, parallel=parallel)
            assert report.skipped == expected.broken_lines
            conn = memory._archive.conn
            tables.append(
                [
                    [tuple(row) for row in conn.execute(f"SELECT * FROM {table} ORDER BY 1")]
                    for table in ("messages", "sessions", "projects", "uuids")
                ]
            )
        finally:
            memory.close()
        assert_counts(cfg, expected)
    assert tables[0] == tables[1]
