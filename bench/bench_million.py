"""A million messages end to end: what a heavy Claude Code user's archive costs memtui.

    python bench/bench_million.py [--messages 1050000] [--work /tmp/memtui-million]

One command, each phase on the same archive (the corpus and the built archive are kept under
`--work`, so a second run skips what is done; `--fresh` builds the archive again):

1. a corpus from `bench/corpus.py` (40 projects from 500k messages on, 8 below);
2. a cold `memtui index`: wall time and peak RSS (sampled every 50 ms, and the kernel's
   maximum for the process), the ingest's reader process apart;
3. `memtui index` again with nothing new;
4. `memtui mcp` started cold: `initialize` and the first `search_history` answer from process
   start, and the mode that answer came in (hybrid, never a silent fall back to full text);
5. `search_history` over stdio, one server: p50/p95 idle, and p95 while a freshly started
   server's background catch-up checks every transcript file;
6. four servers searching at once (one thread each, as four Claude Code windows), p50/p95,
   and their PSS together after searching (/proc/PID/smaps_rollup: Linux only);
   4-6 again on questions as Claude sends them (`questions`: 5-12 words, half a prompt's
   first sentence, half a question about a prompt's subject), by message and by session;
7. vector search against exact scoring on held-back queries: recall@10 and latency; with
   `--graph`, hnswlib's graph loaded from the snapshot too (its memory, recall, latency);
8. an SQLite FTS5 table from the same rows, p50/p95 in process (a peer's floor).

Every figure is printed with the load average at the time (the machine may be shared), and
the table at the end is the one in bench/README.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import corpus
import psutil
from bench_mcp import Server, family_kb, pct
from common import timed

ROOT = Path(__file__).resolve().parents[1]
ROWS: list[tuple[str, str, str]] = []  # (what, figure, load average) for the closing table


def load() -> str:
    return " / ".join(f"{x:.1f}" for x in os.getloadavg())


def note(what: str, figure: str) -> None:
    ROWS.append((what, figure, load()))
    print(f"{what}: {figure}   [load {load()}]", flush=True)


def build_corpus(work: Path, messages: int) -> tuple[Path, dict[str, int]]:
    tree = work / f"corpus-{messages}"
    stats_file = tree / "stats.json"
    if not stats_file.exists():
        shutil.rmtree(tree, ignore_errors=True)
        started = time.perf_counter()
        stats = corpus.generate(
            tree / "projects", messages=messages, projects=40 if messages >= 500_000 else 8
        )
        stats_file.write_text(json.dumps(dataclasses.asdict(stats)))
        print(f"corpus generated in {time.perf_counter() - started:.0f} s")
    return tree / "projects", json.loads(stats_file.read_text())


def cold_index(env: dict[str, str]) -> tuple[float, float, float]:
    """`memtui index` on an empty data dir, with its peak RSS from the kernel (wait4)."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "memtui", "index"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    watched = psutil.Process(proc.pid)
    own = 0.0
    sampler_done = threading.Event()

    def sample() -> None:
        nonlocal own
        while not sampler_done.is_set():
            try:
                own = max(own, watched.memory_info().rss / 2**20)
            except psutil.Error:
                return
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    sampler_done.set()
    took = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"memtui index failed: {err[-2000:]!r}")
    return took, usage.ru_maxrss / 1024, own


def queries(db: Path, n: int, seed: int) -> list[str]:
    """One to three words of real messages (as bench_search.py and bench_mcp.py make them)."""
    conn = sqlite3.connect(db)
    texts = [
        r[0]
        for r in conn.execute(
            "SELECT text FROM messages WHERE kind IN ('prompt', 'assistant') "
            "AND length(text) > 40 ORDER BY id LIMIT 20000"
        )
    ]
    rng = random.Random(seed)
    word = re.compile(r"[A-Za-z][A-Za-z_]{3,}")
    found: list[str] = []
    while len(found) < n:
        words = word.findall(rng.choice(texts))
        if len(words) >= 3:
            start = rng.randrange(len(words) - 2)
            found.append(" ".join(words[start : start + rng.choice((1, 2, 3))]))
    return found


# Questions as Claude asks them (5-12 words), about a prompt's subject.
ASKING = (
    "what did we decide about {}?",
    "how did we fix the {} problem?",
    "why did {} fail last time?",
    "when did we last change {}?",
    "where did we put the {} code?",
    "what was wrong with {} in the end?",
)


