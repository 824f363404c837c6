"""Train a candidate embedding model with tokenlearn on text like what people write to Claude.

Not the shipped model (scripts/make_model.py builds that): a trial, measured against it by
`bench/quality.py --model OUT` (figures in bench/quality_results.md). tokenlearn starts from
the model2vec distillation of all-MiniLM-L6-v2 and trains its token vectors so that their
mean matches the transformer's mean token vector on each passage of a corpus. The corpus
mixes conversation and documentation, all found offline, none of it from the bench:

- prompts, answers and thinking of the real Claude Code transcripts in ../shared/transcripts
  (MIT, see their README);
- 40,000 WordNet glosses with their example sentences (Debian `wordnet-base`): everyday
  English about people, hobbies, family, places;
- the fortune cookies of Debian `fortunes`: quotes, jokes, short dialogues;
- the prose of Python's documentation (Debian `python3.11-doc`).

Run in the distillation venv (see make_model.py) after `pip install tokenlearn==0.2.1` and
`apt-get install wordnet-base fortunes python3.11-doc`:

    HF_HUB_OFFLINE=1 python scripts/train_model.py --work /tmp/tl --out /tmp/tl/model-conv

It featurizes ~60,000 passages with the teacher (~17 min on one thread), then trains until
the validation loss stops falling (~8 min). Everything runs on one thread with fixed seeds.
`--sources transcripts,fortunes,python-docs` leaves WordNet out (the best variant measured).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
from collections.abc import Iterator
from pathlib import Path

# Before numpy and torch load: one thread, as in make_model.py.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

REPO = Path(__file__).resolve().parents[1]
TRANSCRIPTS = REPO.parent / "shared" / "transcripts"
WORDNET = Path("/usr/share/wordnet")
FORTUNES = Path("/usr/share/games/fortunes")
PYTHON_DOCS = Path("/usr/share/doc/python3.11-doc/html/_sources")
PASSAGE = 1_000  # characters: what the engine embeds of a message (indexes.VECTOR_TEXT_CHARS)
WORDNET_GLOSSES = 40_000


def passages(text: str) -> Iterator[str]:
    """Paragraphs joined up to PASSAGE characters; a longer one is cut."""
    current = ""
    for para in (p.strip() for p in re.split(r"\n\s*\n", text.strip())):
        if not para:
            continue
        if current and len(current) + len(para) + 2 > PASSAGE:
            yield current
            current = ""
        current = f"{current}\n\n{para}" if current else para
        while len(current) > PASSAGE:
            yield current[:PASSAGE]
            current = current[PASSAGE:]
    if current:
        yield current


def transcript_texts() -> Iterator[str]:
    seen: set[str] = set()
    for path in sorted(TRANSCRIPTS.rglob("*.jsonl")):
        for line in path.read_text(errors="replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if not isinstance(record, dict) or record.get("type") not in ("user", "assistant"):
                continue
            message = record.get("message")
            content = message.get("content") if isinstance(message, dict) else None
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
            for block in blocks if isinstance(blocks, list) else []:
                if not isinstance(block, dict) or block.get("type") not in ("text", "thinking"):
                    continue
                text = (block.get("text") or block.get("thinking") or "").strip()
                if len(text) >= 20 and not text.startswith("<") and text not in seen:
                    seen.add(text)
                    yield from passages(text)


def wordnet_glosses() -> list[str]:
    glosses = []
    for pos in ("noun", "verb", "adj", "adv"):
        for line in (WORDNET / f"data.{pos}").read_text(errors="replace").splitlines():
            if line.startswith("  ") or "|" not in line:
                continue  # the licence header
            head, gloss = line.split("|", 1)
            fields = head.split()
            words = [fields[4 + 2 * i] for i in range(int(fields[3], 16))]
            words = [re.sub(r"\(.*\)$", "", w).replace("_", " ") for w in words]
            glosses.append(f"{', '.join(words)}: {gloss.strip()}")
    random.Random(1).shuffle(glosses)
    return glosses[:WORDNET_GLOSSES]


def fortunes() -> Iterator[str]:
    for path in sorted(FORTUNES.iterdir()):
        if path.is_file() and not path.suffix:
            for text in path.read_text(errors="replace").split("\n%\n"):
                if 20 <= len(text.strip()) <= PASSAGE:
                    yield text.strip()


def python_docs() -> Iterator[str]:
    for path in sorted(PYTHON_DOCS.rglob("*.txt")):
        paras = re.split(r"\n\s*\n", path.read_text(errors="replace"))
        prose = [p for p in paras if len(p) > 60 and not p.startswith((" ", "..", "=", "-", "*"))]
        yield from passages("\n\n".join(prose))


SOURCES = {
    "transcripts": lambda: list(transcript_texts()),
    "wordnet": wordnet_glosses,
    "fortunes": lambda: list(fortunes()),
    "python-docs": lambda: list(python_docs()),
}


def corpus(sources: list[str]) -> list[str]:
    texts = [text for name in sources for text in SOURCES[name]()]
    random.Random(0).shuffle(texts)
    return texts


def featurize(texts: list[str], out: Path) -> None:
    """The teacher's mean token vector of each passage, in tokenlearn's files; resumes."""
    from make_model import default_teacher
    from sentence_transformers import SentenceTransformer
    from tokenlearn.featurize import featurize as tokenlearn_featurize

    teacher = SentenceTransformer(str(default_teacher()), device="cpu")
    # Shortest first: a batch is padded to its longest passage.
    rows = ({"text": t} for t in sorted(texts, key=len))
    tokenlearn_featurize(rows, teacher, str(out), len(texts), 32, "text")


def train(features: Path, out: Path, dims: int) -> None:
    import numpy as np
    import torch
    from make_model import default_teacher
    from model2vec.distill import distill
    from tokenlearn.train import train_model
    from tokenlearn.utils import collect_means_and_texts

    torch.set_num_threads(1)
    torch.manual_seed(0)
    paths = sorted(features.glob("*.json"), key=lambda p: int(p.stem.split("_")[1]))
    texts, vectors = collect_means_and_texts(paths)
    order = np.random.default_rng(0).permutation(len(texts))  # the last tenth validates
    texts, vectors = [texts[i] for i in order], vectors[order]
    model = distill(model_name=str(default_teacher()), pca_dims=dims, quantize_to="float32")
    model = train_model(model, texts, vectors, device="cpu", pca_dims=dims)
    model.embedding = model.embedding.astype(np.float16)
    model.config["tokenizer_name"] = "sentence-transformers/all-MiniLM-L6-v2"
    model.save_pretrained(out)
    print(f"saved {out}: {model.embedding.shape} {model.embedding.dtype}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True, help="corpus and features go here")
    parser.add_argument("--out", type=Path, required=True, help="the trained model's folder")
    parser.add_argument("--dims", type=int, default=384, help="width (PCA of the targets)")
    parser.add_argument(
        "--sources",
        default=",".join(SOURCES),
        help=f"comma-separated, of {', '.join(SOURCES)} (default: all)",
    )
    args = parser.parse_args()
    sources = args.sources.split(",")
    if unknown := set(sources) - set(SOURCES):
        parser.error(f"unknown sources: {', '.join(sorted(unknown))}")
    args.work.mkdir(parents=True, exist_ok=True)
    features = args.work / "features"
    if not features.is_dir():
        texts = corpus(sources)
        (args.work / "corpus.json").write_text(json.dumps(texts))
        print(f"corpus: {len(texts):,} passages")
        featurize(texts, features)
    train(features, args.out, args.dims)


if __name__ == "__main__":
    main()
