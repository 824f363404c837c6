"""Pilot tests of the notes in the TUI, each write checked in the engine afterwards: the
real store, indexes and model, as the person (no guards) beside Claude (an agent)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from rich.markdown import Markdown
from textual import events
from textual.coordinate import Coordinate
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Select, Static, TextArea

from memtui.engine import Memory, Note, NotFound
from memtui.tui.app import MemtuiApp, binding_ids
from memtui.tui.browse import BrowseScreen
from memtui.tui.forms import Confirm
from memtui.tui.notes import capture
from memtui.tui.notes.dialogs import SimilarNotes
from memtui.tui.notes.editor import NoteEditor
from memtui.tui.notes.listing import FilterList, NotesArea, NotesScreen, NoteTable
from memtui.tui.notes.rules import RulesScreen
from memtui.tui.notes.scope import NoteHitList
from memtui.tui.notes.text import NoteText
from memtui.tui.notes.view import NoteScreen
from memtui.tui.results import ResultList
from memtui.tui.search import SearchScreen
from memtui.tui.session import MessageBlock, SessionScreen
from tests import lines
from tests.tui_support import settled, small_archive, until, whole_query_answered

SIZE = (120, 36)
ROTATION_BODY = "We rotate refresh tokens on every use, see [[Auth decisions]] and [[Later page]]."


@pytest.fixture(autouse=True)
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home / "memtui"


@pytest.fixture
def noted(memory: Memory) -> Iterator[Memory]:
    """Three notes of the person's, linked, in two folders; one rule saved by Claude."""
    n = memory.notes
    n.save(
        "Auth decisions",
        "Short-lived access tokens.",
        "state",
        by="person",
        folder="auth",
        tags=["auth"],
    )
    n.save(
        "Refresh token rotation",
        ROTATION_BODY,
        "past",
        by="person",
        folder="auth/tokens",
        tags=["auth", "tokens"],
    )
    n.save("Release checklist", "Tag, build, publish.", "past", by="person", folder="ops")
    n.save(
        "Always run ruff",
        "Run `ruff check` before every commit.",
        "rule",
        by="agent",
        folder="house",
    )
    yield memory


@pytest.fixture
def archived(noted: Memory, claude_dir: Path) -> Memory:
    small_archive(claude_dir, messages=120)
    noted.upkeep.ingest(wait=True)
    return noted


def note_id(memory: Memory, title: str) -> int:
    return next(n.id for n in memory.notes.list(limit=1000) if n.title == title)


async def notes_screen(pilot: Pilot[None]) -> NotesScreen:
    await pilot.press("n")
    app = pilot.app
    await until(pilot, lambda: isinstance(app.screen, NotesScreen))
    screen = app.screen
    assert isinstance(screen, NotesScreen)
    await until(pilot, lambda: bool(screen.notes) and screen.seen is not None)
    return screen


async def open_note(pilot: Pilot[None], title: str) -> NoteScreen:
    screen = await notes_screen(pilot)
    key = next(k for k, n in screen.notes.items() if n.title == title)
    table = screen.query_one(NoteTable)
    table.move_cursor(row=table.get_row_index(key))
    table.focus()
    await pilot.press("enter")
    return await note_view(pilot, title)


async def note_view(pilot: Pilot[None], title: str) -> NoteScreen:
    app = pilot.app

    def shown() -> bool:
        s = app.screen
        return isinstance(s, NoteScreen) and s.detail is not None and s.detail.note.title == title

    await until(pilot, shown)
    return app.screen  # type: ignore[return-value]


def text_of(screen: NoteScreen) -> str:
    text = screen.query_one(NoteText)
    return "\n".join("".join(s.text for s in line) for line in text._lines)


async def save_and_keep(pilot: Pilot[None], title: str) -> NoteScreen:
    """Save the editor's new note; if the engine finds similar notes, keep it anyway."""
    app = pilot.app
    await pilot.press("ctrl+s")

    def answered() -> bool:
        s = app.screen
        return isinstance(s, SimilarNotes) or (
            isinstance(s, NoteScreen) and s.detail is not None and s.detail.note.title == title
        )

    await until(pilot, answered, timeout=60)
    if isinstance(app.screen, SimilarNotes):
        await pilot.press("k")
    return await note_view(pilot, title)


async def set_body(pilot: Pilot[None], editor: NoteEditor, body: str) -> None:
    area = editor.query_one("#note-body", TextArea)
    area.text = body
    await pilot.pause()


async def test_the_sidebar_counts_notes_and_the_rules_waiting(noted: Memory) -> None:
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        area = app.screen.query_one(NotesArea)
        listing = area.query_one(OptionList)
        await until(pilot, lambda: listing.option_count == 2)
        shown = [str(listing.get_option_at_index(i).prompt) for i in range(2)]
        assert shown == ["All notes  4", "Rules to approve  1"]
        listing.focus()
        listing.highlighted = 1
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, RulesScreen))


async def test_folders_tags_and_layers_filter_the_list(noted: Memory) -> None:
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await notes_screen(pilot)
        titles = [n.title for n in screen.notes.values()]
        assert titles[0] == "Always run ruff" and len(titles) == 4, "newest first"
        filters = screen.query_one(FilterList)
        shown = {o.id: str(o.prompt) for o in filters.options if o.id}
        # a folder counts the notes under it too, as choosing it lists them
        assert shown["folder:auth"] == "auth  2" and shown["tag:auth"] == "#auth  2"
        assert shown["layer:past"] == "past  2"
        for option, expected in [
            ("folder:auth", {"Auth decisions", "Refresh token rotation"}),  # and its subfolders
            ("tag:tokens", {"Refresh token rotation"}),
            ("layer:rule", {"Always run ruff"}),
        ]:
            filters.focus()
            filters.highlighted = [o.id for o in filters.options].index(option)
            await pilot.press("enter")
            await until(pilot, lambda e=expected: {n.title for n in screen.notes.values()} == e)