def questions(db: Path, n: int, seed: int) -> list[str]:
    """Queries of 5 to 12 words, as Claude sends them: half the first sentence of a prompt
    of the corpus, half a question about a prompt's subject (a few of its words)."""
    from memtui.store.fts import STOP_WORDS

    conn = sqlite3.connect(db)
    prompts = [
        r[0]
        for r in conn.execute(
            "SELECT text FROM messages WHERE kind = 'prompt' AND length(text) > 40 "
            "ORDER BY id LIMIT 20000"
        )
    ]
    rng = random.Random(seed)
    word = re.compile(r"[A-Za-z][A-Za-z_.]{2,}")
    found: list[str] = []
    while len(found) < n:
        text = rng.choice(prompts)
        if len(found) % 2 == 0:
            first = re.split(r"(?<=[.?!])\s|\n", text.strip())[0].split()
            asked = " ".join(first[:12])
        else:
            content = [w for w in word.findall(text) if w.lower() not in STOP_WORDS]
            if len(content) < 2:
                continue
            k = rng.randint(2, min(4, len(content)))
            start = rng.randrange(len(content) - k + 1)
            asked = rng.choice(ASKING).format(" ".join(content[start : start + k]))
        if 5 <= len(asked.split()) <= 12:
            found.append(asked)
    return found


