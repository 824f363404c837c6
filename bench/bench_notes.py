"""Notes beside a large archive: save and search latency, and what notes cost message search.

    python bench/bench_notes.py [--messages 200000] [--notes 10000] [--work /tmp/memtui-bench]
                                [--corpus DIR/projects]

One data dir holds the generated archive (or `--corpus`, one made before), indexed. Message
search is measured before any note exists, then 10,000 notes are imported (spread over two
years and 12 folders, their bodies drawn from the archive's own prose so that flashbacks find
conversations; a quarter of them approved rules), then, in the engine, `notes.save`
(similar-note check and flashbacks, notes and sessions, included) and `notes.search` (hybrid,
with flashbacks for the top result); then the same over a real `memtui mcp` child on stdio
(`save_note`, `search_notes`, JSON-RPC round trips), and its `initialize` from process start,
with the house rules in it; then message search again. Each phase runs in a fresh process.
Besides wall time, CPU time: each engine call's on its thread (`time.thread_time`); each MCP
call's in the server, all its threads (/proc/PID/task/*/schedstat, Linux), which a loaded
machine inflates far less. Figures: bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

from bench_mcp import ROOT, Server, pct, queries
from common import cached_corpus, run_child

INDEX = """
import time
from memtui.engine import Memory, load
memory = Memory(load())
t0 = time.perf_counter()
memory.upkeep.ingest(index=False)
memory._index().catch_up()
memory._index().save_vectors(force=True)
RESULT = {"seconds": time.perf_counter() - t0}
"""

QUERIES = """
import random, re, sqlite3
from memtui.engine import load
conn = sqlite3.connect(load().db_path)
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

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] * 1000
"""

MESSAGES = (
    QUERIES
    + """
import time
from memtui.engine import Memory
memory = Memory(load())
memory.history.search("warm up", "hybrid")
took, cpu = [], []
for q in queries:
    t, c = time.perf_counter(), time.thread_time()
    memory.history.search(q, "hybrid", limit=10)
    took.append(time.perf_counter() - t)
    cpu.append(time.thread_time() - c)
RESULT = {"p50": pct(took, 0.5), "p95": pct(took, 0.95),
          "cpu_p50": pct(cpu, 0.5), "cpu_p95": pct(cpu, 0.95)}
"""
)

IMPORT = (
    QUERIES
    + """
import time
from datetime import UTC, datetime, timedelta
from memtui.engine import Memory, Note
rows = conn.execute(
    "SELECT text FROM messages WHERE kind = 'assistant' AND length(text) > 120 "
    "ORDER BY id LIMIT ?", (NOTES * 3,)).fetchall()
rng.shuffle(rows)
now = datetime.now(UTC)
notes, seen = [], set()
for text, in rows:
    words = " ".join(text.split()[:8])[:80].replace("[", "(").replace("]", ")").replace("|", "/")
    if text in seen:
        continue
    seen.add(text)
    title = f"{words} ({len(notes) + 1})"
    when = (now - timedelta(days=rng.uniform(0, 730))).isoformat(timespec="microseconds")
    layer = rng.choice(("past", "past", "state", "rule"))
    notes.append(Note(len(notes) + 1, title, text[:2000], layer, f"area-{rng.randrange(12)}",
                      [f"t{rng.randrange(40)}"], when, when, "person",
                      "approved" if layer == "rule" else None))
    if len(notes) == NOTES:
        break
memory = Memory(load())
t0 = time.perf_counter()
memory.notes.import_notes(notes)
t1 = time.perf_counter()
memory._note_index().catch_up()
t2 = time.perf_counter()
memory.close()
RESULT = {"notes": len(notes), "import_s": t1 - t0, "index_s": t2 - t1}
"""
)

NOTES_SERVE = (
    QUERIES
    + """
