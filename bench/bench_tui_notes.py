"""The notes in the TUI, measured on the real app (headless, Textual's Pilot) with many notes.

    python bench/bench_tui_notes.py [--notes 10000] [--messages 20000] [--runs 30]
                                    [--work /tmp/memtui-bench-tui-notes]

- notes list: from `n` on the main screen until the first frame with the newest notes;
- a note opens: from Enter on a row of the list until the first frame with the note drawn
  (its Markdown, links and "Referenced by"), p50/p95/max over notes chosen at random, and
  the process's CPU time over the same span (steadier than wall time on a busy machine);
- flashbacks: from the same Enter until the first frame with the note's flashbacks (they
  need the vectors and the model, and come in a second step).

The notes are imported (fixed ids and times, one transaction), each linking to two older
ones, and indexed; the transcripts are a generated corpus beside them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_tui import Frames, pct, until  # noqa: E402
from common import cached_corpus  # noqa: E402

from memtui.config import Config  # noqa: E402
from memtui.engine import Memory, Note  # noqa: E402
from memtui.tui.app import MemtuiApp  # noqa: E402
from memtui.tui.browse import BrowseScreen  # noqa: E402
from memtui.tui.notes.listing import NotesScreen, NoteTable  # noqa: E402
from memtui.tui.notes.text import NoteText  # noqa: E402
from memtui.tui.notes.view import NoteScreen  # noqa: E402

SIZE = (140, 40)
WORDS = [
    "token",
    "rotation",
    "cache",
    "invalidation",
    "migration",
    "retry",
    "backoff",
    "webhook",
    "idempotency",
    "pagination",
    "cursor",
    "docker",
    "image",
    "flaky",
    "test",
    "release",
    "checklist",
    "deploy",
    "freeze",
    "oauth",
    "callback",
    "schema",
    "index",
    "vector",
    "search",
    "latency",
    "budget",
    "incident",
    "review",
    "decision",
    "rollback",
    "feature",
    "flag",
]


def notes(count: int, seed: int = 7) -> list[Note]:
    rng = random.Random(seed)
    made = []
    for i in range(1, count + 1):
        title = f"{' '.join(rng.sample(WORDS, 3)).capitalize()} {i}"
        links = [f"[[{made[rng.randrange(len(made))].title}]]" for _ in range(2) if made]
        paragraphs = [" ".join(rng.choices(WORDS, k=40)) + "." for _ in range(4)]
        body = "\n\n".join([*paragraphs, "See " + " and ".join(links) + "." if links else ""])
        when = _day(i * 365 // count)
        layer = "rule" if i % 100 == 0 else ("past", "state", "past")[i % 3]
        status = "approved" if layer == "rule" else None
        folder = ("auth", "ops", "search", "release/notes", "")[i % 5]
        made.append(
            Note(
                i, title, body, layer, folder, [WORDS[i % len(WORDS)]], when, when, "person", status
            )
        )
    return made


def _day(day: int) -> str:
    t = time.gmtime(time.mktime((2026, 1, 1, 0, 0, 0, 0, 0, 0)) + day * 86400)
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", t)


def prepare(work: Path, count: int, messages: int) -> Config:
    projects, _ = cached_corpus(work, messages) if messages else (work / "none", {})
    cfg = Config(
        data_dir=work / f"data-{count}-{messages}", claude_dir=projects, log_dir=work / "logs"
    )
    done = cfg.data_dir / "bench-ready"
    if done.exists():
        return cfg
    shutil.rmtree(cfg.data_dir, ignore_errors=True)
    with Memory(cfg) as memory:
        if messages:
            memory.upkeep.ingest(wait=True)
        started = time.perf_counter()
        memory.notes.import_notes(notes(count))  # indexed before it returns
        print(f"imported and indexed {count:,} notes in {time.perf_counter() - started:.1f}s")
    done.write_text("ok")
    return cfg


async def measure(cfg: Config, runs: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    with Memory(cfg) as memory:
        app = MemtuiApp(memory, upkeep=False, mcp_port=None)
        frames = Frames(app)
        later = Frames(app)  # the flashbacks' frame, watched from the same Enter
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, BrowseScreen) and app.screen.loaded)
            await pilot.pause(1.5)  # the engine warms up in the background
            listed: list[float] = []
            for _ in range(3):
                frames.expect(
                    lambda: isinstance(app.screen, NotesScreen) and len(app.screen.notes) > 0
                )
                started = time.perf_counter()
                await pilot.press("n")
                listed.append((await frames.drawn() - started) * 1000)
                await until(pilot, lambda: app.screen.seen is not None)  # type: ignore[attr-defined]
                await pilot.pause(0.2)
                if len(listed) < 3:
                    await pilot.press("escape")
                    await pilot.pause(0.2)
            figures["notes_list_ms_median"] = statistics.median(listed)
            screen = app.screen
            assert isinstance(screen, NotesScreen)
            keys = list(screen.notes)
            rng = random.Random(3)
            opened: list[float] = []
            spent: list[float] = []  # CPU of the whole process: steadier on a busy machine
            flashbacks: list[float] = []
            for _ in range(runs):
                key = rng.choice(keys)
                table = screen.query_one(NoteTable)
                table.move_cursor(row=table.get_row_index(key))
                table.focus()
                await pilot.pause(0.2)

                def drawn(key: str = key) -> bool:
                    s = app.screen
                    return (
                        isinstance(s, NoteScreen)
                        and s.detail is not None
                        and str(s.detail.note.id) == key
                        and bool(s.query_one(NoteText)._lines)
                    )

                def with_flashbacks(key: str = key) -> bool:
                    s = app.screen
                    return drawn(key) and s.flashbacks is not None  # type: ignore[attr-defined]

                frames.expect(drawn)
                later.expect(with_flashbacks)
                cpu = time.process_time()
                started = time.perf_counter()
                await pilot.press("enter")
                opened.append((await frames.drawn() - started) * 1000)
                spent.append((time.process_time() - cpu) * 1000)
                flashbacks.append((await later.drawn() - started) * 1000)
                await pilot.pause(0.1)
                await pilot.press("escape")
                await until(pilot, lambda: app.screen is screen)
            figures["note_open_ms_p50"] = statistics.median(opened)
            figures["note_open_ms_p95"] = pct(opened, 0.95)
            figures["note_open_ms_max"] = max(opened)
            figures["note_open_ms_each"] = [round(t) for t in opened]  # type: ignore[assignment]
            figures["note_open_cpu_ms_p50"] = statistics.median(spent)
            figures["note_open_cpu_ms_p95"] = pct(spent, 0.95)
            figures["flashbacks_ms_p50"] = statistics.median(flashbacks)
            figures["flashbacks_ms_p95"] = pct(flashbacks, 0.95)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--work", type=Path, default=Path("/tmp/memtui-bench-tui-notes"))
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    cfg = prepare(args.work, args.notes, args.messages)
    before = os.getloadavg()[0]
    figures = asyncio.run(measure(cfg, args.runs))
    figures["load_average_1m_before"] = before
    figures["load_average_1m"] = os.getloadavg()[0]
    print(json.dumps({"notes": args.notes, "messages": args.messages, **figures}, indent=2))


if __name__ == "__main__":
    main()
