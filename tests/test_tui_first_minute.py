"""Issue 17: what a person meets in their first minute with memtui, one test per defect and
per piece of friction, on the transcripts of tests/first_minute.py."""

from __future__ import annotations

import dataclasses
import os
import re
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from corpus import encode_project_dir
from rich.text import Text
from textual.widgets import Input, Label, OptionList, Select, Static
from textual.widgets._footer import FooterKey

from memtui.engine import Memory, ProgressEvent, SearchResponse, SearchResult, SessionInfo
from memtui.engine.quoting import short_title
from memtui.engine.search import PROMPTS, TOOL_OUTPUT
from memtui.errors import InvalidArgument
from memtui.ingest.titles import prompt_title
from memtui.tui import actions, settings
from memtui.tui import browse as browse_module
from memtui.tui.app import MemtuiApp, key_scopes
from memtui.tui.browse import BrowseScreen, SessionList
from memtui.tui.format import short_names, short_when, when, who
from memtui.tui.forms import Confirm, Prompt
from memtui.tui.messages import Progress
from memtui.tui.notes.scope import counted
from memtui.tui.results import ResultList
from memtui.tui.search import SearchScreen
from memtui.tui.session import SUBAGENT_RUN, MessageBlock, MessageList, SessionScreen
from memtui.tui.status import StatusLine, building
from tests import first_minute as fm
from tests.tui_support import settled, small_archive, until, whole_query_answered

SMALL = (80, 24)
TINY = (60, 20)


@pytest.fixture(autouse=True)
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home / "memtui"


@pytest.fixture
def archive(memory: Memory, claude_dir: Path) -> Iterator[Memory]:
    fm.build(claude_dir)
    memory.upkeep.ingest(wait=True)
    yield memory


async def browse_ready(pilot, app: MemtuiApp) -> BrowseScreen:  # type: ignore[no-untyped-def]
    browse = app.screen
    assert isinstance(browse, BrowseScreen)
    await until(pilot, lambda: browse.loaded and bool(browse.query_one(SessionList).row_count))
    return browse


def titles(browse: BrowseScreen) -> dict[str, str]:
    return {s.session_id: s.title for s in browse.query_one(SessionList).sessions}


def rows(browse: BrowseScreen) -> list[str]:
    listing = browse.query_one(SessionList)
    width = listing.scrollable_content_region.width
    return [listing.row(s, width).plain for s in listing.sessions]


def project_lines(browse: BrowseScreen) -> list[str]:
    listing = browse.query_one("#projects", OptionList)
    return [str(listing.get_option_at_index(i).prompt).strip() for i in range(listing.option_count)]


async def open_session(pilot, app: MemtuiApp, session_id: str, **kw: object) -> SessionScreen:  # type: ignore[no-untyped-def]
    screen = SessionScreen(session_id, **kw)  # type: ignore[arg-type]
    app.push_screen(screen)
    await until(pilot, lambda: screen.info is not None and bool(screen.query(MessageBlock)))
    await pilot.pause(0.1)
    return screen


def head(block: MessageBlock) -> str:
    return block.lines(block.content_region.width)[0].text


# -- 1: the first run shows what is stored while it indexes ---------------------------------


async def test_while_the_first_index_runs_the_screen_says_so_not_that_nothing_is_there(
    memory: Memory, claude_dir: Path
) -> None:
    app = MemtuiApp(memory, upkeep=False)
    app.first_read.clear()  # as while the start's ingest runs
    async with app.run_test(size=SMALL) as pilot:
        browse = app.screen
        await until(pilot, lambda: browse.loaded)
        shown = str(browse.query_one("#empty", Static).render())
        assert "Reading your conversations" in shown
        assert "No conversations" not in shown


