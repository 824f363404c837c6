"""Retrieval quality: can search find a known message among a realistic haystack?

    python bench/quality.py [--messages 20000] [--work /tmp/memtui-quality] [--check]

The haystack is bench/corpus.py's generated tree. Two labelled sets are written into it as
extra sessions whose message uuids we choose:

- needles (bench/quality_set.py): one exchange each about a decision, bug or finding, looked
  for with lexical queries, paraphrases (no rare word shared with the target) and 2-3-concept
  AND queries; paraphrases also with `alternatives`, rewritten as Claude would, by the author
  of the targets and (held-back half, bench/blind_alternatives.py) from the question alone;
- conversations (bench/natural_set.py): plain questions ("what did Priya say her new hobby
  was?") over conversation turns.

Both are split in fixed halves: parameters are chosen on the tuning half, figures reported on
the held-back half. For every query we take full text, vectors (exact and through hnswlib's
graph) and the engine's hybrid, plus two rankings built in the same run from the same
messages: an SQLite FTS5 bm25 baseline with common words dropped, and the full
all-MiniLM-L6-v2 transformer's exact neighbours (the ceiling for the static model; computed
by bench/transformer_vectors.py in the distillation venv, cached under --work). Fusion
variants are re-fused here from the same rankings. Other models (MEMTUI_MODEL) are measured
in child processes, each on a fresh data dir. `--check` only lists the words each query
shares with its target. Figures: bench/quality_results.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import re
import shutil
import sqlite3
import subprocess
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import corpus
import natural_set
import numpy as np
from blind_alternatives import BLIND
from common import BENCH, run_child
from quality_set import HELD_BACK, MORE, NEEDLES, Needle, queries

from memtui.store.fts import STOP_WORDS

KINDS = ("lexical", "paraphrase", "concepts", "natural")
HALVES = ("tuning", "held back", "all")
K = 10  # recall@K, MRR@K
DEPTH = 100  # what each ranking hands to fusion; the engine's search.DEPTH
MODELS = ("/tmp/models/minilm-256", "/tmp/models/mpnet-768")
NS = uuid.UUID("5b1d3c2e-0f4a-4e8b-9c61-7d2a8e9f0b13")  # fixed: needle uuids are stable
MANIFEST = "needles.json"
VERSION = "2.1.9"
DISTILL_PYTHON = Path("/work/venv-distill/bin/python")

Ranked = list[tuple[str, float]]  # (uuid, score), best first


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


# -- the queries ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Query:
    kind: str
    key: str  # the needle's or conversation's key
    text: str | list[str]
    target: str  # the answering message's uuid
    held_back: bool
    alternatives: tuple[str, ...] = ()
    blind: tuple[str, ...] = ()  # rewrites written without seeing the target


def all_queries() -> list[Query]:
    out = []
    for needle in NEEDLES:
        held = needle.key in HELD_BACK
        for kind in ("lexical", "paraphrase", "concepts"):
            alts = MORE[needle.key].alternatives if kind == "paraphrase" else ()
            for text in queries(needle, kind):
                blind = BLIND.get(text, ()) if kind == "paraphrase" else ()
                out.append(Query(kind, needle.key, text, target_uuid(needle), held, alts, blind))
    for i, conv in enumerate(natural_set.CONVERSATIONS):
        for text, turn in conv.questions:
            target = natural_set.turn_uuid(conv, turn)
            out.append(Query("natural", conv.key, text, target, bool(i % 2)))
    return out


# -- the FTS5 baseline ------------------------------------------------------------------------

_FTS5_WORD = re.compile(r"\w+")


def fts5_match(query: str | list[str]) -> str | None:
    """An FTS5 MATCH expression: the content words OR'd, concepts AND'd."""

    def words(text: str) -> str | None:
        kept = [w for w in _FTS5_WORD.findall(text.lower()) if w not in STOP_WORDS]
        return " OR ".join(f'"{w}"' for w in dict.fromkeys(kept)) or None

    parts = [words(q) for q in ([query] if isinstance(query, str) else query)]
    parts = [p for p in parts if p]
    return " AND ".join(f"({p})" for p in parts) or None


def build_fts5(store: sqlite3.Connection, path: Path) -> sqlite3.Connection:
    """FTS5 over the messages memtui's full text indexes, as bench_search.py builds it."""
    from memtui.store.indexes import FTS_KINDS

    path.unlink(missing_ok=True)
    db = sqlite3.connect(path)
    db.execute("CREATE VIRTUAL TABLE m USING fts5(text, tool_text, tokenize='porter unicode61')")
    rows = store.execute(
        "SELECT id, text, tool_calls || char(10) || tool_output FROM messages "
        f"WHERE kind IN {FTS_KINDS}"
    )
    with db:
        db.executemany("INSERT INTO m (rowid, text, tool_text) VALUES (?, ?, ?)", rows)
    return db