async def test_folders_show_as_a_tree_and_todays_notes_with_their_time(noted: Memory) -> None:
    for run in ("run1", "run2"):
        noted.notes.save(f"perf {run}", "numbers", "past", by="person", folder=f"perf/{run}")
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await notes_screen(pilot)
        filters = screen.query_one(FilterList)
        folders = [
            (o.id, str(o.prompt)) for o in filters.options if (o.id or "").startswith("folder:")
        ]
        assert folders == [
            ("folder:auth", "auth  2"),
            ("folder:auth/tokens", "  tokens  1"),
            ("folder:house", "house  1"),
            ("folder:ops", "ops  1"),
            ("folder:perf", "perf  2"),
            ("folder:perf/run1", "  run1  1"),
            ("folder:perf/run2", "  run2  1"),
        ]
        table = screen.query_one(NoteTable)
        today = datetime.now().astimezone().strftime("%H:%M")
        updated = str(table.get_cell_at(Coordinate(0, 0)))
        assert updated.startswith("today ") and updated[6:] <= today
        filters.focus()
        filters.highlighted = [o.id for o in filters.options].index("folder:perf")
        await pilot.press("enter")
        await until(
            pilot, lambda: {n.title for n in screen.notes.values()} == {"perf run1", "perf run2"}
        )


async def test_a_note_shows_its_links_backlinks_and_opens_a_link(noted: Memory) -> None:
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_note(pilot, "Refresh token rotation")
        text = view.query_one(NoteText)
        assert [t.label for t in text.targets] == ["Auth decisions", "Later page"]
        assert text.targets[1].missing, "a link to no note is dangling"
        body = text_of(view)
        assert "[[" not in body and "Auth decisions" in body
        assert text.current is None, "nothing is selected before the first tab"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is view, "enter with nothing selected opens nothing"
        await pilot.press("tab")
        assert text.current == 0, "the first tab selects the first link"
        await pilot.press("enter")
        auth = await note_view(pilot, "Auth decisions")
        assert "Referenced by (1)" in text_of(auth)
        back = auth.query_one(NoteText)
        assert [t.label for t in back.targets] == ["Refresh token rotation"]
        await pilot.press("tab", "enter")  # the backlink
        await note_view(pilot, "Refresh token rotation")
        await pilot.press("escape", "escape")
        await note_view(pilot, "Refresh token rotation")


async def test_a_dangling_link_offers_to_write_that_note(noted: Memory) -> None:
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_note(pilot, "Refresh token rotation")
        await pilot.press("tab", "tab", "enter")  # the second link: Later page
        await until(pilot, lambda: isinstance(app.screen, NoteEditor))
        editor = app.screen
        assert editor.query_one("#note-title", Input).value == "Later page"
        await set_body(pilot, editor, "Written from the link.")
        await save_and_keep(pilot, "Later page")
        rotation = noted.notes.get(note_id(noted, "Refresh token rotation"))
        assert [link.note_id is not None for link in rotation.links] == [True, True]


async def test_write_a_note_with_a_link_offered_after_brackets(noted: Memory) -> None:
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        editor = await new_note(pilot, app)
        assert isinstance(editor, NoteEditor)
        await pilot.press(*"Deploy freeze")
        editor.query_one("#note-layer", Select).value = "state"
        editor.query_one("#note-folder", Input).value = "ops"
        editor.query_one("#note-tags", Input).value = "release #freeze"
        editor.query_one("#note-body", TextArea).focus()
        await pilot.press(*"No deploys on Friday; see [[rel")
        await until(pilot, lambda: editor.picking)
        picker = editor.query_one("#link-picker", OptionList)
        assert str(picker.get_option_at_index(0).prompt) == "Release checklist"
        await pilot.press("enter")
        assert not editor.picking
        await pilot.press(*" first.")
        assert editor.query_one("#note-body", TextArea).text == (
            "No deploys on Friday; see [[Release checklist]] first."
        )
        view = await save_and_keep(pilot, "Deploy freeze")
        saved = view.detail.note  # type: ignore[union-attr]
        stored = noted.notes.get(saved.id)
        assert stored.note.layer == "state" and stored.note.folder == "ops"
        assert stored.note.tags == ["release", "freeze"] and stored.note.author == "person"
        assert [(x.target, x.note_id) for x in stored.links] == [
            ("Release checklist", note_id(noted, "Release checklist"))
        ]


async def new_note(pilot: Pilot[None], app: MemtuiApp) -> NoteEditor:
    """The editor of a new note, from the notes list."""
    await notes_screen(pilot)
    await pilot.press("n")
    await until(pilot, lambda: isinstance(app.screen, NoteEditor))
    assert isinstance(app.screen, NoteEditor)
    return app.screen


async def test_the_editor_says_what_the_chosen_layer_means(noted: Memory) -> None:
    """past, state and rule are memtui's words: the line under them says what each does,
    and where a state note is shown, at 80 columns."""
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=(80, 24)) as pilot:
        editor = await new_note(pilot, app)
        hint = editor.query_one("#layer-hint", Static)
        said = {}
        for layer in ("past", "state", "rule"):
            editor.query_one("#note-layer", Select).value = layer
            await until(pilot, lambda: str(hint.render()).startswith(f"{layer}: "))  # noqa: B023
            said[layer] = str(hint.render())
            assert len(said[layer]) <= 76
        assert "never rewrite" in said["past"]
        assert "project" in said["state"] and "folder" in said["state"]
        assert "every session" in said["rule"]


