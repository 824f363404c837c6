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
from typing import Any, TypeVar

from memtui.ingest.parser import key_arg
from memtui.ingest.titles import prompt_title
from memtui.store.records import LAST_EPOCH, Kind, Message, ToolCall

_T = TypeVar("_T")


def field(data: dict[str, Any], key: str, kind: type[_T], default: _T) -> _T:
    """`data[key]` when it is a `kind`, else `default`: OpenCode's JSON is read as written."""
    value = data.get(key)
    return value if isinstance(value, kind) else default


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
    times = field(info, "time", dict, {})
    created = _Time(_ms(times.get("created")))  # every part of a message has its time
    out: list[Message] = []
    role = info.get("role")
    if role == "assistant":
        # An answer that finished or failed changes no more, whatever its parts say.
        done = _ms(times.get("completed")) is not None or info.get("error") is not None
        answer = Kind.COMPACT_SUMMARY if info.get("summary") is True else Kind.ASSISTANT
        for part_id, part in parts:
            _assistant(out, conversation, message_id, created, done, answer, part_id, part)
    elif role == "user":
        for part_id, part in parts:
            _user(out, conversation, created, part_id, part)
    return out


class _Time:
    """One time as a record holds it: ISO text and epoch seconds."""

    __slots__ = ("epoch", "iso")

    def __init__(self, ms: int | None) -> None:
        self.iso = iso(ms)
        self.epoch = ms // 1000 if ms is not None else 0


def _assistant(
    out: list[Message],
    conversation: Conversation,
    message_id: str,
    created: _Time,
    done: bool,
    answer: Kind,
    part_id: str,
    part: dict[str, Any],
) -> None:
    kind = part.get("type")
    if kind == "text" or kind == "reasoning":
        text = part.get("text")
        if isinstance(text, str) and text and not text.isspace() and (done or _ended(part)):
            if kind == "text":
                out.append(_message(conversation, part_id, "assistant", answer, created, text))
            else:
                out.append(_message(conversation, part_id, "assistant", answer, created, "", text))
            out[-1].api_id = message_id
        return
    state = part.get("state")
    if kind != "tool" or not isinstance(state, dict) or state.get("status") not in _CALLED:
        return  # pending: the model is still writing its input
    name = field(part, "tool", str, "")
    call_id = field(part, "callID", str, "")
    call = _message(conversation, part_id, "assistant", Kind.ASSISTANT, created)
    call.api_id = message_id
    call.tool_calls = [ToolCall(name, key_arg(state.get("input")), call_id)]
    out.append(call)
    status = state["status"]
    if status not in _FINISHED:
        return
    state_times = field(state, "time", dict, {})
    end = _ms(state_times.get("end"))
    ended = _Time(end) if end else created
    output = state.get("error" if status == "error" else "output")
    result = _message(conversation, part_id + RESULT, "user", Kind.TOOL_RESULT, ended)
    result.tool_output = output if isinstance(output, str) else ""
    result.answers = [call_id] if call_id else []
    result.is_error = status == "error"
    out.append(result)


def _user(
    out: list[Message],
    conversation: Conversation,
    created: _Time,
    part_id: str,
    part: dict[str, Any],
) -> None:
    kind = part.get("type")
    if kind == "subtask":  # a command run as a subagent: its prompt, not typed as such
        text = part.get("prompt")
        meta = True
    elif kind == "text":
        text = part.get("text")
        # Synthetic parts are OpenCode's: a file read for an @mention, a tool's attachments.
        meta = part.get("synthetic") is True or part.get("ignored") is True
    else:
        return
    if not isinstance(text, str) or not text or text.isspace():
        return
    msg = _message(conversation, part_id, "user", Kind.META if meta else Kind.PROMPT, created, text)
    if not meta and conversation.agent_id is None:
        msg.title = prompt_title(text)
    out.append(msg)


def _message(
    conversation: Conversation,
    uuid: str,
    role: str,
    kind: Kind,
    when: _Time,
    text: str = "",
    thinking: str = "",
) -> Message:
    # Positional, in Message's field order: a cold ingest builds one per part.
    return Message(
        uuid,
        conversation.session_id,
        role,
        kind,
        when.iso,
        conversation.directory,
        None,
        None,
        conversation.agent_id is not None,
        conversation.agent_id,
        text,
        thinking,
        [],
        "",
        when.epoch,
    )


def _ended(part: dict[str, Any]) -> bool:
    times = part.get("time")
    # Text written whole (a prompt, an older release's answer) has no times at all.
    return times is None or (isinstance(times, dict) and _ms(times.get("end")) is not None)


def _ms(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not 0 <= value <= LAST_EPOCH * 1000:
        return None  # out of range: no time (1e22 would overflow SQLite's INTEGER)
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
