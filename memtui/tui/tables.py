"""The row tables of the notes, rules, signals and inferences screens: one class, the same keys,
and a last column that takes the width the others leave."""

from __future__ import annotations

from typing import ClassVar

from rich.console import RenderableType
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

MIN_LAST = 8  # cells the last column keeps however narrow the screen
SIDEWAYS = ("left", "right")


# A list of options' vim keys beside its arrows: one set for every such list.
OPTION_KEYS: list[BindingType] = [
    Binding("j", "cursor_down", "Down", show=False, id="go.down"),
    Binding("k", "cursor_up", "Up", show=False, id="go.up"),
    Binding("g", "first", "Top", show=False, id="go.top"),
    Binding("G", "last", "Bottom", show=False, id="go.bottom"),
]


class ListTable(DataTable[RenderableType], inherit_bindings=False):
    """A table whose last column (a title) fills the room the fixed columns leave: a title
    reads whole when there is room and ends in an ellipsis when there is not. Left to
    measure itself, the column could end up as narrow as its label. Its own keys only: it
    never scrolls sideways, so the keys panel would list left, right and ctrl+page keys
    that do nothing (and left is the screen's, to the filters)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *(b for b in DataTable.BINDINGS if isinstance(b, Binding) and b.key not in SIDEWAYS),
        Binding("j", "cursor_down", "Down", show=False, id="go.down"),
        Binding("k", "cursor_up", "Up", show=False, id="go.up"),
        Binding("g", "scroll_top", "Top", show=False, id="go.top"),
        Binding("G", "scroll_bottom", "Bottom", show=False, id="go.bottom"),
    ]

    def on_resize(self) -> None:
        self.fit()

    def fit(self) -> None:
        """Give the last column what the others leave of the table's width."""
        columns = self.ordered_columns
        width = self.scrollable_content_region.width
        if not columns or not width:
            return
        *fixed, last = columns
        room = width - sum(c.get_render_width(self) for c in fixed) - 2 * self.cell_padding
        room = max(MIN_LAST, room)
        if not last.auto_width and last.width == room:
            return
        last.auto_width = False
        last.width = room
        self._require_update_dimensions = True  # DataTable's own flag: virtual size anew
        self._clear_caches()
        self.refresh()
