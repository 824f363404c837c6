"""Claude Code: `<uuid>.jsonl` transcripts under `projects/<encoded cwd>/`, appended in place,
with subagents' transcripts beside them (follower.py, parser.py, reader.py)."""

from __future__ import annotations

from memtui.config import claude_default_dir
from memtui.ingest import pipeline, reader
from memtui.ingest.sources import Source


def _resume(session_id: str) -> list[str]:
    return ["claude", "--resume", session_id]


SOURCE = Source(
    agent=reader.AGENT,
    env="MEMTUI_CLAUDE_DIR",
    holds="a folder per project of `<session>.jsonl` transcripts (as ~/.claude/projects)",
    default_root=claude_default_dir,
    discover=pipeline.discover,
    read_file=reader.read_file,
    resume=_resume,
)
