"""The calibration of "near in meaning" (memtui/engine/near.py) on labelled pairs.

    python bench/calibrate_near.py [--work /tmp/memtui-quality]

On bench/quality_sessions.py's haystack archive (run that first: it builds it under --work):
for every question of the labelled sets asked in plain words, the lift (similarity less the
query's similarity to the archive's centre, as a search computes it) of its answers, and of
the nearest text of the other domain over the whole archive: coding messages (the generated
haystack, the Claude Code projects) for a question about people's lives, and the prose
stories for a coding question. The other domain's nearest is unrelated by construction, and
the hardest such text a question meets in 9,000 vectors. Printed: the answers' lifts by kind,
the hardest unrelated one's, both by query length and by the share of the query's words the
model knows as whole tokens, and for each candidate cut the share of answers it keeps near and
of questions it lets an unrelated text be near for. Figures: bench/README.md.
"""

from __future__ import annotations

import argparse
import logging
import re
from pathlib import Path

import numpy as np
import quality_sessions

KINDS = ("lexical", "natural", "story", "project", "paraphrase")
CUTS = (0.18, 0.20, 0.22, 0.24, 0.26)


GIBBERISH = ("zxqvbnm", "qqqzzzxw", "asdf jkl", "xkcd qwfp zzyzx", "hjkl;", "kubectl")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/memtui-quality"))
    args = parser.parse_args()
    from memtui.config import Config
    from memtui.engine import near
    from memtui.engine.memory import Memory
    from memtui.store.indexes import VECTOR_TEXT_CHARS, VECTOR_WHERE

    logging.disable(logging.WARNING)
    data = args.work / "data-sessions"
    memory = Memory(Config(data, data, data / "logs"))
    embedder = memory._index().embedder
    middle = near.centre(embedder, memory._index().vectors)
    life = {s.cwd for s in quality_sessions.STORIES if s.kind == "story"}
    rows = memory._archive.conn.execute(
        f"""SELECT m.uuid, substr(m.text, 1, {VECTOR_TEXT_CHARS}), p.path FROM messages m
            JOIN sessions s ON s.id = m.session_id JOIN projects p ON p.id = s.project_id
            WHERE {VECTOR_WHERE}"""
    ).fetchall()
    # The natural set's conversations mix work and life: neither side's negatives.
    mixed = {c.cwd for c in quality_sessions.natural_set.CONVERSATIONS}
    mixed |= {n.cwd for n in quality_sessions.quality.NEEDLES}
    domain = np.array(
        ["life" if p in life else "mixed" if p in mixed else "code" for *_, p in rows]
    )
    at = {u: i for i, (u, _, _) in enumerate(rows)}
    vectors = embedder.encode([t for _, t, _ in rows])
    tokens = embedder._small.model.tokenizer
    found = []
    for ask in quality_sessions.asks(True):
        if not isinstance(ask.text, str) or ask.kind not in KINDS:
            continue
        asked = "life" if ask.kind == "story" else "code"
        if ask.kind == "natural":  # a natural question is about work or a life: both kinds
            asked = "mixed"
        embedded = [at[t] for t in ask.targets if t in at]
        if not embedded:  # a short answer of Claude's has no vector
            continue
        q = embedder.encode([ask.text])[0]
        lifts = vectors @ q - float(q @ middle)
        other = domain == {"life": "code", "code": "life", "mixed": "none"}[asked]
        words = re.findall(r"\w+", ask.text.lower())
        known = sum(len(tokens.encode(w, add_special_tokens=False).ids) == 1 for w in words)
        found.append(
            {
                "kind": ask.kind,
                "answer": float(lifts[embedded].max()),
                "unrelated": float(lifts[other].max()) if other.any() else None,
                "words": len(words),
                "known": known / max(1, len(words)),
                "knows": near.knows(memory._index(), ask.text),
            }
        )
    # Queries of no word: their nearest text lifts as an answer does, unless seen to be of
    # no word the model or the archive knows (near.baselines).
    for text in GIBBERISH:
        q = embedder.encode([text])[0]
        print(
            f"{text!r}: nearest lift {float((vectors @ q).max() - q @ middle):.3f}, "
            f"model or archive knows a word: {near.knows(memory._index(), text)}"
        )
    memory.close()
    unknown = [f for f in found if not f["knows"]]
    print(
        f"questions of no word the model or archive knows (nothing near): {len(unknown)} of "
        f"{len(found)}, {sum(f['answer'] >= near.NEAR_LIFT for f in unknown)} had an answer near"
    )
    unrelated = np.array([f["unrelated"] for f in found if f["unrelated"] is not None])
    print(f"{len(found)} questions; {len(unrelated)} with another domain's texts")
    pct = (10, 25, 50, 75, 90)
    for kind in KINDS:
        lifts = np.array([f["answer"] for f in found if f["kind"] == kind])
        print(f"answers, {kind:10} lift p{pct}: {np.percentile(lifts, pct).round(3)}")
    hardest = np.percentile(unrelated, (50, 90, 95, 99)).round(3)
    print(f"hardest unrelated text, lift p50/90/95/99: {hardest}")
    for name, key, edges in (
        ("words", "words", ((1, 5), (6, 8), (9, 10), (11, 40))),
        ("known share", "known", ((0.0, 0.75), (0.75, 0.9), (0.9, 1.01))),
    ):
        for lo, hi in edges:
            some = [f for f in found if lo <= f[key] < hi + (1 if key == "words" else 0)]
            bad = [f["unrelated"] for f in some if f["unrelated"] is not None]
            good = [f["answer"] for f in some if f["kind"] != "paraphrase"]
            if bad and good:
                print(
                    f"{name} {lo}-{hi}: {len(some)} questions, unrelated p90 "
                    f"{np.percentile(bad, 90):.3f}, answers (paraphrases aside) median "
                    f"{np.median(good):.3f}"
                )
    for cut in CUTS:
        kept = {
            kind: np.mean([f["answer"] >= cut for f in found if f["kind"] == kind])
            for kind in KINDS
        }
        shown = ", ".join(f"{k} {v:.2f}" for k, v in kept.items())
        print(
            f"cut {cut:.2f}: answers near: {shown}; questions with an unrelated text near: "
            f"{np.mean(unrelated >= cut):.3f}"
        )


if __name__ == "__main__":
    main()
