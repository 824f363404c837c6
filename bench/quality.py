"""Retrieval quality: can search find a known message among a realistic haystack?

    python bench/quality.py [--messages 20000] [--work /tmp/memtui-quality] [--check]

The haystack is bench/corpus.py's generated tree; the needles (bench/quality_set.py) are
written into it as extra sessions whose target message uuid we choose. Each needle is looked
for with a lexical and a paraphrase query; we report recall@10 and MRR@10 (the target's uuid
must be in the top 10) for full text, vectors and the engine's hybrid, plus fusion variants
computed here from the same two rankings, so the engine's fusion can be picked by measurement
without editing it. Other embedding models (MEMTUI_MODEL) are measured in child processes,
each on a fresh data dir. `--check` only lists the words each query shares with its target.
Figures: bench/quality_results.md.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import corpus
from common import BENCH, run_child
from quality_set import NEEDLES, Needle

from memtui.engine.search import DECISIVE, RRF_K

QUERY_TYPES = ("lexical", "paraphrase")
K = 10  # recall@K, MRR@K
DEPTH = 100  # what each ranking hands to fusion; the engine's search.DEPTH
MODELS = ("/tmp/models/minilm-256", "/tmp/models/mpnet-768")
NS = uuid.UUID("5b1d3c2e-0f4a-4e8b-9c61-7d2a8e9f0b13")  # fixed: needle uuids are stable
MANIFEST = "needles.json"
VERSION = "2.1.9"

Ranked = list[tuple[str, float]]  # (uuid, score), best first
ENGINE = f"RRF k={RRF_K}, decisive fts x{DECISIVE}"


# -- needles into the haystack ----------------------------------------------------------------


def _id(*parts: object) -> str:
    return str(uuid.uuid5(NS, "/".join(map(str, parts))))


def target_uuid(needle: Needle) -> str:
    return _id(needle.key, needle.target)


def _iso(epoch_ms: int) -> str:
    moment = datetime.fromtimestamp(epoch_ms / 1000, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _assistant(
    head: dict[str, Any], key: str, n: int, blocks: list[Any], stop: str
) -> dict[str, Any]:
    # One content block per line, as Claude Code writes them; one block here, so the line's
    # uuid is the message's.
    return {
        **head,
        "message": {
            "model": "claude-sonnet-4-5-20250929",
            "id": "msg_01" + _id(key, n, "msg").replace("-", "")[:22],
            "type": "message",
            "role": "assistant",
            "content": blocks,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 4, "output_tokens": 310, "service_tier": "standard"},
        },
        "requestId": "req_011C" + _id(key, n, "req").replace("-", "")[:20],
        "type": "assistant",
    }


def needle_lines(needle: Needle, start_ms: int) -> list[dict[str, Any]]:
    """The session's records: prompt, an optional Bash call and its result, the answer."""
    session = _id(needle.key, "session")
    lines: list[dict[str, Any]] = []

    def add(record: dict[str, Any], uid: str) -> None:
        record["parentUuid"] = lines[-1]["uuid"] if lines else None
        record["uuid"] = uid
        record["timestamp"] = _iso(start_ms + 40_000 * len(lines))
        lines.append(record)

    def head() -> dict[str, Any]:
        return {
            "isSidechain": False,
            "userType": "external",
            "entrypoint": "cli",
            "cwd": needle.cwd,
            "sessionId": session,
            "version": VERSION,
            "gitBranch": "main",
        }

    prompt = {**head(), "type": "user", "message": {"role": "user", "content": needle.prompt}}
    add({**prompt, "permissionMode": "default"}, _id(needle.key, "prompt"))
    if needle.tool:
        command, output = needle.tool
        tool_id = "toolu_01" + _id(needle.key, "tool").replace("-", "")[:22]
        use = {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command}}
        add(_assistant(head(), needle.key, 1, [use], "tool_use"), _id(needle.key, "use"))
        result = {"tool_use_id": tool_id, "type": "tool_result", "content": output}
        add(
            {
                **head(),
                "type": "user",
                "message": {"role": "user", "content": [result]},
                "toolUseResult": {"stdout": output, "stderr": "", "interrupted": False},
                "sourceToolAssistantUUID": lines[-1]["uuid"],
            },
            _id(needle.key, "result"),
        )
    answer = [{"type": "text", "text": needle.reply}]
    add(_assistant(head(), needle.key, 2, answer, "end_turn"), _id(needle.key, "reply"))
    return lines


