"""Ingest the real transcripts in ../shared and compare with counts made by jq.

The numbers and the commands that produced them are in tests/transcript_counts.md.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from memtui.engine.memory import Memory


def test_real_projects_counts(memory: Memory, shared: Path) -> None:
    report = memory.upkeep.ingest(shared / "projects", index=False)
    assert report is not None and report.skipped == 0
    stats = memory.upkeep.stats()
    assert stats.projects == 4
    assert stats.sessions == 21
    assert stats.by_kind["prompt"] == 66
    assert stats.by_kind["assistant"] == 556
    # Ingesting again finds nothing new.
    again = memory.upkeep.ingest(shared / "projects", index=False)
    assert again is not None and again.messages == 0 and again.files == 0


def test_project_is_the_cwd_not_the_folder_name(memory: Memory, shared: Path) -> None:
    memory.upkeep.ingest(shared / "projects", index=False)
    projects = {p.project for p in memory.history.list_projects()}
    assert "/home/USER/projects/spotter-worktrees/spotter-dov" in projects
    assert "/Users/dain/workspace/claude-code-log" in projects
    # Subagents that worked in a worktree stay in the session's project.
    assert not any("/.claude/worktrees/" in p for p in projects)


def test_summary_lines_title_sessions_across_files(memory: Memory, shared: Path) -> None:
    memory.upkeep.ingest(shared / "projects", index=False)
    # The summary line sits in 37f83ec9….jsonl; its leaf message is in aa5c5ada….jsonl.
    # (The sample's other summaries point at messages that are not in it.)
    info = memory.history.get_session("aa5c5ada").session
    assert info.title == "Cache Version Compatibility Tests Added"


def test_split_message_and_compaction(memory: Memory, shared: Path) -> None:
    memory.upkeep.ingest(shared / "projects", index=False)
    page = memory.history.get_session("4d5611e5", limit=1000)
    kinds = [m.kind for m in page.messages]
    assert "compact_summary" in kinds
    thought = [m for m in page.messages if m.kind == "assistant" and m.thinking]
    assert thought and all(m.text or m.tool_calls for m in thought)
    assert any(m.is_sidechain for m in page.messages)


def test_edge_cases_never_fatal(memory: Memory, shared: Path, tmp_path: Path) -> None:
    root = tmp_path / "projects"
    shutil.copytree(shared / "edge-cases", root / "-tmp-edge-cases")
    report = memory.upkeep.ingest(root, index=False)
    assert report is not None
    assert report.skipped == 3  # the three non-object lines of edge_cases.jsonl
    assert report.duplicates >= 1  # dedup_main/dedup_agent share records
