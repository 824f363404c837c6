"""What the CLI prints and asks: lines for a person, JSON documents, questions, progress."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from memtui.errors import MemtuiError, NotConfirmed
from memtui.words import counted

if TYPE_CHECKING:  # rich: imported where it prints (not in `memtui mcp` nor the hook)
    from rich.console import Console
    from rich.progress import ProgressColumn, TaskID

    from memtui.engine import IngestReport, ProgressEvent

_T = TypeVar("_T")

# What a terminal acts on instead of showing: C0 controls but newline and tab (ESC starts a
# sequence that recolours, moves the cursor or retitles the window), DEL, C1, and the bidi
# overrides and isolates (they reorder what follows, so a line reads other than it is).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape_control(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(text: str) -> str:
    """Text as the CLI prints it for a person: control characters written as escapes
    (`\\x1b`, `\\u202e`), never sent to the terminal. JSON output escapes them itself."""
    return _CONTROL.sub(_escape_control, text)


def say(*parts: object, **kwargs: Any) -> None:
    """`print` for a person: every human line of the CLI goes through it (stored text
    holds whatever a transcript held)."""
    print(*(shown(str(p)) for p in parts), **kwargs)


# The CLI's words for the MCP tools and arguments the engine's messages name in backticks.
NAMES = {
    "get_signals": "`memtui signals --status all`",
    "list_inferences": "`memtui inferences`",
    "snooze_until": "--until",
    "on_conflict": "--on-conflict",
}


def error_line(exc: MemtuiError) -> str:
    """An engine error as the CLI says it: in its own commands and options."""
    return exc.line(NAMES)


def fail(message: str) -> NoReturn:
    say(f"memtui: {message}", file=sys.stderr)
    raise SystemExit(1)


def print_json(doc: object) -> None:
    """`--json`: one document on stdout (engine objects made plain with `to_dict` first)."""
    print(json.dumps(doc, indent=2))


def when(timestamp: str | None) -> str:
    """An ISO time as a fixed-width column: `2026-01-05 14:03`."""
    return f"{(timestamp or '')[:16].replace('T', ' '):<16}"


def ask(question: str, default: bool) -> bool:
    """A yes or no typed at the terminal (Enter: `default`); with no terminal, no."""
    if not sys.stdin.isatty():
        return False
    say(question, end="", file=sys.stderr, flush=True)
    answer = sys.stdin.readline().strip().lower()
    return default if answer == "" else answer in ("y", "yes")


def confirm(yes: bool, question: str, *, refused: str, declined: str) -> None:
    """Go on after `--yes` or a yes typed at the terminal. With no terminal to ask on,
    NOT_CONFIRMED (`refused`, and how to say yes); after a no, NOT_CONFIRMED (`declined`)."""
    if yes:
        return
    if not sys.stdin.isatty():
        raise NotConfirmed(refused, "answer at a terminal, or add --yes")
    if not ask(f"{question} [y/N] ", default=False):
        raise NotConfirmed(declined)


def with_progress(work: Callable[[Callable[[ProgressEvent], None]], _T]) -> _T:
    """Run `work` with a progress bar on stderr (at a terminal), one row a phase, fed by the
    engine's events."""
    from rich.console import Console
    from rich.progress import Progress

    err = Console(stderr=True)
    if not err.is_terminal:  # a bar redrawn into a pipe or a log is noise
        return work(lambda _event: None)
    with Progress(*_bar_columns(), transient=True, console=err) as bar:
        tasks: dict[str, TaskID] = {}

        def on_progress(event: ProgressEvent) -> None:
            if event.phase not in tasks:
                tasks[event.phase] = bar.add_task(event.phase, total=event.total, detail="")
            bar.update(
                tasks[event.phase],
                completed=event.done,
                total=event.total,
                detail=f"{event.detail} · {event.rate:,.0f}/s" if event.detail else "",
            )

        return work(on_progress)


def _bar_columns() -> tuple[ProgressColumn, ...]:
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

    return (
        TextColumn("{task.description:<12}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[detail]}"),
        TimeElapsedColumn(),
    )


def summary(report: IngestReport) -> str:
    """An ingest in a line or a few: counts, and the first entries it could not read."""
    parts = [
        counted(len(report.sessions), "session"),
        counted(report.messages, "new message"),
        f"{report.files:,} of {counted(report.files_seen, 'file')} changed",
        counted(report.skipped, "skipped line"),
    ]
    if report.duplicates:
        parts.append(counted(report.duplicates, "duplicate line"))
    if report.archived:
        parts.append(f"{counted(report.archived, 'file')} gone (sessions kept, archived)")
    if report.unreadable:
        unreadable = counted(len(report.unreadable), "entry", "entries")
        parts.append(f"{unreadable} skipped (unreadable, see the log)")
    lines = ["indexed: " + ", ".join(parts)]
    lines += [f"  skipped {entry}" for entry in report.unreadable[:10]]
    return "\n".join(lines)


def console() -> Console:
    """A rich console for stdout. Into a pipe or a file it wraps nothing (rich would wrap at
    80 columns, cutting a hit's header in two for grep). rich exits 1 on a closed pipe;
    `memtui search ... | head -1` exits as `show` does (141)."""
    from rich.console import Console

    class PipedConsole(Console):
        def on_broken_pipe(self) -> None:
            raise BrokenPipeError

    out = PipedConsole(highlight=False)
    out.soft_wrap = not out.is_terminal
    return out
