"""Sessions and projects read from the store of record."""

from __future__ import annotations

import json
import os
import sqlite3

from memtui.engine.places import SHORT, literal
from memtui.engine.quoting import short_title
from memtui.engine.types import (
    ORDERS,
    MessageView,
    ProjectInfo,
    SessionInfo,
    SessionPage,
    ToolCallView,
)
from memtui.errors import Ambiguous, InvalidArgument, NotFound
from memtui.ingest.titles import prompt_title
from memtui.store import db

CUT = 500  # characters of a message shown when a page holds more than a few
# Which title rules the stored first prompts follow: a store titled under older rules is
# titled again once (`retitle`), so an existing archive gets what a new one would.
# 3: a title is cut from the masked prompt, never splitting a marker (titles cut before
# masking kept the first part of a secret the cut split).
TITLES_VERSION = "3"
# A session of nothing but a subagent's "Warmup": no title, no message of the main thread.
_WARMUP_ONLY = """(s.custom_title IS NULL AND s.summary_title IS NULL AND s.first_prompt IS NULL
    AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id AND m.is_sidechain = 0))"""

_TITLE = "coalesce(s.custom_title, s.summary_title, s.first_prompt, '')"
_SESSION_SQL = f"""
    SELECT s.id, p.path, {_TITLE},
           s.first_ts, s.last_ts, s.message_count, s.git_branch, s.archived, s.agent
    FROM sessions s JOIN projects p ON p.id = s.project_id
"""

_MESSAGE_SQL = """
    SELECT session_id, idx, uuid, role, kind, ts, text, thinking, tool_calls, tool_output,
           is_sidechain, agent_id, line
    FROM messages
"""


def _session(row: sqlite3.Row) -> SessionInfo:
    title = short_title(str(row[2]))
    return SessionInfo(row[0], row[1], title, row[3], row[4], row[5], row[6], bool(row[7]), row[8])


def message_view(row: sqlite3.Row, cut: int | None = None) -> MessageView:
    calls = [ToolCallView(name, arg) for name, arg in json.loads(row[8])]
    text, output = row[6], row[9]
    if cut is not None:
        text, output = _cut(text, cut), _cut(output, cut)
    return MessageView(
        session_id=row[0],
        message_index=row[1],
        uuid=row[2],
        role=row[3],
        kind=row[4],
        timestamp=row[5],
        text=text,
        thinking=row[7] if cut is None else _cut(row[7], cut),
        tool_calls=calls,
        tool_output=output,
        is_sidechain=bool(row[10]),
        agent_id=row[11],
        line=row[12],
    )


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def resolve(conn: sqlite3.Connection, session_id: str) -> str:
    """A full session id, from the id or a unique prefix of it, or the end of one (a short id
    of a session whose id begins with the time: places.short_id)."""
    session_id = session_id.strip()
    if not session_id:
        raise InvalidArgument("session_id is empty", "give a session id or a unique prefix of one")
    if len(session_id) > 64:
        raise NotFound(f"no session matches {session_id[:40]!r}…", "a session id has 36 characters")
    if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone():
        return session_id
    rows = conn.execute(
        "SELECT id FROM sessions WHERE id LIKE ? ESCAPE '\\' ORDER BY id LIMIT 21",
        (literal(session_id) + "%",),
    ).fetchall()
    if not rows and len(session_id) >= SHORT:
        rows = conn.execute(
            "SELECT id FROM sessions WHERE id LIKE ? ESCAPE '\\' ORDER BY id LIMIT 21",
            ("%" + literal(session_id),),
        ).fetchall()
    if not rows:
        raise NotFound(
            f"no session matches {session_id!r}",
            "memtui sessions lists them; memtui index archives new ones",
        )
    if len(rows) > 1:
        raise Ambiguous("session prefix", session_id, [r[0] for r in rows])
    return rows[0][0]


def infos(conn: sqlite3.Connection, ids: set[str]) -> dict[str, SessionInfo]:
    """The sessions of `ids` that exist, by id: one query."""
    found: dict[str, SessionInfo] = {}
    for part in db.chunks(sorted(ids)):
        for row in conn.execute(_SESSION_SQL + f" WHERE s.id IN ({db.marks(part)})", part):
            found[row[0]] = _session(row)
    return found