async def test_the_editors_hint_says_what_the_field_with_the_focus_takes(noted: Memory) -> None:
    """Tab goes title, layer, folder, tags, body; the hint under the body follows, so a person
    (and the tmux test) can see where typing will land."""
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await notes_screen(pilot)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, NoteEditor))
        hint = app.screen.query_one("#editor-hint", Static)
        said = []
        for field in ("title", "layer", "folder", "tags", "body"):
            await until(pilot, lambda: app.screen.focused.id == f"note-{field}")  # noqa: B023
            said.append(str(hint.render()))
            await pilot.press("tab")
        assert [s.split(" · ")[1] for s in said] == [
            "tab: next field",
            "enter: choose",
            "/: subfolder",
            "space: next tag",
            "[[ links a note",
        ]
        assert all(s.startswith("new note · ") and len(s) <= 76 for s in said), said


async def test_tabs_in_a_burst_leave_the_hint_on_the_field_with_the_focus(noted: Memory) -> None:
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await notes_screen(pilot)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, NoteEditor))
        await pilot.press("tab", "tab", "tab", "tab")
        await until(pilot, lambda: app.screen.focused.id == "note-body")
        await pilot.pause(0.2)
        assert "[[ links a note" in str(app.screen.query_one("#editor-hint", Static).render())


async def test_q_in_the_editor_asks_before_a_note_is_lost(noted: Memory) -> None:
    """`q` reaches the app's Quit from a field that takes no text (the layer list): with
    something written it asks, and no keeps the editor and the draft."""
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=(80, 24)) as pilot:
        editor = await new_note(pilot, app)
        await pilot.press(*"Scratch", "tab")
        await until(pilot, lambda: editor.focused.id == "note-layer")
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is editor)
        assert editor.query_one("#note-title", Input).value == "Scratch" and app.is_running
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("y")  # Quit
        await until(pilot, lambda: not app.is_running)


async def test_the_folder_and_tags_complete_from_those_in_use(noted: Memory) -> None:
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        editor = await new_note(pilot, app)
        folder = editor.query_one("#note-folder", Input)
        await until(pilot, lambda: folder.suggester is not None)
        folder.focus()
        await pilot.press(*"op")
        await until(pilot, lambda: folder._suggestion == "ops")
        await pilot.press("right")
        assert folder.value == "ops"
        tags = editor.query_one("#note-tags", Input)
        tags.focus()
        await pilot.press(*"auth tok")
        await until(pilot, lambda: tags._suggestion == "auth tokens")


async def test_edit_a_note_and_the_engine_has_it(noted: Memory) -> None:
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_note(pilot, "Release checklist")
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, NoteEditor))
        editor = app.screen
        editor.query_one("#note-title", Input).value = "Release steps"
        await set_body(pilot, editor, "Tag, build, sign, publish.")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.screen is view)
        await note_view(pilot, "Release steps")
        stored = noted.notes.get(view.note_id).note
        assert (stored.title, stored.body) == ("Release steps", "Tag, build, sign, publish.")


async def test_the_editor_starts_in_the_body_when_the_title_is_filled_in(noted: Memory) -> None:
    """e then typing writes in the body, the title kept; so does a dangling link's editor.
    A new blank note starts in its title."""
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_note(pilot, "Release checklist")
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, NoteEditor))
        editor = app.screen
        await until(pilot, lambda: editor.focused is editor.query_one("#note-body"))
        await pilot.press(*"Then ")
        assert editor.query_one("#note-title", Input).value == "Release checklist"
        assert editor.query_one("#note-body", TextArea).text == "Then Tag, build, publish."
        await pilot.press("ctrl+s")
        await note_view(pilot, "Release checklist")
        await pilot.press("escape", "escape")
        await open_note(pilot, "Refresh token rotation")
        await pilot.press("tab", "tab", "enter")  # Later page: no note has that title yet
        await until(pilot, lambda: isinstance(app.screen, NoteEditor))
        editor = app.screen
        await until(pilot, lambda: editor.focused is editor.query_one("#note-body"))
        await pilot.press(*"Soon.")
        assert editor.query_one("#note-title", Input).value == "Later page"
        assert editor.query_one("#note-body", TextArea).text == "Soon."
        await pilot.press("escape", "y")
        await until(pilot, lambda: isinstance(app.screen, NoteScreen))
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, NoteEditor))
        editor = app.screen
        await until(pilot, lambda: editor.focused is editor.query_one("#note-title"))


async def test_an_edit_of_a_note_changed_elsewhere_meanwhile_is_refused_and_kept(
    noted: Memory,
) -> None:
    """The CLI's guard, now the engine's: the editor stays open with the person's text and
    says why, and the other edit is not overwritten."""
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_note(pilot, "Release checklist")
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, NoteEditor))
        editor = app.screen
        with Memory(noted.config) as shell:  # `memtui note edit` in another terminal
            shell.notes.update(view.note_id, by="person", body="Tag, build, sign, publish.")
        await set_body(pilot, editor, "Mine: tag and publish.")
        await pilot.press("ctrl+s")
        await until(
            pilot, lambda: any("changed elsewhere" in n.message for n in app._notifications)
        )
        await settled(pilot)
        assert app.screen is editor
        assert editor.query_one("#note-body", TextArea).text == "Mine: tag and publish."
        assert noted.notes.get(view.note_id).note.body == "Tag, build, sign, publish."
        message = next(n.message for n in app._notifications if "changed elsewhere" in n.message)
        assert message.startswith("INVALID_ARGUMENT: note ")
        await pilot.press("ctrl+s")  # told, the person saves theirs over it
        await until(pilot, lambda: app.screen is view)
        assert noted.notes.get(view.note_id).note.body == "Mine: tag and publish."


