"""The Signals and Inferences entries of the main screen's sidebar: new signals and stale
inferences, counted. When the store changes (while the main screen is on top, and when it
comes back) detection runs in a worker, a read when nothing it looks at changed, and the
counts are read from SQLite; so a note saved here or by Claude shows in the counts without
a key."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from memtui.engine.signal_types import Counts
from memtui.tui.signals import flows

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp

SIGNALS = "signals"
INFERENCES = "inferences"


def counted(name: str, count: int) -> Text:
    line = Text(name, style="bold" if count else "", overflow="ellipsis", no_wrap=True)
    line.append(f"  {count:,}", style="dim")
    return line


class SignalsArea(Vertical):
    app: MemtuiApp
    DEFAULT_CSS = """
    SignalsArea { height: auto; }
    SignalsArea > .area-title { margin-top: 1; }
    SignalsArea OptionList { height: auto; border: none; background: $surface; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.seen: Counts | None = None

    def compose(self) -> ComposeResult:
        loading = Text("loading…", style="dim")
        yield Static("Signals", classes="area-title")
        yield OptionList(Option(loading, id=SIGNALS), id="signals-area")
        yield Static("Inferences", classes="area-title")
        yield OptionList(Option(loading, id=INFERENCES), id="inferences-area")

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="signals-area", exit_on_error=False)
    def load(self) -> None:
        if not self.screen.is_current:  # under another screen: nothing to show it to
            return
        signals = self.app.memory.signals
        self.app.ask(signals.detect)
        now = self.app.ask(signals.counts)
        if now is not None and now != self.seen:
            self.app.call_from_thread(self.show, now)

    def show(self, now: Counts) -> None:
        self.seen = now
        self.query_one("#signals-area", OptionList).replace_option_prompt(
            SIGNALS, counted("New signals", now.new_signals)
        )
        self.query_one("#inferences-area", OptionList).replace_option_prompt(
            INFERENCES, counted("Stale inferences", now.stale_inferences)
        )

    @on(OptionList.OptionSelected, "#signals-area")
    def _signals(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        flows.signals(self.app)

    @on(OptionList.OptionSelected, "#inferences-area")
    def _inferences(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        flows.inferences(self.app)
