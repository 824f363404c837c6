"""One note: its Markdown with `[[links]]` to move between and open, where it came from,
the notes that link to it ("Referenced by") and its flashbacks (older notes and past
conversations in other projects)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import RenderableType
from rich.markdown import Markdown
from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen

from memtui.engine import Flashbacks, MemtuiError, NoteDetail, NoteLink, NotFound
from memtui.tui import forget
from memtui.tui.format import one_line, project_name, when
from memtui.tui.messages import StoreChanged
from memtui.tui.notes import flows
from memtui.tui.notes.links import as_markdown, target_style
from memtui.tui.notes.text import NoteText, Target
from memtui.tui.session import CODE_THEME
from memtui.tui.status import Keys, StatusLine

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp


class NoteScreen(Screen[None]):
    app: MemtuiApp
    AUTO_FOCUS = "#note-text"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="screen.back"),
        Binding("e", "edit", "Edit", id="note.edit"),
        Binding("d", "delete", "Delete", id="note.delete"),
        Binding("a", "approve", "Approve", id="rule.approve"),
        Binding("n", "new", "New note", show=False, id="note.new"),
        Binding(forget.KEY, "forget", "Forget", show=False, id="note.forget"),
    ]

    def __init__(self, note_id: int | None = None) -> None:
        super().__init__()
        self.history: list[int] = [] if note_id is None else [note_id]
        self.detail: NoteDetail | None = None
        self.flashbacks: Flashbacks | None = None
        self._loading = False
        self._asking = False  # a yes-or-no on top: its answer reloads, or closes, the note

    @property
    def note_id(self) -> int:
        return self.history[-1]

    def start(self, note_id: int) -> None:
        """Show `note_id` afresh (the app keeps one note screen and pushes it again: a push
        of a screen already built costs a fraction of building one)."""
        self.history = [note_id]
        self._clear()
        self._asking = False
        self._loading = self.is_mounted
        if self._loading:  # read while the screen is being pushed: its first frame has it
            self.load()

    def go(self, note_id: int) -> None:
        """Follow a link: `note_id` here, the note before it one escape away."""
        self.history.append(note_id)
        self._clear()
        self.load()

    def _clear(self) -> None:
        self.detail = self.flashbacks = None
        if self.is_mounted:
            self.query_one(NoteText).show([], [])

    def compose(self) -> ComposeResult:
        yield StatusLine()
        yield NoteText(id="note-text")
        yield Keys()

    def on_screen_resume(self) -> None:
        """Pushed, or back from an edit or another screen: the note may have changed."""
        if self._loading:
            self._loading = False  # `start` has it on its way
        elif self._asking:  # a reload would race the delete or forget just answered yes
            self._asking = False
        elif self.history:
            self.load()

    def on_store_changed(self, _: StoreChanged) -> None:
        """Something was committed (a shell's edit, Claude's update): read the note again."""
        if self.detail is not None and not self._asking:
            self.follow()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Approve shows on a rule waiting for it. Edit and delete stay shown while a note
        loads (they wait for it): a footer whose keys change is rebuilt, and that was most
        of what opening a note cost."""
        if action == "approve":
            note = self.detail.note if self.detail else None
            return note is not None and note.status == "provisional"
        return True

    @work(thread=True, exclusive=True, group="note", exit_on_error=False)
    def load(self) -> None:
        note_id = self.note_id
        detail = self.app.ask(lambda: self.app.memory.notes.get(note_id))
        if detail is not None:
            self.app.call_from_thread(self.show, detail)

    @work(thread=True, exclusive=True, group="note", exit_on_error=False)
    def follow(self) -> None:
        """`load` after a commit anywhere: quiet while the store is busy (the next commit
        reads again), and a note deleted elsewhere closes."""
        note_id = self.note_id
        try:
            detail = self.app.memory.notes.get(note_id)
        except NotFound:
            self.app.call_from_thread(self._gone, note_id)
        except MemtuiError:
            pass
        else:
            self.app.call_from_thread(self._followed, detail)

    def _followed(self, detail: NoteDetail) -> None:
        """Drawn again only when the note or its links changed, the cursor kept; flashbacks
        looked for again only when its text did."""
        if self.detail is None or detail == self.detail or detail.note.id != self.note_id:
            return
        before = self.detail.note
        self.detail = detail
        self.sub_title = detail.note.title
        self._draw(keep=True)
        self.refresh_bindings()
        if (detail.note.title, detail.note.body) != (before.title, before.body):
            self.load_flashbacks(detail.note.id)

    def _gone(self, note_id: int) -> None:
        if self.history and self.note_id == note_id:
            self.notify(f"note #{note_id} was deleted elsewhere")
            self._deleted()

    @work(thread=True, exclusive=True, group="flashbacks", exit_on_error=False)
    def load_flashbacks(self, note_id: int) -> None:
        """Flashbacks need the vectors and the model: the note is on screen before them."""
        found = self.app.ask(lambda: self.app.memory.notes.flashbacks(note_id))
        if found is not None:
            self.app.call_from_thread(self.show_flashbacks, note_id, found)

    def show(self, detail: NoteDetail) -> None:
        if not self.history or detail.note.id != self.note_id:
            return  # another note was asked for since
        self.detail = detail
        self.sub_title = detail.note.title
        self._draw()
        self.refresh_bindings()
        self.call_after_refresh(self.load_flashbacks, detail.note.id)  # once it is on screen

    def show_flashbacks(self, note_id: int, found: Flashbacks) -> None:
        if self.detail is None or self.detail.note.id != note_id:
            return
        self.flashbacks = found
        self._draw(keep=True)

    def _draw(self, keep: bool = False) -> None:
        if self.detail is None:
            return
        text = self.query_one(NoteText)
        current = text.current
        dark = self.app.current_theme.dark
        parts, targets = note_parts(self.app, self.detail, self.flashbacks, CODE_THEME[dark])
        text.show(parts, targets)
        if keep and current is not None and current < len(targets):
            text.current = current

    @on(NoteText.Opened)
    def _open(self, event: NoteText.Opened) -> None:
        flows.open_target(self.app, event.target)

    def action_back(self) -> None:
        if len(self.history) > 1:
            self.history.pop()
            self._clear()
            self.load()
        else:
            self.dismiss()

    def action_edit(self) -> None:
        if self.detail is not None:
            flows.edit(self.app, self.detail.note)

    def action_delete(self) -> None:
        if self.detail is not None:
            self._asking = True
            flows.delete(self.app, self.detail.note, then=self._deleted)

    def action_forget(self) -> None:
        if self.detail is not None:
            self._asking = True
            forget.note(self.app, self.detail.note, then=self._deleted)

    def _deleted(self) -> None:
        """The note is gone: the one before it, or the screen under this one. A delete from
        here is seen by the store watcher too (`_gone`): whichever comes second finds this
        screen closed, and must not dismiss the screen on top instead."""
        if self is not self.app.screen:
            return
        self.history = [n for n in self.history if n != self.note_id]
        if self.history:
            self._clear()
            self.load()
        else:
            self.dismiss()

    def action_approve(self) -> None:
        if self.detail is not None:
            flows.approve(self.app, self.detail.note, then=self.load)

    def action_new(self) -> None:
        flows.new(self.app)


