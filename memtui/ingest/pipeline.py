"""Finds transcript files, follows each from its checkpoint and hands records to the store."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from memtui.bulk import paused_gc
from memtui.errors import InvalidArgument
from memtui.ingest import reader
from memtui.ingest.parallel import read_elsewhere
from memtui.ingest.reader import (
    BATCH,
    Unreadable,
    Work,
    mtime,
    nameable,
    read_all,
    shown,
    unstorable,
)
from memtui.ingest.sources import Source
from memtui.progress import Meter, OnProgress, cancelled
from memtui.store.archive import Archive, BatchResult, FileBatch
from memtui.store.locks import FileLock
from memtui.store.mask import Masker
from memtui.store.records import Message

log = logging.getLogger(__name__)

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
    unreadable: list[str] = field(default_factory=list)  # entries skipped whole, with why
    sessions: set[str] = field(default_factory=set)
    empty: list[str] = field(default_factory=list)  # agents with no conversation where looked
    cancelled: bool = False

    def add(self, other: IngestReport) -> None:
        """Count in another agent's ingest."""
        self.files += other.files
        self.files_seen += other.files_seen
        self.messages += other.messages
        self.merged += other.merged
        self.duplicates += other.duplicates
        self.skipped += other.skipped
        self.archived += other.archived
        self.unreadable += other.unreadable
        self.sessions |= other.sessions
        self.empty += other.empty
        self.cancelled |= other.cancelled


def discover(root: Path) -> tuple[list[Path], list[str]]:
    """Transcripts as Claude Code lays them out, sessions first, then their subagents; and
    the entries that look like transcripts but cannot be stored, with why."""
    if not root.is_dir():
        return [], []
    mains, agents, bad = [], [], []
    found = [*root.glob("*/*.jsonl"), *root.glob("*/*/subagents/*.jsonl")]
    for path in found:
        if why := unstorable(path):
            bad.append(why)
        elif path.name.startswith("agent-") or path.parent.name == "subagents":
            agents.append(path)
        else:
            mains.append(path)
    return sorted(mains, key=mtime) + sorted(agents, key=mtime), bad


class _Writer:
    """Gathers the new records of many files and stores them a few thousand at a time;
    between two such writes, a forget waiting for the writer's lock `held` goes in."""

    def __init__(self, archive: Archive, report: IngestReport, held: FileLock | None) -> None:
        self.archive = archive
        self.report = report
        self.held = held
        self.pending: list[FileBatch] = []
        self.size = 0

    def add(self, batch: FileBatch | Unreadable) -> None:
        if isinstance(batch, Unreadable):
            self.report.unreadable.append(f"{batch.path}: {batch.reason}")
            return
        self.pending.append(batch)
        self.size += len(batch.records) + 1
        self.report.skipped += batch.skipped
        self.report.sessions.update(
            r.session_id for _, r in batch.records if isinstance(r, Message)
        )
        # A forget waiting goes in now, not a whole batch later (two syscalls a file).
        if self.size >= BATCH or (self.held is not None and self.held.waited_for()):
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        try:
            self._count(self.pending, self.archive.apply(self.pending))
        except (ValueError, OverflowError):
            self._one_by_one()
        self.pending, self.size = [], 0
        if self.held is not None:
            # Records read before a forget are stored after it: each write drops those of
            # the sessions forgotten by then (Archive.apply), so none comes back.
            self.held.give_way()

    def _count(self, batches: list[FileBatch], result: BatchResult) -> None:
        self.report.files += len({b.state.path for b in batches})
        self.report.messages += result.messages
        self.report.merged += result.merged
        self.report.duplicates += result.duplicates

    def _one_by_one(self) -> None:
        """Store the pending files apart when a value in one could not be stored (text the
        store refuses, a number too big): that file is one Unreadable, the others are kept."""
        failed: set[str] = set()
        for batch in self.pending:
            if batch.state.path in failed:
                continue  # its later batches would checkpoint past the records lost
            try:
                self._count([batch], self.archive.apply([batch]))
            except (ValueError, OverflowError) as exc:
                log.exception("could not store %s", shown(Path(batch.state.path)))
                failed.add(batch.state.path)
                reason = f"a record could not be stored ({type(exc).__name__})"
                self.report.unreadable.append(f"{shown(Path(batch.state.path))}: {reason}")


def ingest(
    archive: Archive,
    root: Path,
    paths: Iterable[Path] | None = None,
    on_progress: OnProgress | None = None,
    cancel: threading.Event | None = None,
    parallel: bool | None = None,
    masker: Masker | None = None,
    held: FileLock | None = None,
    source: Source | None = None,
) -> IngestReport:
    """Bring the store up to date with one agent's files at `root` (or just `paths` under
    it: Claude Code's transcripts that changed). `source` is the agent's reader, Claude
    Code's by default.

    `cancel` is checked between batches; batches already written stay (each commits with its
    checkpoints), so the next run resumes. `parallel` reads in a second process; by default
    only when there is a lot to read. `masker` masks the secrets of every text before the
    store sees it. `held`, the writer's lock, is given way to a forget between batches.
    """
    if source is None:
        from memtui.ingest.sources import claude_code  # here: it imports this module

        source = claude_code.SOURCE
    if not nameable(root):
        hint = "or --source " if source.agent == reader.AGENT else ""
        raise InvalidArgument(
            f"the {source.agent} folder {shown(root)} has a name that is not valid UTF-8",
            f"rename it, or point {source.env} {hint}at another folder",
        )
    full_scan = paths is None
    if paths is None:
        files, bad = source.discover(root) if root.exists() else ([], [])
    else:
        files, bad = [p for p in paths if p.suffix == ".jsonl" and nameable(p)], []
    report = IngestReport(files_seen=len(files), unreadable=bad)
    states = archive.file_states([str(p) for p in files])
    work: Work = [(p, states.get(str(p))) for p in files]
    if parallel is None:
        parallel = _unread_bytes(work) >= PARALLEL_BYTES
    writer = _Writer(archive, report, held)
    meter = Meter("transcripts", on_progress)
    with paused_gc():
        batches = (
            read_elsewhere(source.agent, root, work, masker)
            if parallel
            else read_all(root, work, masker, source.read_file)
        )
        done = 0
        try:
            for number, batch in batches:
                if cancelled(cancel):
                    report.cancelled = True
                    return report
                writer.add(batch)
                if number + 1 - done >= 20:
                    done = number + 1
                    meter(done, len(files), f"{report.messages:,} messages")
            writer.flush()
        finally:
            batches.close()  # stops the reader process on a cancel or an error
    meter(len(files), len(files), f"{report.messages:,} messages")
    gone = [p for p in archive.known_files(str(root)) if not os.path.exists(p)]
    if not full_scan:
        gone = [p for p in gone if Path(p) in set(files)]
    report.archived = archive.mark_missing(gone)
    archive.mark_present(str(p) for p in files)
    return report


def _unread_bytes(work: Work) -> int:
    total = 0
    for path, state in work:
        try:
            total += os.stat(path).st_size - (state.offset if state else 0)
        except OSError:
            continue
    return total
