"""The signals' questions: how long to snooze, and the form that mints an inference (saved
only when the person confirms it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, SelectionList, TextArea
from textual.widgets.option_list import Option
from textual.widgets.selection_list import Selection

from memtui.engine.signal_types import Inference, Signal
from memtui.tui.format import when
from memtui.tui.forms import Confirm
from memtui.tui.signals import flows
from memtui.words import counted

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp

DIALOG_CSS = """
Snooze, MintForm { align: center middle; }
.signals-dialog {
    width: 80; max-width: 100%; height: auto; max-height: 100%;
    border: round $accent; background: $surface; padding: 0 1;
}
.signals-dialog .dialog-title { text-style: bold; }
.signals-dialog .dialog-hint { color: $text-muted; }
.signals-dialog Horizontal { height: auto; }
.signals-dialog Button { margin-right: 2; }
.signals-dialog OptionList { height: auto; }
.signals-dialog Input { margin-top: 0; }
"""

SNOOZES = (("1d", "1 day", "1"), ("7d", "7 days", "7"), ("30d", "30 days", "3"))
DATE = "date"


class Snooze(ModalScreen[str | None]):
    """1, 7 or 30 days (keys 1, 7, 3), or a date typed in (t); answers what the engine
    takes as `snooze_until`, or None."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "choose('1d')", "1 day", id="snooze.day"),
        Binding("7", "choose('7d')", "7 days", id="snooze.week"),
        Binding("3", "choose('30d')", "30 days", id="snooze.month"),
        Binding("t", "date", "A date", id="snooze.date"),
        Binding("escape", "cancel", "Cancel", id="snooze.cancel"),
    ]

    def __init__(self, title: str) -> None:
        super().__init__()
        self.what = title

    def compose(self) -> ComposeResult:
        with Vertical(classes="signals-dialog"):
            yield Label(f"Snooze {self.what!r} until…", classes="dialog-title")
            options = [Option(f"{shown}  ({key})", id=until) for until, shown, key in SNOOZES]
            options.append(Option("a date…  (t)", id=DATE))
            yield OptionList(*options, id="snooze-choices")
            yield Input(placeholder="YYYY-MM-DD, or 2w, 12h", id="snooze-date")
            yield Label("enter chooses · escape cancels", classes="dialog-hint")

    def on_mount(self) -> None:
        listing = self.query_one(OptionList)
        listing.highlighted = 1
        listing.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("choose", "date"):
            return not self.query_one(Input).has_focus
        return True

    @on(OptionList.OptionSelected, "#snooze-choices")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id == DATE:
            self.action_date()
        else:
            self.dismiss(event.option.id)

    @on(Input.Submitted, "#snooze-date")
    def _typed(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip():
            self.dismiss(event.value.strip())

    def action_choose(self, until: str) -> None:
        self.dismiss(until)

    def action_date(self) -> None:
        self.query_one(Input).focus()

    def action_cancel(self) -> None:
        self.dismiss(None)


class MintForm(ModalScreen[None]):
    """An inference from a signal: title, summary, confidence and the evidence, all
    prefilled and editable. ctrl+s asks once more, and only that yes mints it."""

    app: MemtuiApp

    DEFAULT_CSS = (
        DIALOG_CSS
        + """
    MintForm .signals-dialog { width: 100; }
    /* Compact fields, so that at 80x24 the evidence shows whole beside them; the buttons
    are the form's only key hints: when the fields must scroll, they stay in view */
    MintForm VerticalScroll { height: auto; max-height: 1fr; }
    MintForm .signals-dialog Input, MintForm TextArea { margin-bottom: 1; }
    MintForm TextArea { height: 3; }
    MintForm #mint-confidence-line { height: 1; margin-bottom: 1; }
    MintForm #mint-confidence-line Label { width: auto; padding-right: 1; }
    MintForm #mint-confidence { width: 8; margin-bottom: 0; }
    MintForm SelectionList { height: auto; max-height: 10; border: none; padding: 0; }
    MintForm #mint-buttons { margin-top: 1; }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Mint…", id="mint.save"),
        Binding("escape", "cancel", "Cancel", id="mint.cancel"),
    ]

    def __init__(self, signal: Signal, then: Callable[[], object] | None = None) -> None:
        super().__init__()
        self.signal = signal
        self.then = then

    def compose(self) -> ComposeResult:
        s = self.signal
        with Vertical(classes="signals-dialog"):
            yield Label(f"Mint an inference from signal #{s.id}", classes="dialog-title")
            with VerticalScroll():
                yield Label("Title", classes="dialog-hint")
                yield Input(s.title, id="mint-title", compact=True)
                yield Label("Summary: what you conclude", classes="dialog-hint")
                yield TextArea(s.detail, id="mint-summary", soft_wrap=True, compact=True)
                with Horizontal(id="mint-confidence-line"):
                    yield Label("Confidence, 0 to 1", classes="dialog-hint")
                    yield Input("0.7", id="mint-confidence", compact=True)
                yield Label("Evidence (space takes one out or back)", classes="dialog-hint")
                yield SelectionList[str](*evidence_rows(s), id="mint-evidence")
            with Horizontal(id="mint-buttons"):
                yield Button("Mint… (ctrl+s)", variant="primary", id="mint", compact=True)
                yield Button("Cancel (esc)", id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#mint-title", Input).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "mint":
            self.action_save()
        else:
            self.action_cancel()

    def _fields(self) -> tuple[str, str, float] | None:
        title = self.query_one("#mint-title", Input).value.strip()
        summary = self.query_one("#mint-summary", TextArea).text.strip()
        raw = self.query_one("#mint-confidence", Input).value.strip()
        try:
            confidence = float(raw)
        except ValueError:
            self.notify(f"confidence {raw!r} is not a number from 0 to 1", severity="error")
            return None
        return title, summary, confidence

    def action_save(self) -> None:
        fields = self._fields()
        if fields is None:
            return
        chosen = self.query_one(SelectionList).selected
        if not chosen:  # the engine would take the signal's evidence: none chosen is a no
            self.notify("choose at least one piece of evidence (space)", severity="error")
            return
        note_ids = [int(v.split(":", 1)[1]) for v in chosen if v.startswith("note:")]
        uuids = [v.split(":", 1)[1] for v in chosen if v.startswith("message:")]
        app = self.app

        def minted(_: Inference) -> None:
            self.dismiss(None)
            if self.then is not None:
                self.then()

        def answered(yes: bool | None) -> None:
            if yes:
                flows.mint(app, fields, note_ids, uuids, self.signal.id, minted)

        question = f"Mint {fields[0]!r} at confidence {fields[2]:g}?"
        detail = (
            f"from {counted(len(note_ids), 'note')} and {counted(len(uuids), 'message')}; "
            "the signal is then done"
        )
        app.push_screen(Confirm(question, detail, "Mint"), answered)

    def action_cancel(self) -> None:
        self.dismiss(None)


def evidence_rows(s: Signal) -> list[Selection[str]]:
    """One line each, told apart by what differs first: a note's title, folder and date;
    a message's date and conversation (the same error reads the same in each)."""
    rows: list[Selection[str]] = []
    for n in s.notes:
        line = Text("note     ", style="dim", no_wrap=True, overflow="ellipsis")
        line.append(n.title, style="bold")
        line.append(f"  {n.folder or '(no folder)'} · {when(n.updated)}", style="dim")
        rows.append(Selection(line, f"note:{n.id}", True))
    for m in s.messages:
        line = Text("message  ", style="dim", no_wrap=True, overflow="ellipsis")
        line.append(f"{when(m.timestamp) or 'undated'}  ")
        line.append(m.session_title or "(untitled)", style="bold")
        line.append(f" #{m.message_index}  ", style="dim")
        line.append(" ".join(m.snippet.split()))
        rows.append(Selection(line, f"message:{m.uuid}", True))
    return rows