async def test_a_rename_says_how_many_notes_links_it_rewrote(noted: Memory) -> None:
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_note(pilot, "Auth decisions")  # Refresh token rotation links to it
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, NoteEditor))
        app.screen.query_one("#note-title", Input).value = "Token decisions"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.screen is view)
        said = [n.message for n in app._notifications]
        assert (
            "saved 'Token decisions'; the links in 1 other note now read [[Token decisions]]"
            in said
        )


async def test_the_person_edits_a_past_note_and_a_rule(noted: Memory) -> None:
    """The guards are for agents: the person changes a past note and a rule."""
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        for title in ("Refresh token rotation", "Always run ruff"):
            view = await open_note(pilot, title)
            await pilot.press("e")
            await until(pilot, lambda: isinstance(app.screen, NoteEditor))
            await set_body(pilot, app.screen, f"{title}: changed by the person")
            await pilot.press("ctrl+s")
            await until(pilot, lambda v=view: app.screen is v)
            assert noted.notes.get(view.note_id).note.body.endswith("changed by the person")
            await pilot.press("escape", "escape")
            await until(pilot, lambda: isinstance(app.screen, BrowseScreen))


async def test_delete_asks_first(noted: Memory) -> None:
    app = MemtuiApp(noted, upkeep=False)
    gone = note_id(noted, "Auth decisions")
    async with app.run_test(size=SIZE) as pilot:
        screen = await notes_screen(pilot)
        table = screen.query_one(NoteTable)
        table.move_cursor(row=table.get_row_index(str(gone)))
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("n")
        await until(pilot, lambda: app.screen is screen)
        assert noted.notes.get(gone).note.title == "Auth decisions", "no: nothing deleted"
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("y")
        await until(pilot, lambda: str(gone) not in screen.notes)
        with pytest.raises(NotFound):
            noted.notes.get(gone)
        rotation = noted.notes.get(note_id(noted, "Refresh token rotation"))
        assert rotation.links[0].note_id is None, "the link to it is dangling now"


async def similar_dialog(pilot: Pilot[None]) -> SimilarNotes:
    app = pilot.app
    await notes_screen(pilot)
    await pilot.press("n")
    await until(pilot, lambda: isinstance(app.screen, NoteEditor))
    editor = app.screen
    editor.query_one("#note-title", Input).value = "Rotating refresh tokens"
    await set_body(pilot, editor, "We rotate refresh tokens on every use.")
    editor.query_one("#note-tags", Input).value = "rotation"
    await pilot.press("ctrl+s")
    await until(pilot, lambda: isinstance(app.screen, SimilarNotes), timeout=60)
    dialog = app.screen
    assert isinstance(dialog, SimilarNotes)
    assert dialog.similar[0].note.title == "Refresh token rotation"
    return dialog


async def test_a_similar_note_can_be_merged_into(noted: Memory) -> None:
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await similar_dialog(pilot)
        new_id = dialog.note.id
        await pilot.press("m")
        merged = await note_view(pilot, "Refresh token rotation")
        stored = noted.notes.get(merged.note_id).note
        assert stored.body.startswith(ROTATION_BODY)
        assert "## Rotating refresh tokens" in stored.body and "rotation" in stored.tags
        with pytest.raises(NotFound):
            noted.notes.get(new_id)


async def test_a_merge_that_fails_leaves_both_notes_as_they_were(noted: Memory) -> None:
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await similar_dialog(pilot)
        target = noted.notes.get(note_id(noted, "Refresh token rotation")).note
        noted.notes.delete(dialog.note.id, by="person")  # gone meanwhile (another window)
        await pilot.press("m")
        await until(pilot, lambda: any("NOT_FOUND" in n.message for n in app._notifications))
        assert noted.notes.get(target.id).note == target


async def test_a_similar_note_can_be_kept_or_opened(noted: Memory) -> None:
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await similar_dialog(pilot)
        await pilot.press("k")
        await note_view(pilot, "Rotating refresh tokens")
        assert noted.notes.get(dialog.note.id).note.title == "Rotating refresh tokens"
        assert noted.notes.count() == 5
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        await notes_screen(pilot)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, NoteEditor))
        app.screen.query_one("#note-title", Input).value = "Token rotation again"
        await set_body(pilot, app.screen, "We rotate refresh tokens on every use.")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, SimilarNotes), timeout=60)
        nearest = app.screen.similar[0].note.title
        assert nearest in ("Refresh token rotation", "Rotating refresh tokens")
        await pilot.press("o")
        await note_view(pilot, nearest)
        assert noted.notes.count() == 6, "open keeps the new note too"


async def test_an_engine_error_is_a_notification_and_the_editor_stays(noted: Memory) -> None:
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        editor = await new_note(pilot, app)
        editor.query_one("#note-title", Input).value = "Auth decisions"  # taken
        await pilot.press("ctrl+s")
        await until(pilot, lambda: any("INVALID_ARGUMENT" in n.message for n in app._notifications))
        assert app.screen is editor and noted.notes.count() == 4
        editor.query_one("#note-title", Input).value = "   "
        await pilot.press("ctrl+s")
        await until(pilot, lambda: any("title" in n.message for n in app._notifications))
        assert app.screen is editor


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("#note-tags", "auth tokens,rotation", "tags[1]"),
        ("#note-folder", "auth/../secrets", "folder"),
        ("#note-title", "[[]]", "title"),
    ],
)
async def test_bad_input_in_the_editor_is_a_coded_error_and_nothing_is_written(
    noted: Memory, field: str, value: str, named: str
) -> None:
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        editor = await new_note(pilot, app)
        editor.query_one("#note-title", Input).value = "A fine title"
        await set_body(pilot, editor, "Some text.")
        editor.query_one(field, Input).value = value
        await pilot.press("ctrl+s")

        def refused() -> bool:
            return any(
                n.message.startswith(f"INVALID_ARGUMENT: {named}") for n in app._notifications
            )

        await until(pilot, refused)
        await settled(pilot)
        await pilot.pause()
        assert app.screen is editor and not editor.saving
        assert noted.notes.count() == 4 and "A fine title" not in noted.notes.titles()


