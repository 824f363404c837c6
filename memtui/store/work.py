"""The work index in the store of record: the SQL, and what makes two paths or two commands
the same. One row per tool call that read, edited, wrote or ran something (`work`, schema 8),
derived from the messages by engine/work_index.py and read by engine/work.py.

A file is kept relative to its session's project (the cwd recorded in the transcript) when it
lies in it, absolute when not. A command is kept as run, and beside it normalised: a `cd` into
the project first, or `2>&1 | tail -20` after, does not make it another command.

Every lookup is one statement on an index, cheap enough for a hook before each tool call:
which earlier sessions of a project changed a file; whether a command failed there before,
with what error, what fixed it and whether it came back; the same for an error.
"""

from __future__ import annotations

import posixpath
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from memtui.store import db

# Each agent's tools whose calls are work, by the names the agent gives them (stored as
# written), and what each does to its file (or runs). The key argument the readers keep for
# each is its file or its command: Codex's apply_patch's is the first file the patch touches,
# its shell tools' the script; Copilot's str_replace_editor's is its path, without the
# sub-command (view, create, str_replace...), so it counts as a read: never a change it may
# not have made. How each agent's shell result gives its exit code is errortext.EXIT_FORMS.
TOOLS: dict[str, dict[str, str]] = {
    "claude-code": {
        "Read": "read",
        "NotebookRead": "read",
        "Edit": "edit",
        "MultiEdit": "edit",
        "NotebookEdit": "edit",
        "Write": "write",
        "Bash": "run",
    },
    "codex": {
        "read_file": "read",
        "apply_patch": "edit",
        "shell": "run",
        "shell_command": "run",
        "local_shell": "run",
        "exec_command": "run",
    },
    "gemini": {
        "read_file": "read",
        "replace": "edit",
        "write_file": "write",
        "run_shell_command": "run",
    },
    "opencode": {
        "read": "read",
        "edit": "edit",
        "multiedit": "edit",
        "patch": "edit",
        "write": "write",
        "bash": "run",
    },
    "copilot": {
        "view": "read",
        "str_replace_editor": "read",
        "str_replace": "edit",
        "insert": "edit",
        "edit": "edit",
        "create": "write",
        "bash": "run",
    },
}
CHANGES = ("edit", "write")
MARK = "work_seq"
WINDOW = 100  # a file's latest calls read for each session asked for
STEPS = 10  # distinct things that ran or changed between a failure and the run that passed
COLUMNS = (
    "session_id, idx, n, message_id, project_id, agent_id, prompt_id, epoch, kind, target, "
    "command, result_id, failed, exit_code, error, error_line, fixed_idx, fixed_n"
)

# `cd somewhere &&` (or `;`) before a command, and what only trims its output after it.
_CD = re.compile(r"\Acd\s+(?:\"[^\"]*\"|'[^']*'|\S+)\s*(?:&&|;)\s*")
_TRIMMED = re.compile(r"\s*(?:2>&1)?\s*(?:\|\s*(?:head|tail)(?:\s+-n)?(?:\s+-?\d+)?)?\s*\Z")


def rel_path(project: str | None, path: str) -> str:
    """`path` as the index keeps it: from the project when it lies in it, else as given
    (absolute, or from wherever it was given from); `..` and `.` resolved."""
    path = posixpath.normpath(path)
    root = (project or "").rstrip("/")
    if project is None or not path.startswith(root + "/"):
        return path
    return path[len(root) + 1 :]


def command_key(command: str) -> str:
    """A command normalised: spaces collapsed, a leading `cd DIR &&` and a trailing
    `2>&1 | tail -N` (or head) dropped."""
    text = " ".join(command.split())
    while m := _CD.match(text):
        text = text[m.end() :]
    return _TRIMMED.sub("", text) if "|" in text or "2>&1" in text else text


def project_path(cwd: str) -> str:
    """A working directory as projects are keyed: no trailing slash (but the root)."""
    return cwd.rstrip("/") or "/"


# -- the derivation's side --------------------------------------------------------------------


def mark(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (MARK,)).fetchone()
    return int(row[0]) if row else 0


def set_mark(conn: sqlite3.Connection, seq: int) -> None:
    conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (MARK, str(seq)))


def clear(conn: sqlite3.Connection) -> None:
    """Nothing derived: the next catch-up reads every message again."""
    conn.execute("DELETE FROM work")
    set_mark(conn, 0)


def drop_from(conn: sqlite3.Connection, session_id: str, idx: int) -> None:
    """A session's work from its message `idx` on, and the fixes found there, undone."""
    conn.execute("DELETE FROM work WHERE session_id = ? AND idx >= ?", (session_id, idx))
    conn.execute(
        "UPDATE work SET fixed_idx = NULL, fixed_n = NULL WHERE session_id = ? AND fixed_idx >= ?",
        (session_id, idx),
    )