def titles(conn: sqlite3.Connection, ids: set[str]) -> dict[str, str]:
    """The title of each session of `ids` that exists, as stored (`infos` gives it
    shortened): a search by conversation weighs the titles of all it found, and needs the
    rest for a page only."""
    found: dict[str, str] = {}
    for part in db.chunks(sorted(ids)):
        sql = f"SELECT s.id, {_TITLE} FROM sessions s WHERE s.id IN ({db.marks(part)})"
        found.update(conn.execute(sql, part))
    return found


def session_info(conn: sqlite3.Connection, session_id: str) -> SessionInfo:
    full = resolve(conn, session_id)
    return _session(conn.execute(_SESSION_SQL + " WHERE s.id = ?", (full,)).fetchone())


def get_session(
    conn: sqlite3.Connection,
    session_id: str,
    offset: int = 0,
    limit: int = 10,
    order: str = "asc",
    search: str | None = None,
) -> SessionPage:
    if order not in ORDERS:
        raise InvalidArgument(f"order must be 'asc' or 'desc', not {order!r}")
    info = session_info(conn, session_id)
    where, args = "session_id = ?", [info.session_id]
    if search:
        where += " AND (instr(lower(text), ?) OR instr(lower(tool_output), ?))"
        args += [search.lower(), search.lower()]
    total = conn.execute(f"SELECT count(*) FROM messages WHERE {where}", args).fetchone()[0]
    rows = conn.execute(
        f"{_MESSAGE_SQL} WHERE {where} ORDER BY idx {order} LIMIT ? OFFSET ?",
        [*args, limit, offset],
    ).fetchall()
    cut = CUT if limit > 5 else None
    return SessionPage(
        session=info,
        messages=[message_view(r, cut) for r in rows],
        offset=offset,
        limit=limit,
        total=total,
        has_more=offset + len(rows) < total,
    )


def all_messages(
    conn: sqlite3.Connection, session_id: str
) -> tuple[SessionInfo, list[MessageView]]:
    info = session_info(conn, session_id)
    rows = conn.execute(f"{_MESSAGE_SQL} WHERE session_id = ? ORDER BY idx", (info.session_id,))
    return info, in_time_order([message_view(r) for r in rows])


def in_time_order(messages: list[MessageView]) -> list[MessageView]:
    """One timeline: a subagent's messages (stored after the main thread's, file by file)
    where they happened, between the call that started them and its result. A message
    without a time keeps the place of the one before it."""
    if not any(m.is_sidechain for m in messages):
        return messages
    keys: list[tuple[str, int]] = []
    last = ""
    for m in messages:
        last = m.timestamp or last
        keys.append((last, m.message_index))
    order = sorted(range(len(messages)), key=keys.__getitem__)
    return [messages[i] for i in order]


def recent_sessions(
    conn: sqlite3.Connection,
    projects: tuple[str, ...] | None = None,
    limit: int = 5,
    offset: int = 0,
    warmups: bool = True,
    agent: str | None = None,
) -> list[SessionInfo]:
    """Sessions, the last active first; only `projects`' and `agent`'s when given; without
    sessions of nothing but a subagent's warm-up unless `warmups` (the caller checks the
    page's bounds)."""
    where, args = _where(projects, warmups, agent)
    rows = conn.execute(
        _SESSION_SQL + where + " ORDER BY s.last_epoch DESC LIMIT ? OFFSET ?",
        [*args, limit, offset],
    )
    return [_session(r) for r in rows]


def _where(
    projects: tuple[str, ...] | None, warmups: bool, agent: str | None
) -> tuple[str, list[str]]:
    parts: list[str] = []
    args: list[str] = []
    if projects is not None:
        parts.append(f"p.path IN ({db.marks(projects)})")
        args.extend(projects)
    if agent is not None:
        parts.append("s.agent = ?")
        args.append(agent)
    if not warmups:
        parts.append("NOT " + _WARMUP_ONLY)
    return (" WHERE " + " AND ".join(parts) if parts else ""), args


