"""What a person does with notes, from any screen: open what a note leads to, write, edit,
delete (asked first), approve a rule. The person is the writer (`by="person"`): the
engine's guards are for agents. Writes run in a worker thread; an engine error is a
notification with its code."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memtui.engine import Author, Note, NoteDraft
from memtui.tui.forms import Confirm
from memtui.tui.notes.text import Target

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp

PERSON: Author = "person"


def open_target(app: MemtuiApp, target: Target) -> None:
    """A note opens in its view, a conversation at its message; a link to a note that does
    not exist yet opens the editor on a new note with that title."""
    from memtui.tui.session import SessionScreen

    if target.session_id is not None:
        app.push_screen(SessionScreen(target.session_id, at=target.message_index))
    elif target.note_id is not None:
        open_note(app, target.note_id)
    elif target.title is not None:
        app.notify(f"no note is called {target.title!r} yet: write it now")
        new(app, NoteDraft(target.title, "", "past", "", []))


def notes(app: MemtuiApp) -> None:
    from memtui.tui.notes.listing import NotesScreen

    app.push_screen(NotesScreen())


def rules(app: MemtuiApp) -> None:
    from memtui.tui.notes.rules import RulesScreen

    app.push_screen(RulesScreen())


NOTE_SCREEN = "memtui-note"


def open_note(app: MemtuiApp, note_id: int) -> None:
    """The note in the app's one note screen: on top already, it follows there (escape goes
    back); elsewhere it is pushed. Only when it waits lower in the stack (a search opened
    from a note, say) does a second one open."""
    from memtui.tui.notes.view import NoteScreen

    if not app.is_screen_installed(NOTE_SCREEN):
        app.install_screen(NoteScreen(), NOTE_SCREEN)
    screen = app.get_screen(NOTE_SCREEN, NoteScreen)
    if app.screen is screen:
        screen.go(note_id)
    elif screen in app.screen_stack:
        app.push_screen(NoteScreen(note_id))
    else:
        screen.start(note_id)
        app.push_screen(screen)


def search_notes(app: MemtuiApp) -> None:
    from memtui.tui.search import SearchScreen

    app.push_screen(SearchScreen(scope="notes"))


def blank(folder: str = "", tags: list[str] | None = None, layer: str | None = None) -> NoteDraft:
    """A new note's fields; a `past` note unless the person is looking at another layer."""
    return NoteDraft("", "", layer or "past", folder, tags or [])


def new(app: MemtuiApp, draft: NoteDraft | None = None, source: Source | None = None) -> None:
    from memtui.tui.notes.editor import NoteEditor

    app.push_screen(NoteEditor(draft=draft, source=source))


def edit(app: MemtuiApp, note: Note) -> None:
    from memtui.tui.notes.editor import NoteEditor

    app.push_screen(NoteEditor(note=note))


def delete(
    app: MemtuiApp, note: Note, then: Callable[[], object] | None = None, verb: str = "Delete"
) -> None:
    """Ask first; then delete in a worker, and call `then` on the screen's thread."""

    def answered(yes: bool | None) -> None:
        if yes:
            app.run_worker(
                lambda: _delete(app, note, then),
                thread=True,
                group="note-write",
                exit_on_error=False,
            )

    what = "rule" if note.layer == "rule" else "note"
    detail = "it is deleted; links to it become dangling"
    app.push_screen(Confirm(f"{verb} the {what} {note.title!r}?", detail, verb), answered)


def _delete(app: MemtuiApp, note: Note, then: Callable[[], object] | None) -> None:
    if app.ask(lambda: app.memory.notes.delete(note.id, by=PERSON)) is None:
        return
    app.call_from_thread(app.notify, f"deleted {note.title!r}")
    if then is not None:
        app.call_from_thread(then)


def replace_with_view(app: MemtuiApp, note_id: int) -> None:
    """The editor on top gives way to the view of a note."""
    app.pop_screen()
    open_note(app, note_id)


def merge(app: MemtuiApp, note: Note, into: int) -> None:
    """`note` (just saved) goes into note `into` (the engine's one transaction: all of it or
    nothing), and `into` opens."""

    def write() -> None:
        merged = app.ask(lambda: app.memory.notes.merge(note.id, into, by=PERSON))
        if merged is None:
            return
        app.call_from_thread(app.notify, f"merged {note.title!r} into {merged.title!r}")
        app.call_from_thread(replace_with_view, app, into)

    app.run_worker(write, thread=True, group="note-write", exit_on_error=False)


def approve(app: MemtuiApp, note: Note, then: Callable[[], object] | None = None) -> None:
    def write() -> None:
        if app.ask(lambda: app.memory.notes.approve(note.id, by=PERSON)) is None:
            return
        app.call_from_thread(app.notify, f"approved: {note.title!r} is a house rule now")
        if then is not None:
            app.call_from_thread(then)

    app.run_worker(write, thread=True, group="note-write", exit_on_error=False)


@dataclass(frozen=True, slots=True)
class Source:
    """The message a note is written from: the note keeps its session and message."""

    session_id: str
    message_uuid: str | None