# -- evaluation (runs in this process or a child, one data dir per model) ---------------------


# The engine scores a whole index exactly up to vectors._EXACT_INDEX vectors and walks
# hnswlib's graph above that. Each vector ranking is taken both ways here: the graph's, as a
# large archive gets it, and the exact one, what an archive of this size gets.
GRAPH, EXACT = 0, 1 << 62


def evaluate(projects: str, data: str) -> dict[str, Any]:
    """Ingest `projects` into a fresh `data` dir and run every query.

    Returns, per query (in `all_queries()` order), the top-DEPTH rankings (uuid, score) of full
    text, FTS5 and vectors (graph and exact), the engine's hybrid top K (graph and exact), and
    for queries with alternatives the same with them; plus the embedded texts, for the
    transformer.
    """
    from memtui.config import Config
    from memtui.engine.memory import Memory
    from memtui.engine.search import Filters
    from memtui.store import vectors
    from memtui.store.indexes import VECTOR_TEXT_CHARS, VECTOR_WHERE

    # The haystack has broken lines on purpose; the ingester's warnings about them are noise.
    logging.disable(logging.WARNING)
    shutil.rmtree(data, ignore_errors=True)
    root = Path(data)
    model = os.environ.get("MEMTUI_MODEL") or None  # evaluate_child sets it for another model
    memory = Memory(Config(root, Path(projects), root / "logs", model=model))
    started = time.perf_counter()
    memory.upkeep.ingest(Path(projects))
    memory._index().catch_up()  # ingest may or may not index; a caught-up index is a no-op
    ingest_s = time.perf_counter() - started

    store = memory._archive.conn
    wanted = all_queries()
    targets = sorted({q.target for q in wanted})
    marks = ",".join("?" * len(targets))
    kinds = dict(store.execute(f"SELECT uuid, kind FROM messages WHERE uuid IN ({marks})", targets))
    missing = [t for t in targets if kinds.get(t) not in ("prompt", "assistant")]
    if missing:
        raise SystemExit(f"targets not stored as prompt/assistant: {missing}")
    uuid_of = dict(store.execute("SELECT id, uuid FROM messages"))
    fts5 = build_fts5(store, root / "fts5.db")
    stats = memory.upkeep.stats()
    n_vectors = stats.index.vectors if stats.index else 0
    searcher = memory._search()
    seconds: dict[str, float] = {}  # per mode, summed over the queries

    def ranked(q: Query, mode: str, limit: int, exact: bool, alts: tuple[str, ...] = ()) -> Ranked:
        vectors._EXACT_INDEX = EXACT if exact else GRAPH
        started = time.perf_counter()
        if mode == "vector":  # the vector ranking itself, near or not (vector mode lists the near)
            found = raw_vector(searcher, [q.text, *alts], Filters(), limit)
        else:
            got = searcher.search(q.text, mode, Filters(), limit, 0, alternatives=list(alts))
            found = [(r.uuid, r.score) for r in got.results]
        name = f"{mode}{' exact' if exact else ''}{' alts' if alts else ''}"
        seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - started
        return found

    def baseline(q: Query) -> Ranked:
        match = fts5_match(q.text)
        if match is None:
            return []
        rows = fts5.execute(
            "SELECT rowid, bm25(m, 1.0, 0.4) AS s FROM m WHERE m MATCH ? ORDER BY s LIMIT ?",
            (match, DEPTH),
        )
        return [(uuid_of[mid], -s) for mid, s in rows]

    results = []
    for q in wanted:
        r: dict[str, Any] = {
            "fts": ranked(q, "fts", DEPTH, False),
            "fts5": baseline(q),
            "weight": memory._index().fts.weight(q.text),
            "vector": ranked(q, "vector", DEPTH, False),
            "vector_exact": ranked(q, "vector", DEPTH, True),
            "hybrid": [u for u, _ in ranked(q, "hybrid", K, False)],
            "hybrid_exact": [u for u, _ in ranked(q, "hybrid", K, True)],
        }
        if q.alternatives:
            alts = q.alternatives
            r["fts_alts"] = ranked(q, "fts", DEPTH, False, alts)
            r["vector_alts_exact"] = ranked(q, "vector", DEPTH, True, alts)
            r["hybrid_alts"] = [u for u, _ in ranked(q, "hybrid", K, False, alts)]
            r["hybrid_alts_exact"] = [u for u, _ in ranked(q, "hybrid", K, True, alts)]
        if q.blind:
            r["fts_blind"] = ranked(q, "fts", DEPTH, False, q.blind)
            r["vector_blind_exact"] = ranked(q, "vector", DEPTH, True, q.blind)
            r["hybrid_blind_exact"] = [u for u, _ in ranked(q, "hybrid", K, True, q.blind)]
        results.append(r)
    texts = [  # plain pairs, not sqlite3.Row: a child process hands them back as JSON
        (uid, text)
        for uid, text in store.execute(
            f"SELECT uuid, substr(text, 1, {VECTOR_TEXT_CHARS}) FROM messages "
            f"WHERE {VECTOR_WHERE} ORDER BY id"
        )
    ]
    dim = memory._index().embedder.dim
    memory.close()
    fts5.close()
    return {
        "results": results,
        "texts": texts,
        "ingest_s": ingest_s,
        "ms": {name: total / len(wanted) * 1000 for name, total in seconds.items()},
        "messages": stats.messages,
        "vectors": n_vectors,
        "dim": dim,
    }


