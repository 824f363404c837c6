"""The `memtui` command: a thin front end over the engine."""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

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
from memtui.engine.types import MODES, ROLES, to_dict
from memtui.engine.validate import REACH
from memtui.errors import MemtuiError

if TYPE_CHECKING:  # the engine loads numpy, Tantivy and hnswlib: not for --help
    from memtui.engine import IngestReport, Memory, ProgressEvent


_T = TypeVar("_T")


class Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line on stderr and exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def fail(message: str) -> NoReturn:
    print(f"memtui: {message}", file=sys.stderr)
    raise SystemExit(1)


def argument(value: str) -> str:
    """A text argument as typed; a byte that is not UTF-8 is a usage error, not a crash."""
    try:
        value.encode()
    except UnicodeEncodeError:
        shown = value.encode(errors="backslashreplace").decode()
        raise argparse.ArgumentTypeError(f"{shown!r} is not valid UTF-8") from None
    return value


def existing_dir(value: str) -> Path:
    path = Path(value).expanduser()
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{value!r} is not a directory")
    return path


def whole(low: int, high: int) -> Callable[[str], int]:
    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            number = low - 1
        if not low <= number <= high:
            raise argparse.ArgumentTypeError(
                f"expected a whole number from {low:,} to {high:,}, got {value!r}"
            )
        return number

    return parse


