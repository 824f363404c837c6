"""Issue 18, forget in the TUI: from the session list, the project list, the session screen
and a note's view; asked first, run in a worker, answered with the receipt."""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.widgets import OptionList, Static

from memtui.engine import Memory
from memtui.errors import NotFound
from memtui.store.locks import file_lock
from memtui.tui import app as tui_app
from memtui.tui import settings
from memtui.tui.app import MemtuiApp, binding_ids, key_scopes
from memtui.tui.browse import BrowseScreen, ProjectList, SessionList
from memtui.tui.forget import ForgetReceipt
from memtui.tui.forms import Confirm
from memtui.tui.notes import flows
from memtui.tui.notes.listing import NotesScreen, NoteTable
from memtui.tui.notes.view import NoteScreen
from memtui.tui.session import MessageBlock, SessionScreen
from tests import first_minute as fm
from tests.tui_support import settled, until

SMALL = (80, 24)
IDE_WORDS = "shipping fee"  # only in the IDE session


@pytest.fixture(autouse=True)
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "config" / "memtui"


@pytest.fixture
def archive(memory: Memory, claude_dir: Path) -> Iterator[Memory]:
    fm.build(claude_dir)
    memory.upkeep.ingest(wait=True)
    yield memory


async def browse_ready(pilot, app: MemtuiApp) -> BrowseScreen:  # type: ignore[no-untyped-def]
    browse = app.screen
    assert isinstance(browse, BrowseScreen)
    await until(pilot, lambda: browse.loaded and bool(browse.query_one(SessionList).row_count))
    await settled(pilot)  # the start's second read lands first
    await pilot.pause()
    return browse


def listed(browse: BrowseScreen) -> set[str]:
    return {s.session_id for s in browse.query_one(SessionList).sessions}


def found(memory: Memory, words: str) -> set[str]:
    return {r.session_id for r in memory.history.search(words, "fts", limit=20).results}


async def highlight_session(pilot, browse: BrowseScreen, session_id: str) -> None:  # type: ignore[no-untyped-def]
    listing = browse.query_one(SessionList)
    listing.focus()
    listing.highlighted = [s.session_id for s in listing.sessions].index(session_id)
    await pilot.pause()


async def receipt_shown(pilot, app: MemtuiApp) -> ForgetReceipt:  # type: ignore[no-untyped-def]
    await until(
        pilot, lambda: isinstance(app.screen, ForgetReceipt) and app.screen.query("#receipt")
    )
    screen = app.screen
    assert isinstance(screen, ForgetReceipt)
    return screen


def shown_text(screen: ForgetReceipt) -> str:
    return str(screen.query_one("#receipt", Static).render())


async def test_forget_a_session_from_the_list(archive: Memory, cfg) -> None:  # type: ignore[no-untyped-def]
    assert fm.IDE in found(archive, IDE_WORDS)
    _, messages = archive.history.session_messages(fm.IDE)
    removed = sorted([f"session:{fm.IDE}", *(f"message:{m.uuid}" for m in messages)])
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        browse = await browse_ready(pilot, app)
        await highlight_session(pilot, browse, fm.IDE)
        await pilot.press("F")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        asked = app.screen
        assert isinstance(asked, Confirm)
        assert "cart total" in asked.question and "2 messages" in asked.detail
        await pilot.press("y")
        receipt = await receipt_shown(pilot, app)
        r = receipt.receipt
        assert (r.what, r.target, r.sessions, r.messages) == ("session", fm.IDE, 1, 2)
        text = shown_text(receipt)
        assert r.sha256 in text and "messages  2" in text
        assert r.sha256 == hashlib.sha256("\n".join(removed).encode()).hexdigest()
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is browse)
        await until(pilot, lambda: fm.IDE not in listed(browse))
        assert listed(browse), "the other sessions stay"
        assert app.counts.startswith("2 projects · 5 sessions"), app.counts  # its project too
    assert fm.IDE not in found(archive, IDE_WORDS)
    assert (cfg.data_dir / "forget-receipts.jsonl").read_text().count(fm.IDE) >= 1