def raw_vector(searcher: Any, phrasings: list[Any], filt: Any, limit: int) -> Ranked:
    """The vector ranking of `phrasings` (each message at its best), nearest first, near in
    meaning or not: what the fusion starts from. Vector mode lists only the near ones."""
    meaning = searcher._meaning(phrasings, filt, max(limit, DEPTH), limit)
    best = sorted(meaning.sims.items(), key=lambda kv: (-kv[1], -kv[0]))[:limit]
    uuid = dict(
        searcher.reader().execute(
            f"SELECT id, uuid FROM messages WHERE id IN ({','.join('?' * len(best))})",
            [mid for mid, _ in best],
        )
    )
    return [(uuid[mid], sim) for mid, sim in best]


def evaluate_child(projects: Path, data: Path, model: str) -> dict[str, Any]:
    """`evaluate` in a fresh interpreter: the embedder reads MEMTUI_MODEL once per process."""
    code = f"""
        import sys
        sys.path.insert(0, {str(BENCH)!r})
        import quality
        RESULT = quality.evaluate({str(projects)!r}, {str(data)!r})
    """
    return run_child(code, {"MEMTUI_MODEL": model})


# -- the transformer's ceiling ----------------------------------------------------------------


def transformer_vectors(work: Path, texts: list[str], python: Path) -> np.ndarray:
    """The transformer's vectors for `texts`, cached under `work` by content."""
    blob = json.dumps(texts).encode()
    cache = work / f"transformer-{hashlib.sha256(blob).hexdigest()[:16]}.npy"
    if not cache.exists():
        src = work / "transformer-in.json"
        src.write_bytes(blob)
        script = BENCH / "transformer_vectors.py"
        subprocess.run([str(python), str(script), str(src), str(cache)], check=True)
    return np.load(cache)


def add_transformer(work: Path, result: dict[str, Any], python: Path) -> None:
    """Add each query's exact top-DEPTH neighbours under the transformer as "transformer"."""
    uuids = [u for u, _ in result["texts"]]
    docs = transformer_vectors(work, [t for _, t in result["texts"]], python)
    wanted = all_queries()
    phrasings = sorted(
        {t for q in wanted for t in ([q.text] if isinstance(q.text, str) else q.text)}
    )
    at = {t: i for i, t in enumerate(phrasings)}
    qvecs = transformer_vectors(work, phrasings, python)
    for q, r in zip(wanted, result["results"], strict=True):
        parts = [q.text] if isinstance(q.text, str) else q.text
        # Every concept must be near: a message scores its weakest similarity, as in the engine.
        sims = np.min(np.stack([docs @ qvecs[at[p]] for p in parts]), axis=0)
        top = np.argsort(-sims, kind="stable")[:DEPTH]
        r["transformer"] = [(uuids[i], float(sims[i])) for i in top]


# -- fusion variants --------------------------------------------------------------------------

Fusion = Callable[[Ranked, Ranked], list[str]]


def _ids(ranking: Ranked) -> dict[str, int]:
    return {u: i for i, (u, _) in enumerate(ranking)}


