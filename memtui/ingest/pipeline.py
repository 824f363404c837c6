"""Finds transcript files, follows each from its checkpoint and hands records to the store."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from memtui.ingest.follower import read_lines, start_state, tail_before
from memtui.ingest.parser import parse_line
from memtui.ingest.records import Bad, Message, Title
from memtui.store.archive import Archive, FileState

log = logging.getLogger(__name__)

BATCH = 5000  # records per transaction: big enough to be fast, small enough to lose little


@dataclass(slots=True)
class IngestReport:
    files: int = 0  # files that had something new
    files_seen: int = 0
    messages: int = 0  # new messages stored
    merged: int = 0  # lines folded into a message (one API message written as several lines)
    duplicates: int = 0  # lines already stored
    skipped: int = 0  # unreadable lines
    archived: int = 0  # files found gone
    sessions: set[str] = field(default_factory=set)

    def add(self, other: IngestReport) -> None:
        self.files += other.files
        self.files_seen += other.files_seen
        self.messages += other.messages
        self.merged += other.merged
        self.duplicates += other.duplicates
        self.skipped += other.skipped
        self.archived += other.archived
        self.sessions |= other.sessions


Progress = Callable[[int, int, IngestReport], None]


def discover(root: Path) -> list[Path]:
    """Transcripts as Claude Code lays them out: sessions first, then their subagents."""
    if not root.is_dir():
        return []
    mains, agents = [], []
    for path in root.glob("*/*.jsonl"):
        (agents if path.name.startswith("agent-") else mains).append(path)
    agents.extend(root.glob("*/*/subagents/*.jsonl"))
    return sorted(mains, key=_mtime) + sorted(agents, key=_mtime)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def fallbacks(root: Path, path: Path) -> tuple[str, str]:
    """Project and session for records that lack `cwd` or `sessionId`."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        parts = path.parts[-2:]
    # The folder name is a lossy encoding of the cwd (every non-alphanumeric became "-").
    project = parts[0].replace("-", "/") if len(parts) > 1 else str(path.parent)
    session = parts[-3] if len(parts) >= 3 and parts[-2] == "subagents" else path.stem
    return project, session


def ingest_file(archive: Archive, root: Path, path: Path) -> IngestReport:
    report = IngestReport(files_seen=1)
    name = str(path)
    try:
        state, fresh = start_state(name, archive.file_state(name))
    except OSError:
        return report
    if fresh:
        log.info("reading %s from the start", name)
    project, session = fallbacks(root, path)
    batch: list[tuple[int, Message | Title]] = []
    last_end = state.offset
    try:
        for line in read_lines(name, state):
            state.line = line.number
            last_end = line.end
            record = parse_line(line.data, session) if line.data is not None else Bad("too long")
            if isinstance(record, Bad):
                state.skipped += 1
                report.skipped += 1
                log.warning("%s:%d skipped: %s", name, line.number, record.reason)
            elif isinstance(record, Message | Title):
                batch.append((line.number, record))
            if len(batch) >= BATCH:
                _commit(archive, state, last_end, batch, project, report)
                batch = []
    except OSError as exc:
        log.warning("stopped reading %s: %s", name, exc)
    if batch or last_end != state.offset or fresh:
        _commit(archive, state, last_end, batch, project, report)
    return report


def _commit(
    archive: Archive,
    state: FileState,
    end: int,
    batch: list[tuple[int, Message | Title]],
    project: str,
    report: IngestReport,
) -> None:
    state.offset = end
    state.tail = tail_before(state.path, end)
    result = archive.apply(state, batch, fallback_project=project)
    report.files = 1
    report.messages += result.messages
    report.merged += result.merged
    report.duplicates += result.duplicates
    report.sessions.update(r.session_id for _, r in batch if isinstance(r, Message))


def ingest(
    archive: Archive,
    root: Path,
    paths: Iterable[Path] | None = None,
    progress: Progress | None = None,
) -> IngestReport:
    """Bring the store up to date with `root` (or just `paths` under it)."""
    full_scan = paths is None
    files = discover(root) if paths is None else [p for p in paths if p.suffix == ".jsonl"]
    report = IngestReport()
    for number, path in enumerate(files, 1):
        if path.exists():
            report.add(ingest_file(archive, root, path))
        if progress:
            progress(number, len(files), report)
    gone = [p for p in archive.known_files(str(root)) if not os.path.exists(p)]
    if not full_scan:
        gone = [p for p in gone if Path(p) in set(files)]
    report.archived = archive.mark_missing(gone)
    return report
