"""The MCP server as Claude Code sees it: start-up, stdio round trips, memory of many servers.

    python bench/bench_mcp.py [--messages 50000] [--work /tmp/memtui-bench-mcp] [--queries 200]

On one archive built once per size (`memtui index` over a generated corpus):
- `initialize` answered, and the first `search_history` result, counted from process start;
- `search_history` (hybrid, mixed queries) round trip over stdio, p50/p95, beside the same
  queries through the engine in process;
- RSS of one idle server (initialized, no search), and PSS of four servers that have each
  answered searches (/proc/PID/smaps_rollup counts shared pages once). Linux only.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import select
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from common import cached_corpus, run_child

ROOT = Path(__file__).resolve().parents[1]
HANDSHAKE = "2025-11-25"

IN_PROCESS = """
import json, time
from memtui.engine import Memory, load
memory = Memory(load())
memory.history.search("warm up", "hybrid")
took = []
for q in json.loads(QUERIES):
    t = time.perf_counter(); memory.history.search(q, "hybrid", limit=10)
    took.append(time.perf_counter() - t)
took.sort()
RESULT = {"p50": took[len(took) // 2] * 1000, "p95": took[int(len(took) * 0.95)] * 1000}
"""


class Server:
    """One `memtui mcp` child, spoken to in JSON-RPC lines."""

    def __init__(self, env: dict[str, str]) -> None:
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "memtui", "mcp"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.buffer = b""
        self.next_id = 0

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            select.select([fd], [], [], 120)
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                raise RuntimeError("the server closed stdout")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        answer = json.loads(line)
        assert answer.get("id") == self.next_id, answer
        return answer

    def initialize(self) -> float:
        self.request(
            "initialize",
            {
                "protocolVersion": HANDSHAKE,
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"},
            },
        )
        took = time.perf_counter() - self.started
        assert self.proc.stdin is not None
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        self.proc.stdin.write(json.dumps(note).encode() + b"\n")
        self.proc.stdin.flush()
        return took

    def search(self, query: str, by: str = "message") -> dict[str, Any]:
        arguments: dict[str, Any] = {"query": query, "limit": 10}
        if by != "message":
            arguments["by"] = by
        args = {"name": "search_history", "arguments": arguments}
        result = self.request("tools/call", args)["result"]
        assert not result.get("isError"), result
        return result["structuredContent"]

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(30)


def family_kb(pid: int, field: str) -> int:
    """`field` (Rss, Pss) of a process and its children, from smaps_rollup, in kB."""
    total = 0
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    for each in [pid, *map(int, children)]:
        for line in Path(f"/proc/{each}/smaps_rollup").read_text().splitlines():
            if line.startswith(f"{field}:"):
                total += int(line.split()[1])
    return total


def queries(db: Path, n: int) -> list[str]:
    """Mixed queries: one to three words of real messages, as bench_search.py makes them."""
    conn = sqlite3.connect(db)
    texts = [
        r[0]
        for r in conn.execute(
            "SELECT text FROM messages WHERE kind IN ('prompt', 'assistant') "
            "AND length(text) > 40 ORDER BY id LIMIT 20000"
        )
    ]
    rng = random.Random(7)
    word = re.compile(r"[A-Za-z][A-Za-z_]{3,}")
    found: list[str] = []
    while len(found) < n:
        words = word.findall(rng.choice(texts))
        if len(words) >= 3:
            start = rng.randrange(len(words) - 2)
            found.append(" ".join(words[start : start + rng.choice((1, 2, 3))]))
    return found


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=50_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--starts", type=int, default=5, help="cold starts to time")
    parser.add_argument("--work", type=Path, default=Path("/tmp/memtui-bench-mcp"))
    args = parser.parse_args()

    projects, expected = cached_corpus(args.work, args.messages)
    print(f"corpus: {json.dumps(expected)}")
    data = args.work / f"data-mcp-{args.messages}"
    env = {
        **os.environ,
        "MEMTUI_DATA_DIR": str(data),
        "MEMTUI_CLAUDE_DIR": str(projects),
        "XDG_STATE_HOME": str(args.work / "state"),
        "PYTHONPATH": str(ROOT),
    }
    if not (data / "built").exists():
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "memtui", "index"], cwd=ROOT, env=env, check=True)
        (data / "built").touch()
        print(f"archive built by memtui index in {time.perf_counter() - started:.0f} s")
    asked = queries(data / "memtui.db", args.queries)

    inits, firsts = [], []
    for _ in range(args.starts):
        server = Server(env)
        inits.append(server.initialize())
        server.search(asked[0])
        firsts.append(time.perf_counter() - server.started)
        server.close()
    print(
        f"initialize from process start: median {statistics.median(inits) * 1000:.0f} ms, "
        f"max {max(inits) * 1000:.0f} ms ({args.starts} starts)"
    )
    print(
        f"first search_history result from process start: median "
        f"{statistics.median(firsts) * 1000:.0f} ms, max {max(firsts) * 1000:.0f} ms"
    )

    follower = Server(env)
    follower.initialize()
    time.sleep(2)  # it takes follow.lock: the idle one below only reads, as most windows do
    idle = Server(env)
    idle.initialize()
    time.sleep(5)
    rss_idle = family_kb(idle.proc.pid, "Rss") / 1024
    rss_follower = family_kb(follower.proc.pid, "Rss") / 1024
    idle.close()
    follower.close()
    print(
        f"idle server RSS (initialized, no search, 5 s on): {rss_idle:.0f} MB; "
        f"the one following the transcripts: {rss_follower:.0f} MB"
    )

    server = Server(env)
    server.initialize()
    server.search("warm up")
    took = []
    for q in asked:
        t = time.perf_counter()
        server.search(q)
        took.append(time.perf_counter() - t)
    server.close()
    engine = run_child(
        f"QUERIES = {json.dumps(json.dumps(asked))}\n" + IN_PROCESS,
        {k: env[k] for k in ("MEMTUI_DATA_DIR", "MEMTUI_CLAUDE_DIR", "PYTHONPATH")},
    )
    print(
        f"search_history hybrid, {len(asked)} queries: stdio p50 {pct(took, 0.5) * 1000:.1f} ms"
        f" p95 {pct(took, 0.95) * 1000:.1f} ms; in process p50 {engine['p50']:.1f} ms"
        f" p95 {engine['p95']:.1f} ms"
    )

    four = [Server(env) for _ in range(4)]
    for each in four:
        each.initialize()
    for n, q in enumerate(asked[:80]):
        four[n % 4].search(q)
    time.sleep(2)
    pss = [family_kb(each.proc.pid, "Pss") / 1024 for each in four]
    rss = [family_kb(each.proc.pid, "Rss") / 1024 for each in four]
    for each in four:
        each.close()
    print(
        f"four servers after 20 searches each: PSS {sum(pss):.0f} MB together "
        f"({', '.join(f'{p:.0f}' for p in pss)}), RSS {sum(rss):.0f} MB summed"
    )


if __name__ == "__main__":
    main()