async def test_escape_with_changes_asks_before_discarding(noted: Memory) -> None:
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await notes_screen(pilot)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, NoteEditor))
        await pilot.press(*"half a thought", "escape")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("y")
        await until(pilot, lambda: app.screen is screen)
        assert noted.notes.count() == 4


async def test_rules_saved_by_claude_are_approved_edited_or_rejected(noted: Memory) -> None:
    noted.notes.save("Answer in English", "Always answer in English.", "rule", by="agent")
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await notes_screen(pilot)
        await pilot.press("R")
        await until(pilot, lambda: isinstance(app.screen, RulesScreen))
        rules = app.screen
        assert isinstance(rules, RulesScreen)
        await until(pilot, lambda: len(rules.waiting) == 2)
        first = rules._current()
        assert first is not None
        await pilot.press("a")
        await until(pilot, lambda: len(rules.waiting) == 1)
        assert noted.notes.get(first.id).note.status == "approved"
        assert first.title in noted.notes.house_rules().text
        second = rules._current()
        assert second is not None
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, NoteEditor))
        await set_body(pilot, app.screen, "Run ruff and ruff format.")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.screen is rules)
        stored = noted.notes.get(second.id).note
        assert stored.body == "Run ruff and ruff format." and stored.status == "provisional"
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("y")
        await until(pilot, lambda: not rules.waiting)
        with pytest.raises(NotFound):
            noted.notes.get(second.id)
        assert rules.has_class("-empty")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)


async def test_a_provisional_rule_is_approved_from_its_view(noted: Memory) -> None:
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_note(pilot, "Always run ruff")
        assert "waiting for your approval" in text_of(view)
        await pilot.press("a")
        await until(pilot, lambda: noted.notes.get(view.note_id).note.status == "approved")
        await until(pilot, lambda: "waiting" not in text_of(view))


async def editor_from_a_message(
    pilot: Pilot[None], app: MemtuiApp, archived: Memory, key: str
) -> MessageBlock:
    """The busiest session open, an answer of Claude's with text focused and `key` pressed:
    the editor is up. Returns the message."""
    await until(pilot, lambda: isinstance(app.screen, BrowseScreen))
    busiest = max(archived.history.list_sessions(), key=lambda i: i.message_count)
    app.push_screen(SessionScreen(busiest.session_id))
    await until(pilot, lambda: isinstance(app.screen, SessionScreen))
    session = app.screen
    await until(pilot, lambda: len(session.query(MessageBlock)) > 3)
    block = next(
        b
        for b in session.query(MessageBlock)
        if b.message.kind == "assistant" and b.message.text.strip()
    )
    block.focus()
    await pilot.press(key)
    await until(pilot, lambda: isinstance(app.screen, NoteEditor))
    return block


async def test_save_a_message_of_a_session_as_a_past_note(archived: Memory) -> None:
    app = MemtuiApp(archived, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        block = await editor_from_a_message(pilot, app, archived, "S")  # the whole exchange
        editor = app.screen
        body = editor.query_one("#note-body", TextArea).text
        assert "**you:**" in body and "**claude:**" in body
        assert block.message.text.strip()[:40] in body
        assert editor.query_one("#note-layer", Select).value == "past"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, NoteScreen | SimilarNotes), timeout=60)
        if isinstance(app.screen, SimilarNotes):
            await pilot.press("k")
        view = app.screen
        await until(pilot, lambda: isinstance(view, NoteScreen) and view.detail is not None)
        assert isinstance(view, NoteScreen) and view.detail is not None
        stored = archived.notes.get(view.note_id)
        assert stored.note.source_session_id == block.message.session_id
        assert stored.note.source_message_uuid == block.message.uuid
        assert stored.source is not None
        assert stored.source.message_index == block.message.message_index
        source = view.query_one(NoteText).targets[0]
        assert source.session_id == block.message.session_id
        await pilot.press("tab", "enter")  # the source is the first thing to open
        await until(
            pilot, lambda: isinstance(app.screen, SessionScreen) and app.screen is not block.screen
        )
        opened = app.screen
        assert isinstance(opened, SessionScreen) and opened.at == block.message.message_index


def test_a_message_that_only_ran_tools_is_saved_with_its_calls(archived: Memory) -> None:
    """`s` on a message with no words of its own (a Grep, an Edit) keeps what it ran; the
    note held only its "From a conversation in …" line."""
    found = [
        (info, messages, i)
        for s in archived.history.recent_sessions(limit=50).sessions
        for info, messages in [archived.history.session_messages(s.session_id)]
        for i, m in enumerate(messages)
        if m.tool_calls and not m.text.strip()
    ]
    assert found, "the archive has a message that only ran tools"
    info, messages, position = found[0]
    body = capture.draft(info, messages, position, whole_exchange=False).body
    call = messages[position].tool_calls[0]
    assert f"\n{call.name}: {call.arg}\n" in body and "```text\n" in body, body


