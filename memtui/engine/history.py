"""Conversation history: projects, sessions, messages and search over them. Reads only."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path

from memtui.engine import places, render, sessions, validate
from memtui.engine.search import Searcher, SearchResponse
from memtui.engine.types import (
    AGENTS,
    By,
    MessageView,
    Mode,
    Order,
    ProjectInfo,
    RecentSessions,
    SessionInfo,
    SessionPage,
    SessionText,
)
from memtui.store.db import translated

COVERED_SHOWN = 5  # of the projects a cwd above several covers, those a note names


class History:
    """Each call reads on the calling thread's own connection, so none waits for an ingest."""

    def __init__(
        self,
        db_path: Path,
        reader: Callable[[], sqlite3.Connection],
        searcher: Callable[[], Searcher],
    ) -> None:
        self._db_path = db_path
        self._conn = reader
        self._searcher = searcher

    def list_projects(self) -> list[ProjectInfo]:
        with translated(self._db_path):
            return sessions.list_projects(self._conn())

    def list_sessions(
        self,
        project: str | None = None,
        limit: int = 50,
        offset: int = 0,
        *,
        warmups: bool = True,
        agent: str | None = None,
    ) -> list[SessionInfo]:
        """Sessions, the last active first; only those of `project` and `agent` when given;
        without `warmups`, not those that are only a subagent's warm-up."""
        validate.page(limit, offset, max_limit=10_000)
        agent = _agent(agent)
        with translated(self._db_path):
            conn = self._conn()
            path = None
            if project is not None:
                path = (sessions.resolve_project(conn, validate.text("project", project)),)
            return sessions.recent_sessions(conn, path, limit, offset, warmups, agent)

    def project_path(self, project: str) -> str:
        """A project as the archive keeps it, from its path as typed or a part of it only one
        project has (NOT_FOUND, AMBIGUOUS)."""
        with translated(self._db_path):
            return sessions.resolve_project(self._conn(), validate.text("project", project))

    def count_sessions(
        self, project: str | None = None, agent: str | None = None
    ) -> tuple[int, int]:
        """The sessions of `project` (or all; `agent`'s only when given), and how many are
        only a subagent's warm-up."""
        agent = _agent(agent)
        with translated(self._db_path):
            conn = self._conn()
            path = None
            if project is not None:
                path = sessions.resolve_project(conn, validate.text("project", project))
            return sessions.count_sessions(conn, path, agent)

    def agents(self) -> dict[str, int]:
        """The agents whose sessions the archive holds, each with its count, most first."""
        with translated(self._db_path):
            return sessions.agents(self._conn())

    def project_agents(self) -> dict[str, dict[str, int]]:
        """Each project's sessions per agent, most first: {project: {agent: sessions}}."""
        with translated(self._db_path):
            return sessions.project_agents(self._conn())

    def version(self) -> tuple[int, str]:
        """What moves when sessions come or go, whoever wrote them (another memtui's forget or
        ingest): the sessions' count and the store's sequence number. Two small reads."""
        with translated(self._db_path):
            row = (
                self._conn()
                .execute(
                    "SELECT (SELECT count(*) FROM sessions), "
                    "(SELECT value FROM meta WHERE key = 'seq')"
                )
                .fetchone()
            )
            return int(row[0]), str(row[1])

    def recent_sessions(
        self, cwd: str | None = None, limit: int = 5, agent: str | None = None
    ) -> RecentSessions:
        """The last sessions, of the projects at `cwd` when given (as a search keeps to them;
        an unknown one: none, and a note says so), of `agent` when given."""
        validate.page(limit, 0, max_limit=50)
        agent = _agent(agent)
        with translated(self._db_path):
            projects, note = None, None
            if cwd is not None:
                projects, archived = self._projects_of(validate.text("cwd", cwd))
                note = (
                    _covered(projects)
                    if archived
                    else _unarchived(projects[0], "for every project's")
                )
            found = sessions.recent_sessions(self._conn(), projects, limit, agent=agent)
            return RecentSessions(found, note)

    def resolve_session(self, session_id: str) -> str:
        with translated(self._db_path):
            return sessions.resolve(self._conn(), validate.text("session_id", session_id))

    def get_session(
        self,
        session_id: str,
        offset: int = 0,
        limit: int = 10,
        order: Order = "asc",
        search: str | None = None,
    ) -> SessionPage:
        validate.page(limit, offset, max_limit=10_000)
        with translated(self._db_path):
            return sessions.get_session(
                self._conn(),
                validate.text("session_id", session_id),
                offset,
                limit,
                order,
                validate.optional_text("search", search),
            )

    def session_messages(self, session_id: str) -> tuple[SessionInfo, list[MessageView]]:
        """A whole session: its info and every message, uncut."""
        with translated(self._db_path):
            return sessions.all_messages(self._conn(), validate.text("session_id", session_id))

    def session_markdown(self, session_id: str) -> str:
        return render.session_markdown(*self.session_messages(session_id))

    def read_session(
        self, session_id: str, start_line: int | None = None, end_line: int | None = None
    ) -> SessionText:
        """The session (an id or its prefix) as Markdown with line numbers: the range asked,
        or from start_line on, as far as one answer holds."""
        full = self.resolve_session(session_id)
        whole = self.session_markdown(full)
        text, last = render.numbered(whole, start_line, end_line)
        lines = whole.count("\n") + 1
        following = last + 1 if last < lines else None
        return SessionText(full, text, lines, start_line or 1, last, following)

    def search(
        self,
        query: str | list[str],
        mode: Mode | str = "hybrid",
        *,
        project: str | None = None,
        cwd: str | None = None,
        session: str | None = None,
        role: str | None = None,
        after: str | date | datetime | None = None,
        before: str | date | datetime | None = None,
        alternatives: list[str] | None = None,
        limit: int = 10,
        offset: int = 0,
        by: By | str = "message",
        agent: str | None = None,
    ) -> SearchResponse:
        """Search messages, or with `by="session"` conversations ("which conversation was
        it?": each one's best message in `results`, its facts in `sessions`). `query` is one
        query, or 2-5 concepts that must all match; `alternatives` are other phrasings of the
        same question, fused with it; `cwd` is another name for `project` (a working
        directory); `agent` keeps to one agent's conversations. Only matches are results;
        when nothing matches, `nearest` holds the nearest by meaning however far, to be
        shown apart."""
        searcher = self._searcher()
        with translated(self._db_path):
            archived = True  # the cwd, if it is what chose `where`, names archived projects
            where: tuple[str, ...] | None = None
            if project is not None:
                where = (sessions.resolve_project(self._conn(), validate.text("project", project)),)
            elif cwd is not None:
                where, archived = self._projects_of(validate.text("cwd", cwd))
            filt = searcher.filters(where, session, role, after, before, agent)
            response = searcher.search(
                query, mode, filt, limit, offset, alternatives=alternatives, by=by
            )
            if (
                not response.results
                and not self._conn().execute("SELECT 1 FROM messages LIMIT 1").fetchone()
            ):
                response.note = "the archive is empty: run `memtui index` to archive transcripts"
            elif where is not None and not archived:
                response.note = _unarchived(where[0], "to search them all")
            elif filt.after is not None and filt.after == filt.before:  # "that day", typed so
                response.note = (
                    f"after and before are the same moment ({after}): nothing falls between "
                    "them; for one day, give before the day after it"
                )
            elif project is not None and cwd is not None:
                response.note = f"searched project {where[0] if where else project}; cwd left aside"
            elif where is not None and project is None:
                response.note = _covered(where)
            return response

    def _projects_of(self, cwd: str) -> tuple[tuple[str, ...], bool]:
        """The projects a search from the working directory `cwd` keeps to, as `get_context`
        takes them (`places.projects_at`: its project and those under it, a folder above
        several, or the project it is in), and whether there are any: when not, the folder
        itself (a search kept to it finds nothing, and says why)."""
        here = tuple(path for _, path in places.projects_at(self._conn(), cwd) or [])
        return (here, True) if here else ((places.normal(cwd),), False)


def _covered(projects: tuple[str, ...]) -> str | None:
    """Which projects a `cwd` above several took in (one: nothing to say)."""
    if len(projects) < 2:
        return None
    shown = ", ".join(sorted(projects)[:COVERED_SHOWN])
    more = f" and {len(projects) - COVERED_SHOWN} more" if len(projects) > COVERED_SHOWN else ""
    return f"cwd covers {len(projects)} projects: {shown}{more}"


def _unarchived(folder: str, instead: str) -> str:
    """Why a `cwd` found nothing: no archived project is at, under or above it."""
    return f"no conversation from {folder} is archived: leave out cwd {instead}"


def _agent(agent: str | None) -> str | None:
    return None if agent is None else validate.choice("agent", agent, AGENTS)