def haystack(work: Path, messages: int, seed: int) -> Path:
    """The generated tree, made once per (size, seed); its stats file marks it finished."""
    tree = work / f"corpus-{messages}-{seed}"
    stats = tree / "stats.json"
    if not stats.exists():
        shutil.rmtree(tree, ignore_errors=True)
        made = corpus.generate(tree / "projects", messages=messages, seed=seed)
        stats.write_text(json.dumps(asdict(made)))
    return tree / "projects"


def add_needles(projects: Path) -> None:
    """Write each needle as a session file in its project's folder (rewritten every run)."""
    manifest = projects / MANIFEST
    if manifest.exists():  # a changed quality set must not leave old needles behind
        for old in json.loads(manifest.read_text()):
            (projects / old).unlink(missing_ok=True)
    written = []
    day = 86_400_000
    first = 1_735_689_600_000  # 2025-01-01, inside the corpus's timeline
    for i, needle in enumerate(NEEDLES):
        rel = f"{corpus.encode_project_dir(needle.cwd)}/{_id(needle.key, 'session')}.jsonl"
        path = projects / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = needle_lines(needle, first + i * 9 * day + 37_000_000)
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines))
        written.append(rel)
    manifest.write_text(json.dumps(written))


# -- evaluation (runs in this process or a child, one data dir per model) ---------------------


# The engine scores a whole index exactly up to vectors._EXACT_INDEX vectors and walks
# hnswlib's graph above that. Each vector ranking is taken both ways here: the graph's, as a
# large archive gets it, and the exact one, the model's ceiling.
GRAPH, EXACT = 0, 1 << 62


def evaluate(projects: str, data: str, ef: int | None = None) -> dict[str, Any]:
    """Ingest `projects` into a fresh `data` dir and run every query.

    Returns, per query, the top-DEPTH full-text and vector rankings (uuid, score) and the
    engine's hybrid top K, each also with exact vectors, so fusion variants can be scored
    afterwards. `ef` overrides hnswlib's search breadth.
    """
    from memtui.config import Config
    from memtui.engine.memory import Memory
    from memtui.store import vectors

    # The haystack has broken lines on purpose; the ingester's warnings about them are noise.
    logging.disable(logging.WARNING)
    if ef is not None:
        vectors._EF_SEARCH = ef
    shutil.rmtree(data, ignore_errors=True)
    root = Path(data)
    memory = Memory(Config(data_dir=root, claude_dir=Path(projects), log_dir=root / "logs"))
    started = time.perf_counter()
    memory.upkeep.ingest(Path(projects))
    memory._index().catch_up()  # ingest may or may not index; a caught-up index is a no-op
    ingest_s = time.perf_counter() - started

    targets = [target_uuid(n) for n in NEEDLES]
    marks = ",".join("?" * len(targets))
    kinds = dict(
        memory._archive_now().conn.execute(
            f"SELECT uuid, kind FROM messages WHERE uuid IN ({marks})", targets
        )
    )
    missing = [n.key for n in NEEDLES if kinds.get(target_uuid(n)) not in ("prompt", "assistant")]
    if missing:
        raise SystemExit(f"needle targets not stored as prompt/assistant: {missing}")
    stats = memory.upkeep.stats()
    n_vectors = stats.index.vectors if stats.index else 0

    seconds: dict[str, float] = {}  # per mode, summed over the queries

    def ranked(query: str, mode: str, limit: int, exact: bool = False) -> Ranked:
        vectors._EXACT_INDEX = EXACT if exact else GRAPH
        started = time.perf_counter()
        found = memory.history.search(query, mode, limit=limit).results
        name = f"{mode} exact" if exact else mode
        seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - started
        return [(r.uuid, r.score) for r in found]

    queries = []
    for needle in NEEDLES:
        for qtype in QUERY_TYPES:
            query = getattr(needle, qtype)
            q: dict[str, Any] = {
                "key": needle.key,
                "type": qtype,
                "fts": ranked(query, "fts", DEPTH),
                "vector": ranked(query, "vector", DEPTH),
                "hybrid": [u for u, _ in ranked(query, "hybrid", K)],
                "vector_exact": ranked(query, "vector", DEPTH, exact=True),
                "hybrid_exact": [u for u, _ in ranked(query, "hybrid", K, exact=True)],
            }
            queries.append(q)
    dim = memory._index().embedder.dim
    memory.close()
    return {
        "queries": queries,
        "ingest_s": ingest_s,
        "ms": {name: total / len(queries) * 1000 for name, total in seconds.items()},
        "messages": stats.messages,
        "vectors": n_vectors,
        "dim": dim,
        "ef": ef or vectors._EF_SEARCH,
    }


