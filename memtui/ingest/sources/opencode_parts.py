"""One OpenCode message and its parts to the store's records. Stateless and never raises.

OpenCode keeps a message's envelope (role, times, summary flag) apart from its parts (text,
reasoning, tool, file, step markers ...), and updates a part in place while it runs: a tool
goes pending → running → completed or error, an answer's text gets `time.end` when it is
whole. The store keeps the first copy of a uuid and cannot replace it, so a part becomes a
record only once it will not change: text and reasoning once ended, a tool call once running
(its input is then whole) and its result, a record of its own, once completed or failed. Each
part's id is its record's uuid, and the message id its `api_id`, so the parts of one answer
fold into one stored message whichever run (or copy of the session) brings them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from memtui.ingest.parser import key_arg, prompt_title
from memtui.store.records import Kind, Message, ToolCall

RESULT = "/result"  # a tool part's id + this: the uuid of its result
_FINISHED = ("completed", "error")
_CALLED = ("running", *_FINISHED)


@dataclass(frozen=True, slots=True)
class Conversation:
    """Where a message's session belongs: a subagent's (child) session is its root's."""

    session_id: str  # the root session: what `opencode --session` reopens
    agent_id: str | None  # a child session's own id, as a Claude Code subagent's agentId
    directory: str | None


def records(
    conversation: Conversation, message_id: str, info: dict[str, Any], parts: list[tuple[str, Any]]
) -> list[Message]:
    """The records of one message whose parts are `(part id, part data)` in id order; parts
    still changing give none yet."""
    times = info.get("time") if isinstance(info.get("time"), dict) else {}
    created = _ms(times.get("created"))
    if info.get("role") == "assistant":
        # An answer that finished or failed changes no more, whatever its parts say.
        done = _ms(times.get("completed")) is not None or info.get("error") is not None
        summary = info.get("summary") is True
        out: list[Message] = []
        for part_id, part in parts:
            if isinstance(part, dict):
                out.extend(
                    _assistant(conversation, message_id, created, done, summary, part_id, part)
                )
        return out
    if info.get("role") == "user":
        return [
            m
            for part_id, part in parts
            if isinstance(part, dict) and (m := _user(conversation, created, part_id, part))
        ]
    return []


def _assistant(
    conversation: Conversation,
    message_id: str,
    created: int | None,
    done: bool,
    summary: bool,
    part_id: str,
    part: dict[str, Any],
) -> list[Message]:
    kind = part.get("type")
    if kind in ("text", "reasoning"):
        text = part.get("text")
        if not isinstance(text, str) or not text.strip() or not (done or _ended(part)):
            return []
        msg = _message(conversation, part_id, "assistant", Kind.ASSISTANT, created)
        msg.api_id = message_id
        if kind == "reasoning":
            msg.thinking = text
        else:
            msg.text = text
            msg.kind = Kind.COMPACT_SUMMARY if summary else Kind.ASSISTANT
        return [msg]
    if kind != "tool" or not isinstance(part.get("state"), dict):
        return []
    state = part["state"]
    status = state.get("status")
    if status not in _CALLED:
        return []  # pending: the model is still writing its input
    name = part.get("tool") if isinstance(part.get("tool"), str) else ""
    call_id = part.get("callID") if isinstance(part.get("callID"), str) else ""
    call = _message(conversation, part_id, "assistant", Kind.ASSISTANT, created)
    call.api_id = message_id
    call.tool_calls = [ToolCall(name, key_arg(state.get("input")), call_id)]
    if status not in _FINISHED:
        return [call]
    state_times = state.get("time") if isinstance(state.get("time"), dict) else {}
    result = _message(
        conversation,
        part_id + RESULT,
        "user",
        Kind.TOOL_RESULT,
        _ms(state_times.get("end")) or created,
    )
    result.is_error = status == "error"
    output = state.get("error" if result.is_error else "output")
    result.tool_output = output if isinstance(output, str) else ""
    result.answers = [call_id] if call_id else []
    return [call, result]


def _user(
    conversation: Conversation, created: int | None, part_id: str, part: dict[str, Any]
) -> Message | None:
    kind = part.get("type")
    if kind == "subtask":  # a command run as a subagent: its prompt, not typed as such
        text = part.get("prompt")
        meta = True
    elif kind == "text":
        text = part.get("text")
        # Synthetic parts are OpenCode's: a file read for an @mention, a tool's attachments.
        meta = part.get("synthetic") is True or part.get("ignored") is True
    else:
        return None
    if not isinstance(text, str) or not text.strip():
        return None
    msg = _message(conversation, part_id, "user", Kind.META if meta else Kind.PROMPT, created)
    msg.text = text
    if not meta and conversation.agent_id is None:
        msg.title = prompt_title(text)
    return msg


def _message(
    conversation: Conversation, uuid: str, role: str, kind: Kind, ms: int | None
) -> Message:
    return Message(
        uuid=uuid,
        session_id=conversation.session_id,
        role=role,
        kind=kind,
        timestamp=iso(ms),
        cwd=conversation.directory,
        git_branch=None,
        is_sidechain=conversation.agent_id is not None,
        agent_id=conversation.agent_id,
        epoch=ms // 1000 if ms is not None else 0,
    )


def _ended(part: dict[str, Any]) -> bool:
    times = part.get("time")
    # Text written whole (a prompt, an older release's answer) has no times at all.
    return times is None or (isinstance(times, dict) and _ms(times.get("end")) is not None)


def _ms(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    return int(value)


def iso(ms: int | None) -> str | None:
    """Milliseconds since the epoch as Claude Code writes its timestamps."""
    if ms is None:
        return None
    second = _second(ms // 1000)
    return f"{second}.{ms % 1000:03d}Z" if second else None


@lru_cache(maxsize=4096)  # the parts of one answer share their second
def _second(seconds: int) -> str | None:
    try:
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    except (OverflowError, OSError, ValueError):
        return None
