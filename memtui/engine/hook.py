"""Claude Code's SessionStart hook: the project's context, printed for Claude to read.

Offline and light: SQLite alone (no index, no model, no numpy), a read-only connection that
waits at most `inferences.BUSY_MS` for a lock, so a new Claude Code session is never held
up. What it says about signals and inferences is counts, never their content (pull-only).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from memtui.config import Config
from memtui.engine import inferences
from memtui.engine.context import Contexts
from memtui.errors import InvalidArgument
from memtui.store import db

MAX_INPUT = 1_000_000  # characters of stdin read: Claude Code sends a few hundred
BUDGET = 1_500  # tokens: the context should inform the session, not fill it


def payload(raw: str) -> Mapping[str, object]:
    """The hook's JSON from stdin: `session_id`, `cwd`, `source` (startup, resume, clear…)."""
    try:
        data = json.loads(raw)
    except ValueError:
        raise InvalidArgument("the hook's input is not JSON") from None
    if not isinstance(data, dict):
        raise InvalidArgument("the hook's input is not a JSON object")
    return data


def session_start(config: Config, data: Mapping[str, object]) -> str:
    """The text to add to the session: house rules, state notes and recent sessions of the
    project at `cwd`, and how many signals and stale inferences wait. Empty when memtui has
    nothing for this project (or no archive yet). A `cwd` that is not an absolute path is an
    error: read as "no project", it would print every project's state notes."""
    cwd = data.get("cwd")
    if not isinstance(cwd, str) or not cwd.startswith("/"):
        raise InvalidArgument(f"the hook's cwd is not an absolute path: {cwd!r:.200}")
    if not config.db_path.exists():
        return ""
    conn = db.read_only(config.db_path, inferences.BUSY_MS)
    try:
        context = Contexts(config, lambda: conn, None).get(cwd, None, BUDGET)
        counts = inferences.counts(conn)
    finally:
        conn.close()
    waiting = counts.said()
    if not context.text and not waiting:
        return ""
    parts = ["# memtui: what this project's memory holds", "", context.text.strip()]
    if waiting:
        parts += ["", f"memtui also has {waiting} for the person to review."]
    parts += [
        "",
        "Search memtui (search_history, search_notes) before answering anything that may "
        "touch past work.",
    ]
    return "\n".join(parts).strip() + "\n"