def forget(conn: sqlite3.Connection, session_ids: Sequence[str]) -> None:
    for chunk in db.chunks(session_ids):
        conn.execute(f"DELETE FROM work WHERE session_id IN ({db.marks(chunk)})", chunk)


def open_failures(conn: sqlite3.Connection, session_id: str) -> list[tuple]:
    """A session's failed runs no run has passed after yet: (idx, n, agent, command, error)."""
    return conn.execute(
        """SELECT idx, n, agent_id, command, error FROM work
           WHERE session_id = ? AND kind = 'run' AND failed = 1 AND fixed_idx IS NULL
           ORDER BY idx, n""",
        (session_id,),
    ).fetchall()


def put(conn: sqlite3.Connection, rows: Sequence[tuple]) -> None:
    conn.executemany(f"INSERT INTO work ({COLUMNS}) VALUES ({db.marks(rows[0])})", rows)


def set_outcomes(conn: sqlite3.Connection, rows: Sequence[tuple]) -> None:
    """(result id, failed, exit code, error, error line, session, idx, n) each."""
    conn.executemany(
        """UPDATE work SET result_id = ?, failed = ?, exit_code = ?, error = ?, error_line = ?
           WHERE session_id = ? AND idx = ? AND n = ?""",
        rows,
    )


def set_fixed(conn: sqlite3.Connection, rows: Sequence[tuple]) -> None:
    """(fixed idx, fixed n, session, idx, n) each."""
    conn.executemany(
        "UPDATE work SET fixed_idx = ?, fixed_n = ? WHERE session_id = ? AND idx = ? AND n = ?",
        rows,
    )


def orphans(conn: sqlite3.Connection) -> set[int]:
    """Message ids of rows whose message is gone (what doctor calls extra)."""
    return {
        r[0]
        for r in conn.execute(
            """SELECT message_id FROM work w WHERE NOT EXISTS
               (SELECT 1 FROM messages m WHERE m.session_id = w.session_id AND m.idx = w.idx)"""
        )
    }


def underived(conn: sqlite3.Connection, tools: dict[str, dict[str, str]]) -> set[int]:
    """Message ids, up to the mark, holding a call to one of its agent's work tools but no row
    (what doctor calls missing). A call is matched in the stored JSON, `["Read","` and a
    character: one with no argument (no file, no command) makes no row."""
    where, params = [], []
    for agent, names in sorted(tools.items()):
        has = " OR ".join("m.tool_calls GLOB ?" for _ in names)
        where.append(f"(s.agent = ? AND ({has}))")
        params += [agent, *(f'*[[]"{name}","[^"]*' for name in sorted(names))]  # [[] is a [
    return {
        r[0]
        for r in conn.execute(
            f"""SELECT m.id FROM messages m JOIN sessions s ON s.id = m.session_id
                WHERE m.kind = 'assistant' AND m.seq <= ? AND ({" OR ".join(where)})
                  AND NOT EXISTS
                  (SELECT 1 FROM work w WHERE w.session_id = m.session_id AND w.idx = m.idx)""",
            (mark(conn), *params),
        )
    }


# -- lookups ----------------------------------------------------------------------------------


@dataclass(slots=True)
class FileRow:
    """One session's work on a file: its latest call on it gives the date and the request."""

    session_id: str
    title: str
    project: str
    epoch: int
    did: str  # the kinds, comma-joined
    request: str  # the text of the prompt that led to it (cut), "" when none


@dataclass(slots=True)
class FailureRow:
    """A session's last failure of a command (or with an error), and what passed after it."""

    session_id: str
    title: str
    project: str
    epoch: int
    command: str  # as run
    exit_code: int | None
    error: str | None  # normalised
    error_line: str | None  # as written
    steps: str | None  # what ran and changed before the pass: "kind target" a line, repeats in
    passed: str | None  # the run that passed; None: none did in that conversation
    came_back: bool  # the error (or the command) failed again in the project after the pass


_SESSION = """coalesce(s.custom_title, s.summary_title, s.first_prompt, ''), pr.path"""
_REQUEST = "coalesce(substr(q.text, 1, 2000), '')"  # a prompt may be pages long

# Sessions' work on a file, newest first, from its latest {window} calls on it: a file changed
# a thousand times is not read a thousand rows deep. {where} narrows the `work_files` index.
_FILES = f"""
    WITH recent AS (
        SELECT session_id, epoch, kind, prompt_id FROM work
        WHERE target = ? AND kind != 'run' {{where}} ORDER BY epoch DESC LIMIT ?),
    found AS (
        SELECT session_id, max(epoch) AS epoch, prompt_id, group_concat(DISTINCT kind) AS did
        FROM recent GROUP BY session_id ORDER BY epoch DESC LIMIT ?)
    SELECT f.session_id, {_SESSION}, f.epoch, f.did, {_REQUEST}
    FROM found f JOIN sessions s ON s.id = f.session_id JOIN projects pr ON pr.id = s.project_id
    LEFT JOIN messages q ON q.id = f.prompt_id ORDER BY f.epoch DESC"""
