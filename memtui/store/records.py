"""What the parser hands to the store: plain records, no JSONL left in them."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

# 9999-12-31T23:59:59Z, the last second an ISO 8601 timestamp names: a later epoch (a damaged
# record's 1e22) is no time at all, and SQLite's INTEGER could not even hold some.
LAST_EPOCH = 253_402_300_799


class Kind(StrEnum):
    """What a stored message is. Only PROMPT and ASSISTANT are conversation turns proper."""

    PROMPT = "prompt"  # something the person typed
    ASSISTANT = "assistant"  # one API message from Claude (may span several lines)
    TOOL_RESULT = "tool_result"  # a user-role line carrying tool output back to Claude
    META = "meta"  # isMeta lines: caveats, command wrappers, injected context
    COMPACT_SUMMARY = "compact_summary"  # isCompactSummary: the summary that replaces history


@dataclass(slots=True)
class ToolCall:
    name: str
    arg: str  # the key argument: command, file path, pattern, url, query ...
    id: str = ""  # the tool_use id its result names

    def __reduce__(self) -> tuple[type[ToolCall], tuple[str, str, str]]:
        return ToolCall, (self.name, self.arg, self.id)


@dataclass(slots=True)
class Message:
    uuid: str
    session_id: str
    role: str  # "user" | "assistant"
    kind: Kind
    timestamp: str | None  # ISO 8601 as written in the transcript
    cwd: str | None
    git_branch: str | None
    api_id: str | None = None  # assistant message.id: lines sharing it are one message
    is_sidechain: bool = False
    agent_id: str | None = None
    text: str = ""  # prose: what was typed or answered
    thinking: str = ""  # thinking blocks, kept apart from the answer
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_output: str = ""  # tool results, full text (shortened only for display)
    epoch: int = 0  # the timestamp in seconds, 0 when missing, unreadable or out of range
    title: str | None = None  # a prompt as a session title (the parser's prompt_title)
    answers: list[str] = field(default_factory=list)  # a tool result: the tool_use ids it answers
    is_error: bool | None = None  # a tool result: whether Claude Code marked it an error

    def __reduce__(self) -> tuple[type[Message], tuple[object, ...]]:
        # A cold ingest sends every record between processes: positional arguments pickle
        # in half the time of dataclasses' own state handling.
        return Message, (
            self.uuid,
            self.session_id,
            self.role,
            self.kind,
            self.timestamp,
            self.cwd,
            self.git_branch,
            self.api_id,
            self.is_sidechain,
            self.agent_id,
            self.text,
            self.thinking,
            self.tool_calls,
            self.tool_output,
            self.epoch,
            self.title,
            self.answers,
            self.is_error,
        )


@dataclass(slots=True)
class Title:
    """A session title: `summary` lines point at a leaf uuid, `custom-title` names a session."""

    title: str
    leaf_uuid: str | None = None
    session_id: str | None = None


@dataclass(slots=True)
class Other:
    """A valid record of a type that carries no message (progress, snapshots, hooks ...)."""

    type: str


@dataclass(slots=True)
class Bad:
    """A line that could not be read: not JSON, not an object, not UTF-8, or too big."""

    reason: str


Record = Message | Title | Other | Bad
