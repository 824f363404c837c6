"""Shared pieces of the TUI tests: a transcript tree on fixed data and waiting on the app."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from pathlib import Path

from corpus import append_session_lines, encode_project_dir, generate
from textual.pilot import Pilot

from memtui.engine import Memory
from memtui.tui.app import MemtuiApp
from memtui.tui.browse import BrowseScreen, SessionList
from memtui.tui.search import DEBOUNCE, SearchScreen

SEED = 11


def small_archive(claude_dir: Path, messages: int = 240) -> None:
    generate(claude_dir, messages=messages, seed=SEED, projects=3, broken_lines=False)


def live_session(claude_dir: Path, cwd: Path, session_id: str, messages: int = 8) -> Path:
    """A session whose working directory exists (the corpus's own cwds are made up)."""
    cwd.mkdir(parents=True, exist_ok=True)
    folder = claude_dir / encode_project_dir(str(cwd))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session_id}.jsonl"
    append_session_lines(path, messages, session_id, str(cwd), seed=SEED)
    return path


async def until(pilot: Pilot[object], check: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {check.__doc__ or check}")
        await pilot.pause(0.05)


async def settled(pilot: Pilot[object]) -> None:
    """Every worker done. Textual's wait_for_complete raises for a worker that ended
    cancelled, as an exclusive one does when a newer one replaces it (a second read of the
    sessions at the start, a search the debounce fired between two keys)."""
    await until(pilot, lambda: all(w.is_finished for w in pilot.app.workers))


async def whole_query_answered(pilot: Pilot[None]) -> None:
    """On a busy machine the debounce can fire between two keys: wait until the search of
    the whole query is done and shown, so no earlier answer stands under the test (at load
    30 a pause alone returned before the last key's search had started)."""
    await pilot.pause(DEBOUNCE + 0.1)
    screen = pilot.app.screen

    def answered() -> bool:
        if not isinstance(screen, SearchScreen):
            return True
        typed = screen.query_now()
        running = any(w.group == "search" and not w.is_finished for w in screen.workers)
        shown = screen._shown in (typed, None)  # None: it failed, and says so
        return screen._debounce is None and not running and (typed.scope == "notes" or shown)

    await until(pilot, answered)
    await settled(pilot)


async def choose_session(pilot: Pilot[None], session_id: str) -> BrowseScreen:
    """The main screen once it lists `session_id`, that session highlighted, its list focused."""
    browse = pilot.app.screen
    assert isinstance(browse, BrowseScreen)
    await until(pilot, lambda: session_id in browse.sessions)
    table = browse.query_one(SessionList)
    table.highlighted = [s.session_id for s in table.sessions].index(session_id)
    table.focus()
    return browse


async def filters_fit(memory: Memory, width: int, keys: bool = False) -> bool:
    """Whether the search screen's filter row, at `width` columns (and with the keys panel
    open beside it), lies wholly on screen, one box after another, each date box labelled."""
    app = MemtuiApp(memory, upkeep=False)
    async with app.run_test(size=(width, 24)) as pilot:
        await pilot.press("slash")
        screen = app.screen
        await settled(pilot)
        if keys:
            await app.run_action("keys")
        await pilot.pause()
        filters = screen.query_one("#filters")
        row = [c for c in filters.children if c.display]
        edges = [(c.region.x, c.region.right) for c in row]
        labels = [c for c in row if c.has_class("date-label")]
        in_order = all(a[1] <= b[0] for a, b in itertools.pairwise(edges))
        inside = all(0 < x < right <= filters.region.right for x, right in edges)
        return len(labels) == 2 and in_order and inside
