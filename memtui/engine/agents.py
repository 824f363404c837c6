"""Reopening a session in the coding agent that wrote it."""

from __future__ import annotations

from memtui.ingest.sources.registry import SOURCES


def resume_argv(agent: str, session_id: str) -> list[str]:
    """The command that reopens `session_id` in `agent` (run in the session's project)."""
    return SOURCES[agent].resume(session_id)
