"""Which conversation was it? Message- and session-level hit@1/@5/@10 and MRR for fts, vector
and hybrid, on every labelled set.

    python bench/quality_sessions.py [--work /tmp/memtui-quality] [--save FILE]

Two archives, each ingested fresh:

- the haystack: bench/quality.py's 20k generated messages with its needles and natural
  conversations, plus the long histories of bench/session_set.py (six prose stories, two
  Claude Code projects);
- the stories alone, one project each, as a long-conversation benchmark holds them.

Every query of bench/quality.py (lexical, paraphrase, concepts, natural) is asked across the
archive; a story or project question is asked with its project as the filter, as Claude asks
from its working directory. A message-level hit is an answering message; a session-level hit is
a session holding one, counted on the first distinct sessions of the message list and, where
the engine ranks conversations (`by="session"`), on that list. Stories are split whole into a
tuning and a held-back half (session_set.py); the older sets keep quality.py's split. `--save`
writes each query's candidates (full text's coverage, vector similarities, answers to prompts,
the session of each) for re-fusing without the engine. Figures: bench/quality_results.md.
"""

from __future__ import annotations

import argparse
import inspect
import json
import logging
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import natural_set
import quality
import session_projects
import session_set
import session_stories

STORIES = session_stories.STORIES + session_projects.PROJECTS
KINDS = ("lexical", "paraphrase", "concepts", "natural", "story", "project")
CUTS = (1, 5, 10)
DEPTH = 100


@dataclass(frozen=True, slots=True)
class Ask:
    kind: str
    key: str
    text: str | list[str]
    targets: tuple[str, ...]  # uuids of the answering messages
    sessions: tuple[str, ...]  # the sessions holding them (empty: looked up in the store)
    project: str | None  # the filter it is asked with
    held_back: bool


def asks(haystack: bool) -> list[Ask]:
    out = []
    if haystack:
        for q in quality.all_queries():
            out.append(Ask(q.kind, q.key, q.text, (q.target,), (), None, q.held_back))
    for q in session_set.questions(STORIES):
        out.append(Ask(q.kind, q.story, q.text, q.targets, q.sessions, q.cwd, q.held_back))
    return out


def build(work: Path, haystack: bool) -> Path:
    """The transcript tree: the haystack with every set, or the stories alone."""
    if not haystack:
        projects = work / "stories-alone" / "projects"
        shutil.rmtree(projects, ignore_errors=True)
        session_set.add_stories(projects, STORIES)
        return projects
    projects = quality.haystack(work, 20_000, 0)
    quality.add_needles(projects)
    natural_set.add_conversations(projects, 0)
    session_set.add_stories(projects, STORIES)
    return projects


def evaluate(projects: Path, data: Path, wanted: list[Ask], save: bool) -> dict[str, Any]:
    """Ingest `projects` into a fresh `data` dir and ask every query in three modes (and by
    session, where the engine can); with `save`, each query's candidates too."""
    from memtui.config import Config
    from memtui.engine.memory import Memory
    from memtui.engine.search import Filters

    logging.disable(logging.WARNING)
    shutil.rmtree(data, ignore_errors=True)
    memory = Memory(Config(data, projects, data / "logs"))
    started = time.perf_counter()
    memory.upkeep.ingest(projects)
    memory._index().catch_up()
    ingest_s = time.perf_counter() - started
    store = memory._archive.conn
    session_of_uuid = dict(store.execute("SELECT uuid, session_id FROM messages"))
    searcher = memory._search()
    by_session = "by" in inspect.signature(searcher.search).parameters
    seconds: dict[str, float] = {}
    results = []
    for ask in wanted:
        missing = [t for t in ask.targets if t not in session_of_uuid]
        if missing:
            raise SystemExit(f"{ask.key}: targets not stored: {missing}")
        filt = Filters(projects=None if ask.project is None else (ask.project,))
        row: dict[str, Any] = {
            "sessions": list(ask.sessions or {session_of_uuid[t] for t in ask.targets})
        }
        for mode in ("fts", "vector", "hybrid"):
            started = time.perf_counter()
            if mode == "vector":  # the ranking itself: vector mode lists only the near ones
                listed = [u for u, _ in quality.raw_vector(searcher, [ask.text], filt, 10)]
                row[mode] = [(u, session_of_uuid[u]) for u in listed]
            else:
                found = searcher.search(ask.text, mode, filt, 10, 0)
                row[mode] = [(r.uuid, r.session_id) for r in found.results]
            seconds[mode] = seconds.get(mode, 0.0) + time.perf_counter() - started
            if by_session:
                started = time.perf_counter()
                grouped = searcher.search(ask.text, mode, filt, 10, 0, by="session")
                name = f"{mode} by session"
                seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - started
                row[name] = [r.session_id for r in grouped.results]
        if save:
            row["candidates"] = candidates(memory, searcher, ask, filt)
        results.append(row)
    n_messages = memory.upkeep.stats().messages
    memory.close()
    return {
        "results": results,
        "ingest_s": ingest_s,
        "messages": n_messages,
        "ms": {name: total / len(wanted) * 1000 for name, total in seconds.items()},
    }


