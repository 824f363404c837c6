"""The `memtui` command: a thin front end over the engine."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from memtui import __version__, config
from memtui.engine import LAYERS, MAX_BODY_BYTES, ON_CONFLICT, frontmatter
from memtui.engine.signal_types import INFERENCE_STATUSES, SIGNAL_STATUSES, SIGNAL_TYPES
from memtui.engine.types import MODES, ROLES, SearchResponse, to_dict
from memtui.engine.validate import REACH
from memtui.errors import InvalidArgument, MemtuiError, NotConfirmed

if TYPE_CHECKING:  # the engine loads numpy, Tantivy and hnswlib: not for --help
    from rich.console import Console  # rich: imported where it prints (not in `memtui mcp`)
    from rich.progress import ProgressColumn, TaskID

    from memtui.engine import IngestReport, Memory, Note, ProgressEvent


_T = TypeVar("_T")


# What a terminal acts on instead of showing: C0 controls but newline and tab (ESC starts a
# sequence that recolours, moves the cursor or retitles the window), DEL, C1, and the bidi
# overrides and isolates (they reorder what follows, so a line reads other than it is).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape_control(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(text: str) -> str:
    """Text as the CLI prints it for a person: control characters written as escapes
    (`\\x1b`, `\\u202e`), never sent to the terminal. JSON output escapes them itself."""
    return _CONTROL.sub(_escape_control, text)


def say(*parts: object, **kwargs: Any) -> None:
    """`print` for a person: every human line of the CLI goes through it (stored text
    holds whatever a transcript held)."""
    print(*(shown(str(p)) for p in parts), **kwargs)


class Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line on stderr, with SPEC's code, and exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"memtui: INVALID_ARGUMENT: {self.prog}: {message} (see {self.prog} --help)\n")


def fail(message: str) -> NoReturn:
    say(f"memtui: {message}", file=sys.stderr)
    raise SystemExit(1)


def confirm(yes: bool, question: str, *, refused: str, declined: str) -> None:
    """Go on after `--yes` or a yes typed at the terminal; with no terminal to ask on,
    NOT_CONFIRMED (`refused`); a no ends the command (`declined`)."""
    if yes:
        return
    if not sys.stdin.isatty():
        raise NotConfirmed(refused, "answer at a terminal, or add --yes")
    if input(question).strip().lower() not in ("y", "yes"):
        fail(declined)


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
    from memtui.mcp.cli import host_name, tool_families

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
    doctor.add_argument(
        "--yes", action="store_true", help="rebuild a damaged store without asking first"
    )

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

    signals = sub.add_parser("signals", help="patterns found in your notes and conversations")
    signals.add_argument("--type", choices=SIGNAL_TYPES, help="only this kind")
    signals.add_argument(
        "--status", choices=(*SIGNAL_STATUSES, "all"), default="new", help="default: new"
    )
    signals.add_argument("--limit", type=whole(1, 1000), default=50, help="default 50")
    signals.add_argument("--json", action="store_true", help="one JSON document on stdout")
    signal = sub.add_parser("signal", help="dismiss, snooze or reopen a signal")
    signal.add_argument("action", choices=["dismiss", "snooze", "new"])
    signal.add_argument("id", type=whole(1, 2**53), help="the signal's id")
    signal.add_argument(
        "--until", type=argument, default="7d", help="snooze: 7d, 12h, 2w or a date (default 7d)"
    )
    inferences = sub.add_parser("inferences", help="the conclusions you approved, re-checked")
    inferences.add_argument("--status", choices=INFERENCE_STATUSES, help="active or stale")
    inferences.add_argument("--json", action="store_true", help="one JSON document on stdout")
    inference = sub.add_parser(
        "inference",
        help="confirm a stale inference again, on its evidence as it reads now, or drop one",
    )
    inference.add_argument("action", choices=["confirm", "drop"])
    inference.add_argument("id", type=whole(1, 2**53), help="the inference's id")
    inference.add_argument("--yes", action="store_true", help="drop: do not ask first")

    hook = sub.add_parser("hook", help="Claude Code hooks (see `memtui mcp --print-config`)")
    hook.add_argument(
        "event", choices=["session-start"], help="session-start: print the project's context"
    )

    mcp = sub.add_parser("mcp", help="serve MCP over stdio (what Claude Code starts)")
    mcp.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp instead")
    mcp.add_argument(
        "--host",
        default="127.0.0.1",
        help="HTTP address (default 127.0.0.1); one other machines reach needs --allow-remote",
    )
    mcp.add_argument("--port", type=whole(1, 65535), default=10013, help="HTTP port")
    mcp.add_argument(
        "--allow-remote",
        action="store_true",
        help="serve a --host that is not loopback (plain HTTP: the token and history in clear)",
    )
    mcp.add_argument(
        "--allow-host",
        action="append",
        type=host_name,
        default=[],
        metavar="NAME",
        help="with --allow-remote: another name clients reach this machine by (repeatable)",
    )
    mcp.add_argument(
        "--print-config", action="store_true", help="print the config that connects Claude Code"
    )
    mcp.add_argument(
        "--tools",
        type=tool_families,
        default=None,
        metavar="FAMILIES",
        help="serve only these tool families: history,notes,signals (default: all)",
    )
    add_note_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    os.umask(0o077)  # everything memtui writes holds someone's conversations
    if list(sys.argv[1:] if argv is None else argv) == ["hook", "session-start"]:
        run_hook()  # before the parser and its imports: a session waits for the hook
        return
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command is None:
            run_tui(args)
        elif args.command == "hook":  # SQLite alone, and it never fails the session
            run_hook()
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
    if args.command == "mcp":  # signal handlers first; opens the engine lazily, itself
        from memtui.mcp.cli import cmd_mcp

        cmd_mcp(args)
        return
    cfg = config.load()
    config.setup_logging(cfg.log_dir)
    if args.command == "doctor":  # runs on a store too damaged to open
        doctor_store(cfg, args)
        return
    from memtui.engine import Memory

    handler: Callable[[Memory, argparse.Namespace], None] = COMMANDS[args.command]
    with Memory(cfg, upgrade=False) as memory:
        if memory.unfinished():  # an archive from before masking, or a forget cut short
            _with_progress(memory.finish_interrupted)
        handler(memory, args)


def run_hook() -> None:
    """A Claude Code hook must never fail the session: whatever goes wrong (a bad setting,
    a broken or locked data dir) prints nothing, exits 0 and leaves the reason in the log."""
    import logging

    from memtui.engine import hook

    config.setup_logging(config.log_dir())
    try:
        text = hook.session_start(config.load(), hook.payload(sys.stdin.read(hook.MAX_INPUT)))
    except Exception:
        logging.getLogger("memtui.hook").exception("session-start hook printed nothing")
        return
    sys.stdout.write(text)


# -- commands ---------------------------------------------------------------------------------


def cmd_index(memory: Memory, args: argparse.Namespace) -> None:
    source = args.source or memory.config.claude_dir
    if not source.is_dir() and not args.watch:
        # No Claude Code history yet is not an error: there is just nothing to archive.
        say(
            f"no transcripts at {source} yet (set MEMTUI_CLAUDE_DIR or use --source)",
            file=sys.stderr,
        )
        return

    def work(on_progress: Callable[[ProgressEvent], None]) -> IngestReport | None:
        report = memory.upkeep.ingest(source, on_progress=on_progress, wait=False)
        if report is None:
            say("another memtui is indexing this data dir: waiting for it…", file=sys.stderr)
            report = memory.upkeep.ingest(source, on_progress=on_progress)
        return report

    report = _with_progress(work)
    assert report is not None  # a waiting ingest always runs
    say(_summary(report), file=sys.stderr)
    if args.watch:
        say(f"watching {source} (ctrl+c to stop)", file=sys.stderr)
        stop = threading.Event()
        try:
            memory.upkeep.follow(source, stop, _print_if_new)
        except KeyboardInterrupt:
            stop.set()


def _print_if_new(report: IngestReport) -> None:
    if report.messages or report.archived or report.skipped or report.unreadable:
        say(_summary(report), file=sys.stderr)


def _with_progress(work: Callable[[Callable[[ProgressEvent], None]], _T]) -> _T:
    """Run `work` with a progress bar on stderr, one row a phase, fed by the engine's events."""
    from rich.console import Console
    from rich.progress import Progress

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
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

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
    say(f"data dir      {stats.data_dir}")
    say(f"projects      {stats.projects:,}")
    say(f"sessions      {stats.sessions:,} ({stats.archived_sessions:,} archived)")
    say(f"messages      {stats.messages:,} ({kinds})")
    say(f"files         {stats.files:,} ({stats.skipped_lines:,} skipped lines)")
    if stats.unreadable_files:
        say(f"unreadable    {stats.unreadable_files:,} entries at the last ingest (see the log)")
    say(f"store         {stats.store_bytes / 1e6:,.1f} MB")
    say(f"last ingest   {stats.last_ingest or 'never'}")
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