async def test_cancel_leaves_everything(archive: Memory, cfg) -> None:  # type: ignore[no-untyped-def]
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        browse = await browse_ready(pilot, app)
        before = listed(browse)
        await highlight_session(pilot, browse, fm.IDE)
        await pilot.press("F")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("n")
        await until(pilot, lambda: app.screen is browse)
        await pilot.pause(0.3)
        await settled(pilot)
        assert listed(browse) == before
        said = " ".join(str(n.message) for n in app._notifications)
        assert "nothing forgotten" in said
    assert fm.IDE in found(archive, IDE_WORDS)
    assert not (cfg.data_dir / "forget-receipts.jsonl").exists()


async def test_forget_a_project_from_the_project_list(archive: Memory) -> None:
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        browse = await browse_ready(pilot, app)
        projects = browse.query_one(ProjectList)
        projects.focus()
        ids = [projects.get_option_at_index(i).id for i in range(projects.option_count)]
        projects.highlighted = ids.index(fm.SHOP)
        await until(pilot, lambda: browse.project == fm.SHOP)
        await pilot.press("F")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        asked = app.screen
        assert isinstance(asked, Confirm)
        assert "shop-api" in asked.question and "4 sessions" in asked.detail
        await pilot.press("y")
        receipt = await receipt_shown(pilot, app)
        assert (receipt.receipt.what, receipt.receipt.sessions) == ("project", 4)
        await pilot.press("escape")

        def gone() -> bool:
            listing = browse.query_one("#projects", OptionList)
            ids = [listing.get_option_at_index(i).id for i in range(listing.option_count)]
            return (
                fm.SHOP not in ids
                and browse.project is None
                and listed(browse)
                == {
                    fm.INIT,
                    fm.IDE,
                }
            )

        await until(pilot, gone)
        said = " ".join(str(n.message) for n in app._notifications if n.severity == "error")
        assert not said, said
    assert not found(archive, "nightly export")


async def test_all_projects_cannot_be_forgotten(archive: Memory) -> None:
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        browse = await browse_ready(pilot, app)
        browse.query_one(ProjectList).focus()
        await pilot.pause()
        assert browse.project is None
        await pilot.press("F")
        await pilot.pause(0.2)
        assert app.screen is browse


async def test_forget_from_the_session_screen(archive: Memory) -> None:
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        browse = await browse_ready(pilot, app)
        screen = SessionScreen(fm.MIXED)
        app.push_screen(screen)
        await until(pilot, lambda: screen.info is not None and bool(screen.query(MessageBlock)))
        await pilot.press("F")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("y")
        await receipt_shown(pilot, app)
        assert screen not in app.screen_stack, "the forgotten session's screen is closed"
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is browse and fm.MIXED not in listed(browse))
    assert not found(archive, "nightly export")


async def test_forget_a_note_from_its_view(archive: Memory) -> None:
    saved = archive.notes.save(
        "Cart fee rule", "Shipping is a line of its own.", "past", by="person"
    )
    note_id = saved.note.id
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        await browse_ready(pilot, app)
        flows.open_note(app, note_id)
        await until(
            pilot, lambda: isinstance(app.screen, NoteScreen) and app.screen.detail is not None
        )
        await pilot.press("F")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        asked = app.screen
        assert isinstance(asked, Confirm) and "Cart fee rule" in asked.question
        await pilot.press("y")
        receipt = await receipt_shown(pilot, app)
        assert (receipt.receipt.what, receipt.receipt.notes) == ("note", 1)
        assert isinstance(app.screen_stack[-2], BrowseScreen), "the view closed beneath"
        await pilot.pause(0.3)
        await settled(pilot)
        said = [str(n.message) for n in app._notifications]
        assert not any("forgetting" in m for m in said), "the notice covered the receipt"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, BrowseScreen))
        await pilot.pause(0.3)
        await settled(pilot)
        said = [str(n.message) for n in app._notifications]
        assert not any("NOT_FOUND" in m for m in said), said
    with pytest.raises(NotFound):
        archive.notes.get(note_id)


class Told(MemtuiApp):
    """The app, keeping every notice it was told to show (the receipt clears the toasts)."""

    CSS_PATH = str(Path(tui_app.__file__).with_name(MemtuiApp.CSS_PATH))

    def __init__(self, memory: Memory, upkeep: bool) -> None:
        super().__init__(memory, upkeep=upkeep)
        self.said: list[str] = []

    def notify(self, message: str, **options: Any) -> None:
        self.said.append(message)
        super().notify(message, **options)


