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
from typing import NoReturn

from memtui import __version__, config
from memtui.engine.memory import Memory
from memtui.engine.types import EngineError, to_dict
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


def build_parser() -> Parser:
    parser = Parser(prog="memtui", description="A local memory for Claude Code.")
    parser.add_argument("--version", action="version", version=f"memtui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    index = sub.add_parser("index", help="ingest and index transcripts now, with a progress bar")
    index.add_argument("--source", type=existing_dir, help="transcripts folder (default: Claude's)")
    index.add_argument("--watch", action="store_true", help="keep following changes")

    stats = sub.add_parser("stats", help="counts, sizes, last ingest, index health")
    stats.add_argument("--json", action="store_true", help="one JSON document on stdout")

    show = sub.add_parser("show", help="print one session (full id or unique prefix)")
    show.add_argument("session", help="session id or a unique prefix of one")
    fmt = show.add_mutually_exclusive_group()
    fmt.add_argument("--markdown", action="store_true", help="Markdown (the default)")
    fmt.add_argument("--json", action="store_true", help="one JSON document on stdout")
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    os.umask(0o077)  # everything memtui writes holds someone's conversations
    args = build_parser().parse_args(argv)
    if args.command is None:
        build_parser().print_help()
        return
    cfg = config.load()
    config.setup_logging(cfg)
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
        fail(f"no transcripts folder at {source} (set MEMTUI_CLAUDE_DIR or use --source)")
    report = _index_with_progress(memory, source)
    print(_summary(report), file=sys.stderr)
    if args.watch:
        print(f"watching {source} (ctrl+c to stop)", file=sys.stderr)
        stop = threading.Event()
        try:
            memory.follow(source, stop, lambda r: print(_summary(r), file=sys.stderr))
        except KeyboardInterrupt:
            stop.set()


def _index_with_progress(memory: Memory, source: Path) -> IngestReport:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    started = time.monotonic()
    columns = (
        TextColumn("indexing"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("files · {task.fields[messages]:,} messages · {task.fields[rate]:,.0f}/s"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, transient=True, console=_stderr_console()) as bar:
        task = bar.add_task("index", total=None, messages=0, rate=0.0)

        def progress(done: int, total: int, report: IngestReport) -> None:
            rate = report.messages / max(time.monotonic() - started, 1e-6)
            bar.update(task, completed=done, total=total, messages=report.messages, rate=rate)

        report = memory.ingest(source, progress=progress)
    assert report is not None  # a blocking ingest always runs
    return report


def _stderr_console():  # noqa: ANN202 - rich is imported lazily to keep start-up fast
    from rich.console import Console

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
    for name, health in stats.indexes.items():
        print(f"{name:<13} {health}")


def cmd_show(memory: Memory, args: argparse.Namespace) -> None:
    if args.json:
        info, messages = memory.session_json(args.session)
        print(json.dumps({"session": to_dict(info), "messages": to_dict(messages)}, indent=2))
    else:
        print(memory.session_markdown(args.session))


COMMANDS: dict[str, Callable[[Memory, argparse.Namespace], None]] = {
    "index": cmd_index,
    "stats": cmd_stats,
    "show": cmd_show,
}