# Per session its last failure of a kind ({where}: by command or by error), newest first, with
# what ran and changed up to the run that passed, that run, and whether it failed again later.
_FAILURES = f"""
    WITH found AS (
        SELECT session_id, max(idx) AS idx, n, agent_id, project_id, epoch, target, command,
               exit_code, error, error_line, fixed_idx, fixed_n
        FROM work w WHERE {{where}}
        GROUP BY session_id ORDER BY epoch DESC LIMIT ?),
    fixed AS (
        SELECT f.*, p.target AS passed, p.epoch AS passed_at FROM found f
        LEFT JOIN work p ON p.session_id = f.session_id AND p.idx = f.fixed_idx
                        AND p.n = f.fixed_n)
    SELECT f.session_id, {_SESSION}, f.epoch, f.target, f.exit_code, f.error, f.error_line,
        (SELECT group_concat(step, char(10)) FROM (
            SELECT t.kind || ' ' || t.target AS step FROM work t
            WHERE t.session_id = f.session_id AND t.agent_id IS f.agent_id
              AND (t.idx, t.n) > (f.idx, f.n) AND (t.idx, t.n) < (f.fixed_idx, f.fixed_n)
              AND t.kind != 'read' AND t.failed IS NOT 1
            ORDER BY t.idx, t.n LIMIT {STEPS * 5})),
        f.passed,
        f.passed IS NOT NULL AND CASE WHEN f.error IS NOT NULL
            THEN EXISTS (SELECT 1 FROM work c WHERE c.error = f.error AND c.epoch > f.passed_at
                           AND c.project_id = f.project_id AND c.failed = 1)
            ELSE EXISTS (SELECT 1 FROM work c WHERE c.project_id = f.project_id
                           AND c.command = f.command AND c.epoch > f.passed_at
                           AND c.failed = 1) END
    FROM fixed f JOIN sessions s ON s.id = f.session_id JOIN projects pr ON pr.id = s.project_id
    ORDER BY f.epoch DESC"""

_PROJECT = "(SELECT id FROM projects WHERE path = ?)"


def files(
    conn: sqlite3.Connection,
    target: str,
    project: str | None,
    kinds: Sequence[str],
    exclude: str | None,
    limit: int,
) -> list[FileRow]:
    """Sessions (but `exclude`) whose calls of `kinds` on `target` did not fail, newest
    first, each with its latest such call; in the project at `project`, or in any."""
    where = f"AND kind IN ({db.marks(kinds)}) AND failed IS NOT 1 AND session_id IS NOT ?"
    args: list[object] = [target, *kinds, exclude]
    if project is not None:
        where += f" AND project_id = {_PROJECT}"
        args.append(project_path(project))
    rows = conn.execute(_FILES.format(where=where), [*args, limit * WINDOW, limit])
    return [FileRow(*r) for r in rows]


def targets_ending(conn: sqlite3.Connection, name: str, limit: int) -> list[str]:
    """Files kept under paths ending in `/name` (a file named without its folder)."""
    rows = conn.execute(
        "SELECT DISTINCT target FROM work WHERE kind != 'run' AND target LIKE ? ESCAPE '\\' "
        "LIMIT ?",
        ("%/" + name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_"), limit),
    )
    return [r[0] for r in rows]


def failures_of_command(
    conn: sqlite3.Connection, project: str, command: str, exclude: str | None, limit: int
) -> list[FailureRow]:
    """Sessions of the project at `project` (but `exclude`) where `command` failed."""
    where = f"project_id = {_PROJECT} AND command = ? AND failed = 1 AND session_id IS NOT ?"
    args = (project_path(project), command_key(command), exclude, limit)
    return [_failure(r) for r in conn.execute(_FAILURES.format(where=where), args)]


def failures_of_error(
    conn: sqlite3.Connection, error: str, project: str | None, limit: int, message: bool = False
) -> list[FailureRow]:
    """Sessions where a run failed with `error` (normalised), in one project or any; with
    `message`, an error whose message after its name (`Name: message`) is `error`."""
    if message:
        where, args = "substr(error, -length(?) - 2) = ': ' || ? AND failed = 1", [error, error]
    else:
        where, args = "error = ? AND failed = 1", [error]
    if project is not None:
        where += f" AND project_id = {_PROJECT}"
        args.append(project_path(project))
    return [_failure(r) for r in conn.execute(_FAILURES.format(where=where), [*args, limit])]


def _failure(r: sqlite3.Row) -> FailureRow:
    return FailureRow(*[*r[:10], bool(r[10])])
