"""What the engine answers with: plain dataclasses, the same for the TUI, MCP and the CLI."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

# Shared by every front end: argparse choices, MCP schemas and TUI toggles read these.
Mode = Literal["hybrid", "fts", "vector"]
ModeAlias = Literal["text", "both"]  # SPEC's other names for fts and hybrid
Role = Literal["user", "assistant"]
Order = Literal["asc", "desc"]
MODES: tuple[Mode, ...] = get_args(Mode)
ROLES: tuple[Role, ...] = get_args(Role)
ORDERS: tuple[Order, ...] = get_args(Order)
MODE_ALIASES: dict[str, Mode] = {"text": "fts", "both": "hybrid"}


@dataclass(slots=True)
class ToolCallView:
    name: str
    arg: str


@dataclass(slots=True)
class MessageView:
    session_id: str
    message_index: int
    uuid: str
    role: str
    kind: str
    timestamp: str | None
    text: str
    thinking: str = ""
    tool_calls: list[ToolCallView] = field(default_factory=list)
    tool_output: str = ""
    is_sidechain: bool = False
    agent_id: str | None = None
    line: int = 0


@dataclass(slots=True)
class SessionInfo:
    session_id: str
    project: str
    title: str
    first_timestamp: str | None
    last_timestamp: str | None
    message_count: int
    git_branch: str | None
    archived: bool


@dataclass(slots=True)
class ProjectInfo:
    project: str
    sessions: int
    messages: int
    last_activity: str | None


@dataclass(slots=True)
class SessionPage:
    session: SessionInfo
    messages: list[MessageView]
    offset: int
    limit: int
    total: int
    has_more: bool


def to_dict(obj: Any) -> Any:
    """A result as JSON-ready data (dataclasses all the way down)."""
    if isinstance(obj, list):
        return [to_dict(item) for item in obj]
    return asdict(obj)