def cmd_show(memory: Memory, args: argparse.Namespace) -> None:
    if args.json:
        info, messages = memory.history.session_messages(args.session)
        print(json.dumps({"session": to_dict(info), "messages": to_dict(messages)}, indent=2))
    else:
        say(memory.history.session_markdown(args.session))


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
        say(f"no {name} archived yet: run memtui index", file=sys.stderr)
    for item in items:
        say(line(item))


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
        doc |= {"fts_total": response.fts_total, "vector_total": response.vector_total}
        if response.note:
            doc["note"] = response.note
        print(json.dumps(doc, indent=2))
        return
    from rich.markup import escape

    def plain(text: str) -> str:  # stored text, for rich: no markup, no control characters
        return escape(shown(text))

    out = _piped_console()
    if response.note:
        out.print(f"[yellow]{plain(response.note)}[/]")
    for r in response.results:
        out.print(
            f"[bold cyan]{plain(r.session_id[:8])}[/]#{r.message_index} "
            f"[dim]{plain(_when(r.timestamp))}[/] [green]{plain(r.project)}[/] "
            f"[magenta]{r.role}[/] [dim]{r.score:.4f} {'+'.join(r.found_by)}[/]"
        )
        marked = plain(r.snippet).replace("**", "\0")
        parts = marked.split("\0")
        out.print(
            "  " + "".join(f"[bold yellow]{p}[/]" if i % 2 else p for i, p in enumerate(parts))
        )
    more = "+" if response.total >= REACH else ""
    out.print(
        f"[dim]{len(response.results)} of {response.total:,}{more} ({response.mode}"
        f"{_which(response)})[/]"
    )


