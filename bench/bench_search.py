"""Cold indexing, search latency against an SQLite FTS5 baseline, memory, and freshness.

    python bench/bench_search.py [--messages 200000] [--work /tmp/memtui-bench] [--queries 300]

One run, side by side: memtui's store + Tantivy + hnswlib built cold; an FTS5 table built from
the same rows; the same queries against each. Each phase runs in a fresh process so its peak
RSS is its own. Figures: bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

from common import cached_corpus, run_child

COLD = """
import time
from memtui.engine import Memory, load
memory = Memory(load())
t0 = time.perf_counter()
memory.upkeep.ingest(index=False)
t1 = time.perf_counter()
memory._index().catch_up()  # what `memtui index` does: full text and vectors side by side
memory._index().save_vectors(force=True)
t2 = time.perf_counter()
health = memory._index().health()
RESULT = {"store": t1 - t0, "indexes": t2 - t1, "total": t2 - t0,
          "fts_docs": health.fts_docs, "vector_count": health.vectors,
          "fts_mb": health.fts_bytes / 1e6, "vector_mb": health.vector_bytes / 1e6}
"""

FTS5_BUILD = """
import sqlite3, time
from memtui.store.indexes import FTS_KINDS
src = sqlite3.connect(DB)
dst = sqlite3.connect(FTS5)
dst.execute("CREATE VIRTUAL TABLE m USING fts5(text, tool_text, tokenize='porter unicode61')")
t0 = time.perf_counter()
rows = src.execute(
    "SELECT id, text, tool_calls || char(10) || tool_output FROM messages "
    f"WHERE kind IN {FTS_KINDS}"
)
dst.execute("BEGIN")
dst.executemany("INSERT INTO m (rowid, text, tool_text) VALUES (?, ?, ?)", rows)
dst.execute("COMMIT")
RESULT = {"seconds": time.perf_counter() - t0}
"""

SERVE = """
import json, random, re, sqlite3, statistics, time
from memtui.engine import Memory, load

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] * 1000

conn = sqlite3.connect(DB)
rng = random.Random(7)
texts = [r[0] for r in conn.execute(
    "SELECT text FROM messages WHERE kind IN ('prompt', 'assistant') AND length(text) > 40 "
    "ORDER BY id LIMIT 20000")]
word = re.compile(r"[A-Za-z][A-Za-z_]{3,}")
queries = []
while len(queries) < N:
    words = word.findall(rng.choice(texts))
    if len(words) >= 3:
        start = rng.randrange(len(words) - 2)
        queries.append(" ".join(words[start:start + rng.choice((1, 2, 3))]))

fts5 = sqlite3.connect(FTS5)
def fts5_search(q):
    terms = " OR ".join('"' + w.replace('"', '') + '"' for w in q.split())
    return fts5.execute("SELECT rowid FROM m WHERE m MATCH ? ORDER BY bm25(m, 1.0, 0.4) LIMIT 10",
                        (terms,)).fetchall()

memory = Memory(load())
memory.history.search("warm up", "hybrid")
timings = {"fts5": [], "fts": [], "vector": [], "hybrid": []}
for q in queries:
    t = time.perf_counter(); fts5_search(q); timings["fts5"].append(time.perf_counter() - t)
    for mode in ("fts", "vector", "hybrid"):
        t = time.perf_counter(); memory.history.search(q, mode, limit=10)
        timings[mode].append(time.perf_counter() - t)
RESULT = {f"{k}_{p}": pct(v, q)
          for k, v in timings.items() for p, q in (("p50", 0.5), ("p95", 0.95))}
RESULT["fts_over_fts5_p50"] = RESULT["fts_p50"] / RESULT["fts5_p50"]
RESULT["fts_over_fts5_mean"] = statistics.mean(timings["fts"]) / statistics.mean(timings["fts5"])
"""

FRESH = """
import json, threading, time
from memtui.engine import Memory, load
memory = Memory(load())
projects = memory.config.claude_dir
target = next(p for p in projects.glob("*/*.jsonl") if not p.name.startswith("agent-"))
cwd = memory.history.get_session(target.stem).session.project
stop = threading.Event()
threading.Thread(target=memory.upkeep.follow, args=(projects, stop), daemon=True).start()
time.sleep(5)  # watches on a big tree take a moment to set up
latencies = []
for n in range(10):
    marker = f"zqx{int(time.time())}fresh{n}"  # new each run: old runs left theirs behind
    record = {"type": "user", "uuid": f"fresh-{n}-{time.time()}", "parentUuid": None,
              "sessionId": target.stem, "cwd": cwd, "timestamp": "2026-11-22T00:00:00.000Z",
              "isSidechain": False, "message": {"role": "user", "content": f"{marker} again"}}
    t = time.perf_counter()
    with open(target, "ab") as f:
        f.write(json.dumps(record).encode() + b"\\n")
    while not memory.history.search(marker, "fts").results and time.perf_counter() - t < 10:
        time.sleep(0.01)
    latencies.append(time.perf_counter() - t)
stop.set()
latencies.sort()
RESULT = {"fresh_p50_ms": latencies[len(latencies) // 2] * 1000,
          "fresh_max_ms": latencies[-1] * 1000}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--work", type=Path, default=Path("/tmp/memtui-bench"))
    args = parser.parse_args()

    projects, expected = cached_corpus(args.work, args.messages)
    print(f"corpus: {json.dumps(expected)}")
    data = args.work / "data-search"
    shutil.rmtree(data, ignore_errors=True)
    env = {"MEMTUI_DATA_DIR": str(data), "MEMTUI_CLAUDE_DIR": str(projects)}
    db = data / "memtui.db"
    fts5 = args.work / "fts5.db"
    fts5.unlink(missing_ok=True)
    consts = f"DB = {str(db)!r}\nFTS5 = {str(fts5)!r}\nN = {args.queries}\n"

    cold = run_child(COLD, env)
    print(
        f"cold index: {cold['total']:.1f} s = store {cold['store']:.1f} + both indexes "
        f"{cold['indexes']:.1f}; {cold['fts_docs']:,.0f} docs "
        f"({cold['fts_mb']:.0f} MB), {cold['vector_count']:,.0f} vectors "
        f"({cold['vector_mb']:.0f} MB); "
        f"peak RSS {cold['peak_rss_mb']:.0f} MB"
    )
    built = run_child(consts + FTS5_BUILD, env)
    print(f"FTS5 baseline build from the same rows: {built['seconds']:.1f} s")
    started = time.perf_counter()
    serve = run_child(consts + SERVE, env)
    print(f"{args.queries} queries x 4 ({time.perf_counter() - started:.0f} s):")
    for name in ("fts5", "fts", "vector", "hybrid"):
        print(
            f"  {name:<7} p50 {serve[f'{name}_p50']:6.2f} ms   p95 {serve[f'{name}_p95']:6.2f} ms"
        )
    print(
        f"  memtui full text / FTS5: p50 ratio {serve['fts_over_fts5_p50']:.2f}, "
        f"mean ratio {serve['fts_over_fts5_mean']:.2f}"
    )
    print(f"  peak RSS while serving: {serve['peak_rss_mb']:.0f} MB")
    fresh = run_child(consts + FRESH, env)
    print(
        f"fresh: appended message found by search p50 {fresh['fresh_p50_ms']:.0f} ms, "
        f"max {fresh['fresh_max_ms']:.0f} ms"
    )


if __name__ == "__main__":
    main()