def build_parser() -> Parser:
    parser = Parser(prog="memtui", description="A local memory for Claude Code.")
    parser.add_argument("--version", action="version", version=f"memtui {__version__}")
    parser.add_argument(
        "--demo", action="store_true", help="open the TUI on a bundled demo archive (throw-away)"
    )
    parser.add_argument(
        "--no-mcp", action="store_true", help="TUI: do not serve MCP over HTTP while it runs"
    )
    parser.add_argument(
        "--port",
        type=whole(1, 65535),
        default=10013,
        help="TUI: the loopback port of its MCP HTTP server (default 10013)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    index = sub.add_parser("index", help="ingest and index transcripts now, with a progress bar")
    index.add_argument("--source", type=existing_dir, help="transcripts folder (default: Claude's)")
    index.add_argument("--watch", action="store_true", help="keep following changes")

    stats = sub.add_parser("stats", help="counts, sizes, last ingest, index health")
    stats.add_argument("--json", action="store_true", help="one JSON document on stdout")

    search = sub.add_parser("search", help="search the archive from the shell")
    search.add_argument(
        "query", nargs="+", type=argument, help="words of one query (or concepts, see --concepts)"
    )
    search.add_argument(
        "--concepts", action="store_true", help="each argument is one concept; all must match"
    )
    search.add_argument(
        "--alt",
        action="append",
        type=argument,
        metavar="TEXT",
        help="another phrasing of the same question (repeatable, up to 4)",
    )
    search.add_argument("--mode", choices=MODES, default="hybrid")
    search.add_argument("--project", type=argument, help="only this project (its directory)")
    search.add_argument("--session", type=argument, help="only this session (id or prefix)")
    search.add_argument("--role", choices=ROLES)
    search.add_argument("--after", help="only messages at or after this ISO date or date-time")
    search.add_argument("--before", help="only messages before this ISO date or date-time")
    search.add_argument("--limit", type=whole(1, 1000), default=10)
    search.add_argument("--offset", type=whole(0, 999), default=0, help="skip this many")
    search.add_argument("--json", action="store_true", help="one JSON document on stdout")

    projects = sub.add_parser("projects", help="list the archived projects")
    projects.add_argument("--json", action="store_true", help="one JSON document on stdout")

    sessions = sub.add_parser("sessions", help="list sessions, the last active first")
    sessions.add_argument("--project", type=argument, help="only this project (its directory)")
    sessions.add_argument("--limit", type=whole(1, 10_000), default=50)
    sessions.add_argument("--json", action="store_true", help="one JSON document on stdout")

    sub.add_parser("reindex", help="rebuild Tantivy and hnswlib from the store of record")

    doctor = sub.add_parser("doctor", help="check the store and the indexes agree")
    doctor.add_argument("--repair", action="store_true", help="repair what differs")

    forget = sub.add_parser(
        "forget", help="remove a session, project or note from every file memtui keeps"
    )
    what = forget.add_mutually_exclusive_group(required=True)
    what.add_argument("--session", type=argument, help="a session id or a unique prefix of one")
    what.add_argument("--project", type=argument, help="a project's directory, as listed")
    what.add_argument("--note", type=whole(1, 2**62), help="a note id")
    forget.add_argument("--yes", action="store_true", help="do not ask first")
    forget.add_argument(
        "--undo", action="store_true", help="with --project: ingest its new sessions again"
    )

    show = sub.add_parser("show", help="print one session (full id or unique prefix)")
    show.add_argument("session", type=argument, help="session id or a unique prefix of one")
    fmt = show.add_mutually_exclusive_group()
    fmt.add_argument("--markdown", action="store_true", help="Markdown (the default)")
    fmt.add_argument("--json", action="store_true", help="one JSON document on stdout")

    mcp = sub.add_parser("mcp", help="serve MCP over stdio (what Claude Code starts)")
    mcp.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp instead")
    mcp.add_argument("--host", default="127.0.0.1", help="HTTP address (default 127.0.0.1)")
    mcp.add_argument("--port", type=whole(1, 65535), default=10013, help="HTTP port")
    mcp.add_argument(
        "--allow-remote", action="store_true", help="allow a --host that is not loopback"
    )
    mcp.add_argument(
        "--print-config", action="store_true", help="print the config that connects Claude Code"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    os.umask(0o077)  # everything memtui writes holds someone's conversations
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command is None:
            run_tui(args)
        else:
            run(args)
    except MemtuiError as exc:
        fail(exc.line())
    except BrokenPipeError:
        # The reader went away (`memtui show ... | head -1`): stop quietly, as cat does.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        raise SystemExit(141) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None


def run_tui(args: argparse.Namespace) -> None:
    """No command: the terminal UI (imported here, so the other commands never load Textual)."""
    from memtui.tui.main import run as tui

    tui(demo=args.demo, mcp_port=None if args.no_mcp else args.port)


def run(args: argparse.Namespace) -> None:
    cfg = config.load()
    config.setup_logging(cfg.log_dir)
    if args.command == "mcp":  # opens the engine itself, lazily, so initialize never waits
        from memtui.mcp.cli import cmd_mcp

        cmd_mcp(cfg, args)
        return
    if args.command == "doctor":  # runs on a store too damaged to open
        doctor_store(cfg, args)
        return
    from memtui.engine import Memory

    handler: Callable[[Memory, argparse.Namespace], None] = COMMANDS[args.command]
    with Memory(cfg, upgrade=False) as memory:
        if memory.unfinished():  # an archive from before masking, or a forget cut short
            _with_progress(memory.finish_interrupted)
        handler(memory, args)


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

    def work(on_progress: Callable[[ProgressEvent], None]) -> IngestReport | None:
        report = memory.upkeep.ingest(source, on_progress=on_progress, wait=False)
        if report is None:
            print("another memtui is indexing this data dir: waiting for it…", file=sys.stderr)
            report = memory.upkeep.ingest(source, on_progress=on_progress)
        return report

    report = _with_progress(work)
    assert report is not None  # a waiting ingest always runs
    print(_summary(report), file=sys.stderr)
    if args.watch:
        print(f"watching {source} (ctrl+c to stop)", file=sys.stderr)
        stop = threading.Event()
        try:
            memory.upkeep.follow(source, stop, _print_if_new)
        except KeyboardInterrupt:
            stop.set()


def _print_if_new(report: IngestReport) -> None:
    if report.messages or report.archived or report.skipped or report.unreadable:
        print(_summary(report), file=sys.stderr)


def _with_progress(work: Callable[[Callable[[ProgressEvent], None]], _T]) -> _T:
    """Run `work` with a progress bar on stderr, one row a phase, fed by the engine's events."""
    with Progress(*_bar_columns(), transient=True, console=Console(stderr=True)) as bar:
        tasks: dict[str, TaskID] = {}

        def on_progress(event: ProgressEvent) -> None:
            if event.phase not in tasks:
                tasks[event.phase] = bar.add_task(event.phase, total=event.total, detail="")
            bar.update(
                tasks[event.phase],
                completed=event.done,
                total=event.total,
                detail=f"{event.detail} · {event.rate:,.0f}/s" if event.detail else "",
            )

        return work(on_progress)


def _bar_columns() -> tuple[ProgressColumn, ...]:
    return (
        TextColumn("{task.description:<12}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[detail]}"),
        TimeElapsedColumn(),
    )


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
    if report.unreadable:
        parts.append(f"{len(report.unreadable):,} entries skipped (unreadable, see the log)")
    lines = ["indexed: " + ", ".join(parts)]
    lines += [f"  skipped {entry}" for entry in report.unreadable[:10]]
    return "\n".join(lines)


def cmd_stats(memory: Memory, args: argparse.Namespace) -> None:
    stats = memory.upkeep.stats()
    if args.json:
        print(json.dumps(to_dict(stats), indent=2))
        return
    kinds = ", ".join(f"{n:,} {k}" for k, n in sorted(stats.by_kind.items()))
    print(f"data dir      {stats.data_dir}")
    print(f"projects      {stats.projects:,}")
    print(f"sessions      {stats.sessions:,} ({stats.archived_sessions:,} archived)")
    print(f"messages      {stats.messages:,} ({kinds})")
    print(f"files         {stats.files:,} ({stats.skipped_lines:,} skipped lines)")
    if stats.unreadable_files:
        print(f"unreadable    {stats.unreadable_files:,} entries at the last ingest (see the log)")
    print(f"store         {stats.store_bytes / 1e6:,.1f} MB")
    print(f"last ingest   {stats.last_ingest or 'never'}")
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
        print(f"full text     {health.fts_docs:,} docs, {health.fts_bytes / 1e6:,.1f} MB")
        print(f"vectors       {health.vectors:,} vectors, {health.vector_bytes / 1e6:,.1f} MB")
        print(f"indexes       {state}")


def cmd_show(memory: Memory, args: argparse.Namespace) -> None:
    if args.json:
        info, messages = memory.history.session_messages(args.session)
        print(json.dumps({"session": to_dict(info), "messages": to_dict(messages)}, indent=2))
    else:
        print(memory.history.session_markdown(args.session))


def cmd_projects(memory: Memory, args: argparse.Namespace) -> None:
    _listing(
        "projects",
        memory.history.list_projects(),
        args.json,
        lambda p: (
            f"{_when(p.last_activity)}  {p.sessions:>5,} sessions  "
            f"{p.messages:>8,} messages  {p.project}"
        ),
    )


def cmd_sessions(memory: Memory, args: argparse.Namespace) -> None:
    _listing(
        "sessions",
        memory.history.list_sessions(args.project, limit=args.limit),
        args.json,
        lambda s: (
            f"{s.session_id}  {_when(s.last_timestamp)}  {s.message_count:>5,} msgs  "
            f"{s.title[:60]}{' (archived)' if s.archived else ''}"
        ),
    )


def _listing(name: str, items: Sequence[Any], as_json: bool, line: Callable[[Any], str]) -> None:
    """A list as one JSON document, or a line an item (and a word on stderr when empty)."""
    if as_json:
        print(json.dumps({name: to_dict(list(items))}, indent=2))
        return
    if not items:
        print(f"no {name} archived yet: run memtui index", file=sys.stderr)
    for item in items:
        print(line(item))


def _when(timestamp: str | None) -> str:
    return f"{(timestamp or '')[:16].replace('T', ' '):<16}"


def cmd_search(memory: Memory, args: argparse.Namespace) -> None:
    query: str | list[str] = args.query if args.concepts else " ".join(args.query)
    response = memory.history.search(
        query,
        args.mode,
        project=args.project,
        session=args.session,
        role=args.role,
        after=args.after,
        before=args.before,
        alternatives=args.alt,
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
        out.print(
            f"[bold cyan]{r.session_id[:8]}[/]#{r.message_index} [dim]{_when(r.timestamp)}[/] "
            f"[green]{escape(r.project)}[/] [magenta]{r.role}[/] "
            f"[dim]{r.score:.4f} {'+'.join(r.found_by)}[/]"
        )
        marked = escape(r.snippet).replace("**", "\0")
        parts = marked.split("\0")
        out.print(
            "  " + "".join(f"[bold yellow]{p}[/]" if i % 2 else p for i, p in enumerate(parts))
        )
    more = "+" if response.total >= REACH else ""
    out.print(f"[dim]{len(response.results)} of {response.total:,}{more} ({response.mode})[/]")


def cmd_reindex(memory: Memory, args: argparse.Namespace) -> None:
    done = _with_progress(lambda on: memory.upkeep.reindex(on))
    if not done:
        fail("reindex cancelled: the old indexes are still in place")
    health = memory.upkeep.stats().index
    assert health is not None
    print(
        f"reindexed: {health.fts_docs:,} full-text docs, {health.vectors:,} vectors",
        file=sys.stderr,
    )


def doctor_store(cfg: config.Config, args: argparse.Namespace) -> None:
    """The store first, as SQLite sees it; then, if it opens, what the indexes lack."""
    from memtui.engine import Memory
    from memtui.engine.doctor import check_store, clear_damage_mark, recover_store

    check = check_store(cfg)
    if check.state in ("ok", "new"):
        clear_damage_mark(cfg)
        with Memory(cfg) as memory:
            cmd_doctor(memory, args)
        return
    print(f"{'store':<10} {'empty (0 bytes)' if check.state == 'empty' else 'damaged'}")
    for problem in check.problems:
        print(f"  {problem}")
    print(
        f"recovery: move {cfg.db_path.name} aside (kept, with its WAL), then rebuild the "
        f"store and both indexes from the {check.transcripts:,} transcripts on disk"
    )
    if check.sessions is None:
        print(
            "  lost: sessions whose transcripts Claude Code has deleted (the damaged file "
            "cannot say how many)"
        )
    else:
        print(
            f"  lost: {check.lost:,} of the {check.sessions:,} sessions it lists, whose "
            "transcripts Claude Code has deleted"
        )
    if not args.repair:
        fail(
            "the store is damaged: restore memtui.db from a backup, or run "
            "memtui doctor --repair to rebuild it from the transcripts (the damaged file is kept)"
        )
    aside = recover_store(cfg)
    print(f"moved the damaged store to {aside}")
    with Memory(cfg) as memory:
        report = _with_progress(lambda on: memory.upkeep.ingest(on_progress=on))
    assert report is not None
    print(_summary(report).replace("indexed:", "rebuilt:"))


def cmd_doctor(memory: Memory, args: argparse.Namespace) -> None:
    report = memory.upkeep.doctor(repair=args.repair)
    print(f"{'store':<10} {report.store}")
    if report.store != "ok":
        fail("the store is damaged: restore memtui.db from a backup (the indexes can be rebuilt)")
    for name, (missing, extra) in report.differences.items():
        status = (
            "ok" if not (missing or extra) else f"{len(missing):,} missing, {len(extra):,} extra"
        )
        if name == "vectors" and report.other_model:
            status = f"made by another model: {len(missing):,} to embed again"
        print(f"{name:<10} {status}")
    masked = memory.upkeep.masked_counts()
    kinds = ", ".join(f"{n:,} {kind}" for kind, n in masked.items())
    print(f"{'secrets':<10} {sum(masked.values()):,} masked" + (f" ({kinds})" if kinds else ""))
    if report.repaired:
        print("repaired" if report.ok else "differences remain after repair")
    elif not report.ok:
        print("run memtui doctor --repair to fix")
    if not report.ok:
        raise SystemExit(1)


def cmd_forget(memory: Memory, args: argparse.Namespace) -> None:
    from memtui.errors import InvalidArgument, NotConfirmed

    if args.undo:
        if args.project is None:
            raise InvalidArgument("--undo goes with --project", "memtui forget --project P --undo")
        lifted = memory.unforget_project(args.project)
        print(
            f"new sessions of {args.project} will be ingested again"
            if lifted
            else f"{args.project} was not forgotten: nothing to undo"
        )
        return
    target = (
        f"session {args.session}"
        if args.session is not None
        else f"project {args.project}"
        if args.project is not None
        else f"note {args.note}"
    )
    confirmed = args.yes
    if not confirmed:
        if not sys.stdin.isatty():
            raise NotConfirmed(
                f"forgetting {target} needs a yes", "answer at a terminal, or add --yes"
            )
        answer = input(f"Forget {target} for good, from every file memtui keeps? [y/N] ")
        confirmed = answer.strip().lower() in ("y", "yes")
        if not confirmed:
            fail("nothing forgotten")
    receipt = memory.forget(args.session, args.project, args.note, confirmed=True)
    print(f"forgotten  {receipt.what} {receipt.target}")
    print(f"sessions   {receipt.sessions:,}")
    print(f"messages   {receipt.messages:,}")
    print(f"notes      {receipt.notes:,}")
    print(f"at         {receipt.at}")
    print(f"sha256     {receipt.sha256}")


COMMANDS: dict[str, Callable[[Memory, argparse.Namespace], None]] = {
    "index": cmd_index,
    "stats": cmd_stats,
    "show": cmd_show,
    "projects": cmd_projects,
    "sessions": cmd_sessions,
    "search": cmd_search,
    "reindex": cmd_reindex,
    "forget": cmd_forget,
}
