"""What frames every screen: the status line at the top (counts, indexing progress, MCP
address) and the keys at the bottom."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, ProgressBar, Static

from memtui.engine import ProgressEvent


class StatusLine(Horizontal):
    """Reads the app's reactive state, so every screen's line shows the same thing."""

    def compose(self) -> ComposeResult:
        yield Static("memtui", id="status-name")
        yield Static("", id="status-counts")
        yield Static("", id="status-phase")
        yield ProgressBar(total=100, show_eta=False, id="status-bar")
        yield Static("", id="status-mcp")

    def on_mount(self) -> None:
        self.watch(self.app, "counts", self._counts)
        self.watch(self.app, "progress", self._progress)
        self.watch(self.app, "mcp_address", self._mcp)

    def _counts(self, counts: str) -> None:
        self.query_one("#status-counts", Static).update(counts)

    def _progress(self, event: ProgressEvent | None) -> None:
        bar = self.query_one("#status-bar", ProgressBar)
        phase = self.query_one("#status-phase", Static)
        busy = event is not None and event.total > 0
        self.set_class(busy, "-indexing")
        if event is None or not busy:
            phase.update("")
            return
        phase.update(f"indexing {event.phase}")
        bar.update(total=event.total, progress=event.done)

    def _mcp(self, address: str) -> None:
        shown = self.query_one("#status-mcp", Static)
        shown.update(address)
        shown.set_class(not address.startswith("MCP http"), "-off")


class Keys(Footer):
    """Textual's footer, rebuilt only when the keys it shows change. Every focus move
    announces new bindings, and rebuilding a dozen keys each time was a fifth of what
    opening a session cost."""

    _shown: tuple[tuple[str, str, bool], ...] | None = None

    def bindings_changed(self, screen: Screen[object]) -> None:
        shown = tuple(
            (binding.key, binding.description, enabled)
            for _, binding, enabled, _ in screen.active_bindings.values()
            if binding.show
        )
        if shown != self._shown:
            self._shown = shown
            super().bindings_changed(screen)
