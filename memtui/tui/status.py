"""What frames every screen: the status line at the top (counts, indexing progress, MCP
address) and the keys at the bottom."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Static

from memtui.engine import ProgressEvent

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp

PHASE_LABEL = {"transcripts": "reading transcripts"}
# What is built after each phase, said while it runs: search works on what is in already.
AFTER = {"transcripts": "vectors next", "full text": "vectors next"}
NARROW = 100  # below this many columns the counts leave out the projects
PALETTE_KEY = len("▏^p palette")  # the footer's key for the command palette, at its right


class StatusLine(Horizontal):
    """Reads the app's reactive state, so every screen's line shows the same thing: the
    counts, what is still being built while an index runs, the MCP address."""

    app: MemtuiApp

    def __init__(self) -> None:
        super().__init__()
        self.phases: dict[str, ProgressEvent] = {}  # the newest event of each phase this run

    def compose(self) -> ComposeResult:
        yield Static("memtui", id="status-name")
        yield Static("", id="status-counts")
        yield Static("", id="status-phase")
        yield Static("", id="status-mcp")

    def on_mount(self) -> None:
        self.watch(self.app, "counts", self._counts)
        self.watch(self.app, "progress", self._progress)
        self.watch(self.app, "mcp_address", self._mcp)

    def _narrow(self) -> bool:
        return self.app.size.width < NARROW

    def _counts(self, counts: str) -> None:
        if self._narrow():
            counts = counts.split(" · ", 1)[-1].replace(" messages", " msgs")
        self.query_one("#status-counts", Static).update(counts)

    def on_resize(self) -> None:
        """Below NARROW columns each part says less, so the counts keep their room beside
        an index's progress and the MCP address."""
        if getattr(self.app, "demo", False):
            name = "memtui · demo" + ("" if self._narrow() else " (ctrl+d leaves)")
            self.query_one("#status-name", Static).update(name)
        self._counts(self.app.counts)
        self._show_phase()
        self._mcp(self.app.mcp_address)

    def _progress(self, event: ProgressEvent | None) -> None:
        if event is None:
            self.phases.clear()
        elif event.total > 0:
            self.phases[event.phase] = event
        self._show_phase()

    def _show_phase(self) -> None:
        phase = self.query_one("#status-phase", Static)
        phase.update(building(self.phases, next_too=not self._narrow()))

    def _mcp(self, address: str) -> None:
        shown = self.query_one("#status-mcp", Static)
        serving = address.startswith("MCP http")
        if serving and self._narrow():  # the port says which; `memtui mcp --print-config` the rest
            address = "MCP :" + address.rsplit(":", 1)[-1].split("/", 1)[0]
        shown.update(address)
        shown.set_class(not serving, "-off")


def building(phases: dict[str, ProgressEvent], next_too: bool = True) -> str:
    """What an index run is building now, and (`next_too`) what comes after: `reading
    transcripts 45% · vectors next`. Without `next_too` (a narrow screen) the phases done
    are left out while another runs."""
    if not phases:
        return ""
    parts = []
    running = {n for n, e in phases.items() if e.done < e.total}
    for name, e in phases.items():
        if not next_too and running and name not in running:
            continue
        label = PHASE_LABEL.get(name, name)
        if e.done >= e.total and name == "vectors":
            parts.append("saving vectors…")
        elif e.done >= e.total:
            parts.append(f"{name} done")
        else:
            parts.append(f"{label} {min(99, int(100 * e.fraction))}%")
    last = next(reversed(phases))
    if next_too and last in AFTER and "vectors" not in phases:
        parts.append(AFTER[last])
    return " · ".join(parts)


class Keys(Footer):
    """Textual's footer, rebuilt only when the keys it shows change. Every focus move
    announces new bindings, and rebuilding a dozen keys each time was a fifth of what
    opening a session cost.

    80 columns hold a screen's keys and the palette's; when a screen's own keys need the
    room (the main screen's `a` with more than one agent, the Signals screen's keys), the
    palette's gives way: ctrl+p still opens it and the keys help (?) lists it."""

    _shown: tuple[tuple[str, str, bool], ...] | None = None

    def __init__(self) -> None:
        super().__init__(compact=True)

    def bindings_changed(self, screen: Screen[object]) -> None:
        shown = tuple(
            (self.app.get_key_display(binding), binding.description, enabled)
            for _, binding, enabled, _ in screen.active_bindings.values()
            if binding.show
        )
        if shown != self._shown:
            self._shown = shown
            self.set_reactive(Footer.show_command_palette, self._palette_fits())
            super().bindings_changed(screen)

    def on_resize(self) -> None:
        if self._shown is not None and self._palette_fits() != self.show_command_palette:
            self.set_reactive(Footer.show_command_palette, self._palette_fits())
            self.call_after_refresh(self.recompose)

    def _palette_fits(self) -> bool:
        # each key as the compact footer draws it: `key description` and a space
        keys = sum(len(key) + len(description) + 2 for key, description, _ in self._shown or ())
        return keys + PALETTE_KEY <= self.app.size.width
