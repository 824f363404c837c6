"""The archive itself: ingest, counts, rebuilds, checks and repairs, forgets."""

from __future__ import annotations

import sys
import threading
from argparse import Namespace
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from memtui import config
from memtui.cli.base import JSON, Family, arg, existing_dir, id_of, one_of, project, text, yes
from memtui.cli.say import confirm, print_json, say, summary, with_progress
from memtui.engine import LAYERS, IndexDamaged, InvalidArgument, StoreCorrupt, recall, to_dict
from memtui.engine.signal_types import INFERENCE_STATUSES, SIGNAL_STATUSES
from memtui.words import counted

if TYPE_CHECKING:
    from memtui.engine import IngestReport, Memory, ProgressEvent

family = Family()


@family.command(
    "index",
    "ingest and index transcripts now, with a progress bar",
    arg("--source", type=existing_dir, help="transcripts folder (default: Claude's)"),
    arg("--watch", action="store_true", help="keep following changes"),
)
def index(memory: Memory, args: Namespace) -> None:
    source = args.source  # None: every agent's files
    folders = [root for _, root in memory.upkeep.folders(source)]
    if not any(root.is_dir() for root in folders) and not args.watch:
        # No history yet is not an error: there is just nothing to archive.
        looked = ", ".join(str(root) for root in folders) or "nowhere: every agent is off"
        say(
            f"no conversations yet: looked in {looked} "
            "(MEMTUI_<AGENT>_DIR points elsewhere; --source reads a Claude Code folder)",
            file=sys.stderr,
        )
        return

    def work(on_progress: Callable[[ProgressEvent], None]) -> IngestReport | None:
        report = memory.upkeep.ingest(source, on_progress=on_progress, wait=False)
        if report is None:
            say("another memtui is indexing this data dir: waiting for it…", file=sys.stderr)
            report = memory.upkeep.ingest(source, on_progress=on_progress)
        return report

    report = with_progress(work)
    assert report is not None  # a waiting ingest always runs
    say(summary(report), file=sys.stderr)
    for setting, root, holds in memory.upkeep.set_but_empty(report):
        found = "holds no conversation" if root.is_dir() else "is not a folder"
        found = found if root.exists() else "does not exist"
        say(f"{setting}={root} {found}: name the folder where {holds}", file=sys.stderr)
    if args.watch:
        watched = ", ".join(str(root) for root in folders)
        say(f"watching {watched} (ctrl+c to stop)", file=sys.stderr)
        stop = threading.Event()
        try:
            memory.upkeep.follow(source, stop, _print_if_new)
        except KeyboardInterrupt:
            stop.set()


def _print_if_new(report: IngestReport) -> None:
    if report.messages or report.archived or report.skipped or report.unreadable:
        say(summary(report), file=sys.stderr)


@family.command("stats", "counts, sizes, last ingest, index health", JSON)
def stats(memory: Memory, args: Namespace) -> None:
    stats = memory.upkeep.stats()
    recalls = recall.totals(memory.config)  # the hooks' log, beside the store
    if args.json:
        print_json(to_dict(stats) | {"recalls": {h: to_dict(t) for h, t in recalls.items()}})
        return
    kinds = ", ".join(f"{n:,} {k}" for k, n in sorted(stats.by_kind.items()))
    say(f"data dir      {stats.data_dir}")
    say(f"projects      {stats.projects:,}")
    say(f"sessions      {stats.sessions:,} ({stats.archived_sessions:,} archived)")
    say(f"messages      {stats.messages:,}" + (f" ({kinds})" if kinds else ""))
    say(f"files         {stats.files:,} ({counted(stats.skipped_lines, 'skipped line')})")
    if stats.unreadable_files:
        unreadable = counted(stats.unreadable_files, "entry", "entries")
        say(f"unreadable    {unreadable} at the last ingest (see the log)")
    say(f"notes         {_counted(stats.notes, LAYERS)}")
    say(f"signals       {_by_status(stats.signals, SIGNAL_STATUSES)}")
    say(f"inferences    {_counted(stats.inferences, INFERENCE_STATUSES)}")
    say(f"store         {stats.store_bytes / 1e6:,.1f} MB")
    say(f"last ingest   {stats.last_ingest or 'never'}")
    said = [
        f"{total.injections:,} {hook} ({total.chars:,} characters)"
        for hook, total in sorted(recalls.items())
    ]
    say(f"recalls       {', '.join(said) or '0'} in the last 7 days (memtui recalls)")
    if stats.index:
        health = stats.index
        if health.torn:
            state = f"{' and '.join(health.torn)} damaged (memtui index rebuilds it)"
        elif health.other_model:
            state = "vectors made by another model (memtui index embeds them again)"
        elif health.in_step:
            state = "in step"
        else:
            state = "behind the store (run memtui index)"
        say(f"full text     {health.fts_docs:,} docs, {health.fts_bytes / 1e6:,.1f} MB")
        say(f"vectors       {health.vectors:,} vectors, {health.vector_bytes / 1e6:,.1f} MB")
        say(f"indexes       {state}")


def _by_status(counts: dict[str, int], order: Sequence[str]) -> str:
    """`2 new, 1 dismissed`: each kind there is, in `order`."""
    return ", ".join(f"{counts[k]:,} {k}" for k in order if counts.get(k)) or "0"


def _counted(counts: dict[str, int], order: Sequence[str]) -> str:
    """`3 (2 past, 1 rule)`: the total, then each kind there is."""
    total = sum(counts.values())
    return f"{total:,} ({_by_status(counts, order)})" if total else "0"


