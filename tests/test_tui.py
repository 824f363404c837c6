"""Pilot tests of the TUI's flows, on real transcripts, a real store and real indexes."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from textual import constants as textual_constants
from textual import events
from textual.pilot import Pilot
from textual.widgets import Input, Static

from memtui.config import Config
from memtui.engine import Memory, MessageView
from memtui.tui import actions, demo, filters, search, settings
from memtui.tui.app import MemtuiApp
from memtui.tui.browse import BrowseScreen, SessionList
from memtui.tui.format import clip_lines, marked, one_line
from memtui.tui.notes.scope import NoteHitList
from memtui.tui.results import ROWS, ResultList
from memtui.tui.search import SearchScreen
from memtui.tui.session import WINDOW, Fold, MessageBlock, MessageList, SessionScreen, matches
from tests import lines
from tests.tui_support import (
    choose_session,
    filters_fit,
    live_session,
    settled,
    small_archive,
    until,
    whole_query_answered,
)

SIZE = (140, 40)
LIVE = "7d1c2a40-0000-4000-8000-00000000beef"


@pytest.fixture(autouse=True)
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The keymap and theme live under XDG_CONFIG_HOME: never the user's own."""
    home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home / "memtui"


@pytest.fixture
def indexed(memory: Memory, claude_dir: Path, tmp_path: Path) -> Iterator[Memory]:
    small_archive(claude_dir)
    live_session(claude_dir, tmp_path / "work" / "live-project", LIVE)
    memory.upkeep.ingest(wait=True)
    yield memory


async def searched(pilot: Pilot[None], text: str) -> SearchScreen:
    """The search screen with `text` typed, once the search of all of it is done."""
    await pilot.press("slash", *text)
    screen = pilot.app.screen
    assert isinstance(screen, SearchScreen)
    await whole_query_answered(pilot)
    return screen


def tool_calls(block: MessageBlock) -> list[Fold]:
    return [f for f in block.folds if f.kind == "tool-call"]


def shown(block: MessageBlock) -> str:
    return "\n".join(line.text for line in block.lines(block.content_region.width))


async def open_session(pilot: Pilot[None], app: MemtuiApp, session_id: str) -> SessionScreen:
    await choose_session(pilot, session_id)
    await pilot.press("enter")
    await until(
        pilot, lambda: isinstance(app.screen, SessionScreen) and app.screen.info is not None
    )
    return app.screen  # type: ignore[return-value]


