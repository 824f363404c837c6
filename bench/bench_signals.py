"""Signals, context and the SessionStart hook beside 10,000 notes and a large archive.

    python bench/bench_notes.py --messages 200000     # first: the archive and its notes
    python bench/bench_signals.py [--messages 200000] [--work /tmp/memtui-bench]

On bench_notes.py's data dir (its notes left in place): the first detection run (it scans
every message for errors once), a full detection run after that (all five detectors, the
errors incremental), `get_signals` on an unchanged corpus, `get_context` with a query, and
`memtui hook session-start` as Claude Code runs it: a process, start to exit. Each phase in
a fresh process. Figures: bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import run_child

from memtui.store import db

DETECT = """
import time
from memtui.engine import Memory, load
memory = Memory(load())
memory.notes.search("warm", limit=1)  # the model and the note vectors, as a warm process has
t0 = time.perf_counter()
memory.signals.detect(force=True)
t1 = time.perf_counter()
memory.signals.detect(force=True)
t2 = time.perf_counter()
listed = memory.signals.list(status=None, limit=1000)
found = listed.signals
RESULT = {"first_s": t1 - t0, "full_s": t2 - t1, "signals": listed.total,
          "by_type": {t: sum(s.type == t for s in found) for t in {s.type for s in found}}}
"""

SERVE = """
import time
from memtui.engine import Memory, load
memory = Memory(load())
memory.signals.list()
cwd = memory.history.list_projects()[0].project
def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] * 1000
unchanged, context = [], []
for _ in range(N):
    t = time.perf_counter(); memory.signals.list(); unchanged.append(time.perf_counter() - t)
queries = ["flaky checkout test", "docker image build", "refund webhook", "database migration"]
for q in queries:
    memory.context.get(cwd, q, 2000)
for i in range(N):
    t = time.perf_counter()
    memory.context.get(cwd, queries[i % 4], 2000)
    context.append(time.perf_counter() - t)
RESULT = {"get_signals_p50_ms": pct(unchanged, 0.5), "get_signals_p95_ms": pct(unchanged, 0.95),
          "context_p50_ms": pct(context, 0.5), "context_p95_ms": pct(context, 0.95)}
"""


def hook_runs(env: dict[str, str], cwd: str, n: int) -> dict[str, float]:
    event = json.dumps({"session_id": "bench", "cwd": cwd, "source": "startup"})
    took = []
    for _ in range(n):
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "memtui", "hook", "session-start"],
            input=event,
            capture_output=True,
            text=True,
            env={**os.environ, **env},
            check=True,
        )
        took.append((time.perf_counter() - start) * 1000)
        assert done.stdout, "the hook printed nothing"
    took.sort()
    return {"p50_ms": statistics.median(took), "p95_ms": took[int(0.95 * (n - 1))]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--work", type=Path, default=Path("/tmp/memtui-bench"))
    args = parser.parse_args()
    data = args.work / f"notes-data-{args.messages}"
    if not (data / "indexed").exists():
        raise SystemExit(f"no notes beside the archive in {data}: run bench/bench_notes.py first")
    conn = db.connect(data / "memtui.db")  # migrated to this memtui's schema
    for table in ("signals", "error_sightings"):
        conn.execute(f"DELETE FROM {table}")
    conn.execute("DELETE FROM meta WHERE key IN ('signals_note_seq', 'errors_seq')")
    (cwd,) = conn.execute(
        "SELECT p.path FROM projects p JOIN sessions s ON s.project_id = p.id "
        "GROUP BY p.id ORDER BY count(*) DESC LIMIT 1"
    ).fetchone()
    conn.close()
    env = {"MEMTUI_DATA_DIR": str(data)}
    figures: dict[str, object] = {"load_before": os.getloadavg()}
    figures["detect"] = run_child(DETECT, env)
    figures["serve"] = run_child(f"N = {args.runs}\n" + SERVE, env)
    figures["hook_process"] = hook_runs(env, cwd, args.runs)
    figures["load_after"] = os.getloadavg()
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