async def test_sessions_appear_as_they_are_stored_during_an_index(
    memory: Memory, claude_dir: Path
) -> None:
    app = MemtuiApp(memory, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        browse = app.screen
        await until(pilot, lambda: browse.loaded)
        fm.build(claude_dir)
        await asyncio_thread(lambda: memory.upkeep.ingest(wait=True, index=False))
        # the index goes on (a progress event), and has not finished: no "changed" yet
        app.post_message(Progress(ProgressEvent("transcripts", 3, 10, 1.0)))
        status = app.screen.query_one(StatusLine)

        def both_shown() -> bool:
            """The sessions stored so far, and the index still going on."""
            phase = str(status.query_one("#status-phase").render())
            rows = browse.query_one(SessionList).row_count
            return rows == 5 and "reading transcripts 30%" in phase

        await until(pilot, both_shown)
        assert app.counts.startswith("3 projects")


async def test_an_untouched_cursor_stays_on_the_newest_as_an_index_stores_newer_sessions(
    archive: Memory,
) -> None:
    """A first index stores sessions in no order of time: a cursor the person never moved
    stays on the first row, or the newest sessions end up above the view. A cursor they
    moved keeps its session."""
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        browse = await browse_ready(pilot, app)
        listing = browse.query_one(SessionList)
        everything = list(listing.sessions)
        counts = (len(everything), 0)
        browse.show_sessions(None, everything[2:], counts, False)  # before the newest were in
        await pilot.pause()
        browse.show_sessions(None, everything, counts, False)
        await pilot.pause()
        assert listing.highlighted == 0
        assert listing.scroll_offset.y == 0
        listing.highlighted = 3
        moved = everything[3].session_id
        browse.show_sessions(None, everything[1:], counts, False)
        await pilot.pause()
        current = listing.current()
        assert current is not None and current.session_id == moved


def test_a_short_date_keeps_the_year_of_another_year() -> None:
    assert short_when("2025-05-02T12:00:00Z", "2026") == when("2025-05-02T12:00:00Z")[:10]
    assert short_when("2026-04-27T12:00:00Z", "2026") == when("2026-04-27T12:00:00Z")[5:]
    assert short_when(None, "2026") == ""


async def test_a_narrow_sessions_list_tells_last_year_from_this_one(archive: Memory) -> None:
    """At 80 columns the list has no room for the year and time both: a session of a year
    before the newest one's shows its year (its date without the time), one of the newest
    one's year its date and time."""
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        browse = await browse_ready(pilot, app)
        listing = browse.query_one(SessionList)
        width = listing.scrollable_content_region.width
        assert not listing.columns(width)[0], "80 columns: no room for the whole date"
        some = listing.sessions[0]
        year = int(when(some.last_timestamp)[:4])
        old = dataclasses.replace(some, last_timestamp=f"{year - 1}-04-27T12:00:00Z")
        new = dataclasses.replace(some, last_timestamp=f"{year}-04-27T12:00:00Z")
        assert listing.row(old, width).plain.startswith(f" {year - 1}-04-2")
        assert listing.row(new, width).plain.startswith(" 04-2")


async def asyncio_thread(call) -> None:  # type: ignore[no-untyped-def]
    import asyncio

    await asyncio.to_thread(call)


def test_the_status_line_says_what_is_still_built() -> None:
    reading = {"transcripts": ProgressEvent("transcripts", 45, 100, 1.0)}
    assert building(reading) == "reading transcripts 45% · vectors next"
    both = {
        "full text": ProgressEvent("full text", 8, 10, 1.0),
        "vectors": ProgressEvent("vectors", 3, 10, 1.0),
    }
    assert building(both) == "full text 80% · vectors 30%"
    assert building({"vectors": ProgressEvent("vectors", 10, 10, 1.0)}) == "saving vectors…"
    read = {"transcripts": ProgressEvent("transcripts", 10, 10, 1.0)}
    assert building(read) == "transcripts done · vectors next"


def test_full_text_finds_words_before_the_first_read_ends(memory: Memory, claude_dir: Path) -> None:
    """The full-text index follows the store while the transcripts are read: a search in
    the middle of a first index finds what is stored so far."""
    small_archive(claude_dir, messages=12000)  # a few store batches
    found: list[int] = []
    held = threading.Event()

    def on_progress(event: ProgressEvent) -> None:
        if event.phase != "transcripts" or held.is_set() or event.done < event.total * 3 // 4:
            return
        held.set()  # hold the read here until a search finds what is stored
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            response = memory.history.search("the", "fts", limit=5)
            if response.results:
                found.append(len(response.results))
                return
            time.sleep(0.2)

    memory.upkeep.ingest(wait=True, on_progress=on_progress)
    assert held.is_set(), "the read reported its progress"
    assert found, "full-text hits while the transcripts were still being read"


# -- 2: projects of the same folder name -----------------------------------------------------


def test_short_names_are_the_shortest_unique_ending() -> None:
    names = short_names([fm.CLIENT_1, fm.CLIENT_2, fm.SHOP])
    assert names == {
        fm.CLIENT_1: "client-01/app",
        fm.CLIENT_2: "client-02/app",
        fm.SHOP: "shop-api",
    }


async def test_projects_with_the_same_folder_name_are_told_apart(archive: Memory) -> None:
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        browse = await browse_ready(pilot, app)
        shown = project_lines(browse)
        assert any(line.startswith("client-01/app") for line in shown)
        assert any(line.startswith("client-02/app") for line in shown)
        listing = browse.query_one("#projects", OptionList)
        listing.focus()
        index = [listing.get_option_at_index(i).id for i in range(listing.option_count)].index(
            fm.CLIENT_1
        )
        listing.highlighted = index
        await pilot.pause(0.2)
        # the whole path, in lines that break after a `/` where the sidebar is narrow
        assert fm.CLIENT_1 in project_lines(browse)[index].replace("\n", ""), "the whole path"
        heading = browse.query_one("#sessions-title", Static)
        await until(pilot, lambda: "client-01/app" in str(heading.render()))


async def test_the_search_tells_projects_of_the_same_folder_name_apart(archive: Memory) -> None:
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("slash")
        screen = app.screen
        project = screen.query_one("#project", Select)
        await until(pilot, lambda: len(project._options) > 1)  # type: ignore[attr-defined]
        labels = {str(o[0]) for o in project._options}  # type: ignore[attr-defined]
        assert {"client-01/app", "client-02/app", "shop-api"} <= labels
        results = screen.query_one(ResultList)
        await pilot.press("ctrl+o")  # full text: only the messages with the words

        async def heads(query: str) -> set[str]:
            screen.query_one("#query", Input).value = query
            await whole_query_answered(pilot)
            return {results._rows(i, 200)[0].plain for i in range(len(results.hits))}

        found = await heads('"CLAUDE.md"')
        assert found and all("client-01/app" in h for h in found), found
        assert any("client-02/app" in h for h in await heads("shipping"))
        project.value = fm.CLIENT_2
        assert all("client-02/app" in h for h in await heads("shipping"))


def test_a_hit_says_who_wrote_it_and_what_is_not_the_persons() -> None:
    """A compaction's summary and a meta line are stored as `user` lines: a hit of one does
    not read as the person's words."""
    assert who("user", "prompt") == "you"
    assert who("user", "compact_summary") == "summary"
    assert who("user", "meta") == "meta"
    assert who("user", "tool_result") == "tool"
    assert who("assistant", "assistant") == "claude"


async def test_a_long_search_summary_wraps_whole_at_80_columns(archive: Memory) -> None:
    """What the search says of itself (the counts, then a note such as vectors still being
    built) is read whole at 80 columns: it was cut at the end of one line, note and all."""
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("slash", *"checkout", "ctrl+t", "ctrl+t")  # both: the longest counts
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        await whole_query_answered(pilot)
        await until(pilot, lambda: screen.last is not None and screen.last_notes is not None)
        note = "vectors are still being built: these results are full text only"
        screen.last = dataclasses.replace(screen.last, note=note)
        screen._summary()
        await pilot.pause(0.2)
        summary = screen.query_one("#search-summary", Static)
        shown = " ".join(app.export_screenshot().split())  # the SVG's text, lines joined
        assert summary.region.height >= 2 and "full text only" in shown.replace("&#160;", " ")


async def test_the_project_list_drops_framed_with_each_name_on_one_line(archive: Memory) -> None:
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("slash")
        project = app.screen.query_one("#project", Select)
        await until(pilot, lambda: len(project._options) > 1)  # type: ignore[attr-defined]
        long = "payments-reconciliation-service-backend-v2-for-the-eu-region"  # > 48
        project.set_options([(long, "/work/" + long), ("shop-api", "/work/shop-api")])
        project.focus()
        await pilot.press("enter")
        await until(pilot, lambda: project.expanded)
        await pilot.pause(0.2)
        overlay = project.query_one("SelectOverlay")
        shown = [str(overlay.render_line(y).text) for y in range(overlay.region.height)]
        assert [line for line in shown if "payments-reconciliation" in line], shown
        assert not [line for line in shown if "eu-region" in line], "one line, cut, not wrapped"
        assert overlay.styles.border_left[0] != "", "framed: a hit's letters beside it stay apart"
        assert overlay.region.width > project.region.width, "wider than the box when a name is"
        assert overlay.region.right <= SMALL[0]


# -- 3, 4: titles ------------------------------------------------------------------------------


async def test_titles_are_the_persons_words(archive: Memory) -> None:
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        browse = await browse_ready(pilot, app)
        shown = titles(browse)
        assert shown[fm.INIT] == "/init"
        assert shown[fm.IDE] == "Why does the cart total drop the shipping fee?"
        assert shown[fm.AGENTS] == fm.SUBAGENT_TASK
        assert fm.WARMUP not in shown, "a warm-up alone does not crowd the list"
        heading = str(browse.query_one("#sessions-title", Static).render())
        assert "1 warm-up hidden" in heading
        hidden = list(browse.query_one(SessionList).sessions)
        await pilot.press("w")
        await until(pilot, lambda: fm.WARMUP in titles(browse))
        browse.show_sessions(None, hidden, (len(hidden) + 1, 1), False)  # read before the w
        assert fm.WARMUP in titles(browse), "an answer read before the w is dropped"


def test_search_and_session_titles_are_clean(archive: Memory) -> None:
    hits = archive.history.search("CLAUDE.md", "fts", limit=5).results
    assert hits and {h.session_title for h in hits} == {"/init"}
    assert archive.history.session_messages(fm.AGENTS)[0].title == fm.SUBAGENT_TASK


def test_an_existing_store_is_titled_again(memory: Memory, claude_dir: Path, cfg) -> None:  # type: ignore[no-untyped-def]
    """A store titled under the old rules (raw markup, untitled subagent sessions) gets the
    new titles at the next start's ingest."""
    fm.build(claude_dir)
    memory.upkeep.ingest(wait=True, index=False)
    conn = sqlite3.connect(cfg.db_path)
    conn.execute(
        "UPDATE sessions SET first_prompt = '<command-message>init</command-message> "
        "<command-name>/init</command-name>' WHERE id = ?",
        (fm.INIT,),
    )
    conn.execute("UPDATE sessions SET first_prompt = NULL WHERE id = ?", (fm.AGENTS,))
    conn.execute("DELETE FROM meta WHERE key = 'titles'")
    conn.commit()
    conn.close()
    assert "<command" in archive_title(memory, fm.INIT)
    memory.upkeep.ingest(wait=True, index=False)
    assert archive_title(memory, fm.INIT) == "/init"
    assert archive_title(memory, fm.AGENTS) == fm.SUBAGENT_TASK


def archive_title(memory: Memory, session_id: str) -> str:
    return memory.history.session_messages(session_id)[0].title


@pytest.mark.parametrize(
    ("prompt", "title"),
    [
        ("<user-prompt-submit-hook>lint passed</user-prompt-submit-hook>", None),
        ("<user-prompt-submit-hook>ok</user-prompt-submit-hook>Fix the cart", "Fix the cart"),
        ("<system-reminder>be brief</system-reminder>\nFix the flaky test", "Fix the flaky test"),
        ("Caveat: The messages below were generated by the user while running local", None),
        ("[Request interrupted by user]", None),
        ("[Request interrupted by user for tool use]", None),
        ("This session is being continued from a previous conversation that ran out", None),
        ("<bash-input>git status</bash-input>", "! git status"),
        (
            "<command-name>/review</command-name>\n<command-args>PR 12</command-args>",
            "/review PR 12",
        ),
        ("Warmup", None),
        # steering Claude Code, or nudging it on: the next prompt says what it is about
        ("<command-name>/clear</command-name>\n<command-args></command-args>", None),
        ("<command-name>/init</command-name>", "/init"),
        ("Continue.", None),
        ("continue with the cart fix", "continue with the cart fix"),
    ],
)
def test_a_title_skips_what_the_person_did_not_type(prompt: str, title: str | None) -> None:
    assert prompt_title(prompt) == title


async def test_a_session_is_titled_past_hooks_caveats_and_interruptions(
    memory: Memory, claude_dir: Path
) -> None:
    session = "hook-0000-0000-0000-000000000008"
    f = fm._File(claude_dir / encode_project_dir(fm.SHOP) / f"{session}.jsonl", session, fm.SHOP)
    f.user("2026-11-03T09:00:00.000Z", "Caveat: The messages below were generated by the user")
    f.user("2026-11-03T09:00:01.000Z", "<user-prompt-submit-hook>ok</user-prompt-submit-hook>")
    f.user("2026-11-03T09:00:02.000Z", "[Request interrupted by user]")
    f.user("2026-11-03T09:00:03.000Z", "Make the nightly export one query")
    f.claude("2026-11-03T09:00:09.000Z", "Done: one query now.")
    f.write()
    memory.upkeep.ingest(wait=True, index=False)
    app = MemtuiApp(memory, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        browse = await browse_ready(pilot, app)
        assert titles(browse)[session] == "Make the nightly export one query"


# -- 5: one timeline ---------------------------------------------------------------------------


async def test_a_session_is_one_timeline_with_subagent_runs_foldable(archive: Memory) -> None:
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_session(pilot, app, fm.MIXED)
        view = screen.query_one(MessageList)
        stamps = [m.timestamp for m in view.messages]
        assert stamps == sorted(stamps), "in time order"
        assert [m.is_sidechain for m in view.messages] == [False, False, True, True, False, False]
        assert "THE END" in view.messages[-1].text, "the real end at the bottom"
        await pilot.press("a")
        await until(pilot, lambda: len(view.messages) == 5)
        run = view.messages[2]
        assert run.kind == SUBAGENT_RUN and "2 messages folded" in run.text
        await pilot.press("a")
        await until(pilot, lambda: len(view.messages) == 6)


# -- 6: End and Home -------------------------------------------------------------------------


async def test_end_reaches_the_end_of_a_long_session(archive: Memory) -> None:
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_session(pilot, app, fm.LONG)
        view = screen.query_one(MessageList)
        await pilot.press("end")
        await until(pilot, lambda: view.end == len(view.messages))
        await pilot.pause(0.3)
        last = view.query(MessageBlock).last()
        assert "walk-through is done" in last.message.text
        assert view.scroll_y >= view.max_scroll_y - 1, "the view is at the bottom"
        await pilot.press("home")
        await until(pilot, lambda: view.start == 0 and view.scroll_y == 0)


async def test_home_and_end_in_the_session_list(archive: Memory) -> None:
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        browse = await browse_ready(pilot, app)
        listing = browse.query_one(SessionList)
        listing.focus()
        await pilot.press("end")
        assert listing.highlighted == listing.row_count - 1
        await pilot.press("home")
        assert listing.highlighted == 0


# -- 7: focus ----------------------------------------------------------------------------------


async def test_the_focused_message_is_marked_and_tab_starts_from_the_view(
    archive: Memory,
) -> None:
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_session(pilot, app, fm.LONG)
        view = screen.query_one(MessageList)
        await pilot.press("pagedown", "pagedown", "pagedown")
        await pilot.pause(0.2)
        top = view.scroll_y
        assert top > 0
        await pilot.press("tab")
        focused = app.focused
        assert isinstance(focused, MessageBlock)
        assert focused.virtual_region.bottom > top, "focus starts where the reader is"
        assert view.scroll_y >= top - 1, "and the view did not jump back to the top"
        assert head(focused).startswith("▶ "), "marked in text, whatever the colours"
        await pilot.press("tab")
        assert app.focused is not focused and head(focused).startswith(("you", "claude"))


async def test_a_closed_fold_does_not_look_like_the_focus_marker(with_tools: Memory) -> None:
    app = MemtuiApp(with_tools, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_session(pilot, app, TOOLS)
        block = next(b for b in screen.query(MessageBlock) if b.folds)
        block.focus()
        await pilot.pause()

        def lines() -> list[str]:
            return [line.text for line in block.lines(block.content_region.width)]

        assert lines()[0].startswith("▶ "), "the focus marker"
        folds = [line for line in lines() if "read deploy.log" in line]
        assert folds and folds[0].startswith("▸ "), "a closed fold: another glyph"
        await pilot.press("enter")
        assert any(line.startswith("▾ ") and "read deploy.log" in line for line in lines())
        assert sum(line.startswith("▶") for line in lines()) == 1


# -- 8: 80x24 and 60x20 --------------------------------------------------------------------------


@pytest.mark.parametrize("size", [SMALL, TINY])
async def test_the_screens_fit_small_terminals(archive: Memory, size: tuple[int, int]) -> None:
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=size) as pilot:
        browse = await browse_ready(pilot, app)
        assert any("Walk me through" in row for row in rows(browse)), "titles show"
        await pilot.press("slash")
        search = app.screen
        assert isinstance(search, SearchScreen)
        before = search.query_one("#before", Input)
        if size == SMALL:
            assert before.region.right <= size[0], "the before field is on screen"
        await pilot.press("escape")
        screen = await open_session(pilot, app, fm.LONG)
        footer_keys = [k for k, b, enabled, _ in _shown_keys(screen)]
        width = sum(len(k) + 2 for k in footer_keys)
        assert width <= size[0] + 20
        assert app.screen.query_one(StatusLine).region.width == size[0]


async def test_the_status_line_keeps_its_counts_at_80_columns_while_indexing(
    archive: Memory,
) -> None:
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        await browse_ready(pilot, app)
        app.mcp_address = "MCP http://127.0.0.1:10013/mcp"
        app.post_message(Progress(ProgressEvent("transcripts", 3, 100, 1.0)))
        status = app.screen.query_one(StatusLine)

        def phase() -> str:
            return str(status.query_one("#status-phase", Static).render())

        await until(pilot, lambda: phase() == "reading transcripts 3%")
        counts = status.query_one("#status-counts", Static)
        assert str(counts.render()) == "6 sessions · 187 msgs"
        assert counts.size.width >= len("6 sessions · 187 msgs"), "whole, not …"
        assert str(status.query_one("#status-mcp", Static).render()) == "MCP :10013"
        await pilot.resize_terminal(140, 40)
        await until(pilot, lambda: "vectors next" in phase())
        assert "http://127.0.0.1:10013/mcp" in str(status.query_one("#status-mcp").render())


@pytest.mark.parametrize("demo", [False, True])
async def test_the_counts_stay_whole_at_80_columns_while_every_phase_runs(
    archive: Memory, demo: bool
) -> None:
    """Transcripts read, full text and vectors under way, the MCP address shown: the
    message count stays (the phases say less instead)."""
    app = MemtuiApp(archive, upkeep=False, demo=demo)
    async with app.run_test(size=SMALL) as pilot:
        await browse_ready(pilot, app)
        app.mcp_address = "MCP http://127.0.0.1:10013/mcp"
        status = app.screen.query_one(StatusLine)
        for event in (
            ProgressEvent("transcripts", 100, 100, 1.0),
            ProgressEvent("full text", 45, 100, 1.0),
            ProgressEvent("vectors", 10, 100, 1.0),
        ):
            app.post_message(Progress(event))  # one at a time: a flood folds into the last
            await until(pilot, lambda e=event: e.phase in status.phases)
        phase = status.query_one("#status-phase", Static)
        await settled(pilot)
        app.counts = "12 projects · 1,323 sessions · 161,204 messages"  # a larger archive's
        counts = status.query_one("#status-counts", Static)
        await until(pilot, lambda: str(counts.render()) == "1,323 sessions · 161,204 msgs")
        await pilot.pause()  # laid out anew
        assert counts.size.width >= len("1,323 sessions · 161,204 msgs"), "whole, not cut"
        assert "vectors 10%" in str(phase.render())
        assert phase.region.right <= status.query_one("#status-mcp").region.x


def _shown_keys(screen):  # type: ignore[no-untyped-def]
    return [
        (b.key, b, enabled, tip)
        for (_, b, enabled, tip) in screen.active_bindings.values()
        if b.show and enabled
    ]


# -- 9: every session ------------------------------------------------------------------------


async def test_the_session_list_holds_thousands_and_says_how_many(archive: Memory) -> None:
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        browse = await browse_ready(pilot, app)
        # the start's second read of the archive (the status counts) lists the sessions
        # again: let it land first, or it replaces the 5,000 under the test
        await settled(pilot)
        await pilot.pause()
        await settled(pilot)
        listing = browse.query_one(SessionList)
        many = [
            SessionInfo(f"s{i:05}", fm.SHOP, f"session {i}", None, None, 1, None, False)
            for i in range(5000)
        ]
        started = time.perf_counter()
        listing.show(many)
        await pilot.press("end")
        await pilot.pause()
        # a DataTable took seconds to fill with 5,000 rows; the line list, a few ms (the
        # bound leaves room for a machine shared by eight)
        assert time.perf_counter() - started < 3.0
        assert listing.highlighted == 4999
        assert listing.current() is not None and listing.current().title == "session 4999"


async def test_a_list_that_holds_only_the_newest_says_how_to_reach_the_rest(
    archive: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(browse_module, "SESSIONS_SHOWN", 3)  # as 10,000 of a larger archive
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        browse = await browse_ready(pilot, app)
        heading = browse.query_one("#sessions-title", Static)
        await until(pilot, lambda: "newest 3 shown" in str(heading.render()))
        assert browse.query_one(SessionList).row_count == 3
        said = str(heading.render())
        assert "choose a project, or / search" in said
        await until(pilot, lambda: heading.size.height == 2)
        assert len(said.splitlines()[1]) <= heading.size.width - 2, "whole at 80 columns"
        projects = browse.query_one("#projects", OptionList)
        ids = [projects.get_option_at_index(i).id for i in range(projects.option_count)]
        projects.highlighted = ids.index(fm.CLIENT_1)
        await until(pilot, lambda: "client-01/app" in str(heading.render()))
        assert "newest" not in str(heading.render())
        await until(pilot, lambda: heading.size.height == 1)


# -- 10: export paths ------------------------------------------------------------------------


def test_an_export_to_a_folder_gets_a_file_named_after_the_session(tmp_path: Path) -> None:
    info = SessionInfo("abcdef12-x", "/p", "Fix the cart", None, None, 1, None, False)
    folder = tmp_path / "exports"
    assert actions.export_target(str(folder) + "/", info) == folder / "fix-the-cart-abcdef12.md"
    folder.mkdir()
    assert actions.export_target(str(folder), info) == folder / "fix-the-cart-abcdef12.md"
    assert actions.export_target(str(folder / "x.md"), info) == folder / "x.md"


async def test_exporting_over_a_file_asks_first(archive: Memory, tmp_path: Path) -> None:
    target = tmp_path / "out.md"
    target.write_text("keep me")
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        await open_session(pilot, app, fm.INIT)
        await pilot.press("e")
        app.screen.query_one("#prompt-input", Input).value = str(target)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("n")
        await pilot.pause(0.2)
        assert target.read_text() == "keep me"
        await pilot.press("e")
        app.screen.query_one("#prompt-input", Input).value = str(tmp_path)
        await pilot.press("enter")
        named = tmp_path / actions.export_name(app.screen.info)  # type: ignore[attr-defined]
        await until(pilot, named.exists)


@pytest.mark.parametrize("downloads", [True, False])
async def test_an_export_goes_to_downloads_or_home_never_the_current_directory(
    archive: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, downloads: bool
) -> None:
    """Launched from a repository, an export by default stays out of it."""
    home, repo = tmp_path / "home", tmp_path / "repo"
    repo.mkdir()
    folder = home / "Downloads" if downloads else home
    folder.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    monkeypatch.chdir(repo)
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_session(pilot, app, fm.INIT)
        assert screen.info is not None
        expected = folder / actions.export_name(screen.info)
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, Prompt))
        assert app.screen.query_one("#prompt-input", Input).value == str(expected)
        shown = str(app.screen.query_one("#prompt-detail", Label).render())
        assert str(expected) in shown.replace("\n", ""), "the full default path is shown"
        await pilot.press("enter")
        await until(pilot, expected.exists)
    assert list(repo.iterdir()) == []


# -- 11: keymap ------------------------------------------------------------------------------


def test_keymap_problems_are_named_and_defaults_kept() -> None:
    keys, problems = settings.checked_keymap(
        {"app.keys": "notakey+++", "session.thinking": "y", "session.resume": "ctrl+r"},
        key_scopes(),
    )
    assert keys == {"session.resume": "ctrl+r"}
    assert any("app.keys" in p and "not a key" in p for p in problems)
    assert any("session.thinking" in p and "session.copy" in p for p in problems)


async def test_a_bad_keymap_is_reported_and_the_defaults_work(
    archive: Memory, config_home: Path
) -> None:
    config_home.mkdir(parents=True)
    (config_home / "keymap.toml").write_text(
        '"app.keys" = "notakey+++"\n"session.thinking" = "y"\n"session.resume" = "ctrl+r"\n'
    )
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        await browse_ready(pilot, app)
        said = " ".join(str(n.message) for n in app._notifications)
        assert "notakey+++" in said and "session.thinking" in said
        keys = {b.binding.action: k for k, b in app.screen.active_bindings.items()}
        assert keys["resume"] == "ctrl+r", "one id: the browse screen's resume too"
        await pilot.press("question_mark")
        assert app.screen.query("HelpPanel"), "? still shows the keys"


# -- 12: quitting during an index ----------------------------------------------------------


async def test_quit_during_an_index_leaves_within_a_second(
    memory: Memory, claude_dir: Path
) -> None:
    small_archive(claude_dir, messages=6000)
    app = MemtuiApp(memory)
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: app.progress is not None and app.progress.done > 0)
        started = time.monotonic()
        await pilot.press("q")
        await until(pilot, lambda: app._exit)
        assert time.monotonic() - started < 1.0
    assert app.upkeep_done.wait(30), "and the index stopped at its batch"


