"""Finds transcript files, follows each from its checkpoint and hands records to the store."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from memtui.bulk import paused_gc
from memtui.ingest.follower import read_lines, start_state, tail_before
from memtui.ingest.parallel import Work, read_elsewhere
from memtui.ingest.parser import parse_line
from memtui.ingest.records import Bad, Message, Title
from memtui.store.archive import Archive, FileBatch, FileState

log = logging.getLogger(__name__)

# Records per transaction. Each commit rewrites the pages it dirtied, and uuids land all over
# their index, so bigger batches are cheaper per record; 20,000 holds ~100 MB at most.
BATCH = 20_000
# Unread bytes above which a second process reads and parses (starting it costs ~0.2 s).
PARALLEL_BYTES = 32 * 1024 * 1024


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


class _Writer:
    """Gathers the new records of many files and stores them a few thousand at a time."""

    def __init__(self, archive: Archive, report: IngestReport) -> None:
        self.archive = archive
        self.report = report
        self.pending: list[FileBatch] = []
        self.size = 0

    def add(self, batch: FileBatch) -> None:
        self.pending.append(batch)
        self.size += len(batch.records) + 1
        self.report.skipped += batch.skipped
        self.report.sessions.update(
            r.session_id for _, r in batch.records if isinstance(r, Message)
        )
        if self.size >= BATCH:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        result = self.archive.apply(self.pending)
        self.report.files += len({b.state.path for b in self.pending})
        self.report.messages += result.messages
        self.report.merged += result.merged
        self.report.duplicates += result.duplicates
        self.pending, self.size = [], 0


def read_file(root: Path, path: Path, previous: FileState | None) -> Iterator[FileBatch]:
    """The new records of one file, in batches, each with the checkpoint that follows it."""
    name = str(path)
    try:
        state, fresh = start_state(name, previous)
    except OSError:
        return
    if fresh:
        log.info("reading %s from the start", name)
    project, session = fallbacks(root, path)
    batch: list[tuple[int, Message | Title]] = []
    end, skipped_before = state.offset, state.skipped
    try:
        for line in read_lines(name, state):
            state.line = line.number
            end = line.end
            record = parse_line(line.data, session) if line.data is not None else Bad("too long")
            if isinstance(record, Bad):
                state.skipped += 1
                log.warning("%s:%d skipped: %s", name, line.number, record.reason)
            elif isinstance(record, Message | Title):
                batch.append((line.number, record))
            if len(batch) >= BATCH:
                yield _checkpoint(state, end, batch, project, state.skipped - skipped_before)
                batch, skipped_before = [], state.skipped
    except OSError as exc:
        log.warning("stopped reading %s: %s", name, exc)
    if batch or end != state.offset or fresh:
        yield _checkpoint(state, end, batch, project, state.skipped - skipped_before)


def _checkpoint(
    state: FileState,
    end: int,
    batch: list[tuple[int, Message | Title]],
    project: str,
    skipped: int,
) -> FileBatch:
    state.offset = end
    state.tail = tail_before(state.path, end)
    return FileBatch(replace(state), batch, project, skipped)


def read_all(root: Path, work: Work) -> Iterator[tuple[int, FileBatch]]:
    """The new records of every file in `work`, each batch with its file's index."""
    for number, (path, previous) in enumerate(work):
        for batch in read_file(root, path, previous):
            yield number, batch


def ingest(
    archive: Archive,
    root: Path,
    paths: Iterable[Path] | None = None,
    progress: Progress | None = None,
    parallel: bool | None = None,
) -> IngestReport:
    """Bring the store up to date with `root` (or just `paths` under it).

    `parallel` reads in a second process; by default only when there is a lot to read.
    """
    full_scan = paths is None
    files = discover(root) if paths is None else [p for p in paths if p.suffix == ".jsonl"]
    report = IngestReport(files_seen=len(files))
    states = archive.file_states([str(p) for p in files])
    work = [(p, states.get(str(p))) for p in files]
    if parallel is None:
        parallel = _unread_bytes(work) >= PARALLEL_BYTES
    writer = _Writer(archive, report)
    with paused_gc():
        batches = read_elsewhere(root, work) if parallel else read_all(root, work)
        done = 0
        for number, batch in batches:
            writer.add(batch)
            if progress and number + 1 - done >= 20:
                done = number + 1
                progress(done, len(files), report)
        writer.flush()
    if progress:
        progress(len(files), len(files), report)
    gone = [p for p in archive.known_files(str(root)) if not os.path.exists(p)]
    if not full_scan:
        gone = [p for p in gone if Path(p) in set(files)]
    report.archived = archive.mark_missing(gone)
    return report


def _unread_bytes(work: Work) -> int:
    total = 0
    for path, state in work:
        try:
            total += os.stat(path).st_size - (state.offset if state else 0)
        except OSError:
            continue
    return total
