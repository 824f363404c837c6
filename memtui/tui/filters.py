"""The search screen's filter row: project, who, agent, and the dates, on one line; and what
the date boxes mean (local days, `before` leaving its day out for notes as for messages).

Laid out by the row's own width, not the screen's (the keys panel takes from it): Textual lays
boxes past the edge when their least widths do not fit, so below each width something gives
way (app.tcss): the gaps, the dates' labels to `≥` and `<`, then who and agent.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.validation import Function
from textual.widgets import Input, Select, Static

from memtui.engine import MemtuiError
from memtui.engine.search import PROMPTS, TOOL_OUTPUT, parse_when

# Who wrote a message, in the screen's words: the person's prompts apart from the tool output
# Claude Code stores beside them as `user` lines.
WHO = [("you", PROMPTS), ("claude", "assistant"), ("tool output", TOOL_OUTPUT)]
LABELS = {"after": ("after", "≥"), "before": ("before", "<")}  # (room, no room)


def is_date(value: str) -> bool:
    """An empty box, or a date or date-time the engine takes."""
    try:
        parse_when(value.strip() or None, "date")
    except MemtuiError:
        return False
    return True


def local_moment(value: str | None) -> str | None:
    """A date box's value as the engine reads it: a bare date or a date-time without an
    offset means the person's own time zone, the one the hits are listed in (the engine's
    API reads them as UTC)."""
    if not value:
        return value
    try:
        moment = datetime.fromisoformat(value)  # a bare date is its day's midnight
        return moment.isoformat() if moment.tzinfo else moment.astimezone().isoformat()
    except (ValueError, OverflowError, OSError):  # not a date (yet), or at the calendar's ends
        return value


def nothing_between(after: str | None, before: str | None) -> str | None:
    """What to say, searching nothing, when the dates leave no time between them."""
    start, end = parse_when(after, "after"), parse_when(before, "before")
    if start is None or end is None or start < end:
        return None
    if start == end:
        return "after = before: for one day, before takes the next"
    return "after is later than before: swap them"


def last_before(before: str | None) -> datetime | None:
    """The notes' date_to for the screen's `before`. A note's date_to takes in a bare date's
    whole day, a message's before leaves it out: on one screen both read it as messages do."""
    end = parse_when(before, "before")
    if end is None:
        return None
    try:
        return datetime.fromtimestamp(end, UTC) - timedelta(microseconds=1)
    except (ValueError, OverflowError):  # before the calendar's first moment: nothing is
        return datetime.min.replace(tzinfo=UTC)


class FilterRow(Horizontal):
    def compose(self) -> ComposeResult:
        # One row, not three: at 80x24 the results need the room more than borders do.
        yield Select([], prompt="any project", id="project", compact=True)
        yield Select(WHO, prompt="anyone", id="role", compact=True)
        # Shown only when the archive holds more than one agent's sessions (`-agents`).
        yield Select([], prompt="any agent", id="agent", compact=True)
        # Labelled beside the box: a placeholder would go once a date is typed.
        for side in ("after", "before"):
            yield Static(side, id=f"{side}-label", classes="date-label")
            yield Input(
                placeholder="YYYY-MM-DD",
                id=side,
                classes="date",
                compact=True,
                validators=[Function(is_date, "a date like 2026-11-01")],
            )

    def show_agents(self, shown: bool) -> None:
        self.set_class(shown, "-agents")
        self._fit(self.size.width)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width)

    def _fit(self, width: int) -> None:
        agents = self.has_class("-agents")
        self.set_class(width < 100, "-narrow")
        self.set_class(width < 70, "-tiny")
        self.set_class(width < (67 if agents else 56), "-cramped")
        self.set_class(width < 42, "-dates-only")  # beside the keys panel in a small terminal
        short = width < 70 or (width < 100 and agents)
        for side, (long, brief) in LABELS.items():
            self.query_one(f"#{side}-label", Static).update(brief if short else long)
