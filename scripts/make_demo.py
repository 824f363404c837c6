"""Write assets/demo/transcripts.tar.gz: the archive `memtui --demo` opens.

Realistic Claude Code transcripts of a few made-up projects, from the same generator the
benchmarks use (bench/corpus.py), so the demo shows what a real archive looks like: tool
calls and results, thinking, subagents, compaction. Beside them (projects/), a few Codex CLI
rollouts (codex/, from demo_codex.py) and Gemini CLI sessions (gemini/, demo_gemini.py) in
the same projects: one project, several agents. Same seed, same bytes.

    python scripts/make_demo.py [--messages 900] [--seed 7] [--screenshot]

`--screenshot` also writes assets/screenshot.svg: the real app, headless, on that archive.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import io
import shutil
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "scripts")]

import demo_codex  # noqa: E402
import demo_gemini  # noqa: E402
from corpus import generate  # noqa: E402

OUT = ROOT / "assets" / "demo" / "transcripts.tar.gz"
SCREENSHOT = ROOT / "assets" / "screenshot.svg"


def build(messages: int, seed: int, projects: int, out: Path) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp)
        generate(
            tree / "projects", messages=messages, seed=seed, projects=projects, broken_lines=False
        )
        demo_codex.write(tree / "codex")
        demo_gemini.write(tree / "gemini")
        buffer = io.BytesIO()
        # gzip stamps the time in its header unless told not to: mtime=0 keeps the bytes
        with (
            gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=9, mtime=0) as packed,
            tarfile.open(fileobj=packed, mode="w") as tar,
        ):
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


async def screenshot(out: Path) -> None:
    """The search screen on the demo archive, as a person sees it after typing a query."""
    from memtui.config import Config
    from memtui.engine import Memory
    from memtui.tui import demo
    from memtui.tui.app import MemtuiApp

    with tempfile.TemporaryDirectory() as tmp:
        logs = Path(tmp) / "logs"
        cfg, scratch = demo.prepare(Config(data_dir=Path(tmp), claude_dir=Path(tmp), log_dir=logs))
        try:
            with Memory(cfg) as memory:
                memory.upkeep.ingest(wait=True)
                app = MemtuiApp(memory, upkeep=False, demo=True)
                async with app.run_test(size=(130, 36)) as pilot:
                    await pilot.pause(0.5)
                    await pilot.press("slash", *"refresh token rotation")
                    await pilot.pause(1.5)
                    await pilot.press("enter", "down", "down")
                    await pilot.pause(1.0)
                    app.save_screenshot(out.name, path=str(out.parent))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=900)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--projects", type=int, default=4)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--screenshot", action="store_true", help=f"also write {SCREENSHOT}")
    args = parser.parse_args()
    size = build(args.messages, args.seed, args.projects, args.out)
    print(f"{args.out}: {size / 1024:.0f} KB")
    if args.screenshot:
        asyncio.run(screenshot(SCREENSHOT))
        print(SCREENSHOT)


if __name__ == "__main__":
    main()