def evaluate_child(projects: Path, data: Path, model: str, ef: int | None) -> dict[str, Any]:
    """`evaluate` in a fresh interpreter: the embedder reads MEMTUI_MODEL once per process."""
    code = f"""
        import sys
        sys.path.insert(0, {str(BENCH)!r})
        import quality
        RESULT = quality.evaluate({str(projects)!r}, {str(data)!r}, {ef!r})
    """
    return run_child(code, {"MEMTUI_MODEL": model})


# -- fusion variants --------------------------------------------------------------------------


def rrf(k: int, w_fts: float = 1.0, w_vec: float = 1.0) -> Callable[[Ranked, Ranked], list[str]]:
    """The engine's reciprocal rank fusion with its k and weights as parameters."""

    def fuse(fts: Ranked, vec: Ranked) -> list[str]:
        fused: dict[str, float] = {}
        for ranking, weight in ((fts, w_fts), (vec, w_vec)):
            for rank, (uid, _) in enumerate(ranking):
                fused[uid] = fused.get(uid, 0.0) + weight / (k + rank + 1)
        return [u for u, _ in sorted(fused.items(), key=lambda kv: kv[1], reverse=True)]

    return fuse


def decisive(k: int, ratio: float) -> Callable[[Ranked, Ranked], list[str]]:
    """RRF k, plus one more first-place vote for the full-text top hit when its BM25 score is
    `ratio` times the runner-up's (the engine's fusion at DECISIVE)."""
    plain = rrf(k)

    def fuse(fts: Ranked, vec: Ranked) -> list[str]:
        fused = plain(fts, vec)
        if len(fts) > 1 and fts[0][1] >= ratio * fts[1][1]:
            fused.remove(fts[0][0])
            fused.insert(0, fts[0][0])
        return fused

    return fuse


def convex(alpha: float) -> Callable[[Ranked, Ranked], list[str]]:
    """alpha * full text + (1 - alpha) * vector, each score min-max scaled over its top DEPTH.

    Unlike RRF this keeps how far apart scores are: a BM25 hit far above the rest stays far
    above. Missing from a ranking counts as that ranking's minimum (0).
    """

    def scaled(ranking: Ranked) -> dict[str, float]:
        if not ranking:
            return {}
        hi, lo = ranking[0][1], ranking[-1][1]
        span = (hi - lo) or 1.0
        return {u: (s - lo) / span for u, s in ranking}

    def fuse(fts: Ranked, vec: Ranked) -> list[str]:
        a, b = scaled(fts), scaled(vec)
        fused = {u: alpha * a.get(u, 0.0) + (1 - alpha) * b.get(u, 0.0) for u in {*a, *b}}
        return [u for u, _ in sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))]

    return fuse


