"""Every agent's reader, by agent name. Adding a reader is one line in READERS: the name of
its module under memtui.ingest.sources, which defines `SOURCE`."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path

from memtui.ingest.sources import Source

READERS = ("claude_code", "codex", "gemini", "opencode", "copilot")

SOURCES: dict[str, Source] = {
    source.agent: source
    for source in (
        importlib.import_module(f"memtui.ingest.sources.{name}").SOURCE for name in READERS
    )
}
CLAUDE_CODE = SOURCES["claude-code"]


def active(claude_dir: Path, environ: Mapping[str, str] | None) -> list[tuple[Source, Path]]:
    """The agents whose files are read, each with where: every reader not turned off
    (MEMTUI_<AGENT>_DIR=off); Claude Code's at `claude_dir` (which `--source` may have
    replaced). Without an environment, Claude Code's only."""
    if environ is None:
        return [(CLAUDE_CODE, claude_dir)]
    found = []
    for src in SOURCES.values():
        root = src.root(environ)
        if root is not None:
            found.append((src, claude_dir if src is CLAUDE_CODE else root))
    return found
