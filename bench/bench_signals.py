"""Signals, context and the SessionStart hook beside 10,000 notes and a large archive.

    python bench/bench_notes.py --messages 200000     # first: the archive and its notes
    python bench/bench_signals.py [--messages 200000] [--work /tmp/memtui-bench]

On bench_notes.py's data dir (its notes left in place): the first detection run (it scans
every message for errors once), a full detection run after that (all five detectors, the
errors incremental), a run after new messages only (what a live session causes: the errors'
pass, recurring_error and stale_state), `get_signals` on an unchanged corpus, `get_context`
with a query, and `memtui hook session-start` as Claude Code runs it: a process, start to
exit. Each phase in a fresh process. Besides wall time, CPU time (the calling thread's, or
the hook process's), which a loaded machine inflates far less. Figures: bench/README.md.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import run_child

import memtui
from memtui.store import db

DETECT = """
import os, time
from memtui.engine import Memory, load
import memtui
from memtui.store import db
memory = Memory(load())
memory.notes.search("warm", limit=1)  # the model and the note vectors, as a warm process has
def timed(run):
    t, c = time.perf_counter(), time.thread_time()
    run()
    return time.perf_counter() - t, time.thread_time() - c
first = timed(lambda: memory.signals.detect(force=True))
full = [timed(lambda: memory.signals.detect(force=True)) for _ in range(3)]
# New messages only: the store moves on (as an ingest moves it), the notes do not.
conn = db.connect(load().db_path)
with conn:
    conn.execute("UPDATE meta SET value = value + 1 WHERE key = 'seq'")
conn.close()
messages = timed(memory.signals.detect)
listed = memory.signals.list(status=None, limit=1000)
found = listed.signals
RESULT = {"first_s": first[0], "first_cpu_s": first[1],
          "full_s": sorted(f[0] for f in full)[1], "full_cpu_s": sorted(f[1] for f in full)[1],
          "messages_only_s": messages[0], "messages_only_cpu_s": messages[1],
          "signals": listed.total, "load": os.getloadavg(),
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
unchanged, context, unchanged_cpu, context_cpu = [], [], [], []
for _ in range(N):
    t, c = time.perf_counter(), time.thread_time()
    memory.signals.list()
    unchanged.append(time.perf_counter() - t)
    unchanged_cpu.append(time.thread_time() - c)
queries = ["flaky checkout test", "docker image build", "refund webhook", "database migration"]
for q in queries:
    memory.context.get(cwd, q, 2000)
for i in range(N):
    t, c = time.perf_counter(), time.thread_time()
    memory.context.get(cwd, queries[i % 4], 2000)
    context.append(time.perf_counter() - t)
    context_cpu.append(time.thread_time() - c)
RESULT = {"get_signals_p50_ms": pct(unchanged, 0.5), "get_signals_p95_ms": pct(unchanged, 0.95),
          "get_signals_cpu_p95_ms": pct(unchanged_cpu, 0.95),
          "context_p50_ms": pct(context, 0.5), "context_p95_ms": pct(context, 0.95),
          "context_cpu_p50_ms": pct(context_cpu, 0.5), "context_cpu_p95_ms": pct(context_cpu, 0.95)}
"""


def hook_runs(env: dict[str, str], cwd: str, n: int) -> dict[str, float]:
    event = json.dumps({"session_id": "bench", "cwd": cwd, "source": "startup"})
    took, cpu = [], []
    for _ in range(n):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
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
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)
        assert done.stdout, "the hook printed nothing"
    took.sort()
    cpu.sort()
    return {
        "p50_ms": statistics.median(took),
        "p95_ms": took[int(0.95 * (n - 1))],
        "cpu_p50_ms": statistics.median(cpu),
        "cpu_p95_ms": cpu[int(0.95 * (n - 1))],
    }


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
    conn.execute(
        "DELETE FROM meta WHERE key IN ('signals_note_seq', 'errors_seq', 'signals_inferences')"
    )
    (cwd,) = conn.execute(
        "SELECT p.path FROM projects p JOIN sessions s ON s.project_id = p.id "
        "GROUP BY p.id ORDER BY count(*) DESC LIMIT 1"
    ).fetchone()
    conn.close()
    # As an install has it (pip compiles on install): with PYTHONDONTWRITEBYTECODE set, as
    # here, each hook process compiled memtui's sources again, 20 ms of its CPU.
    compileall.compile_dir(Path(memtui.__file__).parent, quiet=1)
    env = {"MEMTUI_DATA_DIR": str(data)}
    figures: dict[str, object] = {"load_before": os.getloadavg()}
    figures["detect"] = run_child(DETECT, env)
    figures["serve"] = run_child(f"N = {args.runs}\n" + SERVE, env)
    figures["hook_process"] = hook_runs(env, cwd, args.runs)
    figures["load_during_hook"] = os.getloadavg()
    figures["load_after"] = os.getloadavg()
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