@family.command("reindex", "rebuild Tantivy and hnswlib from the store of record")
def reindex(memory: Memory, args: Namespace) -> None:
    with_progress(lambda on: memory.upkeep.reindex(on))
    health = memory.upkeep.stats().index
    assert health is not None
    say(
        f"reindexed: {health.fts_docs:,} full-text docs, {health.vectors:,} vectors",
        file=sys.stderr,
    )


@family.command(
    "doctor",
    "check the store and the indexes agree",
    arg("--repair", action="store_true", help="repair what differs"),
    yes("rebuild a damaged store without asking first"),
    store=False,  # it runs on a store too damaged to open
)
def doctor(args: Namespace) -> None:
    """The store first, as SQLite sees it; then, if it opens, what the indexes lack."""
    from memtui.engine import Memory, check_store, clear_damage_mark, rebuild_store

    cfg = config.load()
    config.setup_logging(cfg.log_dir)
    check = check_store(cfg)
    if check.state in ("ok", "new"):
        clear_damage_mark(cfg)
        with Memory(cfg) as memory:
            _doctor_indexes(memory, args)
        return
    say(f"{'store':<{_COLUMN}}{'empty (0 bytes)' if check.state == 'empty' else 'damaged'}")
    for problem in check.problems:
        say(f"  {problem}")
    say(
        f"recovery: move {cfg.db_path.name} aside (kept, with its WAL), then rebuild the "
        f"store and both indexes from the {check.transcripts:,} transcripts on disk"
    )
    salvage = check.salvage
    assert salvage is not None
    say(f"  kept: {salvage.saved()}, read from the damaged file")
    say(f"  kept forgotten: {salvage.forgets()}")
    say(f"  lost: {salvage.lost_text()}")
    if check.sessions is None:
        say(
            "  lost: sessions whose transcripts Claude Code has deleted (the damaged file "
            "cannot say how many)"
        )
    else:
        say(
            f"  lost: {check.lost:,} of the {check.sessions:,} sessions it lists, whose "
            "transcripts Claude Code has deleted"
        )
    if not args.repair:
        raise _damaged()
    confirm(
        args.yes,
        "Rebuild the store, losing what is listed as lost?",
        refused="rebuilding the damaged store loses what is listed as lost: it needs a yes",
        declined="nothing changed",
    )
    done = with_progress(lambda on: rebuild_store(cfg, salvage, on))
    say(f"moved the damaged store to {done.aside}")
    if done.not_saved:
        say(f"not saved: {done.not_saved} (memtui import {done.export} after fixing it)")
    else:
        say(f"saved: {done.salvage.saved()}")
    say(f"lost: {done.salvage.lost_text()}")
    say(summary(done.report).replace("indexed:", "rebuilt:"))


_COLUMN = 17  # the widest name ("notes full text") and two spaces


def _damaged() -> StoreCorrupt:
    return StoreCorrupt(
        "the store is damaged",
        "restore memtui.db from a backup, or run memtui doctor --repair to rebuild it from the"
        " transcripts (the damaged file is kept)",
    )


def _doctor_indexes(memory: Memory, args: Namespace) -> None:
    report = memory.upkeep.doctor(repair=args.repair)
    say(f"{'store':<{_COLUMN}}{report.store}")
    if report.store != "ok":
        raise _damaged()
    for name, (missing, extra) in report.differences.items():
        status = (
            "ok" if not (missing or extra) else f"{len(missing):,} missing, {len(extra):,} extra"
        )
        if name == "vectors" and report.other_model:
            status = f"made by another model: {len(missing):,} to embed again"
        elif name == "vectors" and report.to_embed:
            status += f" · {report.to_embed:,} newer messages to embed (`memtui index` does it)"
        say(f"{name:<{_COLUMN}}{status}")
    masked = memory.upkeep.masked_counts()
    kinds = ", ".join(f"{n:,} {kind}" for kind, n in masked.items())
    say(f"{'secrets':<{_COLUMN}}{sum(masked.values()):,} masked" + (f" ({kinds})" if kinds else ""))
    if report.repaired and report.ok:
        say("repaired")
    elif report.repaired:
        raise IndexDamaged(
            "the indexes still differ from the store after the repair",
            "run memtui reindex to build both again from the store; nothing is lost",
        )
    elif not report.ok:
        raise IndexDamaged(
            "the indexes differ from the store",
            "run memtui doctor --repair to fix them from the store; nothing is lost",
        )


@family.command(
    "forget",
    "remove a session, project or note from every file memtui keeps",
    one_of(
        arg("--session", type=text, help="a session id or a unique prefix of one"),
        arg("--project", type=project, help="a project's directory, as listed"),
        arg("--note", type=id_of("note"), help="a note id"),
        required=True,
    ),
    yes(),
    arg("--undo", action="store_true", help="with --project: ingest its new sessions again"),
)
def forget(memory: Memory, args: Namespace) -> None:
    if args.undo:
        if args.project is None:
            raise InvalidArgument("--undo goes with --project", "memtui forget --project P --undo")
        lifted = memory.unforget_project(args.project)
        say(
            f"new sessions of {args.project} will be ingested again"
            if lifted
            else f"{args.project} was not forgotten: nothing to undo"
        )
        return
    target = memory.forget_target(args.session, args.project, args.note)  # NOT_FOUND first
    confirm(
        args.yes,
        f"Forget {target} for good, from every file memtui keeps?",
        refused=f"forgetting {target} needs a yes",
        declined="nothing forgotten",
    )
    receipt = memory.forget(args.session, args.project, args.note, confirmed=True, by="person")
    say(f"forgotten  {receipt.what} {receipt.target}")
    say(f"sessions   {receipt.sessions:,}")
    say(f"messages   {receipt.messages:,}")
    say(f"notes      {receipt.notes:,}")
    say(f"at         {receipt.at}")
    say(f"sha256     {receipt.sha256}")
