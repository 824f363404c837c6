"""Every screen on fixed data, in a dark and a light theme (pytest-textual-snapshot).

The transcripts come from corpus.py with a fixed seed and times are shown in UTC, so the
pictures only change when the screens do. Update: `pytest tests/test_tui_snapshots.py
--snapshot-update`, then look at the SVGs in tests/__snapshots__/.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from memtui.config import Config
from memtui.engine import Memory
from memtui.tui.app import MemtuiApp
from memtui.tui.browse import BrowseScreen, SessionList
from memtui.tui.format import when, who
from memtui.tui.results import ResultList
from memtui.tui.search import SearchScreen
from memtui.tui.session import MessageBlock, SessionScreen
from tests import first_minute
from tests.fake_agent import only, registered, write_chat
from tests.tui_support import settled, small_archive, until, whole_query_answered

SIZE = (120, 34)
THEMES = ["textual-dark", "textual-light"]
Snap = Callable[..., bool]


@pytest.fixture(autouse=True)
def fixed_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def archive(memory: Memory, claude_dir: Path) -> Memory:
    small_archive(claude_dir)
    memory.upkeep.ingest(wait=True)
    return memory


def themed(theme: str, then: Callable[[Pilot[None]], object] | None = None) -> Callable:
    async def before(pilot: Pilot[None]) -> None:
        app = pilot.app
        app.theme = theme
        browse = app.screen
        assert isinstance(browse, BrowseScreen)
        await until(pilot, lambda: browse.loaded and bool(browse.query_one(SessionList).row_count))
        if then is not None:
            await then(pilot)  # type: ignore[misc]
        await pilot.pause(0.3)

    return before


@pytest.mark.parametrize("theme", THEMES)
def test_browse(archive: Memory, snap_compare: Snap, theme: str) -> None:
    app = MemtuiApp(archive, upkeep=False)
    assert snap_compare(app, terminal_size=SIZE, run_before=themed(theme))


async def _open_first(pilot: Pilot[None]) -> None:
    await pilot.press("enter")
    await until(pilot, lambda: isinstance(pilot.app.screen, SessionScreen))
    screen = pilot.app.screen
    await until(pilot, lambda: screen.info is not None and bool(screen.query("MessageBlock")))
    block = next(b for b in screen.query(MessageBlock) if b.folds)
    block.toggle_fold(next(f for f in block.folds if f.kind == "tool-call"))


@pytest.mark.parametrize("theme", THEMES)
def test_session(archive: Memory, snap_compare: Snap, theme: str) -> None:
    app = MemtuiApp(archive, upkeep=False)
    assert snap_compare(app, terminal_size=SIZE, run_before=themed(theme, _open_first))


async def _search(pilot: Pilot[None]) -> None:
    await pilot.press("slash", *"refresh token")
    screen = pilot.app.screen
    assert isinstance(screen, SearchScreen)
    screen.query_one("#query", Input).cursor_blink = False  # a blink is not a difference
    await whole_query_answered(pilot)
    await until(pilot, lambda: screen.last is not None)
    await settled(pilot)
    await until(pilot, lambda: "\n" in str(screen.query_one("#preview-text").render()))


@pytest.mark.parametrize("theme", THEMES)
def test_search(archive: Memory, snap_compare: Snap, theme: str) -> None:
    app = MemtuiApp(archive, upkeep=False)
    assert snap_compare(app, terminal_size=SIZE, run_before=themed(theme, _search))


async def _previewed(pilot: Pilot[None]) -> None:
    """Every search and preview done, the preview on the highlighted hit."""
    screen = pilot.app.screen
    assert isinstance(screen, SearchScreen)
    await whole_query_answered(pilot)
    await until(pilot, lambda: screen.last is not None and screen.last.by == screen.by)
    hit = screen.query_one(ResultList).current()
    assert hit is not None
    mark = f"◆ {who(hit.role, hit.kind)}  {when(hit.timestamp)}"
    await until(pilot, lambda: mark in str(screen.query_one("#preview-text").render()))
    await settled(pilot)


async def _conversations(pilot: Pilot[None]) -> None:
    await pilot.press("slash", *"refresh token", "ctrl+g")
    pilot.app.screen.query_one("#query", Input).cursor_blink = False
    await _previewed(pilot)


async def _no_matches(pilot: Pilot[None]) -> None:
    await pilot.press("slash", *"zebra giraffe savanna")
    pilot.app.screen.query_one("#query", Input).cursor_blink = False
    await _previewed(pilot)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize(
    ("then", "size"), [(_conversations, (160, 48)), (_no_matches, (80, 24))], ids=["by", "none"]
)
def test_search_conversations_and_no_matches(
    archive: Memory,
    snap_compare: Snap,
    theme: str,
    then: Callable[[Pilot[None]], object],
    size: tuple[int, int],
) -> None:
    """Issue 26: by conversation (ctrl+g), each one's title, facts and best hit; and a
    search that matched nothing says so, the nearest by meaning under their own label."""
    app = MemtuiApp(archive, upkeep=False)
    assert snap_compare(app, terminal_size=size, run_before=themed(theme, then))


async def _export(pilot: Pilot[None]) -> None:
    await _open_first(pilot)
    await pilot.press("e")
    await until(pilot, lambda: bool(pilot.app.screen.query(".dialog")))
    pilot.app.screen.query_one(Input).cursor_blink = False


@pytest.mark.parametrize("theme", THEMES)
def test_export_dialog(
    archive: Memory, snap_compare: Snap, theme: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The dialog suggests a file in the Downloads folder, else home: one with none.
    monkeypatch.setenv("HOME", "/home/dev")
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    app = MemtuiApp(archive, upkeep=False)
    assert snap_compare(app, terminal_size=SIZE, run_before=themed(theme, _export))


async def _keys(pilot: Pilot[None]) -> None:
    await pilot.press("question_mark")
    await until(pilot, lambda: bool(pilot.app.screen.query("HelpPanel")))


@pytest.mark.parametrize("theme", THEMES)
def test_keys_panel(archive: Memory, snap_compare: Snap, theme: str) -> None:
    app = MemtuiApp(archive, upkeep=False)
    assert snap_compare(app, terminal_size=SIZE, run_before=themed(theme, _keys))


@pytest.mark.parametrize("theme", THEMES)
def test_empty_archive(cfg: Config, snap_compare: Snap, theme: str) -> None:
    nowhere = Config(
        data_dir=cfg.data_dir, claude_dir=Path("/nowhere/.claude/projects"), log_dir=cfg.log_dir
    )
    with Memory(nowhere) as memory:
        app = MemtuiApp(memory, upkeep=False)

        async def before(pilot: Pilot[None]) -> None:
            app.theme = theme
            browse = app.screen
            await until(pilot, lambda: browse.loaded)
            await settled(pilot)
            await pilot.pause(0.2)

        assert snap_compare(app, terminal_size=SIZE, run_before=before)


@pytest.fixture
def first_minute_archive(memory: Memory, claude_dir: Path) -> Memory:
    first_minute.build(claude_dir)
    memory.upkeep.ingest(wait=True)
    return memory


@pytest.mark.parametrize("theme", THEMES)
def test_first_minute_at_80x24(
    first_minute_archive: Memory, snap_compare: Snap, theme: str
) -> None:
    """Issue 17 at 80x24: same-named projects told apart, clean titles, the warm-up folded,
    every column readable."""
    app = MemtuiApp(first_minute_archive, upkeep=False)
    assert snap_compare(app, terminal_size=(80, 24), run_before=themed(theme))


async def _mixed_session(pilot: Pilot[None]) -> None:
    screen = SessionScreen(first_minute.MIXED)
    pilot.app.push_screen(screen)
    await until(pilot, lambda: screen.info is not None and bool(screen.query(MessageBlock)))
    await pilot.press("tab")


@pytest.mark.parametrize("theme", THEMES)
def test_session_timeline_at_80x24(
    first_minute_archive: Memory, snap_compare: Snap, theme: str
) -> None:
    """One timeline with the subagent's messages in place, the focused message marked."""
    app = MemtuiApp(first_minute_archive, upkeep=False)
    assert snap_compare(app, terminal_size=(80, 24), run_before=themed(theme, _mixed_session))