def held_back(db: Path, n: int, seed: int) -> list[str]:
    """Queries no tuning saw: half word queries of another seed, half openings of prompts
    from the newest sessions (the tuning queries come from the oldest rows)."""
    conn = sqlite3.connect(db)
    texts = [
        r[0][:300]
        for r in conn.execute(
            "SELECT text FROM messages WHERE kind = 'prompt' AND length(text) > 40 "
            "ORDER BY id DESC LIMIT 5000"
        )
    ]
    rng = random.Random(seed)
    return queries(db, n // 2, seed) + rng.sample(texts, n - n // 2)


def latencies(server: Server, asked: list[str], by: str = "message") -> list[float]:
    took = []
    for q in asked:
        t = time.perf_counter()
        server.search(q, by)
        took.append(time.perf_counter() - t)
    return took


def ms(values: list[float]) -> str:
    return f"p50 {pct(values, 0.5) * 1000:.1f} ms, p95 {pct(values, 0.95) * 1000:.1f} ms"


def start_up(env: dict[str, str], asked: list[str], starts: int, what: str = "") -> None:
    inits, firsts, cpus, modes = [], [], [], []
    for n in range(starts):
        server = Server(env)
        inits.append(server.initialize())
        answer = server.search(asked[n])
        firsts.append(time.perf_counter() - server.started)
        used = psutil.Process(server.proc.pid).cpu_times()
        cpus.append(used.user + used.system)
        said = f" ({answer['note']})" if answer.get("note") else ""
        modes.append(f"{answer.get('mode')}{said}")
        server.close()
    note(
        f"`initialize` answered, from process start{what}",
        f"median {statistics.median(inits) * 1000:.0f} ms, max {max(inits) * 1000:.0f} ms",
    )
    note(
        f"first `search_history` answer, from process start{what}",
        f"median {statistics.median(firsts) * 1000:.0f} ms, max {max(firsts) * 1000:.0f} ms; "
        f"CPU used by then median {statistics.median(cpus) * 1000:.0f} ms "
        f"({starts} starts; modes: {', '.join(sorted(set(modes)))})",
    )


def one_server(env: dict[str, str], asked: list[str], by: str = "message", what: str = "") -> None:
    # During catch-up: a new server takes follow.lock and checks every transcript file.
    fresh = Server(env)
    fresh.initialize()
    fresh.search("warm up")
    busy = []
    deadline = time.perf_counter() + 12.0
    n = 0
    while time.perf_counter() < deadline:
        busy += latencies(fresh, [asked[n % len(asked)]], by)
        n += 1
    # Idle: a server that never follows (the fresh one above still holds follow.lock, done).
    idle_server = Server(env)
    idle_server.initialize()
    idle_server.search("warm up")
    before = psutil.Process(idle_server.proc.pid).cpu_times()
    idle = latencies(idle_server, asked, by)
    after = psutil.Process(idle_server.proc.pid).cpu_times()
    cpu = (after.user + after.system - before.user - before.system) / len(asked)
    idle_server.close()
    fresh.close()
    note(
        f"`search_history` over stdio, one server, idle{what}",
        f"{ms(idle)}; the server's CPU {cpu * 1000:.1f} ms a search",
    )
    note(
        f"... during the first 12 s of a new server (its catch-up checking every file){what}",
        f"{ms(busy)} ({len(busy)} searches; p95 {pct(busy, 0.95) / pct(idle, 0.95):.2f}x idle)",
    )


def four_servers(
    env: dict[str, str], asked: list[str], by: str = "message", what: str = ""
) -> None:
    four = [Server(env) for _ in range(4)]
    for each in four:
        each.initialize()
        each.search("warm up")
    time.sleep(2)
    took: list[list[float]] = [[] for _ in four]

    def drive(i: int) -> None:
        took[i] = latencies(four[i], asked[i::4] * 2, by)

    threads = [threading.Thread(target=drive, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    together = [x for each in took for x in each]
    note(f"four servers searching at once{what}", f"{ms(together)} ({len(together)} searches)")
    time.sleep(1)
    pss = [family_kb(each.proc.pid, "Pss") / 1024 for each in four]
    for each in four:
        each.close()
    note(
        f"four servers, PSS together after searching{what}",
        f"{sum(pss):.0f} MB ({', '.join(f'{p:.0f}' for p in pss)})",
    )


RECALL = """
import json, time
import numpy as np
from memtui.engine import Memory, load
from memtui.store import vectors as vectors_module
memory = Memory(load())
indexes = memory._index()
v = indexes.vectors
qs = indexes.embedder.encode(json.loads(QUERIES))
qs = qs[np.any(qs, axis=1)]
m = v._mapped
ids = np.asarray(m.labels)
def exact(q, k):
    sims = (m.vecs @ q)[np.asarray(m.rows)]
    top = np.argpartition(-sims, k - 1)[:k]
    return sims, top
found, approx_t, exact_t = [], [], []
for q in qs:
    t = time.perf_counter(); hits = v.search(q, 101); approx_t.append(time.perf_counter() - t)
    t = time.perf_counter(); sims, top = exact(q, 101); exact_t.append(time.perf_counter() - t)
    tenth = np.sort(sims[top])[::-1][9]
    got = np.array([1.0 - d for _, d in hits[:10]])
    found.append(float(np.sum(got >= tenth - 1e-6)) / 10)
def pct(xs, p):
    xs = sorted(xs); return xs[min(len(xs) - 1, int(p * len(xs)))] * 1000
RESULT = {"vectors": len(v), "queries": len(qs), "recall10": float(np.mean(found)),
          "worst": float(np.min(found)), "approx_p50": pct(approx_t, .5),
          "approx_p95": pct(approx_t, .95), "exact_p50": pct(exact_t, .5),
          "exact_p95": pct(exact_t, .95), "codes_mb": m.codes.nbytes / 2**20,
          "int8_mb": (m.int8s.nbytes + m.scales.nbytes) / 2**20}
if GRAPH:
    import hnswlib, resource
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    graph = v._load_graph()
    RESULT["graph_load_s"] = time.perf_counter() - t
    RESULT["graph_mb"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    graph.set_ef(400)
    found, graph_t = [], []
    for q in qs:
        t = time.perf_counter(); labels, dists = graph.knn_query(q, k=101, num_threads=1)
        graph_t.append(time.perf_counter() - t)
        sims, top = exact(q, 101)
        tenth = np.sort(sims[top])[::-1][9]
        found.append(float(np.sum(1.0 - dists[0][:10] >= tenth - 1e-6)) / 10)
    RESULT.update(graph_recall10=float(np.mean(found)), graph_p50=pct(graph_t, .5),
                  graph_p95=pct(graph_t, .95))
"""

FTS5 = """
import random, sqlite3, time
from memtui.store.indexes import FTS_KINDS
src = sqlite3.connect(DB)
dst = sqlite3.connect(FTS5)
dst.execute("CREATE VIRTUAL TABLE IF NOT EXISTS m USING fts5(text, tool_text, "
            "tokenize='porter unicode61')")
if not dst.execute("SELECT count(*) FROM m").fetchone()[0]:
    rows = src.execute("SELECT id, text, tool_calls || char(10) || tool_output FROM messages "
                       f"WHERE kind IN {FTS_KINDS}")
    dst.execute("BEGIN")
    dst.executemany("INSERT INTO m (rowid, text, tool_text) VALUES (?, ?, ?)", rows)
    dst.execute("COMMIT")
took = []
for q in QUERIES:
    terms = " OR ".join('"' + w.replace('"', '') + '"' for w in q.split())
    t = time.perf_counter()
    dst.execute("SELECT rowid FROM m WHERE m MATCH ? ORDER BY bm25(m, 1.0, 0.4) LIMIT 10",
                (terms,)).fetchall()
    took.append(time.perf_counter() - t)
took.sort()
RESULT = {"p50": took[len(took) // 2] * 1000, "p95": took[int(len(took) * 0.95)] * 1000}
"""


def in_child(code: str, env: dict[str, str]) -> dict[str, Any]:
    wrapped = code + "\nimport json as _j\nprint(_j.dumps(RESULT))\n"
    out = subprocess.run(
        [sys.executable, "-c", wrapped], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1_050_000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/memtui-million"))
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--questions", type=int, default=120, help="5-12 word questions")
    parser.add_argument("--starts", type=int, default=5, help="cold server starts to time")
    parser.add_argument("--fresh", action="store_true", help="index the archive again")
    parser.add_argument("--graph", action="store_true", help="measure hnswlib's graph too")
    parser.add_argument("--no-fts5", action="store_true", help="skip the FTS5 baseline")
    args = parser.parse_args()

    projects, stats = build_corpus(args.work, args.messages)
    print(f"corpus: {json.dumps(stats)}   [load {load()}]")
    data = args.work / f"data-{args.messages}"
    env = {
        **os.environ,
        "MEMTUI_DATA_DIR": str(data),
        "MEMTUI_CLAUDE_DIR": str(projects),
        "XDG_STATE_HOME": str(args.work / "state"),
        "PYTHONPATH": str(ROOT),
        # Bytecode cached, as an installed package has it: a sandbox may set
        # PYTHONDONTWRITEBYTECODE, and then every server start compiles memtui again.
        "PYTHONPYCACHEPREFIX": str(args.work / "pycache"),
    }
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if args.fresh or not (data / "built").exists():
        shutil.rmtree(data, ignore_errors=True)
        took, peak, sampled = cold_index(env)
        (data / "built").touch()
        note("cold `memtui index`", f"{took:.0f} s")
        note("peak RSS of that `memtui index`", f"{peak:.0f} MB (sampled: {sampled:.0f} MB)")
    again = [timed(env, "index") for _ in range(3)]
    note(
        "`memtui index` with nothing new",
        f"median {statistics.median(w for w, _ in again):.2f} s wall, "
        f"{statistics.median(c for _, c in again):.2f} s CPU (3 runs)",
    )

    asked = queries(data / "memtui.db", args.queries, seed=7)
    start_up(env, asked, args.starts)
    one_server(env, asked)
    four_servers(env, asked)
    # The queries Claude sends: 5-12 words, often a question; by message and by session.
    asking = questions(data / "memtui.db", args.questions, seed=9)
    start_up(env, asking, args.starts, what=" (questions)")
    for by in ("message", "session"):
        one_server(env, asking, by, what=f" (questions, by {by})")
        four_servers(env, asking, by, what=f" (questions, by {by})")

    recall = in_child(
        f"QUERIES = {json.dumps(json.dumps(held_back(data / 'memtui.db', 300, seed=8)))}\n"
        f"GRAPH = {args.graph}\n" + RECALL,
        env,
    )
    note(
        "vector search vs exact scoring, held-back queries",
        f"recall@10 {recall['recall10']:.3f} (worst query {recall['worst']:.1f}) over "
        f"{recall['vectors']:,} vectors, {recall['queries']} queries; codes "
        f"p50 {recall['approx_p50']:.1f} / p95 {recall['approx_p95']:.1f} ms, exact scan "
        f"p50 {recall['exact_p50']:.1f} / p95 {recall['exact_p95']:.1f} ms; codes "
        f"{recall['codes_mb']:.0f} MB, int8 copies {recall['int8_mb']:.0f} MB",
    )
    if args.graph:
        note(
            "hnswlib's graph (ef 400) on the same queries",
            f"recall@10 {recall['graph_recall10']:.3f}, p50 {recall['graph_p50']:.1f} / p95 "
            f"{recall['graph_p95']:.1f} ms, loading it {recall['graph_load_s']:.1f} s and "
            f"{recall['graph_mb']:.0f} MB of the process's own memory",
        )
    if not args.no_fts5:
        fts5_db = args.work / f"fts5-{args.messages}.db"
        fts5 = in_child(
            f"DB = {str(data / 'memtui.db')!r}\nFTS5 = {str(fts5_db)!r}\n"
            f"QUERIES = {json.dumps(asked)}\n" + FTS5,
            env,
        )
        note(
            "SQLite FTS5 in process, same queries",
            f"p50 {fts5['p50']:.1f} ms, p95 {fts5['p95']:.1f} ms",
        )

    print(f"\n| at {args.messages:,} messages | measured | load average (1 / 5 / 15 min) |")
    print("| --- | --- | --- |")
    for what, figure, avg in ROWS:
        print(f"| {what} | {figure} | {avg} |")


if __name__ == "__main__":
    main()
