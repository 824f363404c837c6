"""Write or edit a note: title, layer, folder and tags (completing from the ones in use),
the body in a Markdown text area where `[[` offers the titles of existing notes.

Saving a new note that is near others asks what to do: open one, merge this note into
one, or keep both (the engine answers a save with the similar notes)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.suggester import Suggester, SuggestFromList
from textual.widgets import Input, Label, OptionList, Select, TextArea
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from memtui.engine import LAYERS, Note, NoteDraft, SaveResult, UpdatedNote
from memtui.errors import MemtuiError
from memtui.tui.format import error_line
from memtui.tui.forms import Confirm
from memtui.tui.notes import flows
from memtui.tui.notes.dialogs import SimilarNotes
from memtui.tui.status import Keys, StatusLine

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp

LINK_START = re.compile(r"\[\[([^\[\]|\n]*)$")  # an open `[[` before the cursor
TAG_SPLIT = re.compile(r"\s+")  # a comma is no separator: a tag holding one is refused
PICKER_SIZE = 8  # titles offered at once
LABELS = {
    "note-title": "title",
    "note-layer": "layer",
    "note-folder": "folder",
    "note-tags": "tags (space between)",
    "note-body": "Markdown",
}

# What a key does in the field with the focus, in the hint under the body (15 cells at most,
# so the hint fits 80 columns).
FIELD_HINTS = {
    "note-title": "tab: next field",
    "note-layer": "enter: choose",
    "note-folder": "/: subfolder",
    "note-tags": "space: next tag",
    "note-body": "[[ links a note",
}

# What each layer does, under the fields: the words are memtui's own (76 cells at 80 columns).
LAYER_MEANING = {
    "past": "past: what happened or was decided; Claude may amend it, never rewrite it",
    "state": "state: what is true now; Claude sees it in the project its folder names",
    "rule": "rule: a house rule Claude is given in every session; only you can change it",
}


def split_tags(value: str) -> list[str]:
    return [t for t in TAG_SPLIT.split(value) if t]


class TagSuggester(Suggester):
    """Completes the tag being typed (the last word) from the tags in use."""

    def __init__(self, tags: list[str]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.tags = tags

    async def get_suggestion(self, value: str) -> str | None:
        last = TAG_SPLIT.split(value)[-1].lstrip("#")
        if not last:
            return None
        typed = value[: len(value) - len(last)]
        for tag in self.tags:
            if tag.casefold().startswith(last.casefold()) and tag != last:
                return typed + last + tag[len(last) :]
        return None


class BodyArea(TextArea):
    """The body; while the title picker is open, its keys (up, down, enter, tab, escape)
    go to the picker instead of the text."""

    PICKER_KEYS: ClassVar[set[str]] = {"up", "down", "enter", "tab", "escape"}

    async def _on_key(self, event: events.Key) -> None:
        editor = self.screen
        if isinstance(editor, NoteEditor) and editor.picking and event.key in self.PICKER_KEYS:
            event.stop()
            event.prevent_default()
            editor.picker_key(event.key)
            return
        await super()._on_key(event)


class NoteEditor(Screen[None]):
    app: MemtuiApp
    AUTO_FOCUS = ""  # the body, or the title of a note that has none yet (on_mount)
    DEFAULT_CSS = """
    #editor { padding: 0 1; height: 1fr; }
    #editor-fields, #editor-more { height: 3; }
    #note-title { width: 1fr; }
    #note-layer { width: 16; }
    #note-folder { width: 1fr; }
    #note-tags { width: 2fr; }
    #note-body { height: 1fr; }
    #link-picker { display: none; height: auto; max-height: 10; border: round $accent; }
    #link-picker.-open { display: block; }
    #editor-hint, #layer-hint { color: $text-muted; height: 1; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="editor.save"),
        Binding("escape", "cancel", "Cancel", id="editor.cancel"),
    ]

    def __init__(
        self,
        note: Note | None = None,
        draft: NoteDraft | None = None,
        source: flows.Source | None = None,
    ) -> None:
        super().__init__()
        self.note = note  # None: a new note
        if note is not None:
            draft = NoteDraft(note.title, note.body, note.layer, note.folder, list(note.tags))
        self.draft = draft or NoteDraft("", "", "past", "", [])
        self.source = source
        self.picking = False
        self._link_from: tuple[int, int] | None = None  # where the typed title starts
        self.saving = False

    def compose(self) -> ComposeResult:
        d = self.draft
        yield StatusLine()
        with Vertical(id="editor"):
            with Horizontal(id="editor-fields"):
                yield Input(d.title, placeholder="title", id="note-title")
                yield Select(
                    [(layer, layer) for layer in LAYERS],
                    value=d.layer,
                    allow_blank=False,
                    id="note-layer",
                )
            yield Label(LAYER_MEANING[d.layer], id="layer-hint")
            with Horizontal(id="editor-more"):
                yield Input(d.folder, placeholder="folder (a/b)", id="note-folder")
                yield Input(" ".join(d.tags), placeholder="tags", id="note-tags")
            yield BodyArea(
                d.body,
                language="markdown",
                soft_wrap=True,
                show_line_numbers=False,
                id="note-body",
            )
            yield OptionList(id="link-picker")
            yield Label(id="editor-hint")
        yield Keys()

    def _hint(self, field: str) -> str:
        what = "editing" if self.note is not None else "new note"
        if self.source is not None:  # the body says which; the saved note links to it
            what += " from a conversation"
        return f"{what} · {FIELD_HINTS[field]} · ctrl+s save · escape cancel"

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        # The focus now, not the event's widget: Tabs in a burst move it on before their
        # events are handled.
        focused = self.focused or event.widget
        field = next((w.id for w in focused.ancestors_with_self if w.id in FIELD_HINTS), None)
        if field is not None:
            self.query_one("#editor-hint", Label).update(self._hint(field))

    def on_mount(self) -> None:
        self.sub_title = "edit note" if self.note is not None else "new note"
        for name, label in LABELS.items():
            self.query_one(f"#{name}").border_title = label
        # Typing goes where the note is written; a title given is kept, not selected to be
        # typed over.
        self.query_one("#note-body" if self.draft.title.strip() else "#note-title").focus()
        self.load_names()

    @work(thread=True, exit_on_error=False)
    def load_names(self) -> None:
        notes = self.app.memory.notes
        folders = self.app.ask(notes.folders) or []
        tags = self.app.ask(notes.tags) or []
        self.app.call_from_thread(
            self._names, [f.folder for f in folders if f.folder], [t.tag for t in tags]
        )

    def _names(self, folders: list[str], tags: list[str]) -> None:
        self.query_one("#note-folder", Input).suggester = SuggestFromList(folders)
        self.query_one("#note-tags", Input).suggester = TagSuggester(tags)

    # -- the values ------------------------------------------------------------------------

    def values(self) -> NoteDraft:
        layer = self.query_one("#note-layer", Select).value
        return NoteDraft(
            self.query_one("#note-title", Input).value.strip(),
            self.query_one(BodyArea).text,
            layer if isinstance(layer, str) else "past",
            self.query_one("#note-folder", Input).value.strip(),
            split_tags(self.query_one("#note-tags", Input).value),
        )

    def unsaved(self) -> bool:
        """What was written is not saved yet (the app asks before it quits)."""
        return self.changed() and not self.saving

    def changed(self) -> bool:
        now, was = self.values(), self.draft
        return (now.title, now.body, now.layer, now.folder, now.tags) != (
            was.title.strip(),
            was.body,
            was.layer,
            was.folder,
            was.tags,
        )

    @on(Select.Changed, "#note-layer")
    def _layer(self, event: Select.Changed) -> None:
        if isinstance(event.value, str):
            self.query_one("#layer-hint", Label).update(LAYER_MEANING[event.value])

    # -- `[[` offers titles ----------------------------------------------------------------

    @on(TextArea.Changed, "#note-body")
    @on(TextArea.SelectionChanged, "#note-body")
    def _typed(self) -> None:
        body = self.query_one(BodyArea)
        row, col = body.cursor_location
        match = LINK_START.search(body.document.get_line(row)[:col])
        if match is None:
            self._close_picker()
            return
        self._link_from = (row, match.start(1))
        self.find_titles(match.group(1))

    @work(thread=True, exclusive=True, group="titles", exit_on_error=False)
    def find_titles(self, prefix: str) -> None:
        titles = self.app.ask(lambda: self.app.memory.notes.titles(prefix, PICKER_SIZE))
        if titles is not None and not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._offer, titles)

    def _offer(self, titles: list[str]) -> None:
        picker = self.query_one("#link-picker", OptionList)
        if self._link_from is None or not titles:
            self._close_picker()
            return
        picker.set_options([Option(t, id=t) for t in titles])
        picker.highlighted = 0
        picker.add_class("-open")
        self.picking = True

    def _close_picker(self) -> None:
        self.picking = False
        self._link_from = None
        self.query_one("#link-picker", OptionList).remove_class("-open")

    def picker_key(self, key: str) -> None:
        picker = self.query_one("#link-picker", OptionList)
        if key == "down":
            picker.action_cursor_down()
        elif key == "up":
            picker.action_cursor_up()
        elif key == "escape":
            self._close_picker()
        elif picker.highlighted is not None:
            option = picker.get_option_at_index(picker.highlighted)
            self._insert_link(str(option.prompt))

    @on(OptionList.OptionSelected, "#link-picker")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self._insert_link(str(event.option.prompt))
        self.query_one(BodyArea).focus()

    def _insert_link(self, title: str) -> None:
        body = self.query_one(BodyArea)
        if self._link_from is None:
            return
        row, col = body.cursor_location
        after = body.document.get_line(row)[col:]
        closing = "" if after.startswith("]]") else "]]"
        body.replace(title + closing, self._link_from, (row, col))
        body.move_cursor((row, self._link_from[1] + len(title) + 2))
        self._close_picker()

    # -- save, cancel ----------------------------------------------------------------------

    def action_save(self) -> None:
        if not self.saving:
            self.saving = True
            self.save(self.values())

    @work(thread=True, group="note-write", exit_on_error=False)
    def save(self, v: NoteDraft) -> None:
        notes = self.app.memory.notes
        try:
            if self.note is not None:
                self._update(self.note, v)
                return
            source = self.source
            result = self.app.ask(
                lambda: notes.save(
                    v.title,
                    v.body,
                    # NoteDraft holds the layer as str (the engine checks it): not a Layer.
                    v.layer,  # type: ignore[arg-type]
                    by=flows.PERSON,
                    folder=v.folder,
                    tags=v.tags,
                    source_session_id=source.session_id if source else None,
                    source_message_uuid=source.message_uuid if source else None,
                )
            )
            if result is not None:
                self.app.call_from_thread(self._saved, result)
        finally:
            self.saving = False

    def _update(self, note: Note, v: NoteDraft) -> None:
        """Save over `note` as it was read; if it was changed elsewhere since, the engine
        refuses, and the editor stays with the person's text (a second ctrl+s saves it
        over the other version, knowingly)."""
        notes = self.app.memory.notes
        try:
            updated = notes.update(
                note.id,
                by=flows.PERSON,
                title=v.title,
                body=v.body,
                tags=v.tags,
                folder=v.folder,
                layer=v.layer,  # type: ignore[arg-type]  # a str, as above
                expected_updated=note.updated,
            )
        except MemtuiError as exc:
            self.app.call_from_thread(self.notify, error_line(exc), severity="error", timeout=12)
            now = self.app.ask(lambda: notes.get(note.id).note)
            if now is not None and now.updated != note.updated:
                self.note = now  # the version a second ctrl+s knowingly saves over
                self.app.call_from_thread(
                    self.notify,
                    "your text is still here: ctrl+s again saves it over that version, "
                    "escape leaves it",
                    severity="warning",
                    timeout=12,
                )
            return
        self.app.call_from_thread(self._updated, updated)

    def _updated(self, note: UpdatedNote) -> None:
        said = f"saved {note.title!r}"
        if note.relinked:  # a rename: the notes linking to it name the new title
            many = f"{note.relinked} other note{'s' * (note.relinked != 1)}"
            said += f"; the links in {many} now read [[{note.title}]]"
        self.notify(said)
        self.dismiss()

    def _saved(self, result: SaveResult) -> None:
        note = result.note
        self.notify(f"saved {note.title!r}")
        if not result.similar:
            flows.replace_with_view(self.app, note.id)
            return

        def chosen(answer: tuple[str, int] | None) -> None:
            if answer is None:
                flows.replace_with_view(self.app, note.id)
            elif answer[0] == "open":
                flows.replace_with_view(self.app, answer[1])
            else:
                flows.merge(self.app, note, answer[1])

        self.app.push_screen(SimilarNotes(note, result.similar), chosen)

    def action_cancel(self) -> None:
        if self.picking:
            self._close_picker()
            return
        if not self.changed():
            self.dismiss()
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.dismiss()

        ask = Confirm("Discard your changes?", "nothing was saved", "Discard")
        self.app.push_screen(ask, answered)
