"""Trust: cold index with masking off and on (one run), masking an existing archive, and
forgetting a large session while searches keep answering.

    python bench/bench_trust.py [--messages 200000] [--work /tmp/memtui-bench]

Figures: bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
from pathlib import Path

from common import cached_corpus, run_child

COLD = """
import resource, time
from memtui.engine import Memory, load
def cpu():
    own, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
started, cpu_started = time.perf_counter(), cpu()
memory = Memory(load())
report = memory.upkeep.ingest()
RESULT = {"seconds": time.perf_counter() - started, "cpu_seconds": cpu() - cpu_started,
          "messages": report.messages, "masked": memory.upkeep.masked_counts()}
"""

MASK_EXISTING = """
import sqlite3, time
from memtui.config import load
from memtui.engine import Memory
cfg = load()
conn = sqlite3.connect(cfg.db_path)
conn.execute("UPDATE meta SET value = '1' WHERE key = 'mask_pending'")
conn.commit()
conn.close()
started = time.perf_counter()
memory = Memory(cfg)
RESULT = {"seconds": time.perf_counter() - started, "masked": memory.upkeep.masked_counts()}
"""

FORGET = """
import statistics, threading, time
from memtui.engine import Memory, load
memory = Memory(load())
conn = memory._readers.get()
session, count = conn.execute(
    "SELECT session_id, count(*) c FROM messages GROUP BY session_id "
    "ORDER BY abs(count(*) - 2000) LIMIT 1").fetchone()
memory.history.search("warm up the model", "hybrid", limit=10)
stop = threading.Event()
latencies = []
def searcher():
    words = ["refresh token", "database migration", "flaky test", "docker build", "cache"]
    n = 0
    while not stop.is_set():
        t = time.perf_counter()
        memory.history.search(words[n % len(words)], "hybrid", limit=10)
        latencies.append(time.perf_counter() - t)
        n += 1
thread = threading.Thread(target=searcher)
thread.start()
time.sleep(0.5)
before = len(latencies)
started = time.perf_counter()
receipt = memory.forget(session_id=session, confirmed=True)
seconds = time.perf_counter() - started
during = latencies[before:]
stop.set()
thread.join()
during.sort()
RESULT = {"seconds": seconds, "messages": receipt.messages, "searches_during": len(during),
          "p95_ms": 1000 * during[int(0.95 * (len(during) - 1))] if during else None,
          "max_ms": 1000 * during[-1] if during else None}
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/memtui-bench"))
    parser.add_argument("--cold-only", action="store_true", help="only the two cold runs")
    args = parser.parse_args()
    projects, _ = cached_corpus(args.work, args.messages)
    out: dict[str, object] = {"load_before": os.getloadavg()}
    for name, flag in (("cold_masking_off", "0"), ("cold_masking_on", "1")):
        data = args.work / f"trust-{name}"
        shutil.rmtree(data, ignore_errors=True)
        env = {
            "MEMTUI_DATA_DIR": str(data),
            "MEMTUI_CLAUDE_DIR": str(projects),
            "MEMTUI_MASK_SECRETS": flag,
        }
        out[name] = run_child(COLD, env)
        out[name + "_load"] = os.getloadavg()
        print(json.dumps({name: out[name]}), flush=True)
    if args.cold_only:
        return
    off = args.work / "trust-cold_masking_off"
    env = {"MEMTUI_DATA_DIR": str(off), "MEMTUI_CLAUDE_DIR": str(projects)}
    out["mask_existing"] = run_child(MASK_EXISTING, env)
    out["mask_existing_load"] = os.getloadavg()
    print(json.dumps({"mask_existing": out["mask_existing"]}), flush=True)
    env["MEMTUI_DATA_DIR"] = str(args.work / "trust-cold_masking_on")
    out["forget"] = run_child(FORGET, env)
    out["forget_load"] = os.getloadavg()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
