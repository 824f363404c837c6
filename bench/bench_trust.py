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
from corpus import append_session_lines, encode_project_dir

# The forget target: a session of 2,000 messages (prompts and answers; its tool
# results come on top), given the oldest mtime so that the cold index reads it first and it
# lands in one of the largest full-text segments, the worst place for a forget.
LONG_SESSION = "2000aaaa-0000-4000-8000-000000002000"
LONG_CWD = "/home/dev/projects/memtui"

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
# One secret stored as an older release would have: found, it makes the migration rebuild
# both indexes from the masked store (the costly case).
secret = "ghp_" + "x" * 36
conn.execute(
    "UPDATE messages SET text = text || ' ' || ? WHERE id = (SELECT max(id) FROM messages)",
    (secret,),
)
conn.commit()
conn.close()
started = time.perf_counter()
memory = Memory(cfg)
RESULT = {"seconds": time.perf_counter() - started, "masked": memory.upkeep.masked_counts()}
"""

# Searches from another process (as an MCP server's would be) while the forget runs: its
# latencies, one a line, until the stop file appears.
SEARCHER = """
import sys, time
from pathlib import Path
from memtui.engine import Memory, load
memory = Memory(load())
stop, out = Path(sys.argv[1]), open(sys.argv[2], "w")
words = ["refresh token", "database migration", "flaky test", "docker build", "cache"]
memory.history.search("warm up the model", "hybrid", limit=10)
print("ready", flush=True)
n = 0
while not stop.exists():
    t = time.perf_counter()
    memory.history.search(words[n % len(words)], "hybrid", limit=10)
    out.write(f"{time.perf_counter()} {time.perf_counter() - t}\\n")
    out.flush()
    n += 1
"""

FORGET = """
import json, os, resource, subprocess, sys, tempfile, time
SEARCHER = __SEARCHER__
from pathlib import Path
from memtui.engine import Memory, load
def cpu():  # this process's, its indexing threads included; the searches run elsewhere
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime
memory = Memory(load())
def segments():  # of every partition of the full-text index
    return {
        s["segment_id"]: s["max_doc"]
        for meta in (memory.config.index_dir / "text").rglob("meta.json")
        for s in json.loads(meta.read_text())["segments"]
    }
conn = memory._readers.get()
# The 2,000-message session (read first by the cold index, so in one of its largest
# segments), and the most recent session of at least 200 rows (in a small segment).
picks = {
    "forget": __LONG_SESSION__,
    "forget_recent": conn.execute(
        "SELECT session_id FROM messages GROUP BY session_id HAVING count(*) >= 200 "
        "ORDER BY max(id) DESC LIMIT 1").fetchone()[0],
}
RESULT = {}
work = Path(tempfile.mkdtemp())
for name, session in picks.items():
    stop, log = work / f"{name}.stop", work / f"{name}.log"
    child = subprocess.Popen(
        [sys.executable, "-c", SEARCHER, str(stop), str(log)], stdout=subprocess.PIPE, text=True
    )
    try:
        child.stdout.readline()
        time.sleep(2.0)  # searches before the forget: the p95 to compare with
        segs, load = segments(), os.getloadavg()
        started, cpu_started = time.perf_counter(), cpu()
        receipt = memory.forget(session_id=session, confirmed=True)
        ended, cpu_seconds = time.perf_counter(), cpu() - cpu_started
    finally:  # the searcher stops whatever happened here
        stop.touch()
        child.wait()
    timed = [tuple(map(float, line.split())) for line in log.read_text().splitlines()]
    during = sorted(d for t, d in timed if started <= t - d and t <= ended)
    before = sorted(d for t, d in timed if t < started)
    rewritten = [v for k, v in segs.items() if k not in segments()]
    RESULT[name] = {
        "seconds": ended - started, "cpu_seconds": cpu_seconds, "load_before": load,
        "load_after": os.getloadavg(), "messages": receipt.messages,
        "wal_truncated": receipt.wal_truncated,
        "fts_documents_rewritten": sum(rewritten) - receipt.messages,
        "fts_segments_rewritten": sorted(rewritten),
        "p95_ms_before": 1000 * before[int(0.95 * (len(before) - 1))] if before else None,
        "searches_during": len(during),
        "p95_ms": 1000 * during[int(0.95 * (len(during) - 1))] if during else None,
        "max_ms": 1000 * during[-1] if during else None,
    }
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/memtui-bench"))
    parser.add_argument("--cold-only", action="store_true", help="only the two cold runs")
    parser.add_argument(
        "--mask-only", action="store_true", help="only masking the unmasked cold run's data"
    )
    parser.add_argument(
        "--forget-only", action="store_true", help="only the forgets, on the last cold run's data"
    )
    args = parser.parse_args()
    projects, _ = cached_corpus(args.work, args.messages)
    long_session(projects)
    out: dict[str, object] = {"load_before": os.getloadavg()}
    if args.forget_only:
        forget(args.work, projects, out)
        return
    if args.mask_only:
        mask_existing(args.work, projects, out)
        return
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
    mask_existing(args.work, projects, out)
    forget(args.work, projects, out)


def mask_existing(work: Path, projects: Path, out: dict[str, object]) -> None:
    """Mask the archive the cold run without masking made, as the migration would."""
    env = {
        "MEMTUI_DATA_DIR": str(work / "trust-cold_masking_off"),
        "MEMTUI_CLAUDE_DIR": str(projects),
    }
    out["mask_existing"] = run_child(MASK_EXISTING, env)
    out["mask_existing_load"] = os.getloadavg()
    print(json.dumps({"mask_existing": out["mask_existing"]}), flush=True)


def forget(work: Path, projects: Path, out: dict[str, object]) -> None:
    """Forget on a copy of the masked cold run's data dir, so that it can run again."""
    data = work / "trust-forget"
    shutil.rmtree(data, ignore_errors=True)
    shutil.copytree(work / "trust-cold_masking_on", data)
    env = {"MEMTUI_DATA_DIR": str(data), "MEMTUI_CLAUDE_DIR": str(projects)}
    code = FORGET.replace("__SEARCHER__", repr(SEARCHER))
    out.update(run_child(code.replace("__LONG_SESSION__", repr(LONG_SESSION)), env))
    print(json.dumps(out, indent=2))


def long_session(projects: Path) -> None:
    path = projects / encode_project_dir(LONG_CWD) / f"{LONG_SESSION}.jsonl"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        append_session_lines(path, 2000, LONG_SESSION, LONG_CWD, seed=2000)
    oldest = min(f.stat().st_mtime for f in projects.rglob("*.jsonl"))
    os.utime(path, (oldest - 60, oldest - 60))


if __name__ == "__main__":
    main()
