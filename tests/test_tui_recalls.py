"""The TUI's recalls screen (R from the main screen): what the hooks told Claude, the newest
first, each one's words in full, and the conversation it was said in."""

from __future__ import annotations

from textual.widgets import Label, Static

from memtui.config import Config
from memtui.engine import Memory, recall
from memtui.tui.app import MemtuiApp
from memtui.tui.browse import BrowseScreen
from memtui.tui.recalls import RecallList, RecallsScreen
from memtui.tui.session import SessionScreen
from tests.test_recall import ASKED, archive, event
from tests.tui_support import settled, until

__all__ = ["archive"]  # the recall tests' archive: the answer in shop-api's r-1
SMALL = (80, 24)


def text_of(screen: RecallsScreen) -> str:
    return str(screen.query_one("#recalls-said", Static).render())


async def test_the_recalls_screen_shows_what_the_hooks_said(archive: Config) -> None:
    said = recall.prompt(archive, event(ASKED, session="f-3"))  # an archived session
    assert "proxy_pass_request_headers" in said  # the hook spoke, and logged it
    with Memory(archive) as memory:
        app = MemtuiApp(memory, upkeep=False)
        async with app.run_test(size=SMALL) as pilot:
            await until(pilot, lambda: isinstance(app.screen, BrowseScreen))
            await settled(pilot)
            await pilot.press("R")
            screen = app.screen
            assert isinstance(screen, RecallsScreen)
            await until(pilot, lambda: screen.query_one(RecallList).option_count >= 1)
            summary = str(screen.query_one("#recalls-summary", Label).render())
            assert summary.startswith("1 recall,")
            newest = screen.recalls[0]
            assert newest.hook == "prompt" and newest.session_id == "f-3"
            await until(pilot, lambda: "proxy_pass_request_headers" in text_of(screen))
            assert "prompt hook" in text_of(screen) and "session f-3" in text_of(screen)
            await pilot.press("enter")  # the conversation it was said in
            await until(pilot, lambda: isinstance(app.screen, SessionScreen))
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is screen)
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, BrowseScreen))


async def test_no_recalls_says_so(cfg: Config) -> None:
    with Memory(cfg) as memory:
        app = MemtuiApp(memory, upkeep=False)
        async with app.run_test(size=SMALL) as pilot:
            await until(pilot, lambda: isinstance(app.screen, BrowseScreen))
            await pilot.press("R")
            screen = app.screen
            assert isinstance(screen, RecallsScreen)

            def says_none() -> bool:
                label = str(screen.query_one("#recalls-summary", Label).render())
                return label.startswith("no recalls yet")

            await until(pilot, says_none)
            assert screen.query_one(RecallList).option_count == 0
