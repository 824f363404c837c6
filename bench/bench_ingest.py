"""Ingestion into the store of record: cold run, re-run with nothing new, and live latency.

    python bench/bench_ingest.py [--messages 200000] [--work /tmp/memtui-bench]

Each phase runs in a fresh process so its peak RSS is its own. Figures: bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import threading
import time
from pathlib import Path

from common import cached_corpus, run_child

INGEST = """
import time
from memtui.engine import Memory, load
memory = Memory(load())
started = time.perf_counter()
report = memory.upkeep.ingest(index=False)
RESULT = {"seconds": time.perf_counter() - started, "messages": report.messages,
          "skipped": report.skipped, "sessions": len(report.sessions)}
"""


def live_latency(projects: Path, data: Path, rounds: int = 20) -> list[float]:
    """Seconds from appending an exchange to a transcript until it is in the store (and
    indexed: following always indexes what it stores)."""
    import corpus

    from memtui.config import Config
    from memtui.engine.memory import Memory

    memory = Memory(Config(data, projects, data / "logs"))
    memory.upkeep.ingest()  # build the indexes first: the follower keeps them in step
    target = next(p for p in projects.glob("*/*.jsonl") if not p.name.startswith("agent-"))
    session = target.stem
    cwd = memory.history.get_session(session).session.project
    stop = threading.Event()
    follower = threading.Thread(target=memory.upkeep.follow, args=(projects, stop), daemon=True)
    follower.start()
    time.sleep(3)  # setting up watches on a big tree takes a moment
    latencies = []
    for n in range(rounds):
        before = memory.history.get_session(session).total
        written = time.perf_counter()
        # A fresh seed each run: the same seed would repeat uuids the store already holds.
        corpus.append_session_lines(target, 1, session, cwd, seed=int(time.time() * 1000) + n)
        while (
            memory.history.get_session(session).total == before
            and time.perf_counter() - written < 10
        ):
            time.sleep(0.005)
        latencies.append(time.perf_counter() - written)
    stop.set()
    follower.join(timeout=5)
    memory.close()
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/memtui-bench"))
    args = parser.parse_args()

    started = time.perf_counter()
    projects, expected = cached_corpus(args.work, args.messages)
    print(f"corpus: {json.dumps(expected)} ({time.perf_counter() - started:.1f} s)")
    data = args.work / "data-ingest"
    shutil.rmtree(data, ignore_errors=True)
    env = {"MEMTUI_DATA_DIR": str(data), "MEMTUI_CLAUDE_DIR": str(projects)}

    cold = run_child(INGEST, env)
    turns = expected["prompts"] + expected["assistant"]
    print(
        f"cold ingest: {cold['seconds']:.1f} s, {cold['messages']:,.0f} messages stored "
        f"({turns / cold['seconds']:,.0f} user+assistant/s), peak RSS {cold['peak_rss_mb']:.0f} MB"
        f" + reader process {cold['child_rss_mb']:.0f} MB"
    )
    again = run_child(INGEST, env)
    print(f"re-run, nothing new: {again['seconds']:.2f} s, {again['messages']:.0f} new messages")
    latencies = sorted(live_latency(projects, data))
    print(
        f"live follow: change → in store p50 {latencies[len(latencies) // 2] * 1000:.0f} ms, "
        f"max {latencies[-1] * 1000:.0f} ms over {len(latencies)} appends"
    )


if __name__ == "__main__":
    main()
