"""What the notes put on screen together, for the keymap: each binding id here is one a
keymap may name, and a key may do one thing within each scope."""

from __future__ import annotations

from memtui.tui.notes.dialogs import SimilarNotes
from memtui.tui.notes.editor import NoteEditor
from memtui.tui.notes.listing import FilterList, NotesScreen, NoteTable
from memtui.tui.notes.rules import RulesScreen
from memtui.tui.notes.scope import NoteHitList
from memtui.tui.notes.text import NoteText
from memtui.tui.notes.view import NoteScreen
from memtui.tui.search import SearchScreen

SCOPES: tuple[tuple[type[object], ...], ...] = (
    (NotesScreen, FilterList),
    (NotesScreen, NoteTable),
    (NoteScreen, NoteText),
    (NoteEditor,),
    (RulesScreen, NoteTable),
    (SearchScreen, NoteHitList),
    (SimilarNotes,),
)
