"""Small text helpers shared by the screens: dates, project names, marked snippets."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.style import Style
from rich.text import Text

from memtui.errors import MemtuiError

ROLE_LABEL = {"user": "you", "assistant": "claude"}
# The TUI's words for the MCP tools and arguments the engine's messages name in backticks
# (the CLI has its own, in cli/say.py).
NAMES = {
    "get_signals": "the Signals screen (s)",
    "list_inferences": "the Inferences screen (i)",
    "snooze_until": "the snooze time",
    "on_conflict": "memtui import --on-conflict",
}
_MARKED = re.compile(r"\*\*(.+?)\*\*", re.DOTALL)


def error_line(exc: MemtuiError) -> str:
    """An engine error as the TUI shows it: in the screens' words, not the MCP tools'."""
    return exc.line(NAMES)


# Stored as `user` lines, but not what the person said: a tool's output, a compaction's
# summary, the agent's own notes (meta).
_NOT_SAID = {"tool_result": "tool", "compact_summary": "summary", "meta": "meta"}


def who(role: str, kind: str, agent: str = "claude-code") -> str:
    """Who a message is from, in the screen's words: a tool's output, a summary or a meta
    line, stored as `user` lines, are not the person's; an answer is the agent's that wrote
    the session."""
    if kind in _NOT_SAID:
        return _NOT_SAID[kind]
    return agent_label(agent) if role == "assistant" else ROLE_LABEL.get(role, role)


def when(timestamp: str | None, *, seconds: bool = False) -> str:
    """An ISO timestamp in local time, as a person scans a list: `2026-11-21 14:02`."""
    if not timestamp:
        return ""
    try:
        moment = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return timestamp[:16]
    if moment.tzinfo is not None:
        moment = moment.astimezone()
    return moment.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")


def short_when(timestamp: str | None, year: str) -> str:
    """`when` in 11 columns: `11-21 14:02` in `year` (the newest in a list's), the date with
    its year in any other (a list that spans years must not show last April as this one)."""
    stamp = when(timestamp)
    return stamp[5:] if stamp.startswith(year) else stamp[:10]


def agent_label(agent: str) -> str:
    """An agent in a column: its SPEC name, Claude Code's cut to fit beside the others."""
    return "claude" if agent == "claude-code" else agent


def labelled(agents: Iterable[str]) -> bool:
    """Whether rows name their agent: only when one is not Claude Code's, so a list of
    Claude Code's alone reads as it always has."""
    return any(agent != "claude-code" for agent in agents)


def project_name(project: str) -> str:
    """The last part of a project's directory: `/home/ana/work/shop-api` → `shop-api`."""
    return Path(project).name or project


def short_names(projects: Iterable[str]) -> dict[str, str]:
    """Each project's shortest ending of its path that no other project shares:
    `/home/dev/clients/client-01/app` → `client-01/app` beside `client-02/app`, `shop-api`
    alone."""
    parts = {p: [x for x in p.split("/") if x] or [p] for p in set(projects)}
    names: dict[str, str] = {}
    depth = 1
    left = dict(parts)
    while left:
        endings = Counter("/".join(x[-depth:]) for x in parts.values() if len(x) >= depth)
        for path, x in list(left.items()):
            ending = "/".join(x[-depth:])
            if endings[ending] == 1 or depth >= len(x):
                names[path] = ending if depth < len(x) else home_short(path)
                del left[path]
        depth += 1
    return names


def home_short(path: str) -> str:
    home = str(Path.home())
    return "~" + path[len(home) :] if path == home or path.startswith(home + "/") else path


def marked(snippet: str, style: str | Style = "bold reverse") -> Text:
    """A search snippet with its **marked** words styled, everything else plain (no markup)."""
    text = Text(no_wrap=False)
    last = 0
    for match in _MARKED.finditer(snippet):
        text.append(snippet[last : match.start()])
        text.append(match.group(1), style=style)
        last = match.end()
    text.append(snippet[last:])
    return text


def hit_words(snippet: str) -> list[str]:
    """The words a search marked in a snippet (`**word**`), each once."""
    return list(dict.fromkeys(m.group(1).strip() for m in _MARKED.finditer(snippet)))


def one_line(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def cut_at_word(text: Text, width: int) -> Text:
    """`text` on one line of `width` cells: when too long, cut after its last whole word
    that fits, with an ellipsis (`…port <n> faile` reads as a typo); a word longer than
    half the room is cut where it must."""
    if text.cell_len <= width:
        return text
    room = max(1, width - 1)
    cut = text.plain.rfind(" ", 0, room + 1)
    end = cut if cut > room // 2 else room
    line = text[:end].copy()
    line.rstrip()
    line.append("…")
    line.truncate(width)  # wide characters take two cells
    return line


class WordCut:
    """A table cell of one line that, too long for its column, is cut at a word."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield cut_at_word(self.text, options.max_width)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, self.text.cell_len)


def clip_lines(text: Text, width: int, count: int) -> list[Text]:
    """`text` broken at spaces into at most `count` lines of `width` cells, the last one
    cut with an ellipsis: rows of a fixed height lay out without wrapping anything."""
    plain = text.plain
    lines: list[Text] = []
    start = 0
    while start < len(plain) and len(lines) < count:
        end = min(len(plain), start + width)
        if end < len(plain) and len(lines) == count - 1:
            line = text[start : end - 1] + "…"
        else:
            if end < len(plain):
                space = plain.rfind(" ", start, end + 1)
                end = space if space > start else end
            line = text[start:end]
        line.truncate(width, overflow="ellipsis")  # wide characters take two cells
        lines.append(line)
        start = end + (plain[end : end + 1] == " ")
    return lines