# -- 13: ellipsis, hit marks -------------------------------------------------------------------


def test_a_cut_title_ends_in_an_ellipsis_at_a_word() -> None:
    cut = short_title("word " * 100, limit=40)
    assert cut.endswith("word…") and len(cut) <= 40


async def test_a_hit_is_marked_in_text_and_its_fold_opened(
    archive: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TERM", "xterm")
    hits = archive.history.search("shipping", "fts", limit=1).results
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_session(
            pilot, app, hits[0].session_id, at=hits[0].message_index, words=["shipping"]
        )
        marked = screen.query_one(".-hit", MessageBlock)
        assert "◆ hit" in head(marked)


# -- friction ----------------------------------------------------------------------------------


async def test_the_preview_shows_the_hit_whole_with_its_words(archive: Memory) -> None:
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("slash", *"scans")
        await whole_query_answered(pilot)
        screen = app.screen
        await until(pilot, lambda: "◆" in str(screen.query_one("#preview-text").render()))
        shown = screen.query_one("#preview-text", Static).render()
        hit_at = shown.plain.index("◆")
        assert shown.plain.index("two full scans") > hit_at
        assert any(
            shown.plain[s.start : s.end].lower() == "scans" for s in shown.spans if s.style
        ), "the words are marked"


def test_the_counts_say_which_is_which() -> None:
    def said(fts: int | None, near: int | None, total: int = 5, by: str = "message") -> str:
        more_near = near == 100  # the vector ranking cut with its last still near
        response = SearchResponse(
            [], total, "hybrid", fts_total=fts, vector_total=near, by=by, more_near=more_near
        )
        return counted(response)

    assert said(12, 40) == "12 full-text matches · 40 near in meaning"
    assert said(1, None) == "1 full-text match"
    assert said(1000, 100) == "1,000+ full-text matches · 100+ near in meaning"
    assert said(3, 0) == "3 full-text matches · 0 near in meaning"
    # Nothing matched: said first; the nearest a list may show are not counted.
    assert said(0, 0, 0) == "no matches · 0 full-text matches · 0 near in meaning"
    assert said(None, None, 0) == "no matches"
    assert said(4, 1, 3, "session") == "3 conversations · 4 full-text matches · 1 near in meaning"
    # The list holds the first 30: how many of how many; `+` where the total is a floor.
    hit = SearchResult("s", "/p", 0, "u", "user", "prompt", None, "x", 1.0, ["fts"])
    many = SearchResponse(
        [hit] * 30, 541, "hybrid", fts_total=449, vector_total=100, more_near=True
    )
    assert counted(many) == "30 of 541 · 449 full-text matches · 100+ near in meaning"
    many.by, many.total, many.more = "session", 96, True
    assert counted(many).startswith("30 of 96+ conversations · ")
    # Paged to its end: that it ends there when more match than a search reaches (the count
    # line used to drop how far the list went), else how many it holds.
    assert counted(many, ended=True).startswith("the list ends at 30 · 96+ conversations · ")
    many.by, many.more = "message", False
    assert counted(many, ended=True) == "30 listed · 449 full-text matches · 100+ near in meaning"


async def test_the_summary_counts_full_text_and_meaning_apart(archive: Memory) -> None:
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("slash", *"shipping")
        await whole_query_answered(pilot)
        summary = app.screen.query_one("#search-summary", Static)
        await until(pilot, lambda: "full-text" in str(summary.render()))
        shown = str(summary.render())
        assert re.fullmatch(r"2 full-text matches · (\d+|none) near in meaning · hybrid", shown)
        assert len(shown) <= SMALL[0] - 2


async def test_an_error_clears_the_old_results(archive: Memory) -> None:
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("slash", *"export")
        await whole_query_answered(pilot)
        screen = app.screen
        assert screen.query_one(ResultList).hits
        screen.query_one("#query", Input).value = "???"  # nothing to search for: refused
        await whole_query_answered(pilot)
        await until(pilot, lambda: not screen.query_one(ResultList).hits)


async def test_a_date_being_typed_waits_with_the_results_on_screen(archive: Memory) -> None:
    """Found by a new user: each key of a date ran the search, and `2025-` wiped the list
    with an error. The box is marked and the search waits until it holds a date."""
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("slash", *"export")
        await whole_query_answered(pilot)
        screen = app.screen
        results, box = screen.query_one(ResultList), screen.query_one("#after", Input)
        held = list(results.hits)
        assert held
        box.focus()
        await pilot.press(*"2025-")
        summary = screen.query_one("#search-summary", Static)
        await until(pilot, lambda: "the search waits" in str(summary.render()))
        assert results.hits == held and box.has_class("-invalid")
        await pilot.press(*"01-01")
        await whole_query_answered(pilot)
        await until(pilot, lambda: "the search waits" not in str(summary.render()))
        assert not box.has_class("-invalid") and results.hits


TOOLS = "tool-0000-0000-0000-000000000007"
TOOL_ONLY = "quokka"  # a word only a tool's output holds


@pytest.fixture
def with_tools(memory: Memory, claude_dir: Path) -> Iterator[Memory]:
    """The first minute's archive and a session where a tool answers: `deploy` is in the
    person's prompt, in Claude's reply and in the tool's output."""
    fm.build(claude_dir)
    f = fm._File(claude_dir / encode_project_dir(fm.SHOP) / f"{TOOLS}.jsonl", TOOLS, fm.SHOP)
    f.user("2026-11-02T09:00:00.000Z", "Read the deploy log: why do deploys fail?")
    f.claude("2026-11-02T09:00:02.000Z", "I'll read the deploy log.", tool="read deploy.log")
    result = {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": "\n".join(
            [f"line {n}: deploy step {n} ok" for n in range(40)]
            + [f"deploy failed: {TOOL_ONLY} quota exceeded"]
        ),
    }
    f.user("2026-11-02T09:00:03.000Z", [result])
    f.claude("2026-11-02T09:00:05.000Z", "The last deploy failed on a quota.")
    f.write()
    memory.upkeep.ingest(wait=True)
    yield memory