async def test_forget_a_note_opened_from_the_notes_list(archive: Memory) -> None:
    """Back to the list the note came from, with no error about the note that is gone."""
    archive.notes.save("Cart fee rule", "Shipping is a line of its own.", "past", by="person")
    archive.notes.save("Other", "Links to [[Cart fee rule]].", "state", by="person")
    app = Told(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        await browse_ready(pilot, app)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, NotesScreen) and bool(app.screen.notes))
        listing = app.screen
        assert isinstance(listing, NotesScreen)
        table = listing.query_one(NoteTable)
        key = next(k for k, n in listing.notes.items() if n.title == "Cart fee rule")
        table.move_cursor(row=table.get_row_index(key))
        table.focus()
        await pilot.press("enter")
        await until(
            pilot, lambda: isinstance(app.screen, NoteScreen) and app.screen.detail is not None
        )
        await pilot.press("F")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("y")
        await receipt_shown(pilot, app)
        assert app.screen_stack[-2] is listing
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is listing)
        await until(pilot, lambda: [n.title for n in listing.notes.values()] == ["Other"])
        await pilot.pause(0.3)
        await settled(pilot)
        assert not any("NOT_FOUND" in m for m in app.said), app.said


async def test_the_screen_answers_while_a_forget_waits(archive: Memory, cfg) -> None:  # type: ignore[no-untyped-def]
    """A forget waits for the writer's lock (an index batch): the keys go on working."""
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        browse = await browse_ready(pilot, app)
        await highlight_session(pilot, browse, fm.IDE)
        listing = browse.query_one(SessionList)
        with file_lock(cfg.data_dir / "ingest.lock"):
            app.first_read.clear()  # as while the start's index runs
            await pilot.press("F")
            await until(pilot, lambda: isinstance(app.screen, Confirm))
            await pilot.press("y")
            await pilot.pause(0.3)
            at = listing.highlighted
            await pilot.press("up")
            assert listing.highlighted == (at or 0) - 1 or at == 0, "the list still moves"
            assert not isinstance(app.screen, ForgetReceipt)
            said = " ".join(str(n.message) for n in app._notifications)
            assert "waits for the index under way" in said
        app.first_read.set()
        await receipt_shown(pilot, app)


async def test_the_forget_keys_are_in_the_keys_panel_and_palette(archive: Memory) -> None:
    assert {"session.forget", "project.forget", "note.forget", "receipt.close"} <= binding_ids()
    _, problems = settings.checked_keymap({}, key_scopes())
    assert not problems
    for scope in key_scopes():
        keys = [k.strip() for b in scope for k in b.key.split(",")]
        forgets = [b for b in scope if b.id and b.id.endswith(".forget")]
        for b in forgets:
            assert keys.count(b.key) == 1, f"{b.key} does one thing beside {b.id}"
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        browse = await browse_ready(pilot, app)
        browse.query_one(SessionList).focus()
        await pilot.pause()
        titles = [c.title for c in app.get_system_commands(browse)]
        assert "Forget session" in titles
        await pilot.press("question_mark")
        await until(pilot, lambda: bool(app.screen.query("HelpPanel")))
        console = Console(file=io.StringIO(), width=200)
        for widget in app.screen.query_one("HelpPanel").query("*"):
            console.print(widget.render())
        assert "Forget session" in console.file.getvalue()  # type: ignore[attr-defined]


async def test_a_forget_by_another_process_leaves_the_lists(archive: Memory) -> None:
    """`memtui forget` in a shell (or Claude's MCP server) while the TUI runs: the session
    leaves the list once the store's watcher sees the commit, with no transcript changing."""
    app = MemtuiApp(archive, upkeep=False)
    async with app.run_test(size=SMALL) as pilot:
        browse = await browse_ready(pilot, app)
        assert fm.IDE in listed(browse)
        other = Memory(archive.config)  # another process's engine on the same data dir
        try:
            other.forget(session_id=fm.IDE, confirmed=True)
        finally:
            other.close()
        await until(pilot, lambda: fm.IDE not in listed(browse))