def candidates(memory: Any, searcher: Any, ask: Ask, filt: Any) -> dict[str, Any]:
    """What the fusion starts from: full text's top DEPTH with each one's coverage, the vector
    ranking's top DEPTH with each one's similarity and lift (near.py), the lifts of the
    full-text matches, the answers to the prompts among them, and the session of each
    message (uuids throughout)."""
    from memtui.store.fts import FtsFilter

    fts = memory._index().fts
    fts_filter = FtsFilter(filt.projects)
    weight = fts.weight(ask.text) or 1.0
    found = fts.search(ask.text, fts_filter, DEPTH)
    meaning = searcher._meaning([ask.text], filt, DEPTH, 10)
    vec = sorted(meaning.sims.items(), key=lambda kv: (-kv[1], -kv[0]))
    lifts = meaning.lifts | meaning.lift_of([mid for mid, _ in found])
    tops = {mid for mid, _ in found[:30]} | {mid for mid, _ in vec[:30]}
    replies = searcher._replies(tops, filt)
    ids = {mid for mid, _ in found} | {mid for mid, _ in vec} | set(replies.values())
    conn = memory._archive.conn
    marks = ",".join("?" * len(ids))
    rows = conn.execute(
        f"SELECT id, uuid, session_id, kind FROM messages WHERE id IN ({marks})", list(ids)
    ).fetchall()
    uuid = {mid: u for mid, u, _, _ in rows}
    return {
        "fts": [(uuid[mid], s / weight) for mid, s in found],
        "vector": [(uuid[mid], s) for mid, s in vec],
        "lift": {uuid[mid]: lift for mid, lift in lifts.items() if mid in uuid},
        "replies": {uuid[p]: uuid[a] for p, a in replies.items()},
        "session": {u: s for _, u, s, _ in rows},
        "kind": {u: k for _, u, _, k in rows},
    }


# -- scoring ---------------------------------------------------------------------------------


def first_sessions(listed: list[Any]) -> list[str]:
    """The distinct sessions of a message list, in order (a list of sessions as it is)."""
    sessions = [x[1] if isinstance(x, list | tuple) else x for x in listed]
    return list(dict.fromkeys(sessions))


def rank(hits: list[str], wanted: set[str]) -> int:
    """1-based rank of the first wanted item in the top 10; 0 when none is."""
    return next((i + 1 for i, h in enumerate(hits[:10]) if h in wanted), 0)


def scores(ranks: list[int]) -> list[float]:
    n = len(ranks) or 1
    hits = [sum(1 for r in ranks if 0 < r <= k) / n for k in CUTS]
    return [*hits, sum(1 / r for r in ranks if r) / n]


def method_ranks(wanted: list[Ask], result: dict[str, Any]) -> dict[str, list[tuple[Ask, int]]]:
    """Per method and level ("fts, message", "hybrid, session", ...), each query's rank."""
    out: dict[str, list[tuple[Ask, int]]] = {}
    for ask, row in zip(wanted, result["results"], strict=True):
        targets, sessions = set(ask.targets), set(row["sessions"])
        for mode in ("fts", "vector", "hybrid"):
            listed = row[mode]
            out.setdefault(f"{mode}, message", []).append(
                (ask, rank([u for u, _ in listed], targets))
            )
            out.setdefault(f"{mode}, session", []).append(
                (ask, rank(first_sessions(listed), sessions))
            )
            if f"{mode} by session" in row:
                out.setdefault(f"{mode} by session", []).append(
                    (ask, rank(row[f"{mode} by session"], sessions))
                )
    return out


def table(ranks: dict[str, list[tuple[Ask, int]]], kinds: tuple[str, ...], half: str) -> str:
    head = "| method | " + " | ".join(kinds) + " |"
    lines = [head, "|" + "---|" * (len(kinds) + 1)]
    for method, pairs in ranks.items():
        cells = []
        for kind in kinds:
            got = [
                r
                for a, r in pairs
                if a.kind == kind and (half == "all" or a.held_back == (half == "held back"))
            ]
            cells.append(" / ".join(f"{x:.3f}" for x in scores(got)) if got else "")
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def report(label: str, wanted: list[Ask], result: dict[str, Any]) -> None:
    kinds = tuple(k for k in KINDS if any(a.kind == k for a in wanted))
    counts = ", ".join(
        f"{k} {sum(a.held_back for a in wanted if a.kind == k)}/"
        f"{sum(1 for a in wanted if a.kind == k)}"
        for k in kinds
    )
    print(
        f"\n## {label}: {result['messages']:,} messages, ingest+index {result['ingest_s']:.0f} s"
        f"\nqueries held back / all: {counts}"
        "\nms/search: " + ", ".join(f"{n} {ms:.1f}" for n, ms in result["ms"].items())
    )
    print("cells: hit@1 / hit@5 / hit@10 / MRR@10")
    ranks = method_ranks(wanted, result)
    for half in ("tuning", "held back"):
        print(f"\n### {half}\n")
        print(table(ranks, kinds, half))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/memtui-quality"))
    parser.add_argument("--save", type=Path, help="write rankings and candidates here (JSON)")
    parser.add_argument("--alone-only", action="store_true", help="only the stories' archive")
    args = parser.parse_args()
    session_set.check(STORIES)
    runs = [("stories alone", False)]
    if not args.alone_only:
        runs.insert(0, ("haystack", True))
    saved = {}
    for label, haystack in runs:
        wanted = asks(haystack)
        projects = build(args.work, haystack)
        data = args.work / ("data-sessions" if haystack else "data-stories")
        result = evaluate(projects, data, wanted, args.save is not None)
        report(label, wanted, result)
        saved[label] = result
    if args.save:
        args.save.write_text(json.dumps(saved))


if __name__ == "__main__":
    main()
