"""The shipped model is the one scripts/make_model.py builds: its files match the checksums
that assets/MODEL.md records for that build."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from memtui.store.embed import bundled_model_path

MODEL_MD = Path(__file__).resolve().parents[1] / "assets" / "MODEL.md"
# A line of MODEL.md's "Checksums" block, as sha256sum prints it.
_LINE = re.compile(r"^([0-9a-f]{64})  (\S+)$", re.MULTILINE)


def recorded() -> dict[str, str]:
    block = MODEL_MD.read_text().split("## Checksums", 1)[1].split("\n## ", 1)[0]
    return {name: digest for digest, name in _LINE.findall(block)}


def test_model_md_records_the_model_files() -> None:
    assert {"model.safetensors", "tokenizer.json", "config.json"} <= set(recorded())


def test_shipped_files_match_their_checksums() -> None:
    folder = bundled_model_path()
    for name, digest in recorded().items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name
