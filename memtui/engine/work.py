"""The work sessions did: the `memory.work` service, and the lookups the tool hook makes.

`files(path)`: the conversations that read or changed a file, newest first, each with the
request that led to it. `fixes(error)`: what was run or changed after an error before, in
which conversation, and whether it came back. `changed_before` and `failed_before` are what a
hook says before an edit or a command: plain functions over a (read-only) connection, as light
to import as the SessionStart hook (SQLite and `re`: no numpy, no index, no model).
"""

from __future__ import annotations

import posixpath
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from memtui.engine import errortext
from memtui.engine.places import enclosing_project, short_id
from memtui.errors import InvalidArgument
from memtui.ingest.titles import prompt_title
from memtui.store import work as store

MAX_PATH = 1_000
MAX_ERROR = 50_000
REQUEST_CHARS = 120  # of the request, in a line
KIND_ORDER = ("read", "edit", "write")


@dataclass(slots=True)
class FileWork:
    """One conversation's work on a file."""

    session_id: str
    title: str
    project: str
    date: str  # ISO 8601 UTC: its latest call on the file
    did: list[str]  # read, edit, write: what it did to the file
    request: str  # the person's request that led to it

    def line(self) -> str:
        asked = self.request and self.request != self.title
        ask = f": asked {_cut(self.request)!r}" if asked else ""
        return f"{self.date[:10]} {'/'.join(self.did)} in {_name(self)}{ask}"


@dataclass(slots=True)
class FileHistory:
    path: str  # as looked up: from the project when a cwd was given
    conversations: list[FileWork] = field(default_factory=list)


@dataclass(slots=True)
class Fix:
    """A conversation where a command failed with an error, and what came after it."""

    session_id: str
    title: str
    project: str
    date: str  # ISO 8601 UTC: when it failed
    command: str  # as run
    exit_code: int | None
    error: str | None  # normalised as recurring_error normalises it
    error_line: str | None  # the line that said it
    fixed: bool  # a run passed after it in that conversation
    steps: list[str]  # what ran and changed in between: "edit src/a.py", "run make"
    passed: str | None  # the run that passed
    came_back: bool  # it failed again in the project after that

    def line(self) -> str:
        code = f" (exit {self.exit_code})" if self.exit_code is not None else ""
        said = f": {self.error_line}" if self.error_line else ""
        text = f"{self.date[:10]} `{self.command}` failed{code} in {_name(self)}{said}"
        if not self.fixed:
            return text + "; no run passed after it there"
        then = f"; then {', '.join(self.steps)}" if self.steps else ""
        back = " (the error came back later)" if self.came_back else ""
        return f"{text}{then}; `{self.passed}` passed{back}"


@dataclass(slots=True)
class FixHistory:
    error: str  # the error looked up, normalised
    fixes: list[Fix] = field(default_factory=list)


def changed_before(
    conn: sqlite3.Connection,
    project: str,
    path: str,
    session: str | None = None,
    limit: int = 3,
) -> list[FileWork]:
    """The conversations of `project` (but `session`) that edited or wrote `path`, newest
    first: what the tool hook says before a file is changed."""
    target = store.rel_path(project, path)
    return [_file(r) for r in store.files(conn, target, project, store.CHANGES, session, limit)]


def failed_before(
    conn: sqlite3.Connection,
    project: str,
    command: str,
    session: str | None = None,
    limit: int = 2,
) -> list[Fix]:
    """The conversations of `project` (but `session`) where `command` (normalised) failed,
    newest first, each with its error and what passed after: what the tool hook says before
    a command is run."""
    return [_fix(r) for r in store.failures_of_command(conn, project, command, session, limit)]