async def test_save_the_highlighted_message_alone(archived: Memory) -> None:
    app = MemtuiApp(archived, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        block = await editor_from_a_message(pilot, app, archived, "s")  # not its exchange
        editor = app.screen
        body = editor.query_one("#note-body", TextArea).text
        assert body.endswith(block.message.text.strip()[-40:]) and "**you:**" not in body
        assert editor.query_one("#note-layer", Select).value == "past"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, NoteScreen | SimilarNotes), timeout=60)
        if isinstance(app.screen, SimilarNotes):
            await pilot.press("k")
        view = app.screen
        await until(pilot, lambda: isinstance(view, NoteScreen) and view.detail is not None)
        assert isinstance(view, NoteScreen)
        stored = archived.notes.get(view.note_id).note
        assert (stored.source_session_id, stored.source_message_uuid) == (
            block.message.session_id,
            block.message.uuid,
        )
        assert stored.layer == "past" and stored.body == body


IDE_PROMPT = (
    "<ide_selection>The user selected the lines 10 to 12 from /home/dev/shop-api/audio.ts:\n"
    "const node = new AudioWorkletNode(ctx, 'meter');\n\nThis may or may not be related to "
    "the current task.</ide_selection>\nwhy does the meter node drop frames when the tab is "
    "in the background and the laptop runs on battery?"
)
PERFECT = (
    "Perfect! The AudioWorklet migration is complete. Let me provide you with a summary of "
    "what changed and why the meter no longer drops frames."
)


@pytest.fixture
def said(memory: Memory, claude_dir: Path) -> Memory:
    """One exchange as Claude Code writes it from an IDE: the prompt wrapped in a selection."""
    lines.write(
        claude_dir / "-shop" / "s-ide.jsonl",
        lines.user("u-ide", IDE_PROMPT, "s-ide")
        + lines.assistant("a-ide", "msg_ide", lines.text(PERFECT), "s-ide"),
    )
    memory.upkeep.ingest(wait=True)
    return memory


@pytest.mark.parametrize("key", ["s", "S"])
async def test_a_note_from_a_conversation_is_titled_with_the_persons_words(
    said: Memory, key: str
) -> None:
    """Short, cut at a word, no tags, no ellipsis: what the person asked."""
    app = MemtuiApp(said, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, BrowseScreen))
        app.push_screen(SessionScreen("s-ide"))
        await until(pilot, lambda: len(app.screen.query(MessageBlock)) == 2)
        app.screen.query(MessageBlock).last().focus()  # Claude's "Perfect! ..."
        await pilot.press(key)
        await until(pilot, lambda: isinstance(app.screen, NoteEditor))
        title = app.screen.query_one("#note-title", Input).value
        assert title == "why does the meter node drop frames when the tab is"
        assert len(title) <= 60 and "…" not in title and "<" not in title


async def test_a_note_from_a_conversation_merged_keeps_its_way_back(said: Memory) -> None:
    """Merged into a similar note in the dialog, the note still leads to the conversation."""
    said.notes.save("Meter frame drops", PERFECT, "past", by="person")
    app = MemtuiApp(said, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, BrowseScreen))
        app.push_screen(SessionScreen("s-ide"))
        await until(pilot, lambda: len(app.screen.query(MessageBlock)) == 2)
        app.screen.query(MessageBlock).last().focus()
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, NoteEditor))
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, SimilarNotes), timeout=60)
        await pilot.press("m")
        view = await note_view(pilot, "Meter frame drops")
        stored = said.notes.get(view.note_id)
        assert stored.note.source_session_id == "s-ide"
        assert stored.note.source_message_uuid == "a-ide"
        assert stored.source is not None and stored.source.session_id == "s-ide"