def _which(response: SearchResponse) -> str:
    """What the total counted: full-text matches and neighbours near in meaning."""
    parts = []
    if response.fts_total is not None:
        parts.append(f"{response.fts_total:,} full-text matches")
    if response.vector_total is not None:
        parts.append(f"{response.vector_total:,} near in meaning")
    return ": " + ", ".join(parts) if parts else ""


def _piped_console() -> Console:
    """rich exits 1 on a closed pipe; `memtui search ... | head -1` exits as `show` does (141)."""
    from rich.console import Console

    class PipedConsole(Console):
        def on_broken_pipe(self) -> None:
            raise BrokenPipeError

    return PipedConsole(highlight=False)


def cmd_reindex(memory: Memory, args: argparse.Namespace) -> None:
    done = _with_progress(lambda on: memory.upkeep.reindex(on))
    if not done:
        fail("reindex cancelled: the old indexes are still in place")
    health = memory.upkeep.stats().index
    assert health is not None
    say(
        f"reindexed: {health.fts_docs:,} full-text docs, {health.vectors:,} vectors",
        file=sys.stderr,
    )


def doctor_store(cfg: config.Config, args: argparse.Namespace) -> None:
    """The store first, as SQLite sees it; then, if it opens, what the indexes lack."""
    from memtui.engine import Memory
    from memtui.engine.doctor import check_store, clear_damage_mark, recover_store
    from memtui.engine.forget import RECEIPTS

    check = check_store(cfg)
    if check.state in ("ok", "new"):
        clear_damage_mark(cfg)
        with Memory(cfg) as memory:
            cmd_doctor(memory, args)
        return
    say(f"{'store':<10} {'empty (0 bytes)' if check.state == 'empty' else 'damaged'}")
    for problem in check.problems:
        say(f"  {problem}")
    say(
        f"recovery: move {cfg.db_path.name} aside (kept, with its WAL), then rebuild the "
        f"store and both indexes from the {check.transcripts:,} transcripts on disk"
    )
    salvage = check.salvage
    assert salvage is not None
    say(f"  kept: {salvage.saved()}, read from the damaged file")
    say(f"  kept forgotten: {salvage.forgets()} (from it and {RECEIPTS})")
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
        fail(
            "the store is damaged: restore memtui.db from a backup, or run "
            "memtui doctor --repair to rebuild it from the transcripts (the damaged file is kept)"
        )
    confirm(
        args.yes,
        "Rebuild the store, losing what is listed as lost? [y/N] ",
        refused="rebuilding the damaged store loses what is listed as lost: it needs a yes",
        declined="nothing changed",
    )
    recovery = recover_store(cfg, salvage)
    say(f"moved the damaged store to {recovery.aside}")
    with Memory(cfg) as memory:
        try:
            memory.transfer.import_(recovery.export, "overwrite")
            recovery.export.unlink()  # no copy a later forget would miss
            say(f"saved: {recovery.salvage.saved()}")
        except InvalidArgument as exc:  # damaged bytes that read as a bad note
            say(f"not saved: {exc} (memtui import {recovery.export} after fixing it)")
        say(f"lost: {recovery.salvage.lost_text()}")
        report = _with_progress(lambda on: memory.upkeep.ingest(on_progress=on))
    assert report is not None
    say(_summary(report).replace("indexed:", "rebuilt:"))


