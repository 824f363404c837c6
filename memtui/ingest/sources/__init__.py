"""One reader per coding agent, behind one interface: where the agent keeps its files, which
of them are conversations, how to read what is new in one, and how to reopen a session in
the agent that wrote it.

A reader hands the store the same records as the Claude Code reader (`store.records`), in
`FileBatch`es whose `agent` names it, each with the checkpoint (`FileState`) that follows
them: the store keeps the checkpoint in the same transaction as the records, so nothing is
read twice and `kill -9` loses nothing. Message uuids are the store's memory of what it has:
a reader whose format has no ids derives stable ones, so a re-read or a second copy of the
same conversation stores nothing twice.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from memtui.ingest.reader import Unreadable
from memtui.store.archive import FileBatch, FileState
from memtui.store.mask import Masker

OFF = "off"  # MEMTUI_<AGENT>_DIR=off leaves that agent out

Discover = Callable[[Path], tuple[list[Path], list[str]]]
ReadFile = Callable[[Path, Path, FileState | None, Masker | None], Iterator[FileBatch | Unreadable]]


@dataclass(frozen=True, slots=True)
class Source:
    agent: str  # as SPEC names it: claude-code, codex, gemini, opencode, copilot
    env: str  # MEMTUI_<AGENT>_DIR: where to look instead, or `off`
    holds: str  # what the folder it names holds: said when one set there holds no conversation
    default_root: Callable[[Mapping[str, str]], Path]  # where the agent itself keeps them
    # The conversation files under a root (oldest first), and the entries that look like
    # one but cannot be stored, each with why.
    discover: Discover
    # The new records of one file after its checkpoint, in batches; a file that cannot be
    # read is one Unreadable, never an exception.
    read_file: ReadFile
    resume: Callable[[str], list[str]]  # the command that reopens a session by its id

    def root(self, environ: Mapping[str, str] = os.environ) -> Path | None:
        """Where this agent's files are; None when the person turned it off."""
        explicit = environ.get(self.env, "").strip()
        if explicit.lower() == OFF:
            return None
        if explicit:
            return Path(explicit).expanduser()
        return self.default_root(environ)
