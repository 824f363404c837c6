"""Projects by folder (the archived project a working directory is in, the projects under a
folder) and sessions by a short id. SQLite alone: the hooks use them.
"""

from __future__ import annotations

import os
import posixpath
import sqlite3
import unicodedata


def normal(cwd: str) -> str:
    """A working directory as one path: `.`, `..` and repeated slashes resolved (POSIX keeps
    a leading `//`; nothing here means anything by it)."""
    return "/" + posixpath.normpath(cwd).lstrip("/")


def spellings(cwd: str) -> list[str]:
    """The ways one folder may be written, the given first: Unicode's composed and decomposed
    forms (macOS reports a folder decomposed, most tools write it composed), and the real
    path of a symlinked one (a shell's `$PWD` keeps the link; Claude Code records the target)."""
    path = normal(cwd)
    forms = [path, unicodedata.normalize("NFC", path), unicodedata.normalize("NFD", path)]
    if "\0" not in path:  # no file system path holds one (realpath would raise)
        forms.append(os.path.realpath(path))
    return list(dict.fromkeys(forms))


def enclosing_project(conn: sqlite3.Connection, cwd: str) -> str | None:
    """The archived project a working directory is in (the deepest that holds it: Claude
    Code started in `src/` is its project's; `..` and `.` resolved), or None. Of its
    spellings, the one whose project is the fewest folders above it: through a symlink in
    a home folder, the home folder holds the link's spelling, the project its target's."""
    return _enclosing(conn, spellings(cwd))


def _enclosing(conn: sqlite3.Connection, forms: list[str]) -> str | None:
    found: list[tuple[int, str]] = []
    for path in forms:
        row = conn.execute(
            """SELECT path FROM projects WHERE substr(:cwd || '/', 1, length(rtrim(path, '/')) + 1)
               = rtrim(path, '/') || '/' ORDER BY length(path) DESC LIMIT 1""",
            {"cwd": path},
        ).fetchone()
        if row:
            found.append((_depth(path) - _depth(row[0]), str(row[0])))
    return min(found, key=lambda f: f[0])[1] if found else None


def _depth(path: str) -> int:
    return len([part for part in path.split("/") if part])


def projects_at(conn: sqlite3.Connection, cwd: str | None) -> list[tuple[int, str]] | None:
    """The project of `cwd` and the projects under it (`/`: every one); in a project's
    subfolder, that project (the deepest that holds it); as (id, path). None: every project.
    The first of the folder's `spellings` that names any wins."""
    if cwd is None:
        return None
    forms = spellings(cwd)
    for path in forms:
        under = path.rstrip("/") + "/"  # compared as bytes: LIKE would ignore ASCII case
        rows = conn.execute(
            "SELECT id, path FROM projects WHERE path = ? OR substr(path, 1, length(?)) = ?",
            (path, under, under),
        ).fetchall()
        if rows:
            return [(r[0], r[1]) for r in rows]
    if (known := _enclosing(conn, forms)) is not None:
        rows = conn.execute("SELECT id, path FROM projects WHERE path = ?", (known,)).fetchall()
        return [(r[0], r[1]) for r in rows]
    return []


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