import time
from memtui.engine import Memory
memory = Memory(load())
memory.history.search("warm up", "hybrid")
memory.notes.search("warm up")
saves, searches, similar, flash_notes, flash_sessions = [], [], 0, 0, 0
save_cpu, search_cpu = [], []
for i, q in enumerate(queries):
    body = rng.choice(texts)[:1500]
    t, c = time.perf_counter(), time.thread_time()
    r = memory.notes.save(f"bench note {time.time_ns()} {i} {q}"[:200], body, "past", by="agent",
                          folder=f"area-{i % 12}", tags=["bench"])
    saves.append(time.perf_counter() - t)
    save_cpu.append(time.thread_time() - c)
    similar += bool(r.similar)
    flash_notes += bool(r.flashbacks.notes)
    flash_sessions += bool(r.flashbacks.sessions)
for q in queries:
    t, c = time.perf_counter(), time.thread_time()
    memory.notes.search(q, limit=10)
    searches.append(time.perf_counter() - t)
    search_cpu.append(time.thread_time() - c)
memory.close()
RESULT = {"save_p50": pct(saves, 0.5), "save_p95": pct(saves, 0.95),
          "search_p50": pct(searches, 0.5), "search_p95": pct(searches, 0.95),
          "save_cpu_p50": pct(save_cpu, 0.5), "save_cpu_p95": pct(save_cpu, 0.95),
          "search_cpu_p50": pct(search_cpu, 0.5), "search_cpu_p95": pct(search_cpu, 0.95),
          "saves_with_similar": similar, "saves_with_note_flashbacks": flash_notes,
          "saves_with_session_flashbacks": flash_sessions}
"""
)


class NotesServer(Server):
    """A `memtui mcp` child, its calls timed in wall time and in the server's CPU time."""

    def cpu(self) -> float:
        """CPU seconds of every thread of the server so far (schedstat: nanoseconds)."""
        total = 0
        for task in Path(f"/proc/{self.proc.pid}/task").iterdir():
            try:
                total += int((task / "schedstat").read_text().split()[0])
            except (FileNotFoundError, ProcessLookupError):
                continue  # a thread that ended between the listing and the read
        return total / 1e9

    def start(self) -> tuple[float, float, str]:
        """`initialize`: seconds from process start, CPU by then, and the instructions."""
        answer = self.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"},
            },
        )
        took, cpu = time.perf_counter() - self.started, self.cpu()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        self.proc.stdin.flush()
        return took, cpu, answer["result"].get("instructions", "")

    def tool(self, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], float, float]:
        cpu, t = self.cpu(), time.perf_counter()
        result = self.request("tools/call", {"name": name, "arguments": arguments})["result"]
        took, cpu = time.perf_counter() - t, self.cpu() - cpu
        assert not result.get("isError"), result
        return result["structuredContent"], took, cpu