async def test_search_then_open_at_the_hit(indexed: Memory) -> None:
    app = MemtuiApp(indexed, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await searched(pilot, "token")
        await until(pilot, lambda: bool(screen.results))
        listing = screen.query_one("#results", ResultList)
        listing.focus()
        await pilot.press("down", "down")
        assert listing.highlighted == 2
        hit = screen.results[2]
        await until(pilot, lambda: "\n" in str(screen.query_one("#preview-text").render()))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
        session = app.screen
        await until(pilot, lambda: bool(session.query(".-hit")))
        marked = session.query_one(".-hit", MessageBlock)
        assert marked.message.session_id == hit.session_id
        assert marked.message.message_index == hit.message_index
        await pilot.pause(0.2)
        view = session.query_one(MessageList)
        top = marked.region.y - view.region.y
        assert 0 <= top < view.size.height, "the hit is on screen"


def said(screen: SearchScreen) -> str:
    return str(screen.query_one("#search-summary").render())


@pytest.mark.parametrize(("by", "page"), [("message", 30), ("session", 4)])
async def test_the_cursor_at_the_last_hit_loads_the_next_page(
    indexed: Memory, by: str, page: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The list held the first page of hits and no more (found by the new-user pass):
    reaching the last one adds the next page below it, in the order the engine pages, and
    the count line says how many it holds; at the last match, no more is asked for."""
    monkeypatch.setattr(search, "LIMIT", page)  # the small archive has 11 conversations
    word = "the"
    whole = indexed.history.search(word, "fts", limit=1000, by=by)  # type: ignore[arg-type]
    assert 2 * page < whole.total == len(whole.results) and not whole.more
    app = MemtuiApp(indexed, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await searched(pilot, word)
        await pilot.press("ctrl+o")  # full text
        if by == "session":
            await pilot.press("ctrl+g")
        await until(pilot, lambda: screen.last is not None and screen.last.mode == "fts")
        await until(pilot, lambda: screen.last is not None and screen.last.by == by)
        listing = screen.query_one(ResultList)
        assert len(listing.hits) == page
        assert said(screen).startswith(f"{page} of {whole.total:,}")
        listing.focus()
        await pilot.press("end")
        await until(pilot, lambda: len(listing.hits) == 2 * page)
        assert listing.highlighted == page - 1, "the cursor stays on its hit"
        assert said(screen).startswith(f"{2 * page} of {whole.total:,}")
        # Steps past the last hit while the next page loads are taken once it is in (they
        # were lost: the cursor stopped at the old page's end).
        await pilot.press("end", "down", "down", "down")
        await until(pilot, lambda: len(listing.hits) >= min(3 * page, whole.total))
        await until(pilot, lambda: listing.highlighted == min(2 * page + 2, whole.total - 1))
        while len(listing.hits) < whole.total:
            held = len(listing.hits)
            await pilot.press("end")
            await until(pilot, lambda: len(listing.hits) > held)  # noqa: B023
        keys = [(h.session_id, h.message_index) for h in listing.hits]
        assert keys == [(h.session_id, h.message_index) for h in whole.results]
        await pilot.press("end")
        await settled(pilot)
        assert len(listing.hits) == whole.total
        ends = f"{whole.total} conversations" if by == "session" else f"{whole.total} listed"
        assert said(screen).startswith(f"{ends} · "), said(screen)


async def test_one_key_lists_conversations_each_opening_at_its_best_hit(indexed: Memory) -> None:
    """Issue 26: "which conversation was it?" from the search screen. ctrl+g (in the footer)
    switches the list between messages and the conversations they are in."""
    app = MemtuiApp(indexed, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await searched(pilot, "refresh token")
        shown = [b.binding for b in screen.active_bindings.values() if b.binding.show]
        assert any(b.id == "search.by" and b.key == "ctrl+g" for b in shown)
        messages = screen.query_one(ResultList)
        last_hit = messages.hits[-1]  # the cursor stays in its conversation (new-user pass)
        messages.highlighted = len(messages.hits) - 1
        await pilot.press("ctrl+g")
        await whole_query_answered(pilot)
        await until(pilot, lambda: screen.last is not None and screen.last.by == "session")
        held = messages.current()
        assert held is not None and held.session_id == last_hit.session_id
        messages.highlighted = 0
        assert str(screen.query_one("#scope").render()) == "conversations"
        response, listing = screen.last, screen.query_one(ResultList)
        sessions = [h.session_id for h in listing.hits]
        assert len(sessions) == len(set(sessions)) > 1, "a conversation once"
        assert said(screen).startswith(f"{response.total} conversations · ")
        second = response.sessions[1]
        rows = [line.plain for line in listing._rows(1, 200)]
        assert rows[0] == second.session.title
        assert f"{second.session.message_count} msgs, {second.matches} hit" in rows[1]
        listing.focus()
        await pilot.press("down", "enter")
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
        opened = app.screen
        assert (opened.session_id, opened.at) == (
            second.session.session_id,
            listing.hits[1].message_index,
        )
        await until(pilot, lambda: bool(opened.query(".-hit")))
        # n and N step through the search's other hits in it, from the one opened.
        await until(pilot, lambda: len(opened.hits) > 1)
        at = opened.hit
        assert opened.query_one(MessageList).messages[opened.hits[at]].message_index == opened.at
        await pilot.press("n")
        await until(pilot, lambda: opened.hit == (at + 1) % len(opened.hits))
        title = str(opened.query_one("#session-title", Static).render())
        assert f"hit {opened.hit + 1}/{len(opened.hits)}" in title
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)
        await pilot.press("ctrl+g")
        await whole_query_answered(pilot)
        await until(pilot, lambda: screen.last is not None and screen.last.by == "message")
        assert str(screen.query_one("#scope").render()) == "messages"
        assert not listing.conversations and len(listing.hits) > len(sessions)
        back = listing.current()
        assert back is not None and back.session_id == second.session.session_id


async def test_nothing_matched_says_so_and_labels_the_nearest(indexed: Memory) -> None:
    """Issue 26: a search that matched nothing listed the nearest by meaning as if found
    (and the notes scope every note). Now `no matches`, then the nearest under a label that
    says they are not matches, for messages, conversations and notes alike."""
    indexed.notes.save("Refresh token rotation", "Rotate on every use.", "past", by="person")
    indexed.notes.save("Kitchen tiles", "Green tiles behind the sink.", "past", by="person")
    app = MemtuiApp(indexed, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await searched(pilot, "zebra giraffe savanna")
        await until(pilot, lambda: screen.last is not None)
        label, listing = screen.query_one("#nearest"), screen.query_one(ResultList)
        assert said(screen).startswith("no matches · 0 full-text matches · 0 near in meaning")
        assert label.display and "not matches" in str(label.render())
        assert listing.hits == screen.last.nearest and listing.hits
        await pilot.press("ctrl+g")  # by conversation: the same
        await whole_query_answered(pilot)
        await until(pilot, lambda: screen.last is not None and screen.last.by == "session")
        assert said(screen).startswith("no matches") and label.display and listing.hits
        await pilot.press("ctrl+o")  # full text: no nearest to give, no label
        await whole_query_answered(pilot)
        await until(pilot, lambda: screen.last is not None and screen.last.mode == "fts")
        assert said(screen) == "no matches · 0 full-text matches · full text"
        assert not label.display and not listing.hits
        await pilot.press("ctrl+o", "ctrl+o", "ctrl+t")  # hybrid again; notes
        await whole_query_answered(pilot)
        notes, note_label = screen.query_one(NoteHitList), screen.query_one("#note-nearest")
        await until(pilot, lambda: screen.last_notes is not None)
        assert said(screen).startswith("no matches · ")
        assert note_label.display and not label.display
        assert [h.note.title for h in notes.hits] == [
            h.note.title for h in screen.last_notes.nearest
        ]
        query = screen.query_one("#query", Input)
        query.value = "refresh token"
        await whole_query_answered(pilot)
        # the answer to this query, not the last one's (still on screen until it comes)
        await until(pilot, lambda: said(screen).startswith("1 note found"))
        assert [h.note.title for h in notes.hits] == ["Refresh token rotation"]
        assert said(screen).startswith("1 note found") and not note_label.display


async def test_a_click_on_a_hit_opens_its_session(indexed: Memory) -> None:
    app = MemtuiApp(indexed, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await searched(pilot, "token")
        await until(pilot, lambda: len(screen.results) > 1)
        listing = screen.query_one(ResultList)
        await pilot.click(listing, offset=(5, ROWS + 1))  # the second hit's snippet
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
        assert app.screen.session_id == screen.results[1].session_id
        assert app.screen.at == screen.results[1].message_index


async def test_the_cursor_keeps_its_hit_when_the_same_query_runs_again(indexed: Memory) -> None:
    app = MemtuiApp(indexed, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await searched(pilot, "token")
        listing = screen.query_one(ResultList)
        listing.focus()
        await pilot.press("down", "down")

        def place() -> tuple[str, int] | None:
            hit = listing.current()
            return None if hit is None else (hit.session_id, hit.message_index)

        kept = place()
        screen.last = None
        screen._fire()  # what new messages in the archive do
        await until(pilot, lambda: screen.last is not None)
        assert place() == kept, "the reader keeps their place"
        screen.action_cycle_mode()  # the same words in full text: a new query
        await whole_query_answered(pilot)
        assert screen.last is not None and screen.last.mode == "fts"
        found = [(r.session_id, r.message_index) for r in listing.hits]
        assert kept in found[1:], "the hit is among the new results..."
        assert listing.highlighted == 0, "...but a new query starts at the top"


async def test_keys_sent_together_go_where_the_key_before_them_moved_the_focus(
    indexed: Memory,
) -> None:
    """Found by break-it passes: a burst of `down` from the query box took one step; letters
    sent right behind `down`, `up` from the first hit or ctrl+l went to where the focus had
    been (`down j j` added `jj` to the query; `C-l quota` from the hits quit on its `q`); and
    ctrl+l's select-all outlived a trip to the hits, so the next key replaced the query."""

    async def burst(*keys: str) -> None:  # queued at once, as a held key or a paste sends
        for key in keys:
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        await pilot.pause(0.3)

    app = MemtuiApp(indexed, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await searched(pilot, "token")
        await until(pilot, lambda: len(screen.results) > 3)
        listing, box = screen.query_one(ResultList), screen.query_one("#query", Input)
        await burst("down", "down", "down")
        assert listing.has_focus and listing.highlighted == 2
        await burst("home", "up", "s")
        assert box.has_focus and box.value == "tokens"
        await burst("down", "j", "j")
        assert listing.has_focus and listing.highlighted == 2 and box.value == "tokens"
        await burst("ctrl+l", "q", "u", "o", "t", "a")
        assert app.is_running and box.has_focus and box.value == "quota"
        await burst("ctrl+l", "x", "y")
        assert box.value == "xy", "ctrl+l selects the query whole before the next key"
        await burst("ctrl+l", "r", "e", "d", "down", "j")  # a new query, then to the hits
        assert box.value == "red" and listing.has_focus
        await burst("ctrl+l", "t", "o", "k", "e", "n")
        await whole_query_answered(pilot)
        await pilot.press("ctrl+l", "down", "home", "up", "s")
        assert box.value == "tokens", "a key after the trip adds to the query, not replaces it"
        await pilot.press("ctrl+l", "backspace")
        await until(pilot, lambda: not screen.results)
        await burst("down", "a")
        assert box.has_focus and box.value == "a", "no hits: down stays in the box"


async def test_the_filter_row_fits_the_terminal_at_every_width(indexed: Memory) -> None:
    """Found by a break-it pass: between 70 and 74 columns the row's least widths did not
    fit, and Textual laid the `before` box out past the screen's edge; and by a new user,
    with the keys panel open at 80 columns."""
    for width in (50, 60, 69, 70, 72, 74, 75, 80, 99, 100, 160):
        assert await filters_fit(indexed, width), f"at {width} columns"
    for width in (70, 80, 100, 160):
        assert await filters_fit(indexed, width, keys=True), f"at {width}, keys shown"


async def test_both_scopes_give_the_column_to_the_list_that_found_something(
    indexed: Memory,
) -> None:
    """No notes stored: the empty notes list took half the hits column (a break-it pass)."""
    app = MemtuiApp(indexed, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", "ctrl+t", "ctrl+t", *"token")
        screen = app.screen
        assert isinstance(screen, SearchScreen) and screen.scope == "both"
        await whole_query_answered(pilot)
        await until(pilot, lambda: bool(screen.results))
        await pilot.pause()
        notes, messages = screen.query_one(NoteHitList), screen.query_one(ResultList)
        assert not notes.hits and not notes.display
        assert messages.region.height == screen.query_one("#hits").region.height
        await pilot.press("down")
        assert messages.has_focus


async def test_typing_fast_runs_only_the_last_query(indexed: Memory) -> None:
    app = MemtuiApp(indexed, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", *"refresh token")
        screen = app.screen
        await until(pilot, lambda: screen.last is not None)
        await pilot.pause(0.5)
        assert screen.query_now().text == "refresh token"
        assert screen.results, "the last query found something"
        listing = screen.query_one(ResultList)
        drawn = [listing.render_line(y).text for y in range(listing.size.height)]
        assert "refresh" in "".join(drawn).lower(), "the hits are drawn"
        assert all("**" not in line for line in drawn), "marks are styled, not shown"


async def test_browse_to_a_session_and_expand_a_tool_call(indexed: Memory) -> None:
    app = MemtuiApp(indexed, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        browse = app.screen
        await until(pilot, lambda: bool(browse.sessions))

        def thinks_and_calls(session_id: str) -> bool:
            _, messages = indexed.history.session_messages(session_id)
            opening = messages[:WINDOW]
            return any(m.thinking for m in opening) and any(m.tool_calls for m in opening)

        chosen = next(s for s in browse.sessions if thinks_and_calls(s))
        session = await open_session(pilot, app, chosen)
        await until(pilot, lambda: any(tool_calls(b) for b in session.query(MessageBlock)))
        block = next(b for b in session.query(MessageBlock) if tool_calls(b))
        call = tool_calls(block)[0]
        assert not call.open
        folded_height = block.size.height
        block.scroll_visible(animate=False)
        await pilot.pause(0.1)
        padding = block.styles.padding
        await pilot.click(block, offset=(padding.left + 3, block.fold_row(call) + padding.top))
        await until(pilot, lambda: call.open and block.size.height > folded_height)
        assert call.body.splitlines()[0].strip() in shown(block)
        thinker = next(b for b in session.query(MessageBlock) if b.message.thinking)
        assert thinker.message.thinking.split()[0] not in shown(thinker), "thinking is hidden"
        await pilot.press("t")
        await until(pilot, lambda: thinker.message.thinking.split()[0] in shown(thinker))
        await pilot.press("escape")
        assert isinstance(app.screen, BrowseScreen)


async def test_find_in_a_session_and_step_through_hits(indexed: Memory) -> None:
    app = MemtuiApp(indexed, upkeep=False)
    _, messages = indexed.history.session_messages(LIVE)
    word = "the"
    expected = [
        i
        for i, m in enumerate(messages)
        if word in " ".join([m.text, m.tool_output, *(c.arg for c in m.tool_calls)]).lower()
    ]
    assert 2 <= len(expected) < len(messages)
    async with app.run_test(size=SIZE) as pilot:
        session = await open_session(pilot, app, LIVE)
        await pilot.press("slash", *word, "enter")
        await until(pilot, lambda: session.hit == 0)
        assert session.hits == expected
        first = session.query_one(".-hit", MessageBlock).message.message_index
        await pilot.press("n")
        await until(pilot, lambda: session.hit == 1)
        second = session.query_one(".-hit", MessageBlock).message.message_index
        assert second > first
        await pilot.press("N")
        await until(pilot, lambda: session.hit == 0)
        assert session.query_one(".-hit", MessageBlock).message.message_index == first
        await pilot.press("N")  # wraps to the last hit
        await until(pilot, lambda: session.hit == len(session.hits) - 1)


def folded_word(messages: list[MessageView]) -> tuple[str, int]:
    """A word whose first message is a tool's output, past what its closed fold shows."""
    for m in messages:
        out = (m.tool_output or m.text).lower() if m.kind == "tool_result" else ""
        for word in out.split():
            if not word.isalpha() or len(word) < 6 or word in one_line(out, 60).lower():
                continue
            first = next(i for i, x in enumerate(messages) if matches(x, word))
            if messages[first] is m:
                return word, m.message_index
    raise AssertionError("the corpus has a tool output with a word past its fold's title")


async def test_a_find_hit_inside_a_folded_tool_result_is_shown_open(indexed: Memory) -> None:
    """The hit lands on the fold holding it, opened; escape closes the find bar and stays
    in the session (a second escape leaves it)."""
    app = MemtuiApp(indexed, upkeep=False)
    word, index = folded_word(indexed.history.session_messages(LIVE)[1])
    async with app.run_test(size=SIZE) as pilot:
        session = await open_session(pilot, app, LIVE)
        await pilot.press("slash", *word, "enter")
        await until(pilot, lambda: session.hit == 0)
        block = session.query_one(".-hit", MessageBlock)
        assert block.message.message_index == index
        assert any(f.open for f in block.folds)
        await until(pilot, lambda: word in shown(block).lower())
        find = session.query_one("#find", Input)
        assert find.has_class("-open")
        await pilot.press("escape")  # the bar still shows what was found: it closes first
        await until(pilot, lambda: not find.has_class("-open"))
        assert app.screen is session
        await pilot.press("slash", "escape")  # in the bar: the same
        await until(pilot, lambda: not find.has_class("-open"))
        assert app.screen is session
        await pilot.press("n")  # the bar is closed: n still steps through the hits
        await until(pilot, lambda: session.hit == 1 % len(session.hits))
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, BrowseScreen))


async def test_thinking_in_a_session_without_any_says_so(indexed: Memory) -> None:
    _, messages = indexed.history.session_messages(LIVE)
    assert not any(m.thinking for m in messages)
    app = MemtuiApp(indexed, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_session(pilot, app, LIVE)
        await until(pilot, lambda: bool(app.screen.query(MessageBlock)))
        await pilot.press("t")
        await until(pilot, lambda: any("has no thinking" in n.message for n in app._notifications))


async def test_resume_runs_claude_in_the_sessions_directory(
    indexed: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "claude-ran.json"
    fake = bin_dir / "claude"
    fake.write_text(
        "#!/usr/bin/env python3\nimport json, os, sys\n"
        f"json.dump({{'argv': sys.argv[1:], 'cwd': os.getcwd()}}, open({str(record)!r}, 'w'))\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    app = MemtuiApp(indexed, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        session = await open_session(pilot, app, LIVE)
        await pilot.press("r")
        await until(pilot, record.exists)
        ran = json.loads(record.read_text())
        assert ran["argv"] == ["--resume", LIVE]
        assert ran["cwd"] == str(tmp_path / "work" / "live-project")
        assert app.screen is session, "the TUI is back where it was"


def test_resume_says_why_it_cannot(
    indexed: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    info, _ = indexed.history.session_messages(LIVE)
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    with pytest.raises(actions.CannotResume, match="not on PATH"):
        actions.resume_plan(info)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").write_text("#!/bin/sh\n")
    (bin_dir / "claude").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    assert actions.resume_plan(info).argv[1:] == ["--resume", LIVE]
    gone = replace(info, project=str(tmp_path / "deleted"))
    with pytest.raises(actions.CannotResume, match="is gone"):
        actions.resume_plan(gone)


async def test_copy_and_export_as_markdown(indexed: Memory, tmp_path: Path) -> None:
    app = MemtuiApp(indexed, upkeep=False)
    target = tmp_path / "out" / "session.md"
    async with app.run_test(size=SIZE) as pilot:
        await open_session(pilot, app, LIVE)
        await pilot.press("y")
        await until(pilot, lambda: LIVE[:8] in app.clipboard or "#" in app.clipboard)
        assert app.clipboard == indexed.history.session_markdown(LIVE)
        await pilot.press("e")
        prompt = app.screen.query_one("#prompt-input", Input)
        prompt.value = str(target)
        await pilot.press("enter")
        await until(pilot, target.exists)
    assert target.read_text() == indexed.history.session_markdown(LIVE)


@pytest.fixture
def growing(claude_dir: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A one-session archive whose transcript the test appends to: its file and its cwd."""
    cwd = tmp_path / "work" / "growing"
    return live_session(claude_dir, cwd, LIVE, messages=6), cwd


async def test_a_transcript_growing_while_its_session_is_open(
    memory: Memory, growing: tuple[Path, Path]
) -> None:
    path, cwd = growing
    app = MemtuiApp(memory)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.counts.startswith("1 project ·"))
        session = await open_session(pilot, app, LIVE)
        view = session.query_one(MessageList)
        before = len(view.messages)
        await pilot.pause(0.5)  # the watcher is in place once the first rescan ran
        from corpus import append_session_lines

        append_session_lines(path, 4, LIVE, str(cwd), seed=99)
        await until(pilot, lambda: len(view.messages) > before)
        last = view.messages[-1].message_index
        await until(pilot, lambda: bool(view.query(f"#m{last}")))
        assert session.info is not None and session.info.message_count > before - 1


async def test_search_results_follow_a_growing_transcript(
    memory: Memory, growing: tuple[Path, Path]
) -> None:
    path, cwd = growing
    app = MemtuiApp(memory)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.counts.startswith("1 project ·"))
        await pilot.press("slash", *"zanzibar", "ctrl+o")  # full text: words, not neighbours
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        await until(pilot, lambda: screen.last is not None and screen.last.mode == "fts")
        assert not screen.results, "nobody has said it yet"
        await pilot.pause(0.5)  # the watcher is in place once the first rescan ran
        line = lines.user("u-zanzibar", "book the flights to Zanzibar", LIVE, cwd=str(cwd))
        lines.write(path, line)
        await until(pilot, lambda: bool(screen.results))
        assert screen.results[0].session_id == LIVE
        listing = screen.query_one(ResultList)
        assert "Zanzibar" in "".join(listing.render_line(y).text for y in range(ROWS))


async def test_quitting_during_an_index_cancels_it_cleanly(cfg: Config, claude_dir: Path) -> None:
    small_archive(claude_dir, messages=6000)
    memory = Memory(cfg)
    try:
        app = MemtuiApp(memory)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.progress is not None and app.progress.done > 0)
            started = time.monotonic()
            await pilot.press("q")
            await until(pilot, app.upkeep_done.is_set)
            quit_in = time.monotonic() - started
        assert app.return_code == 0 or app.return_code is None
        assert quit_in < 10
        assert memory.upkeep.doctor().ok, "nothing half-written: indexes agree with the store"
        report = memory.upkeep.ingest(wait=True)
        assert report is not None and not report.cancelled
        assert memory.upkeep.doctor().ok
    finally:
        memory.close()


async def test_a_keymap_file_remaps_a_binding(indexed: Memory, config_home: Path) -> None:
    config_home.mkdir(parents=True)
    (config_home / "keymap.toml").write_text('"app.search" = "f2"\n"no.such" = "f3"\n')
    app = MemtuiApp(indexed, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        # Read while it shows: a loaded CI machine once took past its timeout to get here.
        await until(pilot, lambda: any("no.such" in n.message for n in app._notifications))
        await pilot.press("slash")
        assert isinstance(app.screen, BrowseScreen), "/ no longer opens search"
        await pilot.press("f2")
        assert isinstance(app.screen, SearchScreen)


async def test_the_theme_is_remembered(indexed: Memory, config_home: Path) -> None:
    app = MemtuiApp(indexed, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        app.theme = "textual-light"
        await pilot.pause(0.1)
    assert settings.load_theme(config_home) == "textual-light"
    again = MemtuiApp(indexed, upkeep=False)
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause(0.1)
        assert again.theme == "textual-light"


@pytest.mark.parametrize(
    ("chosen", "shown"), [("textual-light", "ansi-light"), ("nord", "ansi-dark")]
)
async def test_a_terminal_of_16_colours_shows_a_theme_in_its_ansi_kind(
    indexed: Memory, config_home: Path, monkeypatch: pytest.MonkeyPatch, chosen: str, shown: str
) -> None:
    """TERM=xterm has 16 colours: a theme's greys become white on bright white there (the
    light theme's headings and separators could not be read). Its ANSI kind is shown
    instead, and the theme chosen is the one remembered."""
    monkeypatch.setattr(textual_constants, "COLOR_SYSTEM", "standard")
    monkeypatch.setattr(MemtuiApp, "is_headless", property(lambda _: False))  # a terminal
    app = MemtuiApp(indexed, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.1)
        assert app.has_class("-theme-ansi-dark"), "the default theme, from the start"
        app.theme = chosen
        await pilot.pause(0.1)
        assert app.current_theme.name == shown and app.has_class(f"-theme-{shown}")
        assert app.theme == chosen
    assert settings.load_theme(config_home) == chosen
    monkeypatch.setattr(textual_constants, "COLOR_SYSTEM", "truecolor")
    full = MemtuiApp(indexed, upkeep=False)
    async with full.run_test(size=SIZE) as pilot:
        await pilot.pause(0.1)
        assert full.current_theme.name == chosen, "in more colours, the theme as chosen"


async def test_the_palette_offers_the_screens_actions(indexed: Memory) -> None:
    app = MemtuiApp(indexed, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_session(pilot, app, LIVE)
        commands = [c.title for c in app.get_system_commands(app.screen)]
        assert {"Resume", "Copy", "Export", "Find", "Quit", "Keys"} <= set(commands)
        assert len(commands) == len(set(commands)), "no action twice (issue 17)"
        await pilot.press("question_mark")
        assert app.screen.query("HelpPanel")


async def test_the_cursors_hit_stays_on_screen_when_the_terminal_shrinks(indexed: Memory) -> None:
    """Found by the new-user pass: at 160x48 on hit 12, then 80x24, the hit was below the list
    until the cursor moved."""
    app = MemtuiApp(indexed, upkeep=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await searched(pilot, "the")
        listing = screen.query_one(ResultList)
        await until(pilot, lambda: len(listing.hits) > 12)
        listing.focus()
        await pilot.press(*["down"] * 12)
        assert listing.highlighted == 12
        await pilot.resize_terminal(80, 24)

        def in_view() -> bool:
            top = int(listing.scroll_y)
            return top <= 12 * ROWS and top + listing.scrollable_content_region.height >= 13 * ROWS

        await until(pilot, in_view)


async def test_escape_closes_the_keys_panel_before_it_leaves_a_screen(indexed: Memory) -> None:
    """With the keys panel open on the search screen, escape closed the screen and lost the
    query (found by the new-user pass); now it closes the panel, and then goes back."""
    app = MemtuiApp(indexed, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await searched(pilot, "token")
        await pilot.press("down", "question_mark")  # from the results (the box takes a ?)
        await until(pilot, lambda: bool(screen.query("HelpPanel")))
        await pilot.press("escape")
        await until(pilot, lambda: not screen.query("HelpPanel"))
        assert app.screen is screen and screen.query_one("#query", Input).value == "token"
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is not screen)


async def test_the_lists_offer_no_sideways_keys(indexed: Memory) -> None:
    """The keys panel lists what works: the sessions and results lists never scroll
    sideways, so ScrollView's left, right and ctrl+page keys are not theirs."""
    app = MemtuiApp(indexed, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        sessions = app.screen.query_one(SessionList)
        await until(pilot, lambda: bool(sessions.row_count))
        results = (await searched(pilot, "refresh token")).query_one(ResultList)
        for listing in (sessions, results):
            actions = {b.action for _, b in listing._bindings}
            assert {"move(1)", "open"} <= actions
            assert not {"scroll_left", "scroll_right", "page_left", "page_right"} & actions


async def test_an_empty_archive_says_where_it_looked_and_offers_the_demo(
    memory: Memory, claude_dir: Path
) -> None:
    app = MemtuiApp(memory)
    async with app.run_test(size=SIZE) as pilot:
        browse = app.screen
        await until(pilot, lambda: browse.loaded and app.progress is None)
        await until(pilot, lambda: "d to open" in str(browse.query_one("#empty").render()))
        assert str(claude_dir) in str(browse.query_one("#empty").render())
        await pilot.press("d")
    assert app.return_value == "demo"


def test_the_demo_archive_unpacks_into_a_throwaway_dir(cfg: Config) -> None:
    demo_cfg, scratch = demo.prepare(cfg)
    try:
        assert demo_cfg.data_dir != cfg.data_dir and scratch in demo_cfg.data_dir.parents
        transcripts = list(demo_cfg.claude_dir.rglob("*.jsonl"))
        assert len(transcripts) >= 10
        with Memory(demo_cfg) as memory:
            memory.upkeep.ingest(demo_cfg.claude_dir, index=False)
            assert len(memory.history.list_projects()) >= 3
    finally:
        import shutil

        shutil.rmtree(scratch)


async def test_a_long_session_jumps_and_scrolls_without_mounting_it_all(
    memory: Memory, claude_dir: Path, tmp_path: Path
) -> None:
    long_id = "10000000-0000-4000-8000-000000000300"
    live_session(claude_dir, tmp_path / "work" / "long", long_id, messages=300)
    memory.upkeep.ingest(wait=True, index=False)
    app = MemtuiApp(memory, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        session = await open_session(pilot, app, long_id)
        view = session.query_one(MessageList)
        await until(pilot, lambda: bool(view.query(MessageBlock)))
        assert len(view.messages) >= 300
        # keys as a terminal delivers them, no waiting between: jumps race the grows that
        # the scrolling starts
        for key in ["G", "g", "pagedown", "pagedown", "G", "pageup", "g", "end", "G"] * 3:
            app.post_message(events.Key(key, key if len(key) == 1 else None))
            await asyncio.sleep(0.01)
        await pilot.pause(1.0)
        shown = [b.message.message_index for b in view.query(MessageBlock)]
        assert shown == sorted(set(shown)), "each message once, in order"
        assert len(shown) == view.end - view.start < len(view.messages) / 2


@pytest.mark.parametrize("width", [8, 20, 41])
def test_a_result_snippet_is_cut_to_fixed_lines(width: int) -> None:
    snippet = marked("**refresh** the token rotation breaks when the clock skews; 日本語 " * 4)
    lines = clip_lines(snippet, width, 2)
    assert len(lines) == 2
    assert all(line.cell_len <= width for line in lines)
    assert lines[-1].plain.endswith("…"), "what does not fit is marked as cut"
    assert any(span.style for span in lines[0].spans), "marked words keep their style"
    assert clip_lines(marked("short"), width, 2)[0].plain == "short"[:width]


@pytest.mark.parametrize("listing", ["sessions", "results"])
async def test_the_lists_keys_and_wheel_work_with_only_their_own_bindings(
    memory: Memory, claude_dir: Path, listing: str
) -> None:
    """inherit_bindings=False drops ScrollView's keys: the lists' own up, down, page, home,
    end (and g, G for sessions) and enter must still move and open, and the wheel scroll."""
    folder = claude_dir / "-home-dev-many"
    for n in range(60):
        session = f"5e55{n:04d}-0000-4000-8000-000000000000"
        ts = f"2027-01-01T{n // 60:02d}:{n % 60:02d}:00.000Z"
        lines.write(
            folder / f"{session}.jsonl",
            lines.user(f"m{n}", f"quokka number {n}", session, ts, "/home/dev/many"),
        )
    memory.upkeep.ingest(wait=True)
    app = MemtuiApp(memory, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        if listing == "sessions":
            view: SessionList | ResultList = app.screen.query_one(SessionList)
            await until(pilot, lambda: view.row_count == 60)
            count, top, bottom = 60, ("home", "g"), ("end", "G")
        else:
            view = (await searched(pilot, "quokka")).query_one(ResultList)
            await until(pilot, lambda: len(view.hits) > 20)
            count, top, bottom = len(view.hits), ("home",), ("end",)
        view.focus()
        view.highlighted = 0
        await pilot.press("down", "down", "j")
        assert view.highlighted == 3
        await pilot.press("up", "k")
        assert view.highlighted == 1
        await pilot.press("pagedown")
        paged = view.highlighted
        assert paged is not None and paged > 5
        await pilot.press("pageup")
        assert view.highlighted == 1
        for first, last in zip(top, bottom, strict=True):
            await pilot.press(last)
            assert view.highlighted == count - 1
            assert view.scroll_y > 0, "the cursor is kept on screen"
            await pilot.press(first)
            assert (view.highlighted, view.scroll_y) == (0, 0)
        await pilot._post_mouse_events([events.MouseScrollDown], view, offset=(5, 2))
        assert view.scroll_y > 0, "the wheel scrolls"
        await pilot._post_mouse_events([events.MouseScrollUp], view, offset=(5, 2))
        assert view.scroll_y == 0
        await pilot.press("down", "enter")
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))


def test_a_date_box_means_a_day_in_the_persons_time_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by a break-it pass: the boxes cut days in UTC while the hits are listed in local
    time (after 2025-09-04 listed hits of 2025-09-03 in Los Angeles)."""
    monkeypatch.setenv("TZ", "America/Los_Angeles")
    time.tzset()
    try:
        assert filters.local_moment("2025-09-04") == "2025-09-04T00:00:00-07:00"
        assert filters.local_moment("2025-09-04T14:00") == "2025-09-04T14:00:00-07:00"
        assert filters.local_moment("2025-09-04T14:00Z") == "2025-09-04T14:00:00+00:00"
        assert filters.local_moment("2025-") == "2025-"  # not a date yet: the box says so
        assert filters.local_moment("0001-01-01") == "0001-01-01"  # the calendar's edge: as is
    finally:
        monkeypatch.undo()
        time.tzset()
