"""Reads while an ingest writes: how long a person browsing, or Claude calling a tool, waits.

    python bench/bench_reads.py [--messages 200000] [--work /tmp/memtui-bench]

A cold `memtui index` (store, then both indexes) runs on the corpus, once in another process
and once in a thread of the reading process; meanwhile the reader lists projects, pages a
session and searches (full text and hybrid) in a loop. Figures: bench/README.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from common import cached_corpus

from memtui.config import Config
from memtui.engine import Memory, MemtuiError


def sample(memory: Memory, busy: Callable[[], bool]) -> dict[str, list[float]]:
    taken: dict[str, list[float]] = {}
    session: str | None = None

    def timed(name: str, call: Callable[[], object]) -> None:
        start = time.perf_counter()
        call()
        taken.setdefault(name, []).append((time.perf_counter() - start) * 1000)

    while busy():
        timed("list_projects", memory.history.list_projects)
        if session is None:
            found = memory.history.list_sessions(limit=1)
            session = found[0].session_id if found else None
        if session is not None:
            timed("get_session", lambda s=session: memory.history.get_session(s, limit=20))
        timed("search fts", lambda: memory.history.search("flaky checkout test", "fts"))
        timed("search hybrid", lambda: memory.history.search("docker image build", "hybrid"))
        time.sleep(0.05)
    return taken


def report(title: str, taken: dict[str, list[float]]) -> None:
    print(title)
    for name, ms in taken.items():
        ms.sort()
        p95 = statistics.quantiles(ms, n=20)[-1] if len(ms) > 1 else ms[0]
        print(
            f"  {name:<14} p50 {statistics.median(ms):6.1f} ms  p95 {p95:6.1f} ms  "
            f"max {ms[-1]:7.1f} ms  ({len(ms)} calls)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/memtui-bench"))
    args = parser.parse_args()
    projects, _ = cached_corpus(args.work, args.messages)
    data = args.work / "data-reads"

    shutil.rmtree(data, ignore_errors=True)
    cfg = Config(data, projects, data / "logs")
    env = {**os.environ, "MEMTUI_DATA_DIR": str(data), "MEMTUI_CLAUDE_DIR": str(projects)}
    with Memory(cfg) as memory:
        memory.history.search("warm up", "hybrid")  # the model and indexes open once, first
        started = time.perf_counter()
        other = subprocess.Popen([sys.executable, "-m", "memtui", "index"], env=env)
        taken = sample(memory, lambda: other.poll() is None)
    report(f"cold index in another process ({time.perf_counter() - started:.0f} s)", taken)

    shutil.rmtree(data, ignore_errors=True)
    with Memory(cfg) as memory:
        memory.history.search("warm up", "hybrid")
        failed: list[MemtuiError] = []

        def ingest() -> None:
            try:
                memory.upkeep.ingest()
            except MemtuiError as exc:
                failed.append(exc)

        worker = threading.Thread(target=ingest)
        started = time.perf_counter()
        worker.start()
        taken = sample(memory, worker.is_alive)
        worker.join()
    report(f"cold index in a thread of this process ({time.perf_counter() - started:.0f} s)", taken)
    if failed:
        print(f"the ingest failed: {failed[0].line()}")


if __name__ == "__main__":
    main()
