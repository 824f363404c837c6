"""Ingestion into the store of record: cold run, re-run with nothing new, and live latency.

    python bench/bench_ingest.py [--messages 200000] [--work /tmp/memtui-bench]
    python bench/bench_ingest.py --agent codex|gemini|opencode|copilot|all [--runs 2]
    python bench/bench_ingest.py --mixed [--runs 2] [--no-claude-alone] [--corpus DIR/projects]

Each phase runs in a fresh process so its peak RSS is its own. With `--agent`, the corpus's
conversations are written again in each agent's format (`agent_corpus.py`) and each reader's
cold ingest into the store (no indexes) is measured against the Claude Code reader's on the
same content in the same run: messages a second by wall and by CPU time (the process and its
reader process), the messages being the corpus's prompts and assistant messages. With
`--mixed`, the corpus's files dealt round the five agents are indexed cold by `memtui index`
(store, full text, vectors) against the same corpus from Claude Code alone, then `memtui index`
runs again with nothing new. Figures: bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path

import agent_corpus
from common import cached_corpus, run_child, timed

INGEST = """
import resource, time
from memtui.engine import Memory, load
def cpu():
    own, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
memory = Memory(load())
started, used = time.perf_counter(), cpu()
report = memory.upkeep.ingest(index=False)
RESULT = {"seconds": time.perf_counter() - started, "cpu": cpu() - used,
          "messages": report.messages, "skipped": report.skipped,
          "sessions": len(report.sessions)}
"""
DIRS = {
    "claude-code": "MEMTUI_CLAUDE_DIR",
    "codex": "MEMTUI_CODEX_DIR",
    "gemini": "MEMTUI_GEMINI_DIR",
    "opencode": "MEMTUI_OPENCODE_DIR",
    "copilot": "MEMTUI_COPILOT_DIR",
}


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


def load() -> str:
    return " / ".join(f"{x:.1f}" for x in os.getloadavg())


def agents_env(data: Path, roots: dict[str, Path]) -> dict[str, str]:
    """Only the agents in `roots` read, each from its folder; every other turned off."""
    env = {name: str(roots[agent]) if agent in roots else "off" for agent, name in DIRS.items()}
    return {**env, "MEMTUI_DATA_DIR": str(data)}


def converted(work: Path, projects: Path, name: str, write: Callable[[Path], dict]) -> Path:
    """A conversion of the corpus, once; its counts file marks a finished one."""
    out = work / name
    counts = out / "counts.json"
    if not counts.exists():
        shutil.rmtree(out, ignore_errors=True)
        started = time.perf_counter()
        counts.parent.mkdir(parents=True)
        made = write(out)
        counts.write_text(json.dumps(made))
        print(f"{name}: {json.dumps(made)} ({time.perf_counter() - started:.0f} s)", flush=True)
    return out


def per_agent(args: argparse.Namespace, projects: Path, tag: str) -> None:
    """Each reader's cold ingest of the same conversations, beside Claude Code's."""
    agents = agent_corpus.AGENTS if args.agent == "all" else (args.agent,)
    out = converted(
        args.work, projects, f"agents-{tag}", lambda o: agent_corpus.write_all(projects, o, agents)
    )
    counts = json.loads((out / "counts.json").read_text())
    roots = {"claude-code": projects, **{a: out / a for a in agents}}
    messages = {a: counts[a]["messages"] for a in agents}
    messages["claude-code"] = sum(c.messages for _, c in agent_corpus.conversations(projects))
    data = args.work / "data-agent"
    best: dict[str, list[tuple[float, float]]] = {}
    for run in range(args.runs):
        for agent, root in roots.items():
            shutil.rmtree(data, ignore_errors=True)
            before = load()
            got = run_child(INGEST, agents_env(data, {agent: root}))
            n = messages[agent]
            best.setdefault(agent, []).append((got["seconds"], got["cpu"]))
            print(
                f"run {run + 1} {agent}: {got['seconds']:.1f} s wall, {got['cpu']:.1f} s CPU, "
                f"{n / got['seconds']:,.0f} msg/s wall, {n / got['cpu']:,.0f} msg/s CPU "
                f"({got['messages']:,.0f} records stored, {got['skipped']} skipped, "
                f"{got['sessions']:,} sessions) [load {before} → {load()}]",
                flush=True,
            )
    wall0, cpu0 = (min(x[i] for x in best["claude-code"]) for i in (0, 1))
    print(f"best of {args.runs}, {messages['claude-code']:,} messages each:")
    for agent, runs in best.items():
        wall, cpu = min(r[0] for r in runs), min(r[1] for r in runs)
        n = messages[agent]
        print(
            f"  {agent}: {n / wall:,.0f} msg/s wall ({wall0 / wall:.2f} of Claude Code's), "
            f"{n / cpu:,.0f} msg/s CPU ({cpu0 / cpu:.2f} of it)"
        )


def mixed(args: argparse.Namespace, projects: Path, tag: str) -> None:
    """Cold `memtui index` of the corpus split across the five agents and of the same from
    Claude Code alone, then the split one again with nothing new."""
    out = converted(args.work, projects, f"mixed-{tag}", lambda o: agent_corpus.split(projects, o))
    counts = json.loads((out / "counts.json").read_text())
    archives = {"mixed": {a: out / a for a in counts}}
    if args.claude_alone:
        archives["claude-code alone"] = {"claude-code": projects}
    data = args.work / f"data-mixed-{tag}"
    for run in range(args.runs):
        for label, roots in archives.items():
            target = data if label == "mixed" else args.work / f"data-claude-{tag}"
            shutil.rmtree(target, ignore_errors=True)
            before = load()
            wall, cpu = timed({**os.environ, **agents_env(target, roots)}, "index")
            print(
                f"run {run + 1} cold index, {label}: {wall:.1f} s wall, {cpu:.1f} s CPU "
                f"[load {before} → {load()}]",
                flush=True,
            )
    env = {**os.environ, **agents_env(data, archives["mixed"])}
    for _ in range(3):
        before = load()
        wall, cpu = timed(env, "index")
        print(
            f"index with nothing new, mixed: {wall:.2f} s wall, {cpu:.2f} s CPU "
            f"[load {before} → {load()}]",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/memtui-bench"))
    parser.add_argument("--agent", choices=(*agent_corpus.AGENTS, "all"))
    parser.add_argument("--mixed", action="store_true")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--no-claude-alone", dest="claude_alone", action="store_false")
    parser.add_argument("--corpus", type=Path, help="a generated corpus's projects folder")
    args = parser.parse_args()

    if args.agent or args.mixed:
        if args.corpus:
            projects, tag = args.corpus, args.corpus.parent.name
        else:
            projects = cached_corpus(args.work, args.messages)[0]
            tag = projects.parent.name
        if args.agent:
            per_agent(args, projects, tag)
        if args.mixed:
            mixed(args, projects, tag)
        return

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