VARIANTS: dict[str, Callable[[Ranked, Ranked], list[str]]] = {
    "RRF k=60 1:1": rrf(60),
    "RRF k=10 1:1": rrf(10),
    "RRF k=10, decisive fts x1.5": decisive(10, 1.5),
    "RRF k=10, decisive fts x2": decisive(10, 2.0),
    "RRF k=10, decisive fts x3": decisive(10, 3.0),
    "RRF k=10 fts 3:2": rrf(10, 1.5, 1.0),
    "RRF k=10 fts 2:1": rrf(10, 2.0, 1.0),
    "RRF k=60 fts 2:1": rrf(60, 2.0, 1.0),
    "RRF k=60 vec 1:2": rrf(60, 1.0, 2.0),
    "min-max convex a=0.5": convex(0.5),
    "min-max convex a=0.7": convex(0.7),
}


# -- scoring ----------------------------------------------------------------------------------


def rank_of(target: str, uuids: list[str]) -> int:
    """1-based rank within the top K, 0 when not there."""
    top = uuids[:K]
    return top.index(target) + 1 if target in top else 0


def score(ranks: list[int]) -> tuple[float, float]:
    """(recall@K, MRR@K)."""
    n = len(ranks) or 1
    return sum(r > 0 for r in ranks) / n, sum(1 / r for r in ranks if r) / n


def method_ranks(result: dict[str, Any], exact: bool = False) -> dict[str, dict[str, list[int]]]:
    """Per method, per query type, the target's rank for every query.

    `exact`: with the exact vector ranking in place of hnswlib's.
    """
    target = {n.key: target_uuid(n) for n in NEEDLES}
    vector, hybrid = ("vector_exact", "hybrid_exact") if exact else ("vector", "hybrid")
    out: dict[str, dict[str, list[int]]] = {}

    def put(method: str, qtype: str, rank: int) -> None:
        out.setdefault(method, {t: [] for t in QUERY_TYPES})[qtype].append(rank)

    for q in result["queries"]:
        t = target[q["key"]]
        fts = [tuple(x) for x in q["fts"]]
        vec = [tuple(x) for x in q[vector]]
        put("fts", q["type"], rank_of(t, [u for u, _ in fts]))
        put("vector", q["type"], rank_of(t, [u for u, _ in vec]))
        put("hybrid (engine)", q["type"], rank_of(t, q[hybrid]))
        for name, fuse in VARIANTS.items():
            put(name, q["type"], rank_of(t, fuse(fts, vec)))
    return out


def agreement(result: dict[str, Any], exact: bool = False) -> int:
    """Queries whose engine hybrid top K equals our re-fusion with the engine's settings."""
    vector, hybrid = ("vector_exact", "hybrid_exact") if exact else ("vector", "hybrid")
    fuse = decisive(RRF_K, DECISIVE)
    return sum(
        q[hybrid] == fuse([tuple(x) for x in q["fts"]], [tuple(x) for x in q[vector]])[:K]
        for q in result["queries"]
    )


