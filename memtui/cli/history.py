"""The conversations: search them, print one, list projects and sessions, and what they did
to a file or after an error."""

from __future__ import annotations

import sys
from argparse import Namespace
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from memtui.cli.base import JSON, Family, arg, limit, one_of, project, text, whole
from memtui.cli.say import console, print_json, say, shown, when
from memtui.engine import AGENTS, MODES, ROLES, InvalidArgument, render, short_id, to_dict
from memtui.words import counted, plural

if TYPE_CHECKING:
    from rich.console import Console

    from memtui.engine import Memory, SearchResponse, SearchResult
    from memtui.engine.work import Fix

family = Family()
AGENT = arg("--agent", choices=AGENTS, help="only this coding agent's conversations")


@family.command(
    "search",
    "search the archive from the shell",
    arg("query", nargs="+", type=text, help="words of one query (or concepts, see --concepts)"),
    arg("--concepts", action="store_true", help="each argument is one concept; all must match"),
    arg(
        "--alt",
        action="append",
        type=text,
        metavar="TEXT",
        help="another phrasing of the same question (repeatable, up to 4)",
    ),
    arg(
        "--mode",
        choices=MODES,
        default="hybrid",
        help="fts: the words; vector: the meaning; hybrid (default): both",
    ),
    arg("--project", type=project, help="only this project (its directory)"),
    arg("--session", type=text, help="only this session (id or prefix)"),
    arg("--role", choices=ROLES),
    AGENT,
    arg("--after", help="only messages at or after this ISO date or date-time"),
    arg("--before", help="only messages before this ISO date or date-time"),
    limit(1000, 10),
    arg("--offset", type=whole(0, 999), default=0, help="skip this many"),
    arg(
        "--sessions",
        action="store_true",
        help="rank conversations instead of messages, each with its best hit",
    ),
    JSON,
)
def search(memory: Memory, args: Namespace) -> None:
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
        by="session" if args.sessions else "message",
        agent=args.agent,
    )
    if args.json:
        doc = {"results": to_dict(response.results), "total": response.total, "mode": response.mode}
        doc |= {"more": response.more, "more_near": response.more_near}
        doc |= {"fts_total": response.fts_total, "vector_total": response.vector_total}
        doc |= {"nearest": to_dict(response.nearest), "by": response.by}
        doc["sessions"] = to_dict(response.sessions)
        if response.note:
            doc["note"] = response.note
        print_json(doc)
        return
    out = console()
    if response.note:
        out.print(f"[yellow]{_plain(response.note)}[/]")
    if not response.total:
        # Nothing matched: said first, and the nearest by meaning apart, never as finds.
        out.print(f"no matches ({response.mode}{_which(response)})")
        what = "conversations" if response.by == "session" else "messages"
        if response.nearest:
            out.print(
                f"\n[bold]nearest {what} by meaning — not matches[/] "
                f"[dim]({len(response.nearest)}, similarity as score)[/]"
            )
        for n, r in enumerate(response.nearest, 1):
            if response.by == "session":
                out.print(f"{n}. [bold]{_plain(r.session_title or '(untitled)')}[/]")
            _hit(out, r)
            if response.by == "session":
                out.print(
                    f"   [dim]open:[/] memtui show {_plain(r.session_id)} --at {r.message_index}"
                )
        return
    if response.by == "session":
        _conversations(out, response)
    else:
        for r in response.results:
            _hit(out, r)
        if response.results:
            top = response.results[0]
            handle = f"{short_id(top.session_id)}#{top.message_index}"
            out.print(f"[dim]open one: memtui show {handle}[/]")
    more = "+" if response.more else ""
    what = f" {plural(response.total, 'conversation')}" if response.by == "session" else ""
    out.print(
        f"[dim]{_listed(response)} of {response.total:,}{more}{what} ({response.mode}"
        f"{_which(response)})[/]"
    )


def _listed(response: SearchResponse) -> str:
    """How many this page lists; past the first page, which: `996-998`, `3-3`, `0 from 6`."""
    n, start = len(response.results), response.offset
    if not start:
        return str(n)
    return f"{start + 1:,}-{start + n:,}" if n else f"0 from {start + 1:,}"