@pytest.fixture
def two_agents_archive(
    tmp_path: Path, claude_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Memory]:
    """The small Claude Code archive and two Codex conversations in its newest project."""
    registered(monkeypatch)
    small_archive(claude_dir)
    environ = only(CLAUDE=str(claude_dir), CODEX=str(tmp_path / "codex"))
    with Memory(
        Config(tmp_path / "data", claude_dir, tmp_path / "logs", environ=environ)
    ) as memory:
        memory.upkeep.ingest()
        project = memory.history.list_projects()[0].project
        for session, prompt in [("c-1", "why does the refund queue stall"), ("c-2", "add retries")]:
            write_chat(tmp_path / "codex", session, project, ("user", prompt), ("assistant", "ok"))
        memory.upkeep.ingest()
        yield memory


async def _codex_only(pilot: Pilot[None]) -> None:
    browse = pilot.app.screen
    assert isinstance(browse, BrowseScreen)
    await until(pilot, lambda: len(browse._archive_agents()) == 2)
    await pilot.press("a", "a")
    await until(pilot, lambda: browse.agent == "codex" and set(browse.sessions) == {"c-1", "c-2"})
    await settled(pilot)


def test_two_agents_at_80x24(two_agents_archive: Memory, snap_compare: Snap) -> None:
    """The sidebar's sessions per agent under the highlighted project, the sessions of one
    agent (`a`), the key in the footer."""
    app = MemtuiApp(two_agents_archive, upkeep=False)
    before = themed("textual-dark", _codex_only)
    assert snap_compare(app, terminal_size=(80, 24), run_before=before)