async def test_the_editors_hint_from_a_conversation_fits_80_columns(archived: Memory) -> None:
    app = MemtuiApp(archived, upkeep=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await editor_from_a_message(pilot, app, archived, "s")
        hint = str(app.screen.query_one("#editor-hint", Static).render())
        assert hint.startswith("new note from a conversation")
        assert hint.endswith("ctrl+s save · escape cancel") and len(hint) <= 76, hint


OLD_ROTATION = "We rotate refresh tokens on every use"


@pytest.fixture
def remembered(noted: Memory, claude_dir: Path) -> Memory:
    """An old note in another folder and an old conversation in another project, both
    saying what "Refresh token rotation" says."""
    long_ago = datetime.now(UTC) - timedelta(days=300)
    when = long_ago.isoformat(timespec="microseconds")
    noted.notes.import_notes(
        [
            Note(
                100,
                "Old rotation thoughts",
                OLD_ROTATION,
                "past",
                "archive",
                [],
                when,
                when,
                "person",
            )
        ]
    )
    lines.write(
        claude_dir / "-home-dev-old-proj" / "s-old.jsonl",
        lines.user(
            "u-old",
            OLD_ROTATION,
            "s-old",
            long_ago.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
            "/home/dev/old-proj",
        ),
    )
    noted.upkeep.ingest(wait=True)
    return noted


async def open_flashback(pilot: Pilot[None], view: NoteScreen, kind: str) -> None:
    """Move to the note's first flashback of `kind` (note_id or session_id) and press enter."""
    await until(pilot, lambda: view.flashbacks is not None, timeout=60)
    text = view.query_one(NoteText)
    place = next(
        i
        for i, t in enumerate(text.targets)
        if getattr(t, kind) is not None and t.label.startswith(("Old rotation", "you discussed"))
    )
    while text.current != place:
        await pilot.press("tab")
    await pilot.press("enter")


async def test_a_flashback_opens_its_note_or_its_conversation(remembered: Memory) -> None:
    app = MemtuiApp(remembered, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_note(pilot, "Refresh token rotation")
        await until(pilot, lambda: view.flashbacks is not None, timeout=60)
        assert view.flashbacks is not None
        assert [f.note.id for f in view.flashbacks.notes] == [100]
        assert [s.session_id for s in view.flashbacks.sessions] == ["s-old"]
        assert "you discussed this in" in text_of(view)
        await open_flashback(pilot, view, "note_id")
        await note_view(pilot, "Old rotation thoughts")
        await pilot.press("escape")
        view = await note_view(pilot, "Refresh token rotation")
        await open_flashback(pilot, view, "session_id")
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
        opened = app.screen
        assert isinstance(opened, SessionScreen)
        assert opened.session_id == "s-old" and opened.at == 0


async def test_search_messages_notes_or_both(archived: Memory) -> None:
    app = MemtuiApp(archived, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", *"refresh token")
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        await whole_query_answered(pilot)
        notes, messages = screen.query_one(NoteHitList), screen.query_one(ResultList)
        assert messages.hits and not notes.display
        await pilot.press("ctrl+t")  # notes
        await whole_query_answered(pilot)
        await until(pilot, lambda: bool(notes.hits))
        assert notes.display and not messages.display
        assert screen.query_one("#query", Input).placeholder == "search every note"
        # The messages' own filters are out of play, the agent's too (it was left on)
        assert all(screen.query_one(f"#{n}", Select).disabled for n in ("project", "role", "agent"))
        assert notes.hits[0].note.title == "Refresh token rotation"
        assert "notes found" in str(screen.query_one("#search-summary").render())
        await pilot.press("ctrl+t")  # both
        await whole_query_answered(pilot)
        await until(pilot, lambda: bool(notes.hits) and bool(messages.hits))
        assert notes.display and messages.display
        summary = str(screen.query_one("#search-summary").render())
        assert "messages" in summary and "notes" in summary
        await pilot.press("enter")  # from the box to the note hits
        assert notes.has_focus
        await until(
            pilot,
            lambda: "Refresh token rotation" in preview_of(screen),
        )
        # Down past the last note goes on into the messages, up from the first message
        # back to the last note, up from the first note to the query box.
        await pilot.press(*["down"] * len(notes.hits))
        assert messages.has_focus and messages.highlighted == 0
        await pilot.press("up")
        assert notes.has_focus and notes.highlighted == len(notes.hits) - 1
        await pilot.press(*["up"] * len(notes.hits))
        box = screen.query_one("#query", Input)
        assert box.has_focus
        await pilot.press("x")  # the query is not selected on the way up: a key adds to it
        assert box.value == "refresh tokenx"
        await pilot.press("backspace", "enter")
        assert notes.has_focus
        # Keys the notes list took before the focus moved on (held down, a burst) are steps
        # in the messages, not each a new start at their first.
        notes.highlighted = len(notes.hits) - 1
        for _ in range(4):
            app.post_message(events.Key("down", None))
        await pilot.pause(0.3)
        assert messages.has_focus and messages.highlighted == 3
        await pilot.press("home", "up")
        assert notes.has_focus and notes.highlighted == len(notes.hits) - 1
        notes.highlighted = 0
        await pilot.press("enter")
        await note_view(pilot, "Refresh token rotation")


async def test_the_date_boxes_read_the_same_for_notes_as_for_messages(archived: Memory) -> None:
    """Found by a break-it pass: in the notes a bare `before` took in its own day (a note's
    date_to does) while the messages left it out, and dates with nothing between them came
    back as the notes' API error (`date_from ... date_to`) over an empty screen."""
    today = datetime.now(UTC).date()
    app = MemtuiApp(archived, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", "ctrl+t", "ctrl+t", *"refresh token")  # both
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        notes, messages = screen.query_one(NoteHitList), screen.query_one(ResultList)
        after, before = screen.query_one("#after", Input), screen.query_one("#before", Input)
        summary = screen.query_one("#search-summary", Static)
        await whole_query_answered(pilot)
        assert notes.hits and messages.hits
        before.value = str(today)  # the notes were written today: before today, none
        await whole_query_answered(pilot)
        assert not notes.hits
        before.value = str(today + timedelta(days=1))
        await whole_query_answered(pilot)
        assert notes.hits[0].note.title == "Refresh token rotation"
        after.value = str(today + timedelta(days=2))
        await whole_query_answered(pilot)
        said = str(summary.render())
        assert said == "after is later than before: swap them"
        assert not notes.hits and not messages.hits
        preview = screen.query_one("#preview-text", Static)
        assert not str(preview.content), "the earlier hit's preview goes with the lists"
        after.value = before.value
        await whole_query_answered(pilot)
        said = str(summary.render())
        assert said == "after = before: for one day, before takes the next"
        assert not notes.hits and not messages.hits
        after.value = ""  # before the calendar's first moment: nothing (the notes' half died)
        before.value = "0001-01-01T00:00:00+01:00"
        await whole_query_answered(pilot)
        assert not notes.hits and not messages.hits
        assert "no notes match" in str(summary.render())


async def test_the_preview_shows_a_hit_of_the_list_on_screen(archived: Memory) -> None:
    """Found by a new user: with the notes on screen, the preview showed a message the
    messages' list (hidden) had highlighted. A message loads as `Text`, a note as Markdown."""

    def showing(screen: SearchScreen) -> str:
        shown = screen.query_one("#preview-text", Static).content
        if isinstance(shown, Markdown):
            return "note"
        return "message" if str(shown) else ""

    app = MemtuiApp(archived, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", "ctrl+t", *"xylophone quantum")  # notes, no note matches
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        await whole_query_answered(pilot)
        await pilot.pause(0.5)
        assert showing(screen) != "message"
        await pilot.press("ctrl+t", "ctrl+t")  # messages
        screen.query_one("#query", Input).value = "refresh token"
        await whole_query_answered(pilot)
        await until(pilot, lambda: showing(screen) == "message")
        await pilot.press("ctrl+t")  # notes
        await whole_query_answered(pilot)
        await until(pilot, lambda: "Refresh token rotation" in preview_of(screen))
        screen.query_one("#query", Input).value = "xylophone quantum"
        await whole_query_answered(pilot)
        summary = screen.query_one("#search-summary", Static)
        await until(pilot, lambda: "no matches" in str(summary.render()))
        await pilot.pause(0.5)
        assert showing(screen) != "message"  # empty, or a nearest note's
        await pilot.press("ctrl+t")  # both: a note matched, so the preview is the note's
        screen.query_one("#query", Input).value = "refresh token"
        await whole_query_answered(pilot)
        await until(pilot, lambda: "Refresh token rotation" in preview_of(screen))
        await pilot.pause(0.5)
        assert "Refresh token rotation" in preview_of(screen)


def preview_of(screen: SearchScreen) -> str:
    shown = screen.query_one("#preview-text", Static).content
    return getattr(shown, "markup", str(shown))


async def test_every_notes_key_has_an_id_and_a_palette_entry(noted: Memory) -> None:
    ids = binding_ids()
    assert {
        "note.new",
        "note.edit",
        "note.delete",
        "note.next_link",
        "editor.save",
        "rule.approve",
        "rule.reject",
        "session.save_note",
        "search.scope",
    } <= ids
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        await notes_screen(pilot)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {"New", "Edit", "Delete", "Rules", "Search notes"} <= titles
        await pilot.press("question_mark")
        assert app.screen.query("HelpPanel")


async def test_a_keymap_remaps_a_notes_key(noted: Memory, config_home: Path) -> None:
    config_home.mkdir(parents=True)
    (config_home / "keymap.toml").write_text('"note.new" = "plus"\n')
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        await notes_screen(pilot)
        await pilot.press("plus")
        await until(pilot, lambda: isinstance(app.screen, NoteEditor))


async def test_notes_saved_elsewhere_appear(noted: Memory) -> None:
    """Claude saves a note over MCP while the list is open: it shows up."""
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await notes_screen(pilot)
        noted.notes.save("From Claude", "Saved over MCP.", "state", by="agent")
        await until(pilot, lambda: any(n.title == "From Claude" for n in screen.notes.values()))


async def test_a_rule_whose_title_only_looks_like_another_is_marked(noted: Memory) -> None:
    """Issue 25: `Always run ruff` waits for approval; a second one saved with a Cyrillic a
    looked the same in the rules screen and the notes list. Both now say which note each
    looks like."""
    first = note_id(noted, "Always run ruff")
    second = noted.notes.save("\u0430lways run ruff", "Skip ruff.", "rule", by="agent").note.id
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await notes_screen(pilot)
        table = screen.query_one(NoteTable)
        titles = {key: str(table.get_cell(key, "title").text) for key in screen.notes}
        assert titles[str(second)] == f"⚠ looks like #{first} \u0430lways run ruff", titles
        assert titles[str(first)] == f"⚠ looks like #{second} Always run ruff", titles
        await pilot.press("R")
        await until(pilot, lambda: isinstance(app.screen, RulesScreen))
        rules = app.screen
        assert isinstance(rules, RulesScreen)
        await until(pilot, lambda: len(rules.waiting) == 2)
        shown = rules.query_one(NoteTable)
        assert str(shown.get_cell(str(second), "title").text).startswith(f"⚠ looks like #{first} ")
        shown.move_cursor(row=shown.get_row_index(str(second)))
        preview = rules.query_one("#rule-text", Static)
        said = f"looks like note #{first}'s"
        await until(pilot, lambda: said in getattr(preview.content, "markup", ""))


async def test_a_note_whose_title_only_looks_like_another_says_so_and_opens_it(
    noted: Memory,
) -> None:
    """The list and the rules screen marked a look-alike title; the note itself did not."""
    first = note_id(noted, "Always run ruff")
    noted.notes.save("\u0430lways run ruff", "Skip ruff.", "rule", by="agent")
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_note(pilot, "\u0430lways run ruff")
        assert f"⚠ its title looks like note #{first}'s" in text_of(view)
        assert view.query_one(NoteText).targets[0].note_id == first
        await pilot.press("tab", "enter")
        await note_view(pilot, "Always run ruff")


async def test_the_note_shown_follows_an_edit_made_elsewhere(noted: Memory) -> None:
    """A note edited from a shell (or by Claude) while it is on screen: the view shows the
    new text, as the lists do, without leaving it."""
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_note(pilot, "Release checklist")
        assert "Tag, build, publish." in text_of(view)
        with Memory(noted.config) as shell:  # `memtui note edit` in another terminal
            shell.notes.update(view.note_id, by="person", body="Tag, build, sign, publish.")
        await until(pilot, lambda: "sign" in text_of(view), timeout=8)
        assert app.screen is view
        with Memory(noted.config) as shell:
            shell.notes.delete(view.note_id, by="person")
        await until(pilot, lambda: isinstance(app.screen, NotesScreen), timeout=8)
        assert any("deleted elsewhere" in n.message for n in app._notifications)


async def test_a_note_closed_twice_closes_only_itself(noted: Memory) -> None:
    """A delete or forget from the view, seen by the store watcher too, closes the view by
    both ways: the second finds it gone and leaves the list under it be (it closed the list
    too, under load, in tests/test_tui_forget.py)."""
    app = MemtuiApp(noted, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_note(pilot, "Release checklist")
        listing = app.screen_stack[-2]
        assert isinstance(listing, NotesScreen)
        noted.notes.delete(view.note_id, by="person")
        await until(pilot, lambda: app.screen is listing, timeout=8)  # the watcher's way
        view._deleted()  # the delete's own callback, arriving after it
        await settled(pilot)
        assert app.screen is listing
