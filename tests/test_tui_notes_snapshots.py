"""The notes' screens on fixed data, dark and light (pytest-textual-snapshot): the list, a
note's view, the editor and the rules waiting for approval.

The notes are imported with fixed ids and times, the transcripts come from corpus.py with a
fixed seed, and times are shown in UTC. Update: `pytest tests/test_tui_notes_snapshots.py
--snapshot-update`, then look at the SVGs in tests/__snapshots__/.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from memtui.engine import Memory, Note
from memtui.tui.app import MemtuiApp
from memtui.tui.browse import BrowseScreen
from memtui.tui.notes import listing
from memtui.tui.notes.editor import NoteEditor
from memtui.tui.notes.listing import NotesScreen
from memtui.tui.notes.rules import RulesScreen
from memtui.tui.notes.view import NoteScreen
from tests.tui_support import settled, small_archive, until

SIZE = (120, 34)
THEMES = ["textual-dark", "textual-light"]
Snap = Callable[..., bool]


def fixed(
    i: int,
    title: str,
    body: str,
    layer: str,
    folder: str,
    tags: list[str],
    day: str,
    author: str = "person",
    status: str | None = None,
) -> Note:
    when = f"2026-{day}T10:{i:02d}:00+00:00"
    return Note(i, title, body, layer, folder, tags, when, when, author, status)


NOTES = [
    fixed(
        1,
        "Auth decisions",
        "Short-lived access tokens, **15 minutes**; refresh tokens "
        "rotate on use.\n\n- revoke the family on reuse\n- see [[Refresh token rotation]]",
        "state",
        "auth",
        ["auth", "tokens"],
        "03-02",
    ),
    fixed(
        2,
        "Refresh token rotation",
        "We rotate refresh tokens on every use, as decided in "
        "[[Auth decisions|the auth note]].\n\nOpen question: [[Token storage]].\n\n"
        "```python\nrotate(token, family=family_id)\n```",
        "past",
        "auth/tokens",
        ["auth", "tokens"],
        "09-14",
    ),
    fixed(
        3, "Release checklist", "Tag, build, sign, publish.", "past", "ops", ["release"], "10-01"
    ),
    fixed(
        4,
        "Answer in English",
        "Always answer in English, even when asked in another language.",
        "rule",
        "house",
        [],
        "11-02",
        "agent",
        "provisional",
    ),
    fixed(
        5,
        "Run ruff before commits",
        "Run `ruff check` and `ruff format` before every commit.",
        "rule",
        "house",
        ["python"],
        "11-03",
        "agent",
        "provisional",
    ),
    fixed(
        6, "Keep PRs small", "One change a PR.", "rule", "house", [], "08-20", "person", "approved"
    ),
]


@pytest.fixture(autouse=True)
def fixed_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setattr(listing, "today", lambda: "2026-11-03")  # the newest note's day
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def notes(memory: Memory, claude_dir: Path) -> Memory:
    small_archive(claude_dir)
    memory.upkeep.ingest(wait=True)
    memory.notes.import_notes(NOTES)
    return memory


def themed(theme: str, then: Callable[[Pilot[None]], object]) -> Callable:
    async def before(pilot: Pilot[None]) -> None:
        app = pilot.app
        app.theme = theme
        await until(pilot, lambda: isinstance(app.screen, BrowseScreen) and app.screen.loaded)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, NotesScreen) and bool(app.screen.notes))
        await then(pilot)  # type: ignore[misc]
        await settled(pilot)
        await pilot.pause(0.3)

    return before


async def _list(pilot: Pilot[None]) -> None:
    screen = pilot.app.screen
    await until(pilot, lambda: screen.seen is not None)


async def _view(pilot: Pilot[None]) -> None:
    table = pilot.app.screen.query_one("#note-table")
    table.move_cursor(row=table.get_row_index("2"))
    await pilot.press("enter")
    app = pilot.app
    await until(
        pilot, lambda: isinstance(app.screen, NoteScreen) and app.screen.flashbacks is not None
    )
    await pilot.press("tab")  # the first link selected: the cursor's look is in the picture


async def _editor(pilot: Pilot[None]) -> None:
    await _view(pilot)
    await pilot.press("e")
    app = pilot.app
    await until(pilot, lambda: isinstance(app.screen, NoteEditor))
    editor = app.screen
    for box in editor.query(Input):
        box.cursor_blink = False
    body = editor.query_one(TextArea)
    body.cursor_blink = False
    body.focus()
    body.move_cursor((4, 0))
    await pilot.press(*"See [[Au")
    await until(pilot, lambda: editor.picking)


async def _rules(pilot: Pilot[None]) -> None:
    await pilot.press("R")
    app = pilot.app
    await until(pilot, lambda: isinstance(app.screen, RulesScreen) and bool(app.screen.waiting))


@pytest.mark.parametrize("theme", THEMES)
def test_notes_list(notes: Memory, snap_compare: Snap, theme: str) -> None:
    app = MemtuiApp(notes, upkeep=False)
    assert snap_compare(app, terminal_size=SIZE, run_before=themed(theme, _list))


@pytest.mark.parametrize("theme", THEMES)
def test_note_view(notes: Memory, snap_compare: Snap, theme: str) -> None:
    app = MemtuiApp(notes, upkeep=False)
    assert snap_compare(app, terminal_size=SIZE, run_before=themed(theme, _view))


@pytest.mark.parametrize("theme", THEMES)
def test_note_editor(notes: Memory, snap_compare: Snap, theme: str) -> None:
    app = MemtuiApp(notes, upkeep=False)
    assert snap_compare(app, terminal_size=SIZE, run_before=themed(theme, _editor))


@pytest.mark.parametrize("theme", THEMES)
def test_rules_to_approve(notes: Memory, snap_compare: Snap, theme: str) -> None:
    app = MemtuiApp(notes, upkeep=False)
    assert snap_compare(app, terminal_size=SIZE, run_before=themed(theme, _rules))
