"""Text embeddings for semantic search.

A model2vec StaticModel turns text into a mean of per-token vectors: no torch,
no GPU, and fast enough to embed a whole transcript archive on a laptop. The
bundled model is a distillation of all-MiniLM-L6-v2 (see assets/MODEL.md);
$MEMTUI_MODEL can point at another model2vec folder instead.
"""

from __future__ import annotations

import hashlib
import json
import struct
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from memtui.errors import ModelUnavailable

if TYPE_CHECKING:
    from model2vec import StaticModel
    from tokenizers import Tokenizer

# Tokens past this are dropped. A static model averages token vectors, so a long
# chunk's vector is already dominated by its bulk; the cap bounds the cost per text.
MAX_TOKENS = 256
BATCH_SIZE = 256
SMALL = 8  # texts a query (with its other phrasings) or a note save encodes at most
KNOWN = 4  # letters of a word, and of its first token, for the model to know the word


def bundled_model_path() -> Path:
    """The model shipped with memtui, installed or in a source checkout."""
    # Source checkout without install: assets/ sits beside the memtui package.
    checkout = Path(__file__).resolve().parents[2] / "assets" / "model"
    try:
        # In a wheel the top-level assets/ folder is installed as the package memtui.assets.
        installed = Path(str(resources.files("memtui.assets") / "model"))
    except ModuleNotFoundError:
        return checkout
    return installed if installed.is_dir() else checkout


def _resolve(model: str | None) -> tuple[Path, str]:
    """Pick the model folder and say where the choice came from, for error messages."""
    if model is not None:
        return Path(model).expanduser(), "$MEMTUI_MODEL"
    return bundled_model_path(), "the bundled model"


def model_identity(path: Path) -> str:
    """Which model a vector came from: a checksum of the files the model is loaded from.

    Two models of the same width give vectors of the same shape in unrelated spaces, so the
    indexes record this beside their vectors. Reading the bundled model's 23 MB takes ~20 ms
    (loading it ~700 ms); the result is kept per folder for as long as its files' sizes and
    modification times stay the same.
    """
    files = sorted(f for f in path.iterdir() if f.is_file() and f.suffix != ".md")
    return _checksum(tuple((str(f), f.stat().st_size, f.stat().st_mtime_ns) for f in files))


@cache
def _checksum(files: tuple[tuple[str, int, int], ...]) -> str:
    total = hashlib.sha256()
    for name, _, _ in files:
        with open(name, "rb") as f:
            total.update(Path(name).name.encode() + b"\0")
            total.update(hashlib.file_digest(f, "sha256").digest())
    return total.hexdigest()[:16]


class _Lane:
    """A model and the lock its tokenizer needs: model2vec sets the tokenizer's truncation on
    each call and puts its own 512 back after, so two threads encoding with one model at once
    cut each other's texts at the wrong length."""

    def __init__(self, model: StaticModel) -> None:
        self.model = model
        self.lock = threading.Lock()


def _sibling(model: StaticModel, vectors: np.ndarray, tokenizer: Tokenizer) -> StaticModel:
    """`model` over other token vectors, or with a tokenizer of its own (a vocabulary-quantized
    model's weights and token mapping kept: without them it does not load)."""
    return type(model)(
        vectors=vectors,
        tokenizer=tokenizer,
        config=model.config,
        normalize=True,
        weights=model.weights,
        token_mapping=model.token_mapping,
    )