class Work:
    """What sessions did, for the front ends (reads only)."""

    def __init__(self, reader: Callable[[], sqlite3.Connection]) -> None:
        self._conn = reader

    def files(self, path: str, cwd: str | None = None, limit: int = 10) -> FileHistory:
        """The conversations that read or changed `path`, newest first. With `cwd`, in that
        project (a relative path is from it); without, an absolute path in the project that
        holds it, a relative one in any. A name no conversation used as given is looked up
        as the end of a path (`jwt.py` finds `src/auth/jwt.py`)."""
        _check(path, "path", MAX_PATH)
        _check_limit(limit)
        if cwd is not None and not (isinstance(cwd, str) and cwd.startswith("/")):
            raise InvalidArgument("cwd must be an absolute path", "give the project's directory")
        conn = self._conn()
        kinds = KIND_ORDER
        for project, target in self._places(conn, path.strip(), cwd):
            rows = store.files(conn, target, project, kinds, None, limit)
            if not rows and "/" not in target.strip("/") and not target.startswith("/"):
                for longer in store.targets_ending(conn, target, limit):
                    rows += store.files(conn, longer, project, kinds, None, limit)
                rows.sort(key=lambda r: -r.epoch)
            if rows:
                return FileHistory(target, [_file(r) for r in rows[:limit]])
        return FileHistory(store.rel_path(cwd, path.strip()))

    def fixes(self, error: str, cwd: str | None = None, limit: int = 5) -> FixHistory:
        """What was run or changed after `error` (any text that holds it: a traceback, a line
        of output) in earlier conversations, newest first, and whether it came back."""
        _check(error, "error", MAX_ERROR)
        _check_limit(limit)
        if cwd is not None and not (isinstance(cwd, str) and cwd.startswith("/")):
            raise InvalidArgument("cwd must be an absolute path", "give the project's directory")
        found = errortext.error_of(error)
        if found is None:
            raise InvalidArgument("error holds no text", "paste the error's line")
        conn = self._conn()
        project = None if cwd is None else enclosing_project(conn, cwd) or cwd
        rows = store.failures_of_error(conn, found[0], project, limit)
        if not rows and ": " not in found[0]:  # the message alone, as copied from a log line
            rows = store.failures_of_error(conn, found[0], project, limit, message=True)
        return FixHistory(found[0], [_fix(r) for r in rows])

    @staticmethod
    def _places(conn: sqlite3.Connection, path: str, cwd: str | None) -> list[tuple]:
        """(project or None for any, target) to look `path` up as, most likely first."""
        if cwd is not None:
            project = enclosing_project(conn, cwd) or cwd
            return [(project, store.rel_path(project, posixpath.join(cwd, path)))]
        if not path.startswith("/"):
            return [(None, store.rel_path(None, path))]
        holding = [
            (p, store.rel_path(p, path))
            for (p,) in conn.execute("SELECT path FROM projects ORDER BY length(path) DESC")
            if path.startswith(p.rstrip("/") + "/")
        ]
        return [*holding, (None, store.rel_path(None, path))]


def _file(r: store.FileRow) -> FileWork:
    did = set(r.did.split(","))
    return FileWork(
        r.session_id,
        r.title,
        r.project,
        _date(r.epoch),
        [k for k in KIND_ORDER if k in did],
        _request(r.request),
    )


def _fix(r: store.FailureRow) -> Fix:
    steps = list(dict.fromkeys((r.steps or "").splitlines()))[: store.STEPS]
    return Fix(
        r.session_id,
        r.title,
        r.project,
        _date(r.epoch),
        r.command,
        r.exit_code,
        r.error,
        r.error_line,
        r.passed is not None,
        steps,
        r.passed,
        r.came_back,
    )


def _request(text: str) -> str:
    """The person's words of a prompt (no markup Claude Code or an editor added)."""
    return prompt_title(text) or ""


def _date(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")


def _cut(text: str) -> str:
    return text if len(text) <= REQUEST_CHARS else text[: REQUEST_CHARS - 1] + "…"


def _name(found: FileWork | Fix) -> str:
    title = _cut(found.title) if found.title else "an untitled conversation"
    return f"{title!r} ({short_id(found.session_id)})"


def _check(text: object, name: str, most: int) -> None:
    if not isinstance(text, str) or not text.strip():
        raise InvalidArgument(f"{name} must be a non-empty string")
    if len(text) > most:
        raise InvalidArgument(f"{name} is longer than {most:,} characters")


def _check_limit(limit: object) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 50:
        raise InvalidArgument("limit must be a whole number from 1 to 50")
