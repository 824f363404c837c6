"""Projects by folder (the archived project a working directory is in, the projects under a
folder) and sessions by a short id. SQLite alone: the hooks use them.
"""

from __future__ import annotations

import posixpath
import sqlite3


def normal(cwd: str) -> str:
    """A working directory as one path: `.`, `..` and repeated slashes resolved (POSIX keeps
    a leading `//`; nothing here means anything by it)."""
    return "/" + posixpath.normpath(cwd).lstrip("/")


def enclosing_project(conn: sqlite3.Connection, cwd: str) -> str | None:
    """The archived project a working directory is in (the deepest that holds it: Claude
    Code started in `src/` is its project's; `..` and `.` resolved), or None."""
    row = conn.execute(
        """SELECT path FROM projects WHERE substr(:cwd || '/', 1, length(rtrim(path, '/')) + 1)
           = rtrim(path, '/') || '/' ORDER BY length(path) DESC LIMIT 1""",
        {"cwd": normal(cwd)},
    ).fetchone()
    return row[0] if row else None


def projects_at(conn: sqlite3.Connection, cwd: str | None) -> list[tuple[int, str]] | None:
    """The project of `cwd` and the projects under it (`/`: every one); in a project's
    subfolder, that project (the deepest that holds it); as (id, path). None: every project."""
    if cwd is None:
        return None
    path = normal(cwd)
    under = path.rstrip("/") + "/"  # compared as bytes: LIKE would ignore ASCII case
    rows = conn.execute(
        "SELECT id, path FROM projects WHERE path = ? OR substr(path, 1, length(?)) = ?",
        (path, under, under),
    ).fetchall()
    if not rows and (known := enclosing_project(conn, path)) is not None:
        rows = conn.execute("SELECT id, path FROM projects WHERE path = ?", (known,)).fetchall()
    return [(r[0], r[1]) for r in rows]


def literal(text: str) -> str:
    """`text` for a LIKE pattern (ESCAPE '\\'), its wildcards taken literally."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


SHORT = 8  # characters of a short session id


def short_id(session_id: str) -> str:
    """The 8 characters that tell a session apart: the head of a random id (a UUID v4), the
    tail of one that begins with the time (Codex's UUID v7, OpenCode's `ses_…`), whose heads
    sessions begun minutes apart share. `sessions.resolve` takes either."""
    time_first = session_id.startswith("ses_") or (
        len(session_id) == 36 and session_id[8] == "-" and session_id[14] == "7"
    )
    return session_id[-SHORT:] if time_first else session_id[:SHORT]
