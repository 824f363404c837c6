"""The tool hook's lookups replayed: sessions in time order, each asked about before it is
stored, scored against what the transcripts say.

    python bench/work_replay.py [--messages 20000] [--sessions 300] [--seeds 0,1,2]
                                [--real ../shared/transcripts/projects]
                                [--latency 200000] [--work /tmp/memtui-bench]

Three sets: the generated corpus (bench/corpus.py), sessions made to be hard for the index
(bench/work_sessions.py: seed 0, on which it was tuned, and seeds 1 and 2, held back; 2 was
written after the last change), and real transcripts when given.

For each session in the order they started, every Edit, Write, MultiEdit and Bash call is
asked about (the first call on each file or command in the session: the hook speaks once per
file or command) with what the archive holds of the sessions before it; then the session is
stored (`memtui`'s ingest of its files, as the follower would) and the next is replayed.

The truth comes from the raw JSONL, apart from the store: tool_use ids pair each call with its
result and `is_error` says whether it failed. A file has a past when an earlier session of
the project edited or wrote it without an error; the lookup must name one of those sessions.
A command has a past when an earlier session of the project ran it (normalised as the index
normalises it: a leading `cd DIR &&`, a trailing `2>&1 | tail -N` aside) and it failed; the
lookup must name the error that session's output gave. With no past, it must say nothing.

Each set is replayed twice: as stored now (the tool ids and is_error kept), and as an archive
stored before them (schema 7) is read on its upgrade: results paired by order, failures told by
their text ("Exit code 1"; Claude Code 1.x wrote none).

Targets (issue 27): names the conversation >= 90 %, names the error >= 80 %, silent 100 %.
`--latency N` also measures both lookups on an archive of N messages (p50 / p95, < 5 ms).
"""

from __future__ import annotations

import argparse
import json
import logging
import posixpath
import random
import shutil
import sqlite3
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from common import cached_corpus, text_of
from work_sessions import write_sessions

from memtui.config import Config
from memtui.engine import work, work_index
from memtui.engine.errortext import error_of
from memtui.engine.memory import Memory
from memtui.store import db
from memtui.store.work import command_key

CHANGES = {"Edit", "Write", "MultiEdit", "NotebookEdit"}
REJECTED = "The user doesn't want to proceed"


@dataclass(slots=True)
class Call:
    ts: str
    tool: str
    target: str  # the file (absolute, normalised) or the command normalised
    failed: bool
    error_line: str  # a failed Bash call's error, as the output gave it ("" for none)


@dataclass(slots=True)
class Session:
    id: str
    cwd: str
    start: str
    files: set[Path] = field(default_factory=set)
    calls: list[Call] = field(default_factory=list)


def read_truth(root: Path) -> list[Session]:
    """Every session under `root` from its raw lines, oldest first."""
    sessions: dict[str, Session] = {}
    for path in sorted(root.rglob("*.jsonl")):
        uses: dict[str, tuple[str, str, str, str]] = {}  # id: (ts, tool, input, session)
        for line in path.read_bytes().splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if not isinstance(record, dict) or not isinstance(record.get("message"), dict):
                continue
            sid, ts, cwd = record.get("sessionId"), record.get("timestamp"), record.get("cwd")
            if not isinstance(sid, str) or not isinstance(ts, str):
                continue
            session = sessions.setdefault(sid, Session(sid, cwd or "", ts))
            session.files.add(path)
            session.cwd = session.cwd or cwd or ""
            session.start = min(session.start, ts)
            content = record["message"].get("content")
            for block in content if isinstance(content, list) else []:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_use" and block.get("name") in CHANGES | {"Bash"}:
                    given = block.get("input") or {}
                    arg = given.get("command") or given.get("file_path") or ""
                    arg = arg or given.get("notebook_path") or ""
                    if isinstance(arg, str) and arg:
                        uses[str(block.get("id"))] = (ts, block["name"], arg, sid)
                elif block.get("type") == "tool_result" and block.get("tool_use_id") in uses:
                    ts0, tool, arg, owner = uses.pop(block["tool_use_id"])
                    text = text_of(block.get("content"))
                    failed = block.get("is_error") is True
                    if tool == "Bash" and text.startswith(REJECTED):
                        failed = False  # refused by the person: it never ran
                    sessions[owner].calls.append(_call(ts0, tool, arg, failed, text))
        for ts0, tool, arg, owner in uses.values():  # no result: interrupted, or still running
            sessions[owner].calls.append(_call(ts0, tool, arg, False, ""))
    for session in sessions.values():
        session.calls.sort(key=lambda c: c.ts)
    return sorted((s for s in sessions.values() if s.cwd), key=lambda s: s.start)


