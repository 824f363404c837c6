"""Forget, from the screens that show a session, a project or a note: ask first (saying what
will go), forget in a worker (a forget can take seconds, and waits for an index batch to
end), then show the receipt and read the lists again."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from memtui.engine import Note, ProjectInfo, Receipt, SessionInfo
from memtui.tui.format import home_short, one_line, when
from memtui.tui.forms import Confirm
from memtui.words import counted

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp

KEY = "F"  # shifted: forgetting cannot be undone (and f finds, in most programs)
KEPT = "Claude Code's own transcripts are not touched; memtui never reads them in again."


@dataclass(frozen=True, slots=True)
class Target:
    """What to forget, as the engine takes it, and how the dialogs name it."""

    name: str  # `the session "Fix the cart"`
    detail: str  # what goes, with counts
    session_id: str | None = None
    project: str | None = None
    note_id: int | None = None


def session(app: MemtuiApp, info: SessionInfo, then: Callable[[], object] | None = None) -> None:
    count = counted(info.message_count, "message")
    name = f"the session {one_line(info.title or '(untitled)', 50)!r}"
    detail = f"Its {count} leave every file memtui keeps, for good. {KEPT}"
    ask(app, Target(name, detail, session_id=info.session_id), then)


def project(app: MemtuiApp, info: ProjectInfo, then: Callable[[], object] | None = None) -> None:
    sessions = counted(info.sessions, "session")
    name = f"the project {home_short(info.project)}"
    messages = counted(info.messages, "message")
    detail = (
        f"Its {sessions} and {messages} leave every file memtui keeps, for good, and its new "
        f"sessions are not archived (`memtui forget --project "
        f"{info.project} --undo` lets them in again). {KEPT}"
    )
    ask(app, Target(name, detail, project=info.project), then)


def note(app: MemtuiApp, info: Note, then: Callable[[], object] | None = None) -> None:
    name = f"the note {one_line(info.title, 50)!r}"
    detail = "It leaves the store and both indexes, for good; links to it become dangling."
    ask(app, Target(name, detail, note_id=info.id), then)


def ask(app: MemtuiApp, target: Target, then: Callable[[], object] | None) -> None:
    """The question first; on yes, the forget in a worker thread, never on the screen's."""

    def answered(yes: bool | None) -> None:
        if not yes:
            app.notify("nothing forgotten")
            return
        busy = app.progress is not None or not app.first_read.is_set()
        wait = ": it waits for the index under way (the lists stay usable)" if busy else "…"
        app.notify(f"forgetting {target.name}{wait}")
        app.run_worker(
            lambda: _forget(app, target, then), thread=True, group="forget", exit_on_error=False
        )

    app.push_screen(Confirm(f"Forget {target.name}?", target.detail, "Forget"), answered)


def _forget(app: MemtuiApp, target: Target, then: Callable[[], object] | None) -> None:
    receipt = app.ask(
        lambda: app.memory.forget(target.session_id, target.project, target.note_id, confirmed=True)
    )
    if receipt is None:
        return
    if then is not None:
        app.call_from_thread(then)
    app.call_from_thread(app.push_screen, ForgetReceipt(target.name, receipt))
    app.call_from_thread(app.refresh_counts)  # every screen's lists are read again


class ForgetReceipt(ModalScreen[None]):
    """What a forget removed: counts, the time, and the SHA-256 over the removed ids (the
    same receipt is appended to the data dir's forget-receipts.jsonl)."""

    DEFAULT_CSS = """
    ForgetReceipt { align: center middle; }
    ForgetReceipt > Vertical {
        width: 76; max-width: 100%; height: auto; max-height: 100%;
        border: round $accent; background: $surface; padding: 1 2;
    }
    ForgetReceipt .dialog-title { text-style: bold; width: 100%; }
    ForgetReceipt .dialog-hint { color: $text-muted; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter", "close", "Close", id="receipt.close"),
    ]

    def __init__(self, name: str, receipt: Receipt) -> None:
        super().__init__()
        self.name_shown = name
        self.receipt = receipt

    def on_mount(self) -> None:
        self.app.clear_notifications()  # "forgetting…" is answered here, and covered its end

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"Forgotten: {self.name_shown}", classes="dialog-title")
            yield Static(receipt_text(self.receipt), id="receipt")
            yield Label("a copy is in forget-receipts.jsonl · enter closes", classes="dialog-hint")

    def action_close(self) -> None:
        self.dismiss(None)


def receipt_text(receipt: Receipt) -> Text:
    text = Text()
    for label, value in (
        ("sessions", f"{receipt.sessions:,}"),
        ("messages", f"{receipt.messages:,}"),
        ("notes", f"{receipt.notes:,}"),
        ("at", when(receipt.at, seconds=True)),
    ):
        text.append(f"{label:<10}", style="dim")
        text.append(f"{value}\n")
    text.append("sha256\n", style="dim")
    text.append(receipt.sha256)
    return text