def _which(response: SearchResponse) -> str:
    """What the total counted: full-text matches and neighbours near in meaning."""
    parts = response.counts()
    return ": " + ", ".join(parts) if parts else ""


def _plain(text: str) -> str:
    """Stored text for rich: no markup, no control characters."""
    from rich.markup import escape

    return escape(shown(text))


def _snippet(snippet: str) -> str:
    """A snippet for rich, its **marked** words bold."""
    parts = _plain(snippet).replace("**", "\0").split("\0")
    return "".join(f"[bold yellow]{p}[/]" if i % 2 else p for i, p in enumerate(parts))


def _hit(out: Console, r: SearchResult) -> None:
    """A message hit: where and when, who, its score and how it was found; its snippet."""
    out.print(
        f"[bold cyan]{_plain(short_id(r.session_id))}[/]#{r.message_index} "
        f"[dim]{_plain(when(r.timestamp))}[/] [green]{_plain(r.project)}[/]{_by(r.agent)} "
        f"[magenta]{r.speaker}[/] [dim]{r.score:.4f} {'+'.join(r.found_by)}[/]"
    )
    out.print(f"  {_snippet(r.snippet)}")


def _by(agent: str) -> str:
    """Another agent than Claude Code, named after the project."""
    return "" if agent == "claude-code" else f" [blue]{agent}[/]"


def _conversations(out: Console, response: SearchResponse) -> None:
    """A conversation a hit: its title; its last date, project, size, how many of its
    messages match and its score; its best hit; the `show` that opens it there."""
    for n, (hit, best) in enumerate(zip(response.sessions, response.results, strict=True), 1):
        info = hit.session
        out.print(f"{response.offset + n}. [bold]{_plain(info.title or '(untitled)')}[/]")
        out.print(
            f"   [dim]{_plain(when(info.last_timestamp).strip())}[/] "
            f"[green]{_plain(info.project)}[/]{_by(info.agent)} {info.message_count:,} "
            f"{plural(info.message_count, 'message')}, {counted(hit.matches, 'hit')} "
            f"[dim]{hit.score:.4f}[/]"
        )
        out.print(f"   [magenta]{best.speaker}[/] {_snippet(best.snippet)}")
        out.print(
            f"   [dim]open:[/] memtui show {_plain(info.session_id)} --at {best.message_index}"
        )


@family.command(
    "show",
    "print one session (full id or unique prefix)",
    arg(
        "session",
        type=text,
        help="session id or a unique prefix of one; SESSION#N (a search hit) is --at N",
    ),
    arg(
        "--at",
        type=whole(0, 10_000_000),
        default=0,
        metavar="N",
        help="from message N on (where a search hit is)",
    ),
    one_of(arg("--markdown", action="store_true", help="Markdown (the default)"), JSON),
)
def show(memory: Memory, args: Namespace) -> None:
    session, at = _handle(args.session, args.at)
    info, messages = memory.history.session_messages(session)
    last = max((m.message_index for m in messages), default=0)
    if messages and at > last:
        raise InvalidArgument(f"--at {at} is past the end: the session's messages are 0 to {last}")
    # From message `at` on as the conversation reads: a subagent's messages are numbered after
    # the session's own but read where the subagent ran, so a number is a place, not a floor.
    if messages:
        first = min(m.message_index for m in messages if m.message_index >= at)
        messages = messages[[m.message_index for m in messages].index(first) :]
    if args.json:
        print_json({"session": to_dict(info), "messages": to_dict(messages)})
    else:
        say(render.session_markdown(info, messages))


def _handle(session: str, at: int) -> tuple[str, int]:
    """A session and where to start: `SESSION#N`, as a search lists a hit, starts at N."""
    head, mark, tail = session.rpartition("#")
    if not mark:
        return session, at
    if not tail.isdigit():
        raise InvalidArgument(f"{session}: after # comes a message's number, as in {head}#12")
    if at and at != int(tail):
        raise InvalidArgument(f"{session} says message {tail}, --at says {at}: give one")
    return head, int(tail)


@family.command("projects", "list the archived projects", JSON)
def projects(memory: Memory, args: Namespace) -> None:
    _listing(
        "projects",
        memory.history.list_projects(),
        args.json,
        lambda p: (
            f"{when(p.last_activity)}  {p.sessions:>5,} {plural(p.sessions, 'session'):<8}  "
            f"{p.messages:>8,} {plural(p.messages, 'message'):<8}  {p.project}"
        ),
    )