def rrf(k: int, w_fts: float = 1.0, w_vec: float = 1.0) -> Fusion:
    """Reciprocal rank fusion with k and weights as parameters."""

    def fuse(fts: Ranked, vec: Ranked) -> list[str]:
        fused: dict[str, float] = {}
        for ranking, weight in ((fts, w_fts), (vec, w_vec)):
            for rank, (uid, _) in enumerate(ranking):
                fused[uid] = fused.get(uid, 0.0) + weight / (k + rank + 1)
        return [u for u, _ in sorted(fused.items(), key=lambda kv: kv[1], reverse=True)]

    return fuse


def decisive(k: int, ratio: float) -> Fusion:
    """RRF k, plus one more first-place vote for the full-text top hit when its BM25 score is
    `ratio` times the runner-up's (the engine's fusion before issue 11)."""
    plain = rrf(k)

    def fuse(fts: Ranked, vec: Ranked) -> list[str]:
        fused = plain(fts, vec)
        if len(fts) > 1 and fts[0][1] >= ratio * fts[1][1]:
            fused.remove(fts[0][0])
            fused.insert(0, fts[0][0])
        return fused

    return fuse


VARIANTS: dict[str, Fusion] = {
    "RRF k=10, decisive fts x1.5 (before issue 11)": decisive(10, 1.5),
    "RRF k=10 1:1": rrf(10),
    "RRF k=60 1:1": rrf(60),
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


def _uuids(ranking: list[Any]) -> list[str]:
    return [x[0] if isinstance(x, list | tuple) else x for x in ranking]


def method_ranks(result: dict[str, Any]) -> dict[str, list[tuple[Query, int]]]:
    """Per method, (query, the target's rank) for every query the method answers."""
    out: dict[str, list[tuple[Query, int]]] = {}

    def put(method: str, q: Query, ranking: list[Any]) -> None:
        out.setdefault(method, []).append((q, rank_of(q.target, _uuids(ranking))))

    for q, r in zip(all_queries(), result["results"], strict=True):
        fts = [tuple(x) for x in r["fts"]]
        vec = [tuple(x) for x in r["vector_exact"]]
        put("fts", q, fts)
        put("FTS5 bm25, common words dropped", q, r["fts5"])
        put("vector", q, vec)
        put("vector (graph)", q, r["vector"])
        put("hybrid (engine)", q, r["hybrid_exact"])
        put("hybrid (engine, graph)", q, r["hybrid"])
        if "transformer" in r:
            put("transformer (ceiling)", q, r["transformer"])
        if q.alternatives:
            put("fts + alternatives", q, r["fts_alts"])
            put("vector + alternatives", q, r["vector_alts_exact"])
            put("hybrid + alternatives", q, r["hybrid_alts_exact"])
            put("hybrid + alternatives (graph)", q, r["hybrid_alts"])
        if q.blind:
            put("fts + blind alternatives", q, r["fts_blind"])
            put("vector + blind alternatives", q, r["vector_blind_exact"])
            put("hybrid + blind alternatives", q, r["hybrid_blind_exact"])
        for name, fuse in VARIANTS.items():
            put(name, q, fuse(fts, vec))
    return out


def table(ranks: dict[str, list[tuple[Query, int]]], half: str, methods: list[str] | None) -> str:
    head = "| method | " + " | ".join(f"{k} R@{K} / MRR" for k in KINDS) + " |"
    rows = [head, "|" + "---|" * (1 + len(KINDS))]
    for method in methods or list(ranks):
        cells = []
        for kind in KINDS:
            r = [
                rank
                for q, rank in ranks.get(method, [])
                if q.kind == kind and (half == "all" or q.held_back == (half == "held back"))
            ]
            cells.append("{:.3f} / {:.3f}".format(*score(r)) if r else "")
        rows.append(f"| {method} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def counts() -> str:
    qs = all_queries()
    parts = []
    for kind in KINDS:
        n = [q for q in qs if q.kind == kind]
        parts.append(f"{kind} {sum(q.held_back for q in n)}/{len(n)}")
    return "queries held back / all: " + ", ".join(parts)


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
    totals = {k: 0 for k in ("lexical", "paraphrase")}
    for n in NEEDLES:
        for kind in totals:
            for text in queries(n, kind):
                shared = shared_words(str(text), n.fact)
                totals[kind] += len(shared)
                print(f"{n.key:26} {kind:10} {shared}  {text}")
    means = ", ".join(
        f"{k} {totals[k] / sum(len(queries(n, k)) for n in NEEDLES):.2f}" for k in totals
    )
    print(f"\n{len(NEEDLES)} needles; mean content words shared with the target: {means}")
    leaks = [
        (n.key, t)
        for n in NEEDLES
        for t in queries(n, "paraphrase")
        if shared_words(str(t), n.fact)
    ]
    if leaks:
        raise SystemExit(f"paraphrases sharing content words with their target: {leaks}")
    # A lexical query remembers some of the target's own words, not only the prompt's.
    vague = [
        (n.key, t)
        for n in NEEDLES
        for t in queries(n, "lexical")
        if len(shared_words(str(t), n.fact)) < 2
    ]
    if vague:
        raise SystemExit(f"lexical queries sharing fewer than 2 content words: {vague}")
    # A concept query is an AND over one message: each concept must be in the target's words.
    absent = [
        (n.key, c) for n in NEEDLES for c in MORE[n.key].concepts if not shared_words(c, n.fact)
    ]
    if absent:
        raise SystemExit(f"concepts not in their target: {absent}")


# -- main -------------------------------------------------------------------------------------

MAIN = [
    "fts",
    "FTS5 bm25, common words dropped",
    "vector",
    "hybrid (engine)",
    "hybrid + alternatives",
    "hybrid + blind alternatives",
    "transformer (ceiling)",
    "vector (graph)",
    "hybrid (engine, graph)",
    "hybrid + alternatives (graph)",
]


def report(label: str, result: dict[str, Any], methods: list[str] | None = None) -> None:
    print(
        f"\n## {label}: {result['messages']:,} messages, {result['vectors']:,} vectors "
        f"(dim {result['dim']}), ingest+index {result['ingest_s']:.0f} s"
    )
    # Searches at depth DEPTH for fts/vector, K for hybrid.
    print("ms/search: " + ", ".join(f"{n} {ms:.1f}" for n, ms in result["ms"].items()))
    print(counts())
    ranks = method_ranks(result)
    for half in HALVES:
        print(f"\n### {half} half" if half != "all" else "\n### all")
        print(table(ranks, half, methods))


def print_ranks(result: dict[str, Any]) -> None:
    ranks = method_ranks(result)
    for method in ("fts", "FTS5 bm25, common words dropped", "vector", "hybrid (engine)"):
        for kind in KINDS:
            row = [f"{q.key}:{r}" for q, r in ranks[method] if q.kind == kind]
            print(f"{method[:22]:22} {kind:10} " + " ".join(row))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, default=Path("/tmp/memtui-quality"))
    parser.add_argument("--model", action="append", default=[], help="another model dir")
    parser.add_argument("--ranks", action="store_true", help="print each query's ranks")
    parser.add_argument("--check", action="store_true", help="query/target word overlap only")
    parser.add_argument(
        "--transformer-python",
        type=Path,
        default=DISTILL_PYTHON,
        help="a python with torch and sentence-transformers, for the ceiling ('' to skip)",
    )
    parser.add_argument("--save", type=Path, help="write the raw rankings here (JSON)")
    args = parser.parse_args()
    if args.check:
        check()
        return

    started = time.perf_counter()
    projects = haystack(args.work, args.messages, args.seed)
    add_needles(projects)
    natural_set.add_conversations(projects, args.seed)
    print(
        f"haystack {args.messages:,} messages + {len(NEEDLES)} needles + "
        f"{len(natural_set.CONVERSATIONS)} conversations: {projects} "
        f"({time.perf_counter() - started:.1f} s)"
    )
    ceiling = args.transformer_python if str(args.transformer_python) not in ("", ".") else None
    if ceiling and not ceiling.exists():
        print(f"no {ceiling}: the transformer's ceiling is left out")
        ceiling = None

    runs = [(os.environ.get("MEMTUI_MODEL") or "bundled model", None)]
    runs += [(m, m) for m in (*MODELS, *args.model) if Path(m).exists()]
    for label, model in runs:
        if model is None:
            result = evaluate(str(projects), str(args.work / "data"))
        else:
            result = evaluate_child(projects, args.work / f"data-{Path(model).name}", model)
        if ceiling:
            add_transformer(args.work, result, ceiling)
        report(label, result, [*MAIN, *VARIANTS])
        if args.ranks:
            print_ranks(result)
        if args.save:
            save = args.save.with_suffix(f".{Path(label).name.replace(' ', '-')}.json")
            save.write_text(json.dumps(result["results"]))


if __name__ == "__main__":
    main()
