"""A message, or the exchange it belongs to, as a new `past` note: prefilled from the
conversation, keeping its session and message as the note's source. Its title is what the
person asked, in a few words: the prompt of the exchange, without what Claude Code wraps
around it (`<ide_selection>…</ide_selection>`, `<system-reminder>`, a command's tags)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memtui.engine import MessageView, NoteDraft, SessionInfo
from memtui.engine.quoting import fence
from memtui.tui.format import ROLE_LABEL, project_name, when
from memtui.tui.notes import flows

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp

TITLE_CHARS = 60  # cut at a word before this, never with an ellipsis
BODY_CHARS = 20_000  # a prefill a person can still read and cut; the engine takes 100 KB
_NOT_IN_TITLE = re.compile(r"\[\[|\]\]|\|")  # what a title may not hold
# A tag whose name has a _ or - is a machine's (ide_selection, system-reminder,
# command-name): it goes with what it holds. Other tags go, their words stay.
_MACHINE_BLOCK = re.compile(r"<([a-z][a-z0-9]*[_-][a-z0-9_-]*)\b[^>]*>.*?</\1\s*>", re.S | re.I)
_MACHINE_OPEN = re.compile(r"<[a-z][a-z0-9]*[_-][a-z0-9_-]*\b[^>]*>.*", re.S | re.I)
_TAG = re.compile(r"</?[a-zA-Z][\w-]*(\s[^<>]*)?>")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")  # [words](url): the words
_MARKS = re.compile(r"^\s*(#+|>+|[-*+]\s|\d+\.\s)\s*|`+|\*\*|__|~~", re.M)
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+")
_TRAILING = " .,;:-\u2013\u2014"  # and the en and em dashes
_DANGLING = {"a", "an", "the", "of", "to", "in", "on", "at", "and", "or", "for", "with", "by"}


def exchange(messages: list[MessageView], position: int) -> list[MessageView]:
    """The prompt before `position` (or at it) and everything up to the next prompt."""
    start = position
    while start > 0 and messages[start].kind != "prompt":
        start -= 1
    end = position + 1
    while end < len(messages) and messages[end].kind != "prompt":
        end += 1
    return messages[start:end]


def draft(
    info: SessionInfo, messages: list[MessageView], position: int, whole_exchange: bool
) -> NoteDraft:
    chosen = exchange(messages, position) if whole_exchange else [messages[position]]
    said = [m for m in chosen if m.kind in ("prompt", "assistant") and m.text.strip()]
    said = said or [messages[position]]
    asked = exchange(messages, position)[0]
    candidates = [asked.text if asked.kind == "prompt" else "", *(m.text for m in said)]
    candidates.append(info.title)
    title = next((t for t in map(short_title, candidates) if t), "From a session")
    lines = [f"From a conversation in {project_name(info.project)}, {when(said[0].timestamp)}."]
    for m in said:
        who = ROLE_LABEL.get(m.role, m.role)
        text = m.text.strip() or _calls(m) or m.tool_output.strip()
        lines.append(f"**{who}:**\n\n{text}" if len(said) > 1 else text)
    body = "\n\n".join(lines)
    if len(body) > BODY_CHARS:
        body = body[:BODY_CHARS].rstrip() + "\n\n…"
    return NoteDraft(title, body, "past", project_name(info.project), [])


def _calls(message: MessageView) -> str:
    """A message that only ran tools: each tool and its argument, a line each in a block that
    no backtick of theirs can close (an argument may hold code)."""
    if not message.tool_calls:
        return ""
    lines = [f"{call.name}: {call.arg}" for call in message.tool_calls]
    mark = fence(lines)
    return "\n".join([f"{mark}text", *lines, mark])


def title_words(text: str) -> str:
    """`text` on one line without markup: machine tags with what they hold, other tags,
    Markdown's marks, what a title may not hold."""
    text = _MACHINE_BLOCK.sub(" ", text)
    text = _MACHINE_OPEN.sub(" ", text)  # one cut before it closes: the rest is its too
    text = _TAG.sub(" ", text)
    text = _LINK.sub(r"\1", text)
    text = _MARKS.sub("", text)
    return " ".join(_NOT_IN_TITLE.sub(" ", text).split())


def short_title(text: str) -> str:
    """A note title from `text`: its first sentence of three words or more (a "Perfect!"
    says nothing), cut at a word within TITLE_CHARS; "" when nothing is left."""
    words = title_words(text)
    sentences = _SENTENCE_END.split(words)
    first = next((s for s in sentences if len(s.split()) >= 3), words)
    if len(first) > TITLE_CHARS:
        kept = first[: TITLE_CHARS + 1].split(" ")[:-1] or [first[:TITLE_CHARS]]
        while len(kept) > 1 and kept[-1].lower() in _DANGLING:  # not "... in the"
            kept.pop()
        first = " ".join(kept)
    return first.rstrip(_TRAILING)


def save_from_session(
    app: MemtuiApp,
    info: SessionInfo,
    messages: list[MessageView],
    position: int,
    whole_exchange: bool = False,
) -> None:
    """Open the editor on a `past` note made from the message at `position`."""
    message = messages[position]
    prefill = draft(info, messages, position, whole_exchange)
    flows.new(app, prefill, flows.Source(message.session_id, message.uuid or None))