def _call(ts: str, tool: str, arg: str, failed: bool, output: str) -> Call:
    if tool == "Bash":
        found = error_of(output) if failed else None
        return Call(ts, tool, command_key(arg), failed, found[1] if found else "")
    return Call(ts, tool, posixpath.normpath(arg), failed, "")


@dataclass(slots=True)
class Score:
    asked: int = 0
    hit: int = 0
    silent_asked: int = 0
    silent_ok: int = 0
    timings: list[float] = field(default_factory=list)

    def line(self, name: str, what: str) -> str:
        rate = self.hit / self.asked if self.asked else float("nan")
        quiet = self.silent_ok / self.silent_asked if self.silent_asked else float("nan")
        return (
            f"{name}: {what} {self.hit}/{self.asked} = {rate:.1%}; "
            f"silent without a past {self.silent_ok}/{self.silent_asked} = {quiet:.1%}"
        )


def replay(
    sessions: list[Session], source: Path, scratch: Path, before_ids: bool
) -> tuple[Score, Score]:
    """Ask, then store, each session in turn; returns the files' and the commands' scores.
    `before_ids`: each session's work is read as an archive stored before schema 8 is."""
    shutil.rmtree(scratch, ignore_errors=True)
    claude = scratch / "projects"
    claude.mkdir(parents=True)
    cfg = Config(data_dir=scratch / "data", claude_dir=claude, log_dir=scratch / "logs")
    changed: dict[tuple[str, str], set[str]] = defaultdict(set)  # (cwd, file): sessions
    failures: dict[tuple[str, str], dict[str, set[str]]] = defaultdict(dict)  # its error lines
    files, commands = Score(), Score()
    with Memory(cfg) as memory:
        conn = db.read_only(cfg.db_path, 1_000)
        for session in sessions:
            asked: set[tuple[str, str]] = set()
            for call in session.calls:
                kind = "file" if call.tool in CHANGES else "command"
                if (kind, call.target) in asked:
                    continue
                asked.add((kind, call.target))
                key = (session.cwd, call.target)
                if kind == "file":
                    _score_file(conn, session, call, changed.get(key, set()), files)
                else:
                    _score_command(conn, session, call, failures.get(key, {}), commands)
            for call in session.calls:
                key = (session.cwd, call.target)
                if call.tool in CHANGES and not call.failed:
                    changed[key].add(session.id)
                elif call.tool == "Bash" and call.failed:
                    failures[key].setdefault(session.id, set()).add(call.error_line)
            _store(memory, session, source, claude, before_ids)
        conn.close()
    return files, commands


def _score_file(
    conn: sqlite3.Connection, session: Session, call: Call, past: set[str], score: Score
) -> None:
    started = time.perf_counter()
    said = work.changed_before(conn, session.cwd, call.target, session.id)
    score.timings.append(time.perf_counter() - started)
    if past:
        score.asked += 1
        score.hit += any(found.session_id in past for found in said)
    else:
        score.silent_asked += 1
        score.silent_ok += not said


def _score_command(
    conn: sqlite3.Connection,
    session: Session,
    call: Call,
    past: dict[str, set[str]],
    score: Score,
) -> None:
    started = time.perf_counter()
    said = work.failed_before(conn, session.cwd, call.target, session.id)
    score.timings.append(time.perf_counter() - started)
    if past:
        score.asked += 1
        score.hit += any((f.error_line or "") in past.get(f.session_id, ()) for f in said)
    else:
        score.silent_asked += 1
        score.silent_ok += not said


def _store(memory: Memory, session: Session, source: Path, claude: Path, before_ids: bool) -> None:
    copied = []
    for path in session.files:
        target = claude / path.relative_to(source)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            copied.append(target)
    memory.upkeep.ingest(claude, copied, index=False)
    if before_ids:  # as schema 7 stored it: the session's work read again from its text
        conn = memory._archive.conn
        seq = db.store_seq(conn) + 1
        conn.execute(
            "UPDATE messages SET tool_ids = NULL, is_error = NULL, seq = ? WHERE session_id = ?",
            (seq, session.id),
        )
        conn.execute("UPDATE meta SET value = ? WHERE key = 'seq'", (str(seq),))
        work_index.catch_up(conn)