def note_parts(
    app: App[Any], detail: NoteDetail, flashbacks: Flashbacks | None, code_theme: str
) -> tuple[list[RenderableType], list[Target]]:
    """What the view draws, in order, and the targets its links, lists and source open."""
    note = detail.note
    targets: list[Target] = []

    def target(t: Target) -> Style:
        targets.append(t)
        return target_style(len(targets) - 1)

    head = Text()
    head.append(note.title, style="bold")
    if note.looks_like is not None:  # confusable letters: say which note, and open it
        head.append("\n⚠ its title looks like ", style="bold yellow")
        other = f"note #{note.looks_like}"
        head.append(other, style=target(Target(other, note_id=note.looks_like)))
        head.append("'s", style="bold yellow")
    head.append("\n")
    head.append(note.layer, style=f"bold {layer_colour(app, note.layer)}")
    if note.status == "provisional":
        head.append(" · provisional: saved by Claude, waiting for your approval", style="bold")
    head.append(f"  {note.folder or '(no folder)'}", style="dim")
    if note.tags:
        head.append("  " + " ".join(f"#{t}" for t in note.tags), style="italic")
    head.append(f"\nupdated {when(note.updated)} · created {when(note.created)}", style="dim")
    head.append(" · by Claude" if note.author == "agent" else " · by you", style="dim")
    parts: list[RenderableType] = [head]

    if detail.source is not None:
        s = detail.source
        line = Text("\nfrom ", style="dim")
        where = f" · {project_name(s.project)}" if s.project else " · no longer in the archive"
        label = f"{s.session_title or '(untitled)'}{where}"
        if s.message_index is not None:
            label += f" · message #{s.message_index}"
        if s.project:
            line.append(
                label,
                style=target(Target(label, session_id=s.session_id, message_index=s.message_index)),
            )
        else:
            line.append(label, style="italic")
        parts.append(line)

    places: dict[str, int] = {}
    for link in detail.links:
        if link.target.casefold() not in places:
            target(link_target(link))
            places[link.target.casefold()] = len(targets) - 1
    parts.append(Text(""))
    if note.body.strip():
        parts.append(Markdown(as_markdown(note.body, places), code_theme=code_theme))
    else:
        parts.append(Text("(no text)", style="dim italic"))

    parts.append(section(f"Referenced by ({len(detail.backlinks)})"))
    if not detail.backlinks:
        parts.append(Text("  no note links here yet", style="dim"))
    for ref in detail.backlinks:
        row = Text("  ", no_wrap=True, overflow="ellipsis")
        row.append(ref.title, style=target(Target(ref.title, note_id=ref.id)))
        row.append(f"  {ref.layer} · {ref.folder or '(no folder)'} · {when(ref.updated)}", "dim")
        parts.append(row)

    parts.append(section("Flashbacks"))
    if flashbacks is None:
        parts.append(Text("  looking…", style="dim"))
    elif not flashbacks.notes and not flashbacks.sessions:
        parts.append(Text("  nothing older and alike in other folders or projects", style="dim"))
    else:
        for fb in flashbacks.notes:
            row = Text("  ", no_wrap=True, overflow="ellipsis")
            row.append(fb.note.title, style=target(Target(fb.note.title, note_id=fb.note.id)))
            row.append(
                f"  {fb.note.folder or '(no folder)'} · {age(fb.age_days)} older · "
                f"similarity {1 - fb.distance:.2f}",
                style="dim",
            )
            parts.append(row)
        for sb in flashbacks.sessions:
            row = Text("  ", no_wrap=True, overflow="ellipsis")
            label = f"you discussed this in {project_name(sb.project)} {age(sb.age_days)} ago"
            row.append(
                label,
                style=target(
                    Target(label, session_id=sb.session_id, message_index=sb.message_index)
                ),
            )
            row.append(
                f"  {one_line(sb.session_title or '(untitled)', 50)}"
                f" · similarity {1 - sb.distance:.2f}",
                style="dim",
            )
            parts.append(row)
    return parts, targets


def link_target(link: NoteLink) -> Target:
    return Target(link.shown or link.target, note_id=link.note_id, title=link.target)


def section(title: str) -> Text:
    return Text(f"\n{title}", style="bold")


LAYER_COLOUR = {"past": "text-primary", "state": "text-success", "rule": "text-warning"}


def layer_colour(app: App[Any], layer: str) -> str:
    """A layer's colour in the app's theme (the same in the list, the view and the filters)."""
    name = LAYER_COLOUR.get(layer)
    return app.theme_variables.get(name, "") if name else ""


def age(days: int) -> str:
    if days >= 365 * 2:
        return f"{days // 365} years"
    if days >= 60:
        return f"{days // 30} months"
    if days >= 14:
        return f"{days // 7} weeks"
    return f"{days} day{'s' * (days != 1)}"
