"""The bundled embedding model loads offline and gives sensible vectors."""

from __future__ import annotations

import random
import shutil
import socket
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

from memtui.config import load
from memtui.errors import ModelUnavailable
from memtui.store.embed import MAX_TOKENS, Embedder, bundled_model_path, model_identity


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    # Loading takes a moment; one model serves the whole module.
    return Embedder()


def test_bundled_model_is_shipped() -> None:
    path = bundled_model_path()
    assert (path / "model.safetensors").is_file()
    assert (path / "tokenizer.json").is_file()


def test_loads_bundled_model(embedder: Embedder) -> None:
    assert embedder.dim == 384
    assert embedder.name == str(bundled_model_path())


def test_semantic_neighbour(embedder: Embedder) -> None:
    query, near, far = embedder.encode(
        ["login token expired", "authentication bug", "weather forecast for tomorrow"]
    )
    assert float(query @ near) > float(query @ far)


def test_shape_dtype_and_norm(embedder: Embedder) -> None:
    texts = ["first text", "a second, longer text about search indexes", "long text " * 1000]
    vectors = embedder.encode(texts)
    assert vectors.shape == (3, embedder.dim)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_empty_inputs(embedder: Embedder) -> None:
    vectors = embedder.encode(["", "not empty", "   "])
    assert vectors.shape == (3, embedder.dim)
    assert not vectors[0].any()
    assert not vectors[2].any()
    assert np.linalg.norm(vectors[1]) == pytest.approx(1.0, abs=1e-5)
    assert embedder.encode([]).shape == (0, embedder.dim)


def test_same_text_same_vector(embedder: Embedder) -> None:
    one = embedder.encode(["the index is rebuilt nightly"])
    batch = embedder.encode(["something else", "the index is rebuilt nightly"])
    np.testing.assert_allclose(one[0], batch[1], atol=1e-6)


def test_missing_model_path_names_the_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MEMTUI_MODEL", str(tmp_path / "no-such-model"))
    with pytest.raises(ModelUnavailable, match="MEMTUI_MODEL"):
        Embedder(load().model)


def test_folder_without_model_names_the_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MEMTUI_MODEL", str(tmp_path))
    with pytest.raises(ModelUnavailable, match="MEMTUI_MODEL"):
        Embedder(load().model)


def test_env_var_selects_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMTUI_MODEL", str(bundled_model_path()))
    assert Embedder(load().model).name == str(bundled_model_path())


