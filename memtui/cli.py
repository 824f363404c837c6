"""The `memtui` command: a thin front end over the engine."""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from memtui import __version__, config
from memtui.engine.types import EngineError, to_dict

if TYPE_CHECKING:  # the engine loads numpy, Tantivy and hnswlib: not for --help
    from memtui.engine.memory import Memory
    from memtui.ingest.pipeline import IngestReport


class Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line on stderr and exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def fail(message: str) -> NoReturn:
    print(f"memtui: error: {message}", file=sys.stderr)
    raise SystemExit(1)


def existing_dir(value: str) -> Path:
    path = Path(value).expanduser()
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{value!r} is not a directory")
    return path


def positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if not 1 <= number <= 1000:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1 to 1000, got {value!r}")
    return number


def build_parser() -> Parser:
    parser = Parser(prog="memtui", description="A local memory for Claude Code.")
    parser.add_argument("--version", action="version", version=f"memtui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    index = sub.add_parser("index", help="ingest and index transcripts now, with a progress bar")
    index.add_argument("--source", type=existing_dir, help="transcripts folder (default: Claude's)")
    index.add_argument("--watch", action="store_true", help="keep following changes")

    stats = sub.add_parser("stats", help="counts, sizes, last ingest, index health")
    stats.add_argument("--json", action="store_true", help="one JSON document on stdout")

    search = sub.add_parser("search", help="search the archive from the shell")
    search.add_argument("query", nargs="+", help="words of one query (or concepts, see --concepts)")
    search.add_argument(
        "--concepts", action="store_true", help="each argument is one concept; all must match"
    )
    search.add_argument("--mode", choices=("hybrid", "fts", "vector"), default="hybrid")
    search.add_argument("--project", help="only this project (its working directory)")
    search.add_argument("--session", help="only this session (id or unique prefix)")
    search.add_argument("--role", choices=("user", "assistant"))
    search.add_argument("--after", help="only messages at or after this ISO date or date-time")
    search.add_argument("--before", help="only messages before this ISO date or date-time")
    search.add_argument("--limit", type=positive, default=10)
    search.add_argument("--offset", type=int, default=0, help=argparse.SUPPRESS)
    search.add_argument("--json", action="store_true", help="one JSON document on stdout")

    sub.add_parser("reindex", help="rebuild Tantivy and hnswlib from the store of record")

    doctor = sub.add_parser("doctor", help="check the store and the indexes agree")
    doctor.add_argument("--repair", action="store_true", help="repair what differs")

    show = sub.add_parser("show", help="print one session (full id or unique prefix)")
    show.add_argument("session", help="session id or a unique prefix of one")
    fmt = show.add_mutually_exclusive_group()
    fmt.add_argument("--markdown", action="store_true", help="Markdown (the default)")
    fmt.add_argument("--json", action="store_true", help="one JSON document on stdout")
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    os.umask(0o077)  # everything memtui writes holds someone's conversations
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return
    from memtui.engine.memory import Memory

    cfg = config.load()  # Memory sets up logging to a file first thing
    handler: Callable[[Memory, argparse.Namespace], None] = COMMANDS[args.command]
    try:
        memory = Memory(cfg)
    except Exception as exc:  # a broken data dir is a one-line reason, not a traceback
        fail(f"cannot open the data dir {cfg.data_dir}: {exc}")
    try:
        handler(memory, args)
    except EngineError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    finally:
        memory.close()


# -- commands ---------------------------------------------------------------------------------


def cmd_index(memory: Memory, args: argparse.Namespace) -> None:
    source = args.source or memory.config.claude_dir
    if not source.is_dir() and not args.watch:
        # No Claude Code history yet is not an error: there is just nothing to archive.
        print(
            f"no transcripts at {source} yet (set MEMTUI_CLAUDE_DIR or use --source)",
            file=sys.stderr,
        )
        return
    report = _index_with_progress(memory, source)
    print(_summary(report), file=sys.stderr)
    if args.watch:
        print(f"watching {source} (ctrl+c to stop)", file=sys.stderr)
        stop = threading.Event()
        try:
            memory.follow(source, stop, _print_if_new)
        except KeyboardInterrupt:
            stop.set()


def _print_if_new(report: IngestReport) -> None:
    if report.messages or report.archived or report.skipped:
        print(_summary(report), file=sys.stderr)


def _index_with_progress(memory: Memory, source: Path) -> IngestReport:
    started = time.monotonic()
    with Progress(*_bar_columns(), transient=True, console=_stderr_console()) as bar:
        task = bar.add_task("files", total=None, messages=0, rate=0.0)

        def progress(done: int, total: int, report: IngestReport) -> None:
            rate = report.messages / max(time.monotonic() - started, 1e-6)
            bar.update(task, completed=done, total=total, messages=report.messages, rate=rate)

        report = memory.ingest(source, progress=progress, index_progress=_index_progress(bar))
    assert report is not None  # a blocking ingest always runs
    return report


def _bar_columns() -> tuple[ProgressColumn, ...]:
    return (
        TextColumn("{task.description:<10}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("· {task.fields[messages]:,} messages · {task.fields[rate]:,.0f}/s"),
        TimeElapsedColumn(),
    )


def _index_progress(bar: Progress) -> Callable[[str, int, int], None]:
    tasks: dict[str, TaskID] = {}

    def progress(name: str, done: int, total: int) -> None:
        if name not in tasks:
            tasks[name] = bar.add_task(name, total=total, messages=0, rate=0.0)
        bar.update(tasks[name], completed=done, total=total)

    return progress


def _stderr_console() -> Console:
    return Console(stderr=True)


def _summary(report: IngestReport) -> str:
    parts = [
        f"{len(report.sessions):,} sessions",
        f"{report.messages:,} new messages",
        f"{report.files:,} of {report.files_seen:,} files changed",
        f"{report.skipped:,} skipped lines",
    ]
    if report.duplicates:
        parts.append(f"{report.duplicates:,} duplicate lines")
    if report.archived:
        parts.append(f"{report.archived:,} files gone (sessions kept, archived)")
    return "indexed: " + ", ".join(parts)


def cmd_stats(memory: Memory, args: argparse.Namespace) -> None:
    stats = memory.stats()
    if args.json:
        print(json.dumps(to_dict(stats), indent=2))
        return
    kinds = ", ".join(f"{n:,} {k}" for k, n in sorted(stats.by_kind.items()))
    print(f"data dir      {stats.data_dir}")
    print(f"projects      {stats.projects:,}")
    print(f"sessions      {stats.sessions:,} ({stats.archived_sessions:,} archived)")
    print(f"messages      {stats.messages:,} ({kinds})")
    print(f"files         {stats.files:,} ({stats.skipped_lines:,} skipped lines)")
    print(f"store         {stats.store_bytes / 1e6:,.1f} MB")
    print(f"last ingest   {stats.last_ingest or 'never'}")
    if stats.index:
        health = stats.index
        state = "in step" if health.in_step else "behind the store (run memtui index)"
        print(f"full text     {health.fts_docs:,} docs, {health.fts_bytes / 1e6:,.1f} MB")
        print(f"vectors       {health.vectors:,} vectors, {health.vector_bytes / 1e6:,.1f} MB")
        print(f"indexes       {state}")


def cmd_show(memory: Memory, args: argparse.Namespace) -> None:
    if args.json:
        info, messages = memory.session_json(args.session)
        print(json.dumps({"session": to_dict(info), "messages": to_dict(messages)}, indent=2))
    else:
        print(memory.session_markdown(args.session))


def cmd_search(memory: Memory, args: argparse.Namespace) -> None:
    query: str | list[str] = args.query if args.concepts else " ".join(args.query)
    response = memory.search(
        query,
        args.mode,
        project=args.project,
        session=args.session,
        role=args.role,
        after=args.after,
        before=args.before,
        limit=args.limit,
        offset=args.offset,
    )
    if args.json:
        doc = {"results": to_dict(response.results), "total": response.total, "mode": response.mode}
        if response.note:
            doc["note"] = response.note
        print(json.dumps(doc, indent=2))
        return
    out = Console(highlight=False)
    if response.note:
        out.print(f"[yellow]{escape(response.note)}[/]")
    for r in response.results:
        when = (r.timestamp or "")[:16].replace("T", " ")
        out.print(
            f"[bold cyan]{r.session_id[:8]}[/]#{r.message_index} [dim]{when}[/] "
            f"[green]{escape(r.project)}[/] [magenta]{r.role}[/] "
            f"[dim]{r.score:.4f} {'+'.join(r.found_by)}[/]"
        )
        marked = escape(r.snippet).replace("**", "\0")
        parts = marked.split("\0")
        out.print(
            "  " + "".join(f"[bold yellow]{p}[/]" if i % 2 else p for i, p in enumerate(parts))
        )
    out.print(f"[dim]{len(response.results)} of {response.total:,} ({response.mode})[/]")


def cmd_reindex(memory: Memory, args: argparse.Namespace) -> None:
    with Progress(*_bar_columns(), transient=True, console=_stderr_console()) as bar:
        memory.reindex(_index_progress(bar))
    health = memory.indexes.health()
    print(
        f"reindexed: {health.fts_docs:,} full-text docs, {health.vectors:,} vectors",
        file=sys.stderr,
    )


def cmd_doctor(memory: Memory, args: argparse.Namespace) -> None:
    diff = memory.doctor(repair=args.repair)
    problems = 0
    for name, (missing, extra) in diff.items():
        problems += len(missing) + len(extra)
        status = (
            "ok" if not (missing or extra) else f"{len(missing):,} missing, {len(extra):,} extra"
        )
        print(f"{name:<10} {status}")
    if problems and args.repair:
        after = memory.doctor()
        left = sum(len(m) + len(e) for m, e in after.values())
        print("repaired" if left == 0 else f"{left:,} differences remain")
        if left:
            raise SystemExit(1)
    elif problems:
        print("run memtui doctor --repair to fix")
        raise SystemExit(1)


COMMANDS: dict[str, Callable[[Memory, argparse.Namespace], None]] = {
    "index": cmd_index,
    "stats": cmd_stats,
    "show": cmd_show,
    "search": cmd_search,
    "reindex": cmd_reindex,
    "doctor": cmd_doctor,
}