def over_stdio(env: dict[str, str], db: Path, n: int, starts: int) -> dict[str, object]:
    """save_note and search_notes over a `memtui mcp` child; its initialize, `starts` times."""
    child = {**os.environ, **env, "PYTHONPATH": str(ROOT)}
    inits, init_cpu = [], []
    for _ in range(starts):
        server = NotesServer(child)
        took, cpu, told = server.start()
        assert "## House rules" in told, told[:300]
        inits.append(took)
        init_cpu.append(cpu)
        server.close()
    asked = queries(db, n)
    conn = sqlite3.connect(db)
    texts = [
        r[0]
        for r in conn.execute(
            "SELECT text FROM messages WHERE kind = 'assistant' AND length(text) > 120 "
            "ORDER BY id DESC LIMIT 5000"
        )
    ]
    conn.close()
    rng = random.Random(11)
    server = NotesServer(child)
    server.start()
    server.tool("search_notes", {"query": "warm up"})
    run = time.strftime("%H%M%S")  # titles unique across runs on the same notes (`--only`)
    server.tool("save_note", {"title": f"warm up {run}", "content": "warm", "layer": "state"})
    saves, save_cpu, searches, search_cpu = [], [], [], []
    similar = flash_notes = flash_sessions = 0
    for i, q in enumerate(asked):
        args = {
            "title": f"stdio note {run} {i} {q}"[:200],
            "content": rng.choice(texts)[:1500],
            "layer": "past",
            "folder": f"area-{i % 12}",
            "tags": ["bench"],
        }
        saved, took, cpu = server.tool("save_note", args)
        saves.append(took)
        save_cpu.append(cpu)
        similar += bool(saved["similar"])
        flash_notes += bool(saved["flashbacks"]["notes"])
        flash_sessions += bool(saved["flashbacks"]["sessions"])
    for q in asked:
        _, took, cpu = server.tool("search_notes", {"query": q})
        searches.append(took)
        search_cpu.append(cpu)
    server.close()
    ms = [1000 * pct(xs, p) for xs in (saves, save_cpu, searches, search_cpu) for p in (0.5, 0.95)]
    return {
        "initialize_ms_from_start": sorted(round(t * 1000) for t in inits),
        "initialize_cpu_ms": sorted(round(c * 1000) for c in init_cpu),
        "save_note_p50": ms[0],
        "save_note_p95": ms[1],
        "save_note_cpu_p50": ms[2],
        "save_note_cpu_p95": ms[3],
        "search_notes_p50": ms[4],
        "search_notes_p95": ms[5],
        "search_notes_cpu_p50": ms[6],
        "search_notes_cpu_p95": ms[7],
        "saves_with_similar": similar,
        "saves_with_note_flashbacks": flash_notes,
        "saves_with_session_flashbacks": flash_sessions,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--starts", type=int, default=5, help="cold starts of memtui mcp")
    parser.add_argument("--work", type=Path, default=Path("/tmp/memtui-bench"))
    parser.add_argument("--corpus", type=Path, help="a generated corpus's projects folder")
    parser.add_argument("--only", choices=("engine", "stdio"), help="one phase, notes there")
    args = parser.parse_args()

    projects = args.corpus or cached_corpus(args.work, args.messages)[0]
    data = args.work / f"notes-data-{args.messages}"
    indexed = data / "indexed"
    env = {
        "MEMTUI_DATA_DIR": str(data),
        "MEMTUI_CLAUDE_DIR": str(projects),
        "XDG_STATE_HOME": str(args.work / "state"),
    }
    if not indexed.exists():
        shutil.rmtree(data, ignore_errors=True)
        print("indexing the archive:", run_child(INDEX, env), flush=True)
        indexed.touch()
    figures: dict[str, object] = {"load_before": os.getloadavg()}
    n = f"N = {args.queries}\nNOTES = {args.notes}\n"
    if args.only:  # the notes of a run before stay; this phase's own are added
        phase = "notes" if args.only == "engine" else "stdio"
        if args.only == "engine":
            figures[phase] = run_child(n + NOTES_SERVE, env)
        else:
            figures[phase] = over_stdio(env, data / "memtui.db", args.queries, args.starts)
        figures["load_after"] = os.getloadavg()
        print(json.dumps(figures, indent=2))
        return
    shutil.rmtree(data / "index" / "notes", ignore_errors=True)
    _clear_notes(data)
    figures["messages_without_notes"] = run_child(n + MESSAGES, env)
    figures["import"] = run_child(n + IMPORT, env)
    figures["notes"] = run_child(n + NOTES_SERVE, env)
    figures["load_between"] = os.getloadavg()
    figures["stdio"] = over_stdio(env, data / "memtui.db", args.queries, args.starts)
    figures["messages_with_notes"] = run_child(n + MESSAGES, env)
    figures["load_after"] = os.getloadavg()
    before = figures["messages_without_notes"]["p95"]  # type: ignore[index]
    after = figures["messages_with_notes"]["p95"]  # type: ignore[index]
    figures["message_search_p95_change"] = f"{(after / before - 1) * 100:+.1f} %"
    print(json.dumps(figures, indent=2))


def _clear_notes(data: Path) -> None:
    """Start from no notes in a store indexed before (a run's notes are left behind)."""

    conn = sqlite3.connect(data / "memtui.db")
    with conn:
        for table in ("notes", "note_tags", "note_links", "notes_gone"):
            conn.execute(f"DELETE FROM {table}")
        conn.execute("DELETE FROM sqlite_sequence WHERE name = 'notes'")
        conn.execute("UPDATE meta SET value = '0' WHERE key IN ('note_seq', 'notes_fts_seq')")
    conn.close()


if __name__ == "__main__":
    main()
