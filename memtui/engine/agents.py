"""Reopening a session in the coding agent that wrote it."""

from __future__ import annotations

from memtui.engine.types import AGENT_NAMES
from memtui.errors import InvalidArgument
from memtui.ingest.sources.registry import SOURCES


def resume_argv(agent: str, session_id: str) -> list[str]:
    """The command that reopens `session_id` in `agent` (run in the session's project).
    An id that starts with `-` is refused: the agent would take it as an option
    (`codex resume --dangerously-bypass-approvals-and-sandbox`), and ids come from files."""
    if session_id.startswith("-"):
        name = AGENT_NAMES.get(agent, agent)
        raise InvalidArgument(
            f"session id {session_id!r} starts with '-': {name} would take it as an option",
            f"resume it from {name}'s own list of sessions",
        )
    return SOURCES[agent].resume(session_id)
