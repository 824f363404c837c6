"""Write assets/demo/transcripts.tar.gz: the archive `memtui --demo` opens.

Realistic Claude Code transcripts of a few made-up projects, from the same generator the
benchmarks use (bench/corpus.py), so the demo shows what a real archive looks like: tool
calls and results, thinking, subagents, compaction. Same seed, same bytes.

    python scripts/make_demo.py [--messages 900] [--seed 7]
"""

from __future__ import annotations

import argparse
import io
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from corpus import generate  # noqa: E402

OUT = ROOT / "assets" / "demo" / "transcripts.tar.gz"


def build(messages: int, seed: int, projects: int, out: Path) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp)
        generate(tree, messages=messages, seed=seed, projects=projects, broken_lines=False)
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=9) as tar:
            for path in sorted(tree.rglob("*")):
                info = tar.gettarinfo(str(path), arcname=str(path.relative_to(tree)))
                info.mtime = 0  # reproducible bytes
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                if path.is_file():
                    with path.open("rb") as data:
                        tar.addfile(info, data)
                else:
                    tar.addfile(info)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(buffer.getvalue())
    return len(buffer.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=900)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--projects", type=int, default=4)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    size = build(args.messages, args.seed, args.projects, args.out)
    print(f"{args.out}: {size / 1024:.0f} KB")


if __name__ == "__main__":
    main()