def latency(work_dir: Path, messages: int, rounds: int = 300) -> str:
    """p50 / p95 of each lookup on an archive of `messages`, for files and commands that
    have a past and ones that have none, from a read-only connection."""
    projects, _ = cached_corpus(work_dir, messages)
    data = work_dir / f"data-work-{messages}"
    cfg = Config(data_dir=data, claude_dir=projects, log_dir=work_dir / "logs")
    with Memory(cfg) as memory:
        memory.upkeep.ingest(index=False)
        conn = memory._archive.conn
        files = conn.execute(
            "SELECT pr.path, w.target FROM work w JOIN projects pr ON pr.id = w.project_id "
            "WHERE kind IN ('edit', 'write') GROUP BY 1, 2"
        ).fetchall()
        runs = conn.execute(
            "SELECT pr.path, w.target FROM work w JOIN projects pr ON pr.id = w.project_id "
            "WHERE kind = 'run' GROUP BY 1, 2"
        ).fetchall()
        (stored,) = conn.execute("SELECT count(*) FROM messages").fetchone()
    rng = random.Random(27)
    conn = db.read_only(cfg.db_path, 1_000)
    out = [f"lookups on {messages:,} messages ({stored:,} stored rows), read-only connection:"]
    for name, pool, ask in (
        ("changed_before", files, work.changed_before),
        ("failed_before", runs, work.failed_before),
    ):
        for past in (True, False):
            timings = []
            for _ in range(rounds):
                project, target = rng.choice(pool)
                target = target if past else f"{target}.none"
                started = time.perf_counter()
                ask(conn, project, target)
                timings.append((time.perf_counter() - started) * 1000)
            timings.sort()
            p95 = timings[int(len(timings) * 0.95)]
            out.append(
                f"  {name} ({'with' if past else 'without'} a past): "
                f"p50 {statistics.median(timings):.2f} ms, p95 {p95:.2f} ms"
            )
    conn.close()
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--sessions", type=int, default=300, help="of each hard set")
    parser.add_argument(
        "--seeds",
        type=lambda v: [int(x) for x in v.split(",")],
        default=[0, 1, 2],
        help="hard sets to replay (0 was tuned on; 2 was written after the last change)",
    )
    parser.add_argument("--real", type=Path, help="a projects folder of real transcripts")
    parser.add_argument("--latency", type=int, help="measure the lookups at this size too")
    parser.add_argument("--work", type=Path, default=Path("/tmp/memtui-bench"))
    args = parser.parse_args()
    sets = [("generated", cached_corpus(args.work, args.messages)[0])]
    for seed in args.seeds:
        role = "tuned on" if seed == 0 else "held back"
        hard = args.work / f"work-sessions-{args.sessions}-{seed}"
        if not hard.exists():
            write_sessions(hard, args.sessions, seed)
        sets.append((f"hard seed {seed} ({role})", hard))
    if args.real:
        sets.append(("real", args.real))
    logging.disable(logging.WARNING)  # the corpus's broken lines, skipped as they should be
    for name, root in sets:
        sessions = read_truth(root)
        for before_ids in (False, True):
            started = time.perf_counter()
            scratch = args.work / f"replay-{name.split(' (')[0].replace(' ', '-')}"
            files, commands = replay(sessions, root, scratch, before_ids)
            timings = sorted(files.timings + commands.timings)
            p95 = timings[int(len(timings) * 0.95)] * 1000 if timings else 0.0
            how = "as stored before the ids (schema 7)" if before_ids else "with the ids"
            took = time.perf_counter() - started
            print(f"{name}, {how}: {len(sessions)} sessions replayed in {took:.0f} s")
            print("  " + files.line("before an edit", "names an earlier conversation"))
            print("  " + commands.line("before a command", "names the error it gave"))
            print(f"  lookups p95 {p95:.2f} ms over {len(timings)} asked")
    if args.latency:
        print(latency(args.work, args.latency))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
