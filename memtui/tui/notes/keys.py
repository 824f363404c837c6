"""The notes' classes that declare bindings: each binding id is one a keymap may name."""

from __future__ import annotations

from memtui.tui.notes.dialogs import Confirm, SimilarNotes
from memtui.tui.notes.editor import NoteEditor
from memtui.tui.notes.listing import FilterList, NotesScreen, NoteTable
from memtui.tui.notes.rules import RulesScreen
from memtui.tui.notes.scope import NoteHitList
from memtui.tui.notes.text import NoteText
from memtui.tui.notes.view import NoteScreen

BINDING_OWNERS = (
    NotesScreen,
    FilterList,
    NoteTable,
    NoteScreen,
    NoteText,
    NoteEditor,
    RulesScreen,
    NoteHitList,
    Confirm,
    SimilarNotes,
)