def table(ranks: dict[str, dict[str, list[int]]], methods: list[str] | None = None) -> str:
    cols = [*QUERY_TYPES, "all"]
    head = "| method | " + " | ".join(f"{c} R@{K} | {c} MRR" for c in cols) + " |"
    rows = [head, "|" + "---|" * (1 + 2 * len(cols))]
    for method in methods or list(ranks):
        by_type = ranks[method]
        cells = []
        for col in cols:
            r = by_type[col] if col != "all" else [x for t in QUERY_TYPES for x in by_type[t]]
            recall, mrr = score(r)
            cells += [f"{recall:.3f}", f"{mrr:.3f}"]
        rows.append(f"| {method} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


# -- the paraphrase check ---------------------------------------------------------------------

# Function words: sharing them says nothing about a paraphrase.
STOP = frozenset(
    """
    a an and are as at be but by can could did do does for from had has have how i in is
    it its of on or our so that the their them then there they this to up us was we were
    what when where which who why will with you your after before again not no one two
    all each some any more most other same than too very just only also into over out
    about
    """.split()  # noqa: SIM905 - a word list reads best as words
)


def shared_words(query: str, text: str) -> list[str]:
    """Content words (as the full-text analyser stems them) that `query` shares with `text`."""
    from memtui.store.fts import _stem_analyzer  # the index's own analyser, not a guess

    analyse = _stem_analyzer().analyze

    def words(s: str) -> set[str]:
        return {w for w in analyse(s) if w not in STOP and len(w) > 1}

    return sorted(words(query) & words(text))


def check() -> None:
    totals = {t: 0 for t in QUERY_TYPES}
    for n in NEEDLES:
        shared = {t: shared_words(getattr(n, t), n.fact) for t in QUERY_TYPES}
        for t in QUERY_TYPES:
            totals[t] += len(shared[t])
        print(f"{n.key:26} lexical {shared['lexical']}  paraphrase {shared['paraphrase']}")
    means = ", ".join(f"{t} {totals[t] / len(NEEDLES):.2f}" for t in QUERY_TYPES)
    print(f"\n{len(NEEDLES)} needles; mean content words shared with the target: {means}")


# -- main -------------------------------------------------------------------------------------


def report(label: str, result: dict[str, Any], methods: list[str] | None = None) -> None:
    print(
        f"\n## {label}: {result['messages']:,} messages, {result['vectors']:,} vectors "
        f"(dim {result['dim']}), ingest+index {result['ingest_s']:.0f} s"
    )
    # Searches at depth DEPTH for fts/vector, K for hybrid.
    print("ms/search: " + ", ".join(f"{n} {ms:.1f}" for n, ms in result["ms"].items()))
    n = len(result["queries"])
    print(f"\nvectors from hnswlib's graph (ef {result['ef']}), as a large archive gets them:")
    print(table(method_ranks(result), methods))
    print(f"engine hybrid == re-fused {ENGINE} on {agreement(result)}/{n} queries")
    print("\nexact nearest neighbours (what the model can do; an index under 10k vectors):")
    print(table(method_ranks(result, exact=True), methods))
    print(f"engine hybrid == re-fused {ENGINE} on {agreement(result, exact=True)}/{n}")


def print_ranks(result: dict[str, Any]) -> None:
    for exact in (False, True):
        ranks = method_ranks(result, exact)
        for method in ("fts", "vector", "hybrid (engine)"):
            if exact and method == "fts":
                continue
            name = f"{method}{' exact' if exact else ''}"
            for qtype in QUERY_TYPES:
                pairs = zip(NEEDLES, ranks[method][qtype], strict=True)
                print(f"{name:22} {qtype:10} " + " ".join(f"{n.key}:{r}" for n, r in pairs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, default=Path("/tmp/memtui-quality"))
    parser.add_argument("--model", action="append", default=[], help="another model dir")
    parser.add_argument("--ef", type=int, help="hnswlib search breadth (engine default 96)")
    parser.add_argument("--ranks", action="store_true", help="print each query's ranks")
    parser.add_argument("--check", action="store_true", help="query/target word overlap only")
    args = parser.parse_args()
    if args.check:
        check()
        return

    started = time.perf_counter()
    projects = haystack(args.work, args.messages, args.seed)
    add_needles(projects)
    print(
        f"haystack {args.messages:,} messages + {len(NEEDLES)} needles: {projects} "
        f"({time.perf_counter() - started:.1f} s)"
    )

    label = os.environ.get("MEMTUI_MODEL") or "bundled model"
    base = evaluate(str(projects), str(args.work / "data"), args.ef)
    report(label, base)
    if args.ranks:
        print_ranks(base)

    for model in [m for m in (*MODELS, *args.model) if Path(m).exists()]:
        data = args.work / f"data-{Path(model).name}"
        result = evaluate_child(projects, data, model, args.ef)
        report(model, result, ["vector", "hybrid (engine)", *list(VARIANTS)[1:]])
        if args.ranks:
            print_ranks(result)


if __name__ == "__main__":
    main()
