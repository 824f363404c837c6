"""A message, or the exchange it belongs to, as a new `past` note: prefilled from the
conversation, keeping its session and message as the note's source."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memtui.engine import MessageView, NoteDraft, SessionInfo
from memtui.tui.format import ROLE_LABEL, one_line, project_name, when
from memtui.tui.notes import flows

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp

TITLE_CHARS = 70
BODY_CHARS = 20_000  # a prefill a person can still read and cut; the engine takes 100 KB
_NOT_IN_TITLE = re.compile(r"\[\[|\]\]|\|")  # what a title may not hold


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
    first = next((m.text for m in said if m.kind == "prompt"), "") or said[0].text
    title = one_line(_NOT_IN_TITLE.sub(" ", first), TITLE_CHARS) or info.title or "From a session"
    lines = [f"From a conversation in {project_name(info.project)}, {when(said[0].timestamp)}."]
    for m in said:
        who = ROLE_LABEL.get(m.role, m.role)
        text = m.text.strip() or m.tool_output.strip()
        lines.append(f"**{who}:**\n\n{text}" if len(said) > 1 else text)
    body = "\n\n".join(lines)
    if len(body) > BODY_CHARS:
        body = body[:BODY_CHARS].rstrip() + "\n\n…"
    return NoteDraft(title, body, "past", project_name(info.project), [])


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