def test_the_engine_tells_prompts_from_tool_output(with_tools: Memory) -> None:
    def kinds(role: str | None) -> set[tuple[str, str]]:
        found = with_tools.history.search("deploy", "fts", role=role, limit=50).results
        return {(r.role, r.kind) for r in found if r.session_id == TOOLS}

    assert kinds(PROMPTS) == {("user", "prompt")}
    assert kinds(TOOL_OUTPUT) == {("user", "tool_result")}
    assert kinds("user") == {("user", "prompt"), ("user", "tool_result")}, "SPEC's user stays"
    assert kinds("assistant") == {("assistant", "assistant")}
    hybrid = with_tools.history.search("deploy log", "hybrid", role=PROMPTS, limit=50).results
    assert hybrid and {r.kind for r in hybrid} == {"prompt"}
    with pytest.raises(InvalidArgument):
        with_tools.history.search("deploy", "fts", role="tool")


async def test_the_role_filter_says_you_claude_and_tool_output(with_tools: Memory) -> None:
    app = MemtuiApp(with_tools, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("slash")
        screen = app.screen
        role = screen.query_one("#role", Select)
        labels = [str(o[0]) for o in role._options]  # type: ignore[attr-defined]
        assert labels[1:] == ["you", "claude", "tool output"], "after the prompt, anyone"

        async def found(value: str) -> set[str]:
            role.value = value
            await whole_query_answered(pilot)
            return {r.kind for r in screen.query_one(ResultList).hits}

        await pilot.press(*"deploy")
        assert await found(TOOL_OUTPUT) == {"tool_result"}
        assert await found(PROMPTS) == {"prompt"}
        assert await found("assistant") == {"assistant"}
        role.value = TOOL_OUTPUT
        await pilot.pause()
        shown = role.query_one("#label", Static)
        assert str(shown.render()) == "tool output"
        assert shown.size.width >= len("tool output"), "on one line, at 80 columns"


async def test_a_long_project_name_stays_on_its_line(memory: Memory, claude_dir: Path) -> None:
    long = "/home/dev/a-project-with-a-rather-long-folder-name-indeed"
    other = fm._File(claude_dir / "x" / "s.jsonl", "long-0000", long)
    other.user("2026-11-01T10:00:00.000Z", "hello")
    other.write()
    memory.upkeep.ingest(wait=True, index=False)
    app = MemtuiApp(memory, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        browse = await browse_ready(pilot, app)
        listing = browse.query_one("#projects", OptionList)
        line = listing.get_option_at_index(1).prompt
        assert isinstance(line, Text) and "\n" not in line.plain
        assert line.plain.rstrip().endswith(" 1") and "…" in line.plain
        assert line.cell_len <= listing.scrollable_content_region.width


async def test_project_lines_fit_after_the_terminal_narrows(archive: Memory) -> None:
    """Drawn at 160 columns, then at 80: each project's name and count still share a line
    (they were cut for the old, wider sidebar, and wrapped: `All projects` / `20`)."""
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=(160, 48)) as pilot:
        browse = await browse_ready(pilot, app)
        listing = browse.query_one("#projects", OptionList)
        wide = listing.scrollable_content_region.width
        await pilot.resize_terminal(80, 24)

        def lines_fit() -> bool:
            """Once the sidebar has narrowed, every line but the highlighted one (its whole
            path, on as many lines as it takes) fits it."""
            width = listing.scrollable_content_region.width
            lines = [
                listing.get_option_at_index(i).prompt
                for i in range(listing.option_count)
                if i != listing.highlighted
            ]
            return width < wide and all(
                isinstance(line, Text) and line.cell_len <= width for line in lines
            )

        await until(pilot, lines_fit)


async def test_a_hit_only_in_a_tool_result_opens_its_fold(with_tools: Memory) -> None:
    app = MemtuiApp(with_tools, upkeep=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("slash", *TOOL_ONLY)
        await whole_query_answered(pilot)
        search = app.screen
        hits = search.query_one(ResultList).hits
        assert hits and hits[0].kind == "tool_result" and hits[0].session_id == TOOLS
        assert search.query_one(ResultList)._rows(0, 200)[0].plain.startswith("tool ")
        await pilot.press("enter", "enter")  # to the results, then open the hit
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
        screen = app.screen
        await until(pilot, lambda: bool(screen.query(".-hit")))
        await pilot.pause(0.2)
        block = screen.query_one(".-hit", MessageBlock)
        assert block.message.kind == "tool_result"
        assert [f.open for f in block.folds] == [True], "the fold holding the words is open"
        lines = [line.text for line in block.lines(block.content_region.width)]
        assert any(TOOL_ONLY in line for line in lines), "and its words are on screen"
        assert block.region.y < screen.query_one(MessageList).region.bottom, "in view"


async def test_ctrl_c_cancels_a_running_search_before_it_quits(
    archive: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = threading.Event()
    search = archive.history.search

    asked: list[str] = []

    def slow_search(*args, **kwargs):  # type: ignore[no-untyped-def]
        asked.append(args[0])
        gate.wait(10)  # a search of a large archive, still running
        return search(*args, **kwargs)

    monkeypatch.setattr(archive.history, "search", slow_search)
    app = MemtuiApp(archive, upkeep=False)
    try:
        async with app.run_test(size=SMALL) as pilot:
            await pilot.press("slash", *"export")
            screen = app.screen
            assert isinstance(screen, SearchScreen)

            def running() -> bool:
                return any(w.group == "search" and w.is_running for w in screen.workers)

            # the whole word's search: on a loaded machine "exp" may start one first, and
            # the last keystroke's search would then start after ctrl+c
            await until(pilot, lambda: running() and asked[-1:] == ["export"])
            await pilot.press("ctrl+c")
            summary = screen.query_one("#search-summary", Static)
            await until(pilot, lambda: str(summary.render()) == "search cancelled")
            assert not app._exit and app.screen is screen, "still here"
            said = " ".join(str(n.message) for n in app._notifications)
            assert "ctrl+c again quits" in said
            gate.set()  # the search ends: its answer is dropped
            await until(pilot, lambda: not running())
            await pilot.pause()
            assert not screen.query_one(ResultList).hits
            assert str(summary.render()) == "search cancelled"
            await pilot.press("ctrl+c")
            await until(pilot, lambda: app._exit)
    finally:
        gate.set()


async def test_ctrl_c_quits(archive: Memory) -> None:
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        await browse_ready(pilot, app)
        await pilot.press("ctrl+c")
        await until(pilot, lambda: app._exit)


async def test_a_copy_under_tmux_without_passthrough_says_so(
    archive: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(actions, "tmux_clipboard", lambda: "tmux's set-clipboard is off")
    monkeypatch.setattr(actions, "tmux_buffer", lambda text: True)
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        await browse_ready(pilot, app)
        await pilot.press("y")
        await until(
            pilot, lambda: any("set-clipboard" in str(n.message) for n in app._notifications)
        )
        said = " ".join(str(n.message) for n in app._notifications)
        assert "paste buffer" in said and "e exports" in said


async def test_the_demo_says_it_is_the_demo_and_can_be_left(archive: Memory) -> None:
    app = MemtuiApp(archive, upkeep=False, demo=True)
    async with app.run_test(size=SMALL) as pilot:
        await browse_ready(pilot, app)
        assert "demo" in str(app.screen.query_one("#status-name", Static).render())
        await pilot.press("ctrl+d")
    assert app.return_value == "leave-demo"


async def test_the_main_screens_footer_shows_the_way_to_notes_signals_inferences(
    archive: Memory,
) -> None:
    """Not only in ? : n, s and i are in the footer at 80 columns, with quit, keys, search."""
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        await browse_ready(pilot, app)
        await settled(pilot)
        wanted = ("n", "s", "i", "q", "question_mark", "slash")

        def keys() -> dict[str, FooterKey]:
            return {k.key: k for k in app.screen.query(FooterKey)}

        def laid_out() -> bool:
            shown = keys()
            return all(k in shown and shown[k].region.width > 0 for k in wanted)

        # The footer is composed again when the bindings change: wait for its keys, laid
        # out (a fresh-clone run read one mounted but not yet placed).
        await until(pilot, laid_out)
        shown = keys()
        for key in wanted:
            assert shown[key].region.right <= SMALL[0], (key, shown[key].region)


async def test_the_demo_is_left_from_any_screen(archive: Memory) -> None:
    app = MemtuiApp(archive, upkeep=False, demo=True)
    async with app.run_test(size=SMALL) as pilot:
        await browse_ready(pilot, app)
        await pilot.press("n")
        await until(pilot, lambda: not isinstance(app.screen, BrowseScreen))
        await pilot.press("ctrl+d")
    assert app.return_value == "leave-demo"
    app = MemtuiApp(archive, upkeep=False)  # not the demo: nothing to leave
    async with app.run_test(size=SMALL) as pilot:
        await browse_ready(pilot, app)
        await pilot.press("ctrl+d")
        await settled(pilot)
        assert app.is_running and isinstance(app.screen, BrowseScreen)


async def test_the_demo_is_left_from_the_search_field(archive: Memory) -> None:
    """The status line says ctrl+d leaves the demo: from a field too (where it would
    delete a letter); outside the demo a field keeps its own ctrl+d."""
    app = MemtuiApp(archive, upkeep=False, demo=True)
    async with app.run_test(size=SMALL) as pilot:
        await browse_ready(pilot, app)
        await pilot.press("slash", *"export")
        await until(pilot, lambda: isinstance(app.screen, SearchScreen))
        await pilot.press("ctrl+d")
    assert app.return_value == "leave-demo"
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        await browse_ready(pilot, app)
        await pilot.press("slash", *"export", "home", "ctrl+d")
        field = app.screen.query_one("#query", Input)
        await until(pilot, lambda: field.value == "xport")
        assert app.is_running


def test_tmux_clipboard_is_none_outside_tmux(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TMUX", raising=False)
    assert actions.tmux_clipboard() is None
    assert os.environ.get("TMUX") is None


async def test_a_prompt_reads_as_typed(memory: Memory, claude_dir: Path) -> None:
    """A prompt is shown as typed, as Claude Code shows it: a pasted diff's - and + lines stay
    lines (Markdown made them bullets, run together), and `code` keeps its backticks."""
    session, cwd = "d1ff0000-0000-4000-8000-000000000001", "/home/dev/work/diffs"
    f = fm._File(claude_dir / encode_project_dir(cwd) / f"{session}.jsonl", session, cwd)
    f.user(fm._ts(0), "Why does `cart` fail?\n- total = sum(prices)\n+ total = sum(prices) + fee")
    f.claude(fm._ts(0, 5), "Because the fee is **never** added.")
    f.write()
    memory.upkeep.ingest(wait=True)
    app = MemtuiApp(memory, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_session(pilot, app, session)
        prompt, answer = (
            [strip.text.strip() for strip in block.lines(70)]
            for block in screen.query(MessageBlock)
        )
        assert prompt[1:] == [
            "Why does `cart` fail?",
            "- total = sum(prices)",
            "+ total = sum(prices) + fee",
        ]
        assert "Because the fee is never added." in answer  # Claude's answer is Markdown
