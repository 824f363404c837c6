"""The TUI's speed, measured on the real app (headless, Textual's Pilot) over a real archive.

    python bench/bench_tui.py [--messages 20000] [--work /tmp/memtui-bench-tui] [--idle 60]

- first screen: from creating Memory and the app (archive already indexed) until the
  sessions table has rows and has been drawn;
- search: from the debounce firing until the first frame with the results is drawn, p50/p95
  of mixed queries;
- a 2,000-message session: from Enter until the first frame with its messages is drawn;
  then Page Down, from the key until the first frame that moved;
- keypresses during a cold index: a key typed into the search box until the box shows it,
  p50/p95, while the first index of the same corpus runs in the app's worker;
- idle CPU: the app following the transcripts and serving MCP with nothing to do, CPU
  time / wall time.

    python bench/bench_tui.py --first-run PROJECTS_DIR [--size 80x24] [--no-mcp]

- the first run on a large archive (issue 17), the real `memtui` in a real terminal (tmux,
  read with capture-pane): seconds from start until the session list shows sessions, and
  until a search finds full-text hits, with what the status line said then (the index still
  running); then until the first index is done. Goal: both within 5 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from common import cached_corpus  # noqa: E402
from corpus import append_session_lines, encode_project_dir  # noqa: E402
from textual import events  # noqa: E402
from textual.pilot import Pilot  # noqa: E402
from textual.widgets import Input  # noqa: E402

from memtui.config import Config  # noqa: E402
from memtui.engine import Memory  # noqa: E402
from memtui.tui.app import MemtuiApp  # noqa: E402
from memtui.tui.browse import BrowseScreen, SessionList  # noqa: E402
from memtui.tui.search import SearchScreen  # noqa: E402
from memtui.tui.session import MessageBlock, MessageList, SessionScreen  # noqa: E402

SIZE = (140, 40)
KEY_GAP = 0.15  # seconds between keys typed during the cold index
LONG = "0b0b0b0b-2000-4000-8000-000000002000"
QUERIES = [
    "refresh token rotation",
    "flaky test",
    "why does the migration fail",
    "docker image size",
    "retry with exponential backoff",
    "pagination cursor",
    "TypeError",
    "how do we handle webhooks idempotency",
    "redis cache invalidation",
    "oauth callback",
]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def until(pilot: Pilot[object], check: Callable[[], bool], timeout: float = 120) -> None:
    deadline = time.perf_counter() + timeout
    while not check():
        if time.perf_counter() > deadline:
            raise TimeoutError(str(check))
        await pilot.pause(0.002)


class Frames:
    """The moment a person sees something: the first frame the app draws once `check` holds
    (headless, a frame is composed and handed to the driver, which writes nothing)."""

    def __init__(self, app: MemtuiApp) -> None:
        self.check: Callable[[], bool] | None = None
        self.seen = asyncio.Event()
        self.at = 0.0
        draw = app._display

        def display(screen: object, renderable: object) -> None:
            draw(screen, renderable)  # type: ignore[arg-type]
            if self.check is not None and renderable is not None and self.check():
                self.at, self.check = time.perf_counter(), None
                self.seen.set()

        app._display = display  # type: ignore[method-assign]

    def expect(self, check: Callable[[], bool]) -> None:
        self.seen.clear()
        self.check = check

    async def drawn(self, timeout: float = 60) -> float:
        await asyncio.wait_for(self.seen.wait(), timeout)
        return self.at


def config(work: Path, name: str, projects: Path) -> Config:
    return Config(data_dir=work / name, claude_dir=projects, log_dir=work / "logs")


async def warm(cfg: Config, runs: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    started = time.perf_counter()
    memory = Memory(cfg)
    app = MemtuiApp(memory, upkeep=False)
    frames = Frames(app)
    async with app.run_test(size=SIZE) as pilot:
        browse = app.screen
        assert isinstance(browse, BrowseScreen)
        frames.expect(lambda: browse.query_one(SessionList).row_count > 0)
        figures["first_screen_ms"] = (await frames.drawn() - started) * 1000
        await pilot.pause(1.0)  # the engine warms up in the background

        await pilot.press("slash")
        search = app.screen
        assert isinstance(search, SearchScreen)
        took = []
        for i in range(runs):
            text = QUERIES[i % len(QUERIES)]
            search.query_one("#query").value = text
            await pilot.pause(0.3)  # let the typing's own debounced search finish
            search.last = None
            frames.expect(lambda: search.last is not None)
            started = time.perf_counter()
            search._fire()
            took.append((await frames.drawn() - started) * 1000)
        figures["search_p50_ms"] = statistics.median(took)
        figures["search_p95_ms"] = pct(took, 0.95)
        await pilot.press("escape")

        opened: list[float] = []
        scrolled: list[float] = []
        for _ in range(5):
            listing = browse.query_one(SessionList)
            listing.highlighted = [s.session_id for s in listing.sessions].index(LONG)
            listing.focus()
            await pilot.pause(0.3)
            frames.expect(
                lambda: (
                    isinstance(app.screen, SessionScreen) and bool(app.screen.query(MessageBlock))
                )
            )
            started = time.perf_counter()
            await pilot.press("enter")
            opened.append((await frames.drawn() - started) * 1000)
            screen = app.screen
            assert isinstance(screen, SessionScreen)
            assert screen.info is not None and screen.info.message_count >= 2000
            await pilot.pause(0.3)
            scrolled += await page_down(app, frames, screen.query_one(MessageList), 20)
            await pilot.press("end", "G")  # to the bottom and back: the window moves
            await pilot.press("g", "escape")
        figures["session_2000_open_ms_median"] = statistics.median(opened)
        figures["session_2000_open_ms_max"] = max(opened)
        figures["session_page_down_p50_ms"] = statistics.median(scrolled)
        figures["session_page_down_p95_ms"] = pct(scrolled, 0.95)
    memory.close()
    return figures


async def page_down(app: MemtuiApp, frames: Frames, view: MessageList, keys: int) -> list[float]:
    """Page down through a long session as a terminal delivers the keys: each key until the
    first frame that has moved (the window of mounted messages grows on the way)."""
    took = []
    for _ in range(keys):
        before = view.scroll_y
        frames.expect(lambda before=before: view.scroll_y != before)
        started = time.perf_counter()
        app.post_message(events.Key("pagedown", None))
        took.append((await frames.drawn(10) - started) * 1000)
        await asyncio.sleep(0.1)
    return took


async def cold(cfg: Config, presses: int) -> dict[str, object]:
    """Type into the search box through the whole first index, every phase of it (each key
    also schedules a search, as a person's typing would): the time until the first frame
    showing the key."""
    memory = Memory(cfg)
    app = MemtuiApp(memory, watch=False)
    frames = Frames(app)
    took: dict[str, list[float]] = {}
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.progress is not None)
        await pilot.press("slash")
        box = app.screen.query_one("#query", Input)
        while app.progress is not None and sum(map(len, took.values())) < presses:
            phase = app.progress.phase
            before = box.value
            key = "backspace" if len(before) >= 12 else "a"
            frames.expect(lambda before=before: box.value != before)
            started = time.perf_counter()
            # as the terminal driver delivers a key: no Pilot waits in the measured time
            app.post_message(events.Key(key, "a" if key == "a" else None))
            took.setdefault(phase, []).append((await frames.drawn(10) - started) * 1000)
            await asyncio.sleep(KEY_GAP)
        finished = app.progress is None
        await pilot.press("escape", "q")
        await until(pilot, app.upkeep_done.is_set)
    memory.close()
    every = [ms for phase in took.values() for ms in phase]
    return {
        "cold_keypress_samples": len(every),
        "cold_keypress_p50_ms": statistics.median(every),
        "cold_keypress_p95_ms": pct(every, 0.95),
        "cold_keypress_p95_by_phase": {
            phase: [len(ms), round(pct(ms, 0.95), 1)] for phase, ms in took.items()
        },
        "cold_index_sampled_to_the_end": finished,
    }


async def idle(cfg: Config, seconds: float) -> dict[str, float]:
    memory = Memory(cfg)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = MemtuiApp(memory, mcp_port=port)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.mcp_address.startswith("MCP http"))
        await pilot.pause(3)  # the first rescan is done
        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.sleep(seconds)
        used = (time.process_time() - cpu) / (time.perf_counter() - wall)
    memory.close()
    return {"idle_cpu_percent": used * 100, "idle_seconds": seconds}


FIRST_RUN_GOAL = 5.0  # seconds: issue 17's first run
FIRST_RUN_QUERY = "error"
SESSION_ROW = re.compile(r"\b\d\d-\d\d \d\d:\d\d\b")  # a session row's last-active time
ANSWERED = re.compile(r"(?:[\d,]+\+?|no) full-text match|[\d,]+ messages? found")
HITS = re.compile(r"[1-9][\d,]*\+? (?:full-text match|messages? found)")
STILL_BUILDING = ("%", "…", "next")  # what the status line says while an index runs


class Tmux:
    """`memtui` in a tmux session of its own, read as a person reads it."""

    def __init__(self, env: dict[str, str], size: tuple[int, int], mcp: bool = True) -> None:
        self.name = f"memtui-bench-{uuid.uuid4().hex[:8]}"
        with socket.socket() as probe:  # a free port for the TUI's MCP server
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        exports = " ".join(f"{k}={v}" for k, v in env.items())
        serve = f"--port {port}" if mcp else "--no-mcp"
        # exec: the pane's process is memtui itself (its CPU time is read from /proc)
        command = f"exec env {exports} {sys.executable} -m memtui {serve}"
        self.started = time.monotonic()
        cols, rows = (str(n) for n in size)
        subprocess.run(
            ["tmux", "new-session", "-d", "-s", self.name, "-x", cols, "-y", rows, command],
            check=True,
            env={**os.environ, "TMUX": ""},
        )
        pid = subprocess.run(
            ["tmux", "display", "-p", "-t", self.name, "#{pane_pid}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        self.pid = int(pid)

    def screen(self) -> str:
        return subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", self.name],
            capture_output=True,
            text=True,
            check=False,
        ).stdout

    def keys(self, *keys: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)

    def alive(self) -> bool:
        return (
            subprocess.run(
                ["tmux", "has-session", "-t", self.name], capture_output=True, check=False
            ).returncode
            == 0
        )

    def cpu(self) -> float:
        """memtui's CPU seconds so far (user + system, its threads included)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def wait(self, check: Callable[[str], bool], timeout: float) -> tuple[float, str] | None:
        """Seconds from start until the screen passes `check`, and that screen."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.screen()
            if check(shown):
                return time.monotonic() - self.started, shown
            time.sleep(0.05)
        return None

    def close(self) -> None:
        if self.alive():
            self.keys("Escape")
            self.keys("q")
            deadline = time.monotonic() + 60
            while self.alive() and time.monotonic() < deadline:
                time.sleep(0.2)
        if self.alive():
            subprocess.run(["tmux", "kill-session", "-t", self.name], check=False)


def sessions_shown(screen: str) -> bool:
    """The session list has rows: a line under its header with a last-active time."""
    lines = screen.splitlines()
    header = next((i for i, line in enumerate(lines) if "Last active" in line), None)
    return header is not None and any(SESSION_ROW.search(x) for x in lines[header + 1 :])


def status_of(screen: str) -> str:
    return " ".join(screen.splitlines()[0].split()) if screen else ""


def building(screen: str) -> bool:
    return any(word in status_of(screen) for word in STILL_BUILDING)


def first_run(
    projects: Path, work: Path, size: tuple[int, int], wait: float, mcp: bool = True
) -> dict[str, object]:
    """Start memtui on a data dir of its own over `projects` (read only), as a person's
    first run: the list, then a search typed as soon as the list shows."""
    if shutil.which("tmux") is None:
        raise SystemExit("the first-run bench needs tmux")
    run = work / "first-run"
    shutil.rmtree(run, ignore_errors=True)
    env = {
        "MEMTUI_DATA_DIR": str(run / "data"),
        "MEMTUI_CLAUDE_DIR": str(projects),
        "XDG_CONFIG_HOME": str(run / "config"),
        "XDG_STATE_HOME": str(run / "state"),
        "PYTHONPATH": str(ROOT),
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
    }
    load = os.getloadavg()
    term = Tmux(env, size, mcp)
    out: dict[str, object] = {"size": f"{size[0]}x{size[1]}", "mcp": mcp, "load_at_start": load}
    try:
        listed = term.wait(sessions_shown, 120)
        if listed is None:
            raise SystemExit(f"no sessions within 120 s; the screen:\n{term.screen()}")
        out["sessions_shown_s"] = listed[0]
        out["sessions_shown_cpu_s"] = term.cpu()
        out["status_then"] = status_of(listed[1])
        out["still_indexing_then"] = building(listed[1])
        term.keys("/")
        opened = term.wait(lambda s: "search every conversation" in s, 60)
        if opened is None:
            raise SystemExit(f"no search screen within 60 s; the screen:\n{term.screen()}")
        out["search_screen_s"] = opened[0]
        term.keys(FIRST_RUN_QUERY)
        answered = term.wait(lambda s: ANSWERED.search(s) is not None, 120)
        out["first_answer_s"] = answered[0] if answered else None
        out["first_answer"] = ANSWERED.search(answered[1]).group(0) if answered else None  # type: ignore[union-attr]
        found = term.wait(lambda s: HITS.search(s) is not None, 120)
        if found is None:
            raise SystemExit(f"no hits within 120 s; the screen:\n{term.screen()}")
        summary = HITS.search(found[1])
        assert summary is not None
        out["search_found_s"] = found[0]
        out["search_found_cpu_s"] = term.cpu()
        out["search_hits"] = summary.group(0)
        out["status_at_search"] = status_of(found[1])
        out["still_indexing_at_search"] = building(found[1])
        out["within_goal"] = found[0] <= FIRST_RUN_GOAL and listed[0] <= FIRST_RUN_GOAL
        done = term.wait(lambda s: not building(s), wait)
        out["first_index_done_s"] = done[0] if done else f"not within {wait:.0f} s"
        out["cpu_s_at_end"] = term.cpu()
        out["load_at_end"] = os.getloadavg()
    finally:
        term.close()
        shutil.rmtree(run, ignore_errors=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/memtui-bench-tui"))
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--presses", type=int, default=2000)
    parser.add_argument("--idle", type=float, default=60.0)
    parser.add_argument("--first-run", type=Path, metavar="PROJECTS_DIR", help="only that check")
    parser.add_argument("--size", default="80x24", help="the first run's terminal: COLSxROWS")
    parser.add_argument("--wait", type=float, default=300, help="first run: for the index's end")
    parser.add_argument("--no-mcp", action="store_true", help="first run: without the MCP server")
    parser.add_argument(
        "--warm-only",
        action="store_true",
        help="skip the keys during a cold index (large archives)",
    )
    args = parser.parse_args()
    if args.first_run is not None:
        cols, rows = (int(x) for x in args.size.split("x"))
        result = first_run(args.first_run, args.work, (cols, rows), args.wait, not args.no_mcp)
        print(
            json.dumps({k: round(v, 2) if isinstance(v, float) else v for k, v in result.items()})
        )
        return
    projects, _ = cached_corpus(args.work, args.messages)
    cwd = "/home/dev/work/payments-api"
    long_file = projects / encode_project_dir(cwd) / f"{LONG}.jsonl"
    if not long_file.exists():
        append_session_lines(long_file, 2000, LONG, cwd, seed=1)
    warm_cfg = config(args.work, f"data-{args.messages}", projects)
    if not (warm_cfg.data_dir / "memtui.db").exists():
        with Memory(warm_cfg) as memory:
            started = time.perf_counter()
            memory.upkeep.ingest(wait=True)
            print(f"indexed in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    result: dict[str, object] = {"messages": args.messages + 2000}
    result |= asyncio.run(warm(warm_cfg, args.queries))
    if not args.warm_only:
        cold_cfg = config(args.work, "data-cold", projects)
        shutil.rmtree(cold_cfg.data_dir, ignore_errors=True)
        result |= asyncio.run(cold(cold_cfg, args.presses))
        shutil.rmtree(cold_cfg.data_dir, ignore_errors=True)
    if args.idle > 0:
        result |= asyncio.run(idle(warm_cfg, args.idle))
    print(json.dumps({k: round(v, 1) if isinstance(v, float) else v for k, v in result.items()}))


if __name__ == "__main__":
    main()
