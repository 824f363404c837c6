"""A session as Markdown: for `memtui show --markdown` and `read_session`."""

from __future__ import annotations

import json
from bisect import bisect_right

from memtui.engine.types import AGENT_NAMES, MessageView, SessionInfo
from memtui.errors import InvalidArgument
from memtui.words import counted

TOOL_OUTPUT_SHOWN = 400  # tool output is searchable in full but shortened for reading
# One answer's most, in UTF-8 bytes of the lines as JSON strings (what the answer carries):
# Claude Code sets aside an answer of over 50,000 characters as it counts them (UTF-16, so an
# emoji is two) and refuses one of over 25,000 tokens, and CJK text is about a token a
# character, escaped quotes two characters each; bytes bound all of these where characters
# did not. A long session is read in parts anyway.
READ_BYTES = 40_000

_HEADINGS = {
    "prompt": "User",
    "assistant": "Claude",
    "tool_result": "Tool result",
    "meta": "Meta",
    "compact_summary": "Compaction summary",
}


def session_markdown(info: SessionInfo, messages: list[MessageView]) -> str:
    other = info.agent != "claude-code"  # Claude Code's sessions read as they always have
    headings = _HEADINGS | ({"assistant": AGENT_NAMES[info.agent]} if other else {})
    out = [
        f"# {info.title or info.session_id}",
        "",
        f"- session: `{info.session_id}`",
        *([f"- agent: {AGENT_NAMES[info.agent]}"] if other else []),
        f"- project: `{info.project}`",
        f"- from {info.first_timestamp or '?'} to {info.last_timestamp or '?'}"
        f" · {counted(info.message_count, 'message')}" + (" · archived" if info.archived else ""),
        "",
    ]
    for m in messages:
        heading = headings.get(m.kind, m.kind)
        agent = f" (subagent {m.agent_id})" if m.is_sidechain else ""
        out.append(f"## [{m.message_index}] {heading}{agent} · {m.timestamp or ''}".rstrip(" ·"))
        out.append("")
        if m.thinking:
            out.extend(["<thinking>", m.thinking, "</thinking>", ""])
        if m.text:
            out.extend([m.text, ""])
        for call in m.tool_calls:
            out.append(f"- tool `{call.name}`: `{call.arg}`")
        if m.tool_calls:
            out.append("")
        if m.tool_output:
            shown = m.tool_output
            if len(shown) > TOOL_OUTPUT_SHOWN:
                shown = shown[:TOOL_OUTPUT_SHOWN] + f"… [{len(m.tool_output)} characters]"
            fence = "````" if "```" in shown else "```"  # output that holds a fence stays inside
            out.extend([fence, shown, fence, ""])
    return "\n".join(out)


def numbered(
    markdown: str, start_line: int | None = None, end_line: int | None = None
) -> tuple[str, int]:
    """Lines `start_line`..`end_line` (1-based, inclusive), each prefixed by its number, and
    the number of the last one given: they stop where READ_BYTES would be passed."""
    lines = markdown.split("\n")
    start = 1 if start_line is None else start_line
    end = len(lines) if end_line is None else min(end_line, len(lines))
    if start < 1 or (end_line is not None and end_line < start):
        raise InvalidArgument("start_line must be ≥ 1 and end_line ≥ start_line")
    width = len(str(len(lines)))  # the same width whatever part is asked for
    out: list[str] = []
    used = 0
    for n in range(start, end + 1):
        line = f"{n:>{width}}  {lines[n - 1]}"
        size = _size(line)
        if out and used + size > READ_BYTES:
            break
        if size > READ_BYTES:  # one line longer than an answer: its start
            mark = f"… [{len(lines[n - 1])} characters]"
            line = _cut(line, READ_BYTES - _size(mark)) + mark
            size = _size(line)
        out.append(line)
        used += size
    return "\n".join(out), min(start + len(out) - 1, len(lines))


def _size(line: str) -> int:
    """A line's share of an answer: its UTF-8 bytes as a JSON string, whose two quotes
    stand for the escaped newline after it."""
    return len(json.dumps(line, ensure_ascii=False).encode())


def _cut(line: str, most: int) -> str:
    """The longest start of `line` whose _size is at most `most`."""
    most_chars = min(len(line), most)  # a character is a byte at least
    keep = bisect_right(range(most_chars + 1), most, key=lambda k: _size(line[:k])) - 1
    return line[:keep]