def cmd_doctor(memory: Memory, args: argparse.Namespace) -> None:
    report = memory.upkeep.doctor(repair=args.repair)
    say(f"{'store':<10} {report.store}")
    if report.store != "ok":
        fail("the store is damaged: restore memtui.db from a backup (the indexes can be rebuilt)")
    for name, (missing, extra) in report.differences.items():
        status = (
            "ok" if not (missing or extra) else f"{len(missing):,} missing, {len(extra):,} extra"
        )
        if name == "vectors" and report.other_model:
            status = f"made by another model: {len(missing):,} to embed again"
        elif name == "vectors" and report.to_embed:
            status += f" · {report.to_embed:,} newer messages to embed (`memtui index` does it)"
        say(f"{name:<10} {status}")
    masked = memory.upkeep.masked_counts()
    kinds = ", ".join(f"{n:,} {kind}" for kind, n in masked.items())
    say(f"{'secrets':<10} {sum(masked.values()):,} masked" + (f" ({kinds})" if kinds else ""))
    if report.repaired:
        say("repaired" if report.ok else "differences remain after repair")
    elif not report.ok:
        say("run memtui doctor --repair to fix")
    if not report.ok:
        raise SystemExit(1)


def cmd_forget(memory: Memory, args: argparse.Namespace) -> None:
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
    target = (
        f"session {args.session}"
        if args.session is not None
        else f"project {args.project}"
        if args.project is not None
        else f"note {args.note}"
    )
    confirm(
        args.yes,
        f"Forget {target} for good, from every file memtui keeps? [y/N] ",
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


def cmd_signals(memory: Memory, args: argparse.Namespace) -> None:
    status = None if args.status == "all" else args.status
    listed = memory.signals.list(args.type, status, args.limit)
    found = listed.signals
    if args.json:
        print(json.dumps({"signals": to_dict(found), "total": listed.total}, indent=2))
        return
    if not found:
        say("no signals" + (f" with status {status}" if status else ""), file=sys.stderr)
    for s in found:
        say(f"#{s.id:<5} {s.type:<16} {s.status:<11} {s.title}")
        say(f"       {s.detail}")
        for n in s.notes:
            say(f"       note #{n.id} {n.title}")
        for m in s.messages:
            say(f"       {m.session_id[:8]} #{m.message_index} {_when(m.timestamp)} {m.project}")
    if listed.total > len(found):
        say(f"{len(found):,} of {listed.total:,} (--limit shows more)", file=sys.stderr)


def cmd_signal(memory: Memory, args: argparse.Namespace) -> None:
    status = {"dismiss": "dismissed", "snooze": "snoozed", "new": "new"}[args.action]
    until = args.until if status == "snoozed" else None
    s = memory.signals.update_status(args.id, status, until)
    when = f" until {s.snooze_until[:16]}" if s.snooze_until else ""
    say(f"signal #{s.id} is {s.status}{when}: {s.title}")


def cmd_inferences(memory: Memory, args: argparse.Namespace) -> None:
    found = memory.inferences.list(args.status)
    if args.json:
        print(json.dumps({"inferences": to_dict(found)}, indent=2))
        return
    if not found:
        say("no inferences yet", file=sys.stderr)
    for i in found:
        say(f"#{i.id:<5} {i.status:<7} {i.title}  {i.citation}")
        for e in i.evidence:
            if e.state != "unchanged":
                say(f"       {e.kind} {e.ref} {e.title!r}: {e.state}")


def cmd_inference(memory: Memory, args: argparse.Namespace) -> None:
    if args.action == "confirm":
        kept = memory.inferences.keep(args.id)
        say(f"inference #{kept.id} is {kept.status}: {kept.title}  {kept.citation}")
        return
    found = memory.inferences.get_inference(args.id)
    confirm(
        args.yes,
        f"Drop inference #{found.id} {found.title!r}? [y/N] ",
        refused=f"dropping inference {found.id} needs a yes",
        declined="nothing dropped",
    )
    gone = memory.inferences.drop(found.id)
    again = f"; signal #{gone.signal_id} is new again" if gone.signal_id else ""
    say(f"inference #{gone.id} dropped{again}: {gone.title}")


COMMANDS: dict[str, Callable[[Memory, argparse.Namespace], None]] = {
    "index": cmd_index,
    "stats": cmd_stats,
    "show": cmd_show,
    "projects": cmd_projects,
    "sessions": cmd_sessions,
    "search": cmd_search,
    "reindex": cmd_reindex,
    "forget": cmd_forget,
    "signals": cmd_signals,
    "signal": cmd_signal,
    "inferences": cmd_inferences,
    "inference": cmd_inference,
}


# -- notes, house rules, export and import (the person's side: no guard binds the CLI) -------


def note_id(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if not 1 <= number <= 2**63 - 1:
        raise argparse.ArgumentTypeError(f"a note id is a whole number from 1, not {value!r}")
    return number


def add_note_commands(sub: argparse._SubParsersAction[Parser]) -> None:
    from memtui.engine.transfer import FORMATS

    notes = sub.add_parser("notes", help="list notes, the last updated first")
    notes.add_argument("--folder", type=argument, help="only this folder")
    notes.add_argument("--tag", type=argument, help="only notes with this tag")
    notes.add_argument("--layer", choices=LAYERS, help="only this layer")
    notes.add_argument("--limit", type=whole(1, 1000), default=100)
    notes.add_argument("--json", action="store_true", help="one JSON document on stdout")

    note = sub.add_parser("note", help="show, add, edit or delete one note")
    actions = note.add_subparsers(
        dest="note_command", metavar="ACTION", parser_class=Parser, required=True
    )
    show = actions.add_parser("show", help="print one note, its links and backlinks")
    show.add_argument("id", type=note_id)
    show.add_argument("--json", action="store_true", help="one JSON document on stdout")
    add = actions.add_parser("add", help="save a note; its body from FILE, or stdin (- or a pipe)")
    add.add_argument("--title", type=argument, required=True)
    add.add_argument("--layer", choices=LAYERS, required=True)
    add.add_argument("--folder", type=argument, default="", help="e.g. projects/shop")
    add.add_argument("--tag", type=argument, action="append", default=[], help="repeatable")
    add.add_argument(
        "file", nargs="?", metavar="FILE|-", help="the Markdown body (- or none: stdin)"
    )
    edit = actions.add_parser("edit", help="edit a note in $VISUAL or $EDITOR")
    edit.add_argument("id", type=note_id)
    edit.add_argument(
        "--from",
        dest="source",
        metavar="FILE",
        help="take the edited note (front matter and body) from FILE instead of an editor",
    )
    rm = actions.add_parser("rm", help="delete a note (asks first)")
    rm.add_argument("id", type=note_id)
    rm.add_argument("--yes", action="store_true", help="do not ask")

    rules = sub.add_parser("rules", help="house rules, approved and provisional")
    rules.add_argument("--json", action="store_true", help="one JSON document on stdout")
    rule_actions = rules.add_subparsers(dest="rules_command", metavar="ACTION", parser_class=Parser)
    approve = rule_actions.add_parser("approve", help="approve a provisional rule")
    approve.add_argument("id", type=note_id)

    export = sub.add_parser("export", help="write every note to a JSONL file or Markdown folder")
    export.add_argument("path", type=argument, metavar="PATH")
    export.add_argument("--format", choices=FORMATS, default="jsonl")
    export.add_argument(
        "--force",
        action="store_true",
        help="replace an existing file; Markdown: update an earlier export in that folder",
    )
    imp = sub.add_parser("import", help="import notes from an export (all or nothing)")
    imp.add_argument("path", type=argument, metavar="PATH")
    imp.add_argument(
        "--on-conflict",
        choices=ON_CONFLICT,
        default="error",
        help="a note that exists with other content: keep it, replace it (unless it was"
        " updated after the file's copy), or import nothing (default)",
    )
    imp.add_argument("--format", choices=FORMATS, help="default: a folder is markdown, else jsonl")


def cmd_notes(memory: Memory, args: argparse.Namespace) -> None:
    notes = memory.notes.list(folder=args.folder, tag=args.tag, layer=args.layer, limit=args.limit)
    total = memory.notes.count(folder=args.folder, tag=args.tag, layer=args.layer)
    if args.json:
        print(json.dumps({"notes": to_dict(notes), "total": total}, indent=2))
        return
    if not notes:
        say("no notes here yet: memtui note add --title T --layer past FILE", file=sys.stderr)
    for n in notes:
        say(f"{n.id:>5}  {_when(n.updated)}  {n.layer:<5}  {n.folder or '-':<16}  {n.title}")
    if total > len(notes):
        say(f"{len(notes):,} of {total:,} (--limit shows more)", file=sys.stderr)


def cmd_note(memory: Memory, args: argparse.Namespace) -> None:
    NOTE_ACTIONS[args.note_command](memory, args)


def cmd_note_show(memory: Memory, args: argparse.Namespace) -> None:
    detail = memory.notes.get(args.id)
    if args.json:
        print(json.dumps(to_dict(detail), indent=2))
        return
    n = detail.note
    say(f"# {n.title}\n")
    say(_note_fields(n))
    if detail.source is not None:
        where = detail.source.project or "no longer archived"
        say(f"source   session {detail.source.session_id} ({where})")
    if n.body.strip():
        say(f"\n{n.body.rstrip()}")
    if detail.links:
        say("\nLinks")
        for link in detail.links:
            target = f"#{link.note_id}" if link.note_id is not None else "(no such note yet)"
            say(f"  [[{link.target}]] → {target}")
    if detail.backlinks:
        say("\nReferenced by")
        for ref in detail.backlinks:
            say(f"  #{ref.id} {ref.title}")


def _note_fields(n: Note) -> str:
    status = f" ({n.status})" if n.status else ""
    lines = [
        f"id       {n.id}",
        f"layer    {n.layer}{status}",
        f"folder   {n.folder or '-'}",
        f"tags     {', '.join(n.tags) or '-'}",
        f"created  {n.created} by {n.author}",
        f"updated  {n.updated}",
    ]
    return "\n".join(lines)


def cmd_note_add(memory: Memory, args: argparse.Namespace) -> None:
    body = _read_body(args.file) if args.file else _piped()
    result = memory.notes.save(
        args.title, body, args.layer, by="person", folder=args.folder, tags=args.tag
    )
    n = result.note
    say(f"saved note #{n.id} {n.title!r} ({n.layer}{', ' + n.folder if n.folder else ''})")
    for similar in result.similar:
        say(
            f"  similar: #{similar.note.id} {similar.note.title!r} "
            f"(distance {similar.distance:.2f}: update it instead? memtui note edit "
            f"{similar.note.id})"
        )
    for back in result.flashbacks.notes:
        say(f"  flashback: #{back.note.id} {back.note.title!r}, {back.age_days} days older")
    for past in result.flashbacks.sessions:
        say(
            f"  flashback: {past.project}, session {past.session_id[:8]}#{past.message_index}, "
            f"{past.age_days} days ago"
        )


def _piped() -> str:
    """The body piped in when no FILE is given. At a terminal nobody meant to type it
    (that is `-`): refuse rather than wait, or save an empty note."""
    if sys.stdin is None:  # closed: nothing was piped
        return ""
    if sys.stdin.isatty():
        fail(
            "INVALID_ARGUMENT: no body: give FILE, - to type it on stdin, "
            "or pipe it in (echo text | memtui note add ...)"
        )
    return _read_body("-")


def _read_body(source: str) -> str:
    """The body from a file or stdin (`-`): UTF-8, at most the notes' limit (read no further)."""
    name = "stdin" if source == "-" else source
    try:
        if source == "-":
            data = sys.stdin.buffer.read(MAX_BODY_BYTES + 1)
        else:
            with open(source, "rb") as file:
                data = file.read(MAX_BODY_BYTES + 1)
    except OSError as exc:
        fail(f"INVALID_ARGUMENT: cannot read {name}: {exc.strerror or exc}")
    if len(data) > MAX_BODY_BYTES:
        fail(f"INVALID_ARGUMENT: body ({name}) is over {MAX_BODY_BYTES // 1024} KB")
    try:
        return data.decode()
    except UnicodeDecodeError:
        fail(f"INVALID_ARGUMENT: body ({name}) is not UTF-8 text")


EDIT_FIELDS = ("title", "layer", "folder", "tags")


def note_for_editing(n: Note) -> str:
    """A note as the Markdown `note edit` opens: the fields a person may change as front
    matter, the others as comments."""
    fields = {"title": n.title, "layer": n.layer, "folder": n.folder, "tags": n.tags}
    status = f" ({n.status})" if n.status else ""
    comments = [
        f"note {n.id}{status} · created {n.created} by {n.author} · updated {n.updated}",
        "change title, layer, folder or tags here; the body follows the closing ---",
    ]
    return frontmatter.dump(fields, n.body, comments)


def edited_fields(text: str) -> dict[str, Any]:
    """The fields and body of an edited note; InvalidArgument names what is wrong."""
    parts = frontmatter.split(text)
    if parts is None:
        raise InvalidArgument(
            "the front matter is gone", "keep the fields between two lines of ---"
        )
    fields, body = parts
    unknown = sorted(set(fields) - set(EDIT_FIELDS))
    if unknown:
        raise InvalidArgument(
            f"unknown field {unknown[0]!r} in the front matter",
            f"the fields are {', '.join(EDIT_FIELDS)}",
        )
    if "title" not in fields:
        raise InvalidArgument("title is missing from the front matter")
    tags = fields.get("tags") or []
    for name in ("title", "layer", "folder"):
        if isinstance(fields.get(name), list):
            raise InvalidArgument(f"{name} must be one value, not a list")
    return {
        "title": fields["title"] or "",
        "layer": fields.get("layer") or "",
        "folder": fields.get("folder") or "",
        "tags": [tags] if isinstance(tags, str) else tags,
        "body": body,
    }


def cmd_note_edit(memory: Memory, args: argparse.Namespace) -> None:
    before = memory.notes.get(args.id).note
    if args.source is not None:
        try:
            data = Path(args.source).read_bytes()
        except OSError as exc:
            fail(f"INVALID_ARGUMENT: cannot read {args.source}: {exc.strerror or exc}")
        _save_edit(memory, before, _utf8(data))
        say(f"saved note #{before.id}")
        return
    original = note_for_editing(before)
    fd, name = tempfile.mkstemp(prefix=f"memtui-note-{before.id}-", suffix=".md")
    draft = Path(name)
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as file:
        file.write(original)
    while True:
        problem = _run_editor(draft)
        data = draft.read_bytes()
        if data == original.encode():  # nothing to lose: the draft goes
            draft.unlink()
            if problem:
                fail(f"{problem}: nothing saved")
            say("no changes", file=sys.stderr)
            return
        if problem:
            fail(f"{problem}: nothing saved, your edit is kept in {draft}")
        try:
            _save_edit(memory, before, _utf8(data))
        except MemtuiError as exc:
            if _ask(f"{exc.line()}\nedit again? [Y/n] ", default=True):
                continue
            fail(
                f"{exc.line()}; nothing saved, your edit is kept in {draft} "
                f"(fix it, then: memtui note edit {before.id} --from {draft})"
            )
        draft.unlink()
        say(f"saved note #{before.id}")
        return


def _utf8(data: bytes) -> str:
    try:
        return data.decode()
    except UnicodeDecodeError as exc:
        raise InvalidArgument(
            f"the edited note is not UTF-8 text (byte {exc.start:,})",
            "save it as UTF-8",
        ) from None


def _save_edit(memory: Memory, before: Note, text: str) -> None:
    """Save an edited note, unless someone else changed it since it was opened."""
    fields = edited_fields(text)
    now = memory.notes.get(before.id).note
    if now.updated != before.updated:
        raise InvalidArgument(
            f"note {before.id} was changed elsewhere ({now.updated}) while you edited it",
            "compare it with memtui note show and edit again",
        )
    changed = {k: v for k, v in fields.items() if v != getattr(before, k)}
    if changed:
        memory.notes.update(before.id, by="person", **changed)


def _run_editor(path: Path) -> str:
    """Open `path` in the person's editor; what went wrong, or "" when it exited cleanly."""
    import shlex
    import subprocess

    command = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        code = subprocess.run([*shlex.split(command), str(path)], check=False).returncode
    except (OSError, ValueError) as exc:
        return f"INVALID_ARGUMENT: cannot start the editor {command!r} ($VISUAL/$EDITOR): {exc}"
    return f"the editor {command!r} exited with status {code}" if code else ""


def _ask(question: str, default: bool) -> bool:
    """A yes or no typed at the terminal (Enter: `default`); with no terminal, no."""
    if not sys.stdin.isatty():
        return False
    say(question, end="", file=sys.stderr, flush=True)
    answer = sys.stdin.readline().strip().lower()
    return default if answer == "" else answer in ("y", "yes")


def cmd_note_rm(memory: Memory, args: argparse.Namespace) -> None:
    detail = memory.notes.get(args.id)
    n = detail.note
    if not args.yes:
        if not sys.stdin.isatty():
            fail(f"NOT_CONFIRMED: no terminal to ask on before deleting note {n.id}: add --yes")
        count = len(detail.backlinks)
        linked = f", linked from {count} note{'s' * (count != 1)}" if count else ""
        if not _ask(f"delete note #{n.id} {n.title!r} ({n.layer}{linked})? [y/N] ", False):
            fail(f"NOT_CONFIRMED: note {n.id} kept")
    memory.notes.delete(n.id, by="person")
    say(f"deleted note #{n.id} {n.title!r}")


def cmd_rules(memory: Memory, args: argparse.Namespace) -> None:
    if args.rules_command == "approve":
        n = memory.notes.approve(args.id, by="person")
        say(f"approved rule #{n.id} {n.title!r}: it goes into the house rules")
        return
    rules = memory.notes.rules()
    if args.json:
        print(json.dumps({"rules": to_dict(rules)}, indent=2))
        return
    if not rules:
        say("no house rules yet: memtui note add --layer rule --title T FILE", file=sys.stderr)
    for status in ("approved", "provisional"):
        listed = [r for r in rules if r.status == status]
        if listed:
            say(f"{status} ({len(listed)})")
        for r in listed:
            say(f"{r.id:>5}  {_when(r.updated)}  by {r.author:<6}  {r.title}")
    if any(r.status == "provisional" for r in rules):
        say("provisional rules are not given to Claude: memtui rules approve ID", file=sys.stderr)


def cmd_export(memory: Memory, args: argparse.Namespace) -> None:
    report = memory.transfer.export(Path(args.path), args.format, overwrite=args.force)
    detail = report.format
    if report.format == "markdown":
        detail += f": {report.written:,} files written"
        if report.removed:
            detail += f", {len(report.removed):,} removed (notes deleted since)"
    say(f"exported {report.notes:,} notes to {report.path} ({detail})", file=sys.stderr)


def cmd_import(memory: Memory, args: argparse.Namespace) -> None:
    report = memory.transfer.import_(Path(args.path), args.on_conflict, args.format)
    say(
        f"imported {report.path} ({report.format}): {report.added:,} added, "
        f"{report.overwritten:,} overwritten, {report.skipped:,} skipped",
        file=sys.stderr,
    )
    if report.newer_kept:
        say(
            f"kept {report.newer_kept:,} stored notes updated after the file's copies of them",
            file=sys.stderr,
        )
    if report.signals or any(report.inferences):
        added, overwritten, skipped = report.inferences
        say(
            f"and {report.signals:,} decisions on signals; inferences: {added:,} added, "
            f"{overwritten:,} overwritten, {skipped:,} skipped",
            file=sys.stderr,
        )
    if report.ignored:
        kinds = ", ".join(f"{n:,} {kind}" for kind, n in sorted(report.ignored.items()))
        say(f"left out records this memtui does not know: {kinds}", file=sys.stderr)


NOTE_ACTIONS: dict[str, Callable[[Memory, argparse.Namespace], None]] = {
    "show": cmd_note_show,
    "add": cmd_note_add,
    "edit": cmd_note_edit,
    "rm": cmd_note_rm,
}
COMMANDS.update(
    {
        "notes": cmd_notes,
        "note": cmd_note,
        "rules": cmd_rules,
        "export": cmd_export,
        "import": cmd_import,
    }
)
