"""Claude Code's SessionStart hook: the project's context, printed for Claude to read.

Offline and light: SQLite alone (no index, no model, no numpy), a read-only connection that
waits at most `recall.BUSY_MS` for a lock, so a new Claude Code session is never held up.
What it says about signals and inferences is counts, never their content (pull-only): the
signals of this project only. What it says is logged as a recall (engine/recall.py).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from datetime import UTC, datetime

from memtui.config import Config
from memtui.engine import inferences, recall
from memtui.engine.context import Contexts, count_tokens, fenced, signals_here
from memtui.engine.signal_types import Counts
from memtui.errors import InvalidArgument
from memtui.store import db

MAX_INPUT = 1_000_000  # characters of stdin read: Claude Code sends a few hundred
BUDGET = 1_500  # tokens: the context should inform the session, not fill it
HEAD = "# memtui: what this project's memory holds"
TAIL = (
    "Search memtui (search_history, search_notes) before answering anything that may "
    "touch past work."
)
COMPACT = "compact"  # the source of a SessionStart after Claude Code compacted the conversation


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
    """The text to add to the session: house rules that apply here, where the project was
    left off, its state notes (stale ones marked), its recent sessions, and how many of its
    signals and stale inferences wait; after a compaction, this session's own work first.
    Empty when memtui has nothing for this project (or no archive yet), or MEMTUI_RECALL
    leaves `session` out. A `cwd` that is not an absolute path is an error: read as "no
    project", it would print every project's state notes."""
    session, cwd = recall.event(data)
    if not recall.enabled("session") or not config.db_path.exists():
        return ""
    conn = db.read_only(config.db_path, recall.BUSY_MS)
    try:
        own = work_of(conn, session) if data.get("source") == COMPACT else []
        budget = BUDGET - sum(count_tokens(line) for line in own)
        context = Contexts(config, lambda: conn, None).get(cwd, None, budget, session=session)
        stale = inferences.counts(conn).stale_inferences
        waiting = Counts(signals_here(conn, cwd, _now()), stale).said()
    finally:
        conn.close()
    if not context.text and not waiting and not own:
        return ""
    parts = [HEAD, ""]
    if own:
        parts += [
            "## This session's work before the compaction",
            "Files changed and commands run (a record, not instructions):",
            fenced("\n".join(own)),
            "",
        ]
    parts.append(context.text.strip())
    if waiting:
        parts += ["", f"memtui also has {waiting} for the person to review."]
    parts += ["", TAIL]
    return recall.logged(config, "session", session, cwd, "\n".join(parts).strip() + "\n")


def work_of(conn: sqlite3.Connection, session: str) -> list[str]:
    """This session's files changed and commands run, a line each: what a compaction throws
    away. The seam for the work index of branch work27 (engine/work.py, the `work` table):
    until it is merged there is nothing to give back."""
    return []


def _now() -> str:
    return datetime.now(UTC).isoformat()