@family.command(
    "sessions",
    "list sessions, the last active first",
    arg("--project", type=project, help="only this project (its directory)"),
    AGENT,
    limit(10_000, 50),
    JSON,
)
def sessions(memory: Memory, args: Namespace) -> None:
    _listing(
        "sessions",
        memory.history.list_sessions(args.project, limit=args.limit, agent=args.agent),
        args.json,
        lambda s: (
            f"{s.session_id}  {when(s.last_timestamp)}  {s.message_count:>5,} msgs  "
            f"{'' if s.agent == 'claude-code' else s.agent + '  '}"
            f"{s.title[:60]}{' (archived)' if s.archived else ''}"
        ),
        [
            *([f"of {args.agent}"] if args.agent else []),
            *([f"in {shown(args.project)}"] if args.project else []),
        ],
    )


@family.command(
    "files",
    "the conversations that read or changed a file, the latest first",
    arg("path", type=text, help="a file: absolute, from its project (src/app.py), or its name"),
    arg("--project", type=project, help="only this project (its directory)"),
    limit(50, 10),
    JSON,
)
def files(memory: Memory, args: Namespace) -> None:
    found = memory.work.files(args.path, _project(memory, args.project), args.limit)
    if args.json:
        print_json({"path": found.path, "conversations": to_dict(found.conversations)})
        return
    if not found.conversations:
        say(f"no conversation read or changed {shown(found.path)}", file=sys.stderr)
    for c in found.conversations:
        say(f"{when(c.date)}  {'/'.join(c.did):<15}  {c.session_id}  {shown(c.project)}")
        if c.title:
            say(f"    {shown(c.title[:100])}")
        if c.request and c.request != c.title:
            say(f"    asked: {shown(c.request[:200])}")


@family.command(
    "fixes",
    "what was run or changed after an error before, and whether it came back",
    arg("error", nargs="+", type=text, help="the error's text, or a line of it"),
    arg("--project", type=project, help="only this project (its directory)"),
    limit(50, 5),
    JSON,
)
def fixes(memory: Memory, args: Namespace) -> None:
    found = memory.work.fixes(" ".join(args.error), _project(memory, args.project), args.limit)
    if args.json:
        print_json({"error": found.error, "fixes": to_dict(found.fixes)})
        return
    if not found.fixes:
        say(
            f"no command failed with {shown(found.error)!r} before (memtui search may find it "
            "in other output: a log printed, a file read)",
            file=sys.stderr,
        )
    for fix in found.fixes:
        say(f"{when(fix.date)}  {fix.session_id}  {shown(fix.project)}")
        if fix.title:
            say(f"    {shown(fix.title[:100])}")
        for line in _outcome(fix):
            say(f"    {shown(line)}")


def _outcome(fix: Fix) -> list[str]:
    """A failure and what came after it, a line each."""
    code = f" (exit {fix.exit_code})" if fix.exit_code is not None else ""
    lines = [f"`{fix.command}` failed{code}" + (f": {fix.error_line}" if fix.error_line else "")]
    if not fix.fixed:
        return [*lines, "no run passed after it in that conversation"]
    if fix.steps:
        lines.append("then: " + ", ".join(fix.steps))
    lines.append(f"`{fix.passed}` passed")
    if fix.came_back:
        lines.append("the error came back later")
    return lines


def _project(memory: Memory, project: str | None) -> str | None:
    """`--project` as the archive keeps it (a path as typed, or a part only one has)."""
    return None if project is None else memory.history.project_path(project)


def _listing(
    name: str,
    items: Sequence[Any],
    as_json: bool,
    line: Callable[[Any], str],
    kept_to: Sequence[str] = (),
) -> None:
    """A list as one JSON document, or a line an item (and a word on stderr when empty: the
    filters `kept_to` say what was asked for, if any)."""
    if as_json:
        print_json({name: to_dict(list(items))})
        return
    if not items and kept_to:
        say(f"no {name} {' '.join(kept_to)} in the archive", file=sys.stderr)
    elif not items:
        say(f"no {name} archived yet: run memtui index", file=sys.stderr)
    for item in items:
        say(line(item))
