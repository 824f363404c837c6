"""The work index derived from the stored messages, and kept in step with them.

A session is read in order, one thread at a time (the conversation, and each subagent's): a
prompt starts a turn; an assistant message's tool calls wait for their results; a result is
paired with its call by the tool_use id it names or, in messages stored before the ids were
kept (schema 8), with the thread's oldest call still waiting (results follow their calls in
order, but for parallel calls that finish out of turn: those only the ids pair right; a call
still waiting when the next assistant message comes was never answered). Each call that
reads, edits, writes or runs becomes a row (store/work.py), its result gives the outcome:
the exit code where the agent's shell tool wrote one (errortext.EXIT_FORMS), else is_error
where it was kept, else what the text says (a refused edit; a failure Claude Code 1.x wrote,
with no exit code, is not known so). Each agent's tools are its own (store/work.py TOOLS).
A failed run stays open until a run of the same command, or of a command that failed with the
same error, passes in that thread: what ran and changed in between fixed it.

Following `meta.seq` (`meta.work_seq` is how far it has read): a session with new or changed
messages is derived again from its first such message on; what came before it (each
thread's request and the calls still waiting) is read back from the store, without outputs.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import orjson

from memtui.engine import errortext
from memtui.progress import Meter, OnProgress, cancelled
from memtui.store import db
from memtui.store import work as store
from memtui.store.locks import FileLock

BATCH = 5_000  # messages derived per transaction: a writer waits for one batch at most
# A tool call's outcome judged from its result's text, where is_error was not kept: a file
# tool's refusals (the person said no, or the tool could not apply it).
_REFUSED = (
    "<tool_use_error>",
    "The user doesn't want to proceed",
    "Error: ",
    "File has not been read yet",
    "File does not exist",
    "String to replace not found",
    "Found ",  # "Found 2 matches of the string to replace, but replace_all is false"
)
_REJECTED = "The user doesn't want to proceed"  # a run the person refused: it never ran
# What the derivation reads of a message: no text, no output (those it fetches by id).
_STRUCTURE = """SELECT id, idx, kind, agent_id, epoch, tool_calls, tool_ids, is_error
                FROM messages WHERE session_id = ? AND idx >= ? AND idx < ?
                AND (kind IN ('prompt', 'tool_result')
                     OR kind = 'assistant' AND tool_calls != '[]')
                ORDER BY idx"""


@dataclass(slots=True)
class _Call:
    idx: int
    n: int
    tool_id: str
    kind: str | None  # read, edit, write, run; None for a tool that is not work
    command: str | None = None


@dataclass(slots=True)
class _Open:
    """A failed run waiting for a run to pass."""

    idx: int
    n: int
    command: str | None
    error: str | None


@dataclass(slots=True)
class _Thread:
    prompt_id: int | None = None
    waiting: list[_Call] = field(default_factory=list)
    open: list[_Open] = field(default_factory=list)

    def answered(self, ids: list[str] | None) -> list[_Call]:
        """The waiting calls a result answers: by the ids it names, else the oldest."""
        if ids:
            found = [c for c in self.waiting if c.tool_id in ids]
            if not found:  # a call stored before the ids were kept
                found = [c for c in self.waiting if not c.tool_id][:1]
        else:
            found = self.waiting[:1]
        for call in found:
            self.waiting.remove(call)
        return found


@dataclass(slots=True)
class _Result:
    call: _Call
    agent: str | None
    message_id: int
    is_error: int | None
    output: str = ""


def behind(conn: sqlite3.Connection) -> bool:
    return store.mark(conn) < db.store_seq(conn)


def catch_up(
    conn: sqlite3.Connection,
    on_progress: OnProgress | None = None,
    cancel: threading.Event | None = None,
    held: FileLock | None = None,
) -> int:
    """Derive the work of every message stored or changed since the mark, a batch of
    sessions a transaction; the mark moves with the last. `held`: the writer's lock, given
    way to a forget between batches. Returns the messages read."""
    upto = db.store_seq(conn)
    if store.mark(conn) >= upto:
        return 0
    touched = conn.execute(
        """SELECT m.session_id, min(m.idx), count(*) FROM messages m
           WHERE m.seq > ? AND m.seq <= ? GROUP BY m.session_id""",
        (store.mark(conn), upto),
    ).fetchall()
    if not touched:  # only forgets since: nothing to read
        store.set_mark(conn, upto)
        return 0
    # Rows are written again as a session grows: the freed copies are zeroed, as a forget's
    # are, or a forgotten command could outlive its rows in a free page.
    (secure,) = conn.execute("PRAGMA secure_delete").fetchone()
    conn.execute("PRAGMA secure_delete = ON")
    try:
        return _catch_up(conn, touched, upto, Meter("work", on_progress), cancel, held)
    finally:
        conn.execute(f"PRAGMA secure_delete = {int(secure)}")


def _catch_up(
    conn: sqlite3.Connection,
    touched: list[tuple[str, int, int]],
    upto: int,
    meter: Meter,
    cancel: threading.Event | None,
    held: FileLock | None,
) -> int:
    total, done = sum(r[2] for r in touched), 0
    for batch in _batches(touched):
        conn.execute("BEGIN IMMEDIATE")
        try:
            for session_id, start, _ in batch:
                _derive(conn, session_id, start)
            done += sum(r[2] for r in batch)
            if done >= total:
                store.set_mark(conn, upto)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        meter(done, total, f"{done:,} messages")
        if cancelled(cancel):
            break
        if held is not None:
            held.give_way()  # a session forgotten meanwhile is found gone when its turn comes
    return done


def rebuild(
    conn: sqlite3.Connection,
    on_progress: OnProgress | None = None,
    cancel: threading.Event | None = None,
) -> int:
    """Everything derived again from the messages (reindex, doctor's repair, a remask)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        store.clear(conn)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return catch_up(conn, on_progress, cancel)


def differences(conn: sqlite3.Connection) -> tuple[set[int], set[int]]:
    """(messages up to the mark with work calls but no rows, message ids of rows whose
    message is gone): what doctor reports."""
    return store.underived(conn, store.TOOLS), store.orphans(conn)


def _batches(touched: list[tuple[str, int, int]]) -> Iterator[list[tuple[str, int, int]]]:
    batch: list[tuple[str, int, int]] = []
    size = 0
    for row in touched:
        batch.append(row)
        size += row[2]
        if size >= BATCH:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _derive(conn: sqlite3.Connection, session_id: str, start: int) -> None:
    """A session's work from its message `start` on, the rows before it kept."""
    found = conn.execute(
        "SELECT s.project_id, p.path, s.agent FROM sessions s "
        "JOIN projects p ON p.id = s.project_id "
        "WHERE s.id = ?",
        (session_id,),
    ).fetchone()
    store.drop_from(conn, session_id, start)
    if found is None:  # forgotten since it changed
        return
    project_id, project, writer = found  # writer: the coding agent (agent_id: a subagent)
    tools = store.TOOLS.get(writer, {})
    threads: dict[str | None, _Thread] = {}
    if start:
        lo = _turns_start(conn, session_id, start)
        for row in conn.execute(_STRUCTURE, (session_id, lo, start)).fetchall():
            _read(row, tools, threads, None)
        for idx, n, agent, command, error in store.open_failures(conn, session_id):
            threads.setdefault(agent, _Thread()).open.append(_Open(idx, n, command, error))
    rows: dict[tuple[int, int], list[object]] = {}
    results: list[_Result] = []
    for row in conn.execute(_STRUCTURE, (session_id, start, 1 << 62)).fetchall():
        for call, prompt_id, message_id, epoch, arg in _read(row, tools, threads, results):
            rows[call.idx, call.n] = _new_row(
                session_id, call, message_id, project_id, row[3], prompt_id, epoch, project, arg
            )
    _fill_outputs(conn, results)
    outcomes, fixes = [], []
    for result in results:
        call = result.call
        failed, code, error, line = _outcome(call.kind, result.is_error, result.output, writer)
        outcome = (result.message_id, failed, code, error, line)
        if (call.idx, call.n) in rows:
            rows[call.idx, call.n][11:16] = outcome
        else:  # a call read back: its row is stored already
            outcomes.append((*outcome, session_id, call.idx, call.n))
        if call.kind == "run" and failed is not None:
            fixes += _follow(threads.setdefault(result.agent, _Thread()), call, failed, error)
    fixed_before = []
    for failure, fix in fixes:
        if failure in rows:
            rows[failure][16:18] = fix
        else:
            fixed_before.append((*fix, session_id, *failure))
    if rows:
        store.put(conn, [tuple(r) for r in rows.values()])
    if outcomes:
        store.set_outcomes(conn, outcomes)
    if fixed_before:
        store.set_fixed(conn, fixed_before)


def _turns_start(conn: sqlite3.Connection, session_id: str, start: int) -> int:
    """Where to read back from to know each thread's state at `start`: the earliest of the
    last prompts before it of the threads that go on after it (0 for one with none)."""
    going_on = [
        r[0]
        for r in conn.execute(
            "SELECT DISTINCT agent_id FROM messages WHERE session_id = ? AND idx >= ?",
            (session_id, start),
        )
    ]
    prompts = dict(
        conn.execute(
            """SELECT agent_id, max(idx) FROM messages WHERE session_id = ? AND idx < ?
               AND kind = 'prompt' GROUP BY agent_id""",
            (session_id, start),
        ).fetchall()
    )
    return min((prompts.get(agent, 0) for agent in going_on), default=start)


def _read(
    row: tuple,
    tools: dict[str, str],
    threads: dict[str | None, _Thread],
    results: list[_Result] | None,
) -> list[tuple[_Call, int | None, int, int, str]]:
    """Follow one message through its thread (`tools`: its agent's work tools, by name);
    returns its work calls (call, request, message id, epoch, key argument) and adds the calls
    its results answer to `results` (None: the message is read back for the thread's state
    only)."""
    message_id, idx, kind, agent, epoch, calls_json, ids_json, is_error = row
    thread = threads.get(agent)
    if thread is None:
        thread = threads[agent] = _Thread()
    made = []
    if kind == "prompt":
        thread.prompt_id = message_id
        thread.waiting.clear()
    elif kind == "assistant":
        # The API answers every call before the next assistant message: a call paired by
        # order still waiting then was never answered (interrupted), and would take the
        # next call's result.
        thread.waiting = [c for c in thread.waiting if c.tool_id]
        ids = orjson.loads(ids_json) if ids_json else None
        for n, (name, arg) in enumerate(orjson.loads(calls_json)):
            work = tools.get(name) if arg else None
            if work is None and ids:  # paired by its id: a call that is not work needs no place
                continue
            call = _Call(idx, n, ids[n] if ids and n < len(ids) else "", work)
            if work == "run":
                call.command = store.command_key(arg)
            thread.waiting.append(call)
            if work is not None:
                made.append((call, thread.prompt_id, message_id, epoch, arg))
    elif kind == "tool_result" and thread.waiting:
        answered = thread.answered(orjson.loads(ids_json) if ids_json else None)
        if results is not None:
            results += [_Result(c, agent, message_id, is_error) for c in answered if c.kind]
    return made


def _new_row(
    session_id: str,
    call: _Call,
    message_id: int,
    project_id: int,
    agent: str | None,
    prompt_id: int | None,
    epoch: int,
    project: str,
    arg: str,
) -> list[object]:
    target = arg if call.kind == "run" else store.rel_path(project, arg)
    return [
        *(session_id, call.idx, call.n, message_id, project_id, agent, prompt_id, epoch),
        *(call.kind, target, call.command),
        *(None, None, None, None, None),  # result, failed, exit code, error, its line
        *(None, None),  # fixed by
    ]


def _fill_outputs(conn: sqlite3.Connection, results: list[_Result]) -> None:
    """The outputs an outcome is judged from: every run's (its exit code and error), and a
    file tool's only where is_error was not kept."""
    need = {r.message_id: r for r in results if r.call.kind == "run" or r.is_error is None}
    ids = sorted(need)
    for chunk in db.chunks(ids):
        rows = conn.execute(
            f"SELECT id, tool_output FROM messages WHERE id IN ({db.marks(chunk)})", chunk
        )
        outputs = dict(rows.fetchall())
        for r in results:
            if r.message_id in outputs:
                r.output = outputs[r.message_id]


def _outcome(
    kind: str | None, is_error: int | None, output: str, agent: str
) -> tuple[int | None, int | None, str | None, str | None]:
    """(failed, exit code, error, its line) of a call's result. A run that exited non-zero
    failed whatever is_error says (Gemini CLI's shell tool reports success). Without is_error,
    a run with no exit code passed: Claude Code 1.x wrote its failures so, but an output that
    shows an error is no sign of one (a log's tail, a grep of errors)."""
    if kind != "run":
        failed = is_error if is_error is not None else int(output.startswith(_REFUSED))
        return failed, None, None, None
    if output.startswith(_REJECTED):
        return None, None, None, None
    code, printed = errortext.run_output(output, agent)
    if not code and not is_error and agent not in errortext.EXIT_FORMS:
        return None, None, None, None  # an agent that does not say a command exited non-zero
    failed = 1 if code else is_error or 0
    if not failed:
        return 0, None, None, None
    error = errortext.error_of(printed)
    return 1, code, error[0] if error else None, error[1] if error else None


def _follow(
    thread: _Thread, call: _Call, failed: int, error: str | None
) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """A run's outcome in its thread: a failure waits; a pass fixes the open failures of its
    command, and those of another command with the same error. Returns (failure, fix) pairs."""
    if failed:
        thread.open.append(_Open(call.idx, call.n, call.command, error))
        return []
    mine = [o for o in thread.open if o.command == call.command]
    errors = {o.error for o in mine if o.error}
    fixed = [o for o in thread.open if o in mine or o.error in errors]
    thread.open = [o for o in thread.open if o not in fixed]
    return [((o.idx, o.n), (call.idx, call.n)) for o in fixed]