class Embedder:
    """Encode texts into L2-normalised float32 vectors. A query or a note save (SMALL texts at
    most) has a model of its own, sharing the token vectors, so it never waits for the
    batches of an ingest embedding on another thread."""

    def __init__(self, model: str | None = None) -> None:
        path, source = _resolve(model)
        # Only local folders are accepted: given a name that is not a folder,
        # model2vec would try to download it from the Hugging Face hub.
        if not path.is_dir():
            raise ModelUnavailable(f"{source}: {str(path)!r} is not a model2vec model folder")
        try:
            loaded = _load(path)
        except Exception as exc:  # a damaged folder fails in many ways inside model2vec
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ModelUnavailable(
                f"{source}: cannot load a model2vec model from {str(path)!r}: {first}"
            ) from exc
        self._small = _Lane(loaded)
        self._batch_lane: _Lane | None = None
        self._making = threading.Lock()
        self._in_bulk = False
        self.dim: int = int(loaded.dim)
        self.name: str = str(path)
        self.identity: str = model_identity(path)

    @property
    def _batches(self) -> _Lane:
        """The lane of batches (an ingest's), made on first use: its model and tokenizer copy
        take ~0.15 s, which a process that only searches never pays."""
        with self._making:
            if self._batch_lane is None:
                model = self._small.model
                own = type(model.tokenizer).from_str(model.tokenizer.to_str())
                self._batch_lane = _Lane(_sibling(model, model.embedding, own))
            return self._batch_lane

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Return an (n, dim) float32 array; a text with no known tokens gives a zero row."""
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        lane = self._small if len(texts) <= SMALL else self._batches
        parts = []
        for start in range(0, len(texts), BATCH_SIZE):  # a batch at a time: two ingests take turns
            with lane.lock:
                parts.append(
                    lane.model.encode(
                        list(texts[start : start + BATCH_SIZE]),
                        max_length=MAX_TOKENS,
                        batch_size=BATCH_SIZE,
                        # model2vec's multiprocessing uses threads that spin up per call;
                        # ours are small batches from one caller, so keep it in-process.
                        use_multiprocessing=False,
                    )
                )
        vectors = np.concatenate(parts).astype(np.float32, copy=False)
        # Normalise here rather than trust the model config: a model given by
        # $MEMTUI_MODEL may not normalise, and the index compares by inner product.
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        np.divide(vectors, norms, out=vectors, where=norms > 0)
        return vectors

    def knows(self, text: str) -> bool:
        """Whether the model knows a word of `text`: a word of KNOWN letters or more whose
        first token is that long (`flamingo`: flaming ##o), not cut into scraps (`zxqvbnm`: z
        ##x ##q ##vb ##n ##m). A text of shorter words only counts as known."""
        with self._small.lock:
            encoded = self._small.model.tokenizer.encode(text, add_special_tokens=False)
        words: dict[int, list[str]] = {}
        for word, token in zip(encoded.word_ids, encoded.tokens, strict=True):
            if word is not None:
                words.setdefault(word, []).append(token.strip("#▁Ġ"))
        long = [pieces for pieces in words.values() if len("".join(pieces)) >= KNOWN]
        return not long or any(len(pieces[0]) >= KNOWN for pieces in long)

    @contextmanager
    def bulk(self) -> Iterator[None]:
        """Encode batches with float32 token vectors while this lasts, when the model's are
        float16: averaging float16 rows takes twice as long (numpy converts each element), and
        a catch-up embeds hundreds of thousands of texts. The copy (46 MB for the bundled
        model) is private to the process and gone after; a search embeds its query through
        the shared float16 mapping (the vectors agree to a cosine of 0.999999)."""
        lane = self._batches
        model = lane.model
        plain = model.weights is None and model.token_mapping is None
        if self._in_bulk or not plain or model.embedding.dtype != np.float16:
            yield
            return
        self._in_bulk = True
        lane.model = _sibling(model, np.asarray(model.embedding, dtype=np.float32), model.tokenizer)
        try:
            yield
        finally:
            lane.model = model
            self._in_bulk = False


_SAFETENSORS_DTYPES = {"F16": np.float16, "F32": np.float32}


def describe(model: str | None = None) -> tuple[int, str] | None:
    """(width, identity) of a model without loading it (~0.6 s of CPU): the width from its
    weights' header, so that opening the vectors, and `memtui index` with nothing new to
    embed, never load the model. None when the folder does not say (loading it will)."""
    path, _ = _resolve(model)
    try:
        tensor = _weights(path / "model.safetensors")
        if tensor is None or len(tensor[2]) != 2:
            return None
        return int(tensor[2][1]), model_identity(path)
    except OSError:
        return None


def _weights(weights: Path) -> tuple[int, np.dtype, tuple[int, ...]] | None:
    """Where the one tensor of a safetensors file starts, its dtype and shape; None when the
    file is not one such tensor of a type numpy reads."""
    with open(weights, "rb") as f:
        try:
            (length,) = struct.unpack("<Q", f.read(8))
            header = json.loads(f.read(length))
            tensors = [v for k, v in header.items() if k != "__metadata__"]
            if len(tensors) != 1 or tensors[0].get("dtype") not in _SAFETENSORS_DTYPES:
                return None
            start, end = tensors[0]["data_offsets"]
            dtype = np.dtype(_SAFETENSORS_DTYPES[tensors[0]["dtype"]]).newbyteorder("<")
            shape = tuple(int(n) for n in tensors[0]["shape"])
        except (ValueError, KeyError, TypeError, AttributeError, struct.error):
            return None
    if end - start != dtype.itemsize * int(np.prod(shape)):
        return None
    return 8 + length + start, dtype, shape


def _load(path: Path) -> StaticModel:
    """The model in `path`, its token vectors a read-only mapping of the weights file: every
    memtui process (one MCP server per Claude Code window) shares one copy of them through the
    page cache (23 MB for the bundled model), and none reads them into its own memory first,
    as model2vec's loader does (that left ~10 MB behind in each process). A weights file that
    holds more than those vectors (token weights, a token mapping) goes through that loader."""
    from model2vec import StaticModel  # ~0.5 s of imports: only once a model is needed
    from tokenizers import Tokenizer

    tensor = _weights(path / "model.safetensors")
    if tensor is None:
        return StaticModel.from_pretrained(path, normalize=True)
    offset, dtype, shape = tensor
    vectors = np.memmap(
        path / "model.safetensors", dtype=dtype, mode="r", offset=offset, shape=shape
    )
    config = json.loads((path / "config.json").read_text())
    tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
    return StaticModel(vectors=vectors, tokenizer=tokenizer, config=config, normalize=True)