def test_loading_does_not_touch_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("embedding model load tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    assert Embedder().encode(["offline"]).shape == (1, 384)


def test_identity_is_the_model_files_content(embedder: Embedder, tmp_path: Path) -> None:
    """The same files anywhere are the same model; changed weights are another."""
    copy = tmp_path / "copy"
    shutil.copytree(bundled_model_path(), copy)
    assert model_identity(copy) == embedder.identity == model_identity(bundled_model_path())
    assert len(embedder.identity) == 16
    weights = load_file(copy / "model.safetensors")
    save_file({k: np.roll(v, 1, axis=0) for k, v in weights.items()}, copy / "model.safetensors")
    assert model_identity(copy) != embedder.identity
    assert Embedder(str(copy)).identity == model_identity(copy)


def test_the_token_vectors_are_mapped_and_encode_as_model2vec_loads_them(
    embedder: Embedder,
) -> None:
    """The bundled model's vectors are a mapping of its file (shared by every process), never
    read into this one, and the model encodes exactly as model2vec's own loader's does."""
    from model2vec import StaticModel

    assert isinstance(embedder._small.model.embedding, np.memmap)
    assert embedder._batches.model.embedding is embedder._small.model.embedding  # one mapping
    theirs = StaticModel.from_pretrained(bundled_model_path(), normalize=True)
    texts = ["flaky checkout test", "def retry(fn):\n    return fn()", "Grüße aus München", ""]
    ours = embedder._small.model.encode(texts, max_length=MAX_TOKENS, use_multiprocessing=False)
    expected = theirs.encode(texts, max_length=MAX_TOKENS, use_multiprocessing=False)
    assert np.array_equal(ours, expected)


def test_a_vocabulary_quantized_model_loads_and_both_lanes_agree(tmp_path: Path) -> None:
    """$MEMTUI_MODEL may name a vocabulary-quantized model2vec model (fewer token vectors, a
    token mapping and weights): the batches' model must keep both, or it does not load."""
    from model2vec import StaticModel

    base = StaticModel.from_pretrained(bundled_model_path())
    rng = np.random.default_rng(0)
    StaticModel(
        vectors=np.asarray(base.embedding[:500], dtype=np.float32),
        tokenizer=base.tokenizer,
        config=base.config,
        normalize=True,
        weights=rng.uniform(0.2, 2.0, len(base.tokens)).astype(np.float32),
        token_mapping=rng.integers(0, 500, len(base.tokens)).astype(np.int64),
    ).save_pretrained(tmp_path / "quantized")
    quantized = Embedder(str(tmp_path / "quantized"))
    texts = [f"retry the flaky checkout test {i}" for i in range(20)]
    theirs = StaticModel.from_pretrained(tmp_path / "quantized", normalize=True)
    expected = theirs.encode(texts, max_length=MAX_TOKENS, use_multiprocessing=False)
    assert np.allclose(quantized.encode(texts), expected, atol=1e-6)  # the batches' lane
    assert np.allclose(quantized.encode(texts[:2]), expected[:2], atol=1e-6)  # a query's


def test_a_bulk_encode_gives_the_vectors_of_a_small_one(embedder: Embedder) -> None:
    """Inside `bulk()` the token vectors are averaged from a float32 copy (twice as fast as
    from float16): the vectors are the ones a search's query path gives, to rounding, the
    shared mapping stays float16, and the copy is gone after."""
    texts = [f"retry the flaky checkout test {i} after the {i % 7} migration" for i in range(500)]
    texts[3] = ""
    small = embedder.encode(texts)
    with embedder.bulk():
        assert embedder._batches.model.embedding.dtype == np.float32
        bulk = embedder.encode(texts)
    assert embedder._batches.model.embedding.dtype == np.float16
    assert embedder._small.model.embedding.dtype == np.float16
    assert not bulk[3].any() and not small[3].any()
    assert np.allclose(bulk, small, atol=1e-3)
    assert not np.array_equal(bulk, small)  # the float32 path was taken


def test_two_threads_encoding_at_once_get_each_text_s_own_vector(embedder: Embedder) -> None:
    """One process embeds on several threads (ingest, a note save, a query): model2vec sets
    the shared tokenizer's truncation per call and resets it after, so without a lock one
    thread's long texts were cut at 512 tokens instead of 256 (wrong vectors in the index)."""
    rnd = random.Random(1)
    words = [
        "error",
        "pytest",
        "fixture",
        "cache",
        "token",
        "index",
        "vector",
        "search",
        "session",
        "query",
    ]
    # Not periodic: the mean of 256 tokens must differ from that of 512.
    texts = [
        " ".join(f"{rnd.choice(words)}_{rnd.randrange(97)}" for _ in range(400))
        for _ in range(1024)
    ]
    alone = embedder.encode(texts)
    started = time.monotonic()
    embedder.encode(texts)
    took = time.monotonic() - started

    def query() -> None:  # one query, ending while the long call is halfway
        time.sleep(took / 2)
        embedder.encode(["short query"])

    other = threading.Thread(target=query)
    other.start()
    together = embedder.encode(texts)
    other.join()
    assert np.einsum("ij,ij->i", together, alone).min() > 0.999


def test_a_query_does_not_wait_for_an_ingest_s_batch(embedder: Embedder) -> None:
    """A query or note save encodes with a model of its own: it goes on while a batch holds
    the batches' model (which a catch-up does for about 100 ms a batch)."""
    done = threading.Event()
    with embedder._batches.lock:
        threading.Thread(target=lambda: (embedder.encode(["short query"]), done.set())).start()
        assert done.wait(10), "the query waited for the batch"