def count_sessions(
    conn: sqlite3.Connection, project: str | None = None, agent: str | None = None
) -> tuple[int, int]:
    """How many sessions `project` (or the archive) has, `agent`'s only when given, and how
    many of them are only a subagent's warm-up."""
    where, args = _where(None if project is None else (project,), True, agent)
    row = conn.execute(
        f"""SELECT count(*), coalesce(sum({_WARMUP_ONLY}), 0)
            FROM sessions s JOIN projects p ON p.id = s.project_id{where}""",
        args,
    ).fetchone()
    return row[0], row[1]


def retitle(conn: sqlite3.Connection) -> int:
    """Title every session again from its prompts (the main thread's first, a subagent's
    when it has none) if the store was titled under older rules; how many changed.
    The writer calls it, on its own connection, under the ingest lock."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'titles'").fetchone()
    if row is not None and row[0] == TITLES_VERSION:
        return 0
    titles: dict[str, str] = {}
    rows = conn.execute(
        "SELECT session_id, text FROM messages WHERE kind = 'prompt' "
        "ORDER BY session_id, is_sidechain, idx"
    )
    for session_id, text in rows:
        if session_id not in titles and (title := prompt_title(text)):
            titles[session_id] = title
    old = dict(conn.execute("SELECT id, first_prompt FROM sessions").fetchall())
    changed = [(titles.get(sid), sid) for sid, was in old.items() if titles.get(sid) != was]
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.executemany("UPDATE sessions SET first_prompt = ? WHERE id = ?", changed)
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('titles', ?)", (TITLES_VERSION,))
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return len(changed)


def resolve_project(conn: sqlite3.Connection, project: str) -> str:
    """A project as stored, from its path as typed (a trailing slash or `~` is fine), or
    from a part of it that only one project has ("shop-api")."""
    wanted = project.strip()
    if not wanted:
        raise InvalidArgument("project is empty", "give a project's working directory")
    if wanted.startswith("~"):
        wanted = os.path.expanduser(wanted)
    if len(wanted) > 1:
        wanted = wanted.rstrip("/")
    if conn.execute("SELECT 1 FROM projects WHERE path = ?", (wanted,)).fetchone():
        return wanted
    # A part of the path names it when only one project has that part: "shop-api".
    rows = conn.execute(
        "SELECT path FROM projects WHERE path LIKE ? ESCAPE '\\' ORDER BY path LIMIT 21",
        (f"%{literal(wanted)}%",),
    ).fetchall()
    ending = [r[0] for r in rows if r[0].endswith("/" + wanted)]
    if len(rows) == 1 or len(ending) == 1:
        return ending[0] if len(ending) == 1 else rows[0][0]
    if rows:
        raise Ambiguous("project", project, [r[0] for r in rows])
    raise NotFound(f"no project {project!r} in the archive", "memtui projects lists them")


def agents(conn: sqlite3.Connection) -> dict[str, int]:
    """The agents whose sessions the archive holds, each with its count, most first."""
    rows = conn.execute(
        "SELECT agent, count(*) FROM sessions GROUP BY agent ORDER BY count(*) DESC, agent"
    )
    return dict(rows.fetchall())


def project_agents(conn: sqlite3.Connection) -> dict[str, dict[str, int]]:
    """Each project's sessions per agent, most first (one GROUP BY, not one query a project)."""
    rows = conn.execute(
        """SELECT p.path, s.agent, count(*) FROM projects p JOIN sessions s ON s.project_id = p.id
           GROUP BY p.id, s.agent ORDER BY count(*) DESC, s.agent"""
    )
    counts: dict[str, dict[str, int]] = {}
    for path, agent, count in rows:
        counts.setdefault(path, {})[agent] = count
    return counts


def list_projects(conn: sqlite3.Connection) -> list[ProjectInfo]:
    rows = conn.execute(
        """SELECT p.path, count(s.id), coalesce(sum(s.message_count), 0), max(s.last_ts)
           FROM projects p JOIN sessions s ON s.project_id = p.id
           GROUP BY p.id ORDER BY max(s.last_epoch) DESC"""
    )
    return [ProjectInfo(r[0], r[1], r[2], r[3]) for r in rows]
