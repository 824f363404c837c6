"""Reusable dialogs: a one-line prompt (the export path now, note titles later) and a
yes-or-no question."""

from __future__ import annotations

from typing import ClassVar, Protocol, runtime_checkable

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label


@runtime_checkable
class Unsaved(Protocol):
    """A screen holding work not saved yet: quitting asks first."""

    def unsaved(self) -> bool: ...


class Prompt(ModalScreen[str | None]):
    """Ask for one line of text; Enter answers it, Escape answers None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_none", "Cancel", id="prompt.cancel")
    ]

    def __init__(self, question: str, value: str = "", detail: str = "") -> None:
        super().__init__()
        self.question = question
        self.value = value
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question, classes="dialog-title")
            yield Input(self.value, id="prompt-input")
            if self.detail:  # wrapped in full, where the one-line input may scroll
                yield Label(self.detail, id="prompt-detail", classes="dialog-hint")
            yield Label("enter to confirm · escape to cancel", classes="dialog-hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


class Confirm(ModalScreen[bool]):
    """A yes-or-no question, what follows from it, and a button for each: `y` answers yes
    with the named action, `n` or Escape no (the focus starts on No)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, question: str, detail: str, yes: str, no: str = "Keep") -> None:
        super().__init__()
        self.question = question
        self.detail = detail
        self.yes = yes
        self.no = no

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question, classes="dialog-title")
            yield Label(self.detail, classes="dialog-hint")
            with Horizontal():
                yield Button(f"{self.yes} (y)", variant="error", id="yes")
                yield Button(f"{self.no} (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
