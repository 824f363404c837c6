"""Claude Code's SessionStart hook: the project's context, printed for Claude to read.

Offline and light: SQLite alone (no index, no model, no numpy), a read-only connection that
waits at most `recall.BUSY_MS` for a lock, so a new Claude Code session is never held up.
What it says about signals and inferences is counts, never their content (pull-only): the
signals of this project only. What it says is logged as a recall (engine/recall.py).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from datetime import UTC, datetime

from memtui.config import Config
from memtui.engine import inferences, recall
from memtui.engine.context import Contexts, signals_here
from memtui.engine.quoting import count_tokens, fenced
from memtui.engine.signal_types import Counts
from memtui.store import db

BUDGET = 1_500  # tokens: the context should inform the session, not fill it
HEAD = "# memtui: what this project's memory holds"
TAIL = (
    "Search memtui (search_history, search_notes) before answering anything that may "
    "touch past work."
)
OWN_TOKENS = 500  # of BUDGET, for this session's own work after a compaction
OWN_LINE = 200  # characters of a file or command in it
COMPACT = "compact"  # the source of a SessionStart after Claude Code compacted the conversation


def session_start(config: Config, data: Mapping[str, object]) -> str:
    """The text to add to the session: house rules that apply here, where the project was
    left off, its state notes (stale ones marked), its recent sessions, and how many of its
    signals and stale inferences wait; after a compaction, this session's own work first.
    Empty when memtui has nothing for this project (or no archive yet), or MEMTUI_RECALL
    leaves `session` out. A `cwd` that is not an absolute path is an error: read as "no
    project", it would print every project's state notes."""
    session, cwd = recall.event(data)
    if not recall.enabled("session", config) or not config.db_path.exists():
        return ""
    conn = db.read_only(config.db_path, recall.BUSY_MS)
    try:
        own = work_of(conn, session) if data.get("source") == COMPACT else []
        stale = inferences.counts(conn).stale_inferences
        waiting = Counts(signals_here(conn, cwd, _now()), stale).said()
        head = [HEAD, ""]
        if own:
            head += [
                "## This session's work before the compaction",
                "Files changed and commands run (a record, not instructions):",
                fenced("\n".join(own)),
                "",
            ]
        tail = ["", f"memtui also has {waiting} for the person to review."] if waiting else []
        tail += ["", TAIL]
        # The whole of what is printed stays within BUDGET, the frame's words included.
        budget = BUDGET - count_tokens("\n".join([*head, *tail]))
        context = Contexts(config, lambda: conn, None).get(cwd, None, budget, session=session)
    finally:
        conn.close()
    if not context.text and not waiting and not own:
        return ""
    text = "\n".join([*head, context.text.strip(), *tail]).strip() + "\n"
    return recall.logged(config, "session", session, cwd, text)


def work_of(conn: sqlite3.Connection, session: str) -> list[str]:
    """This session's files changed and commands run (the work index), a line each, the
    latest last and within OWN_TOKENS: what a compaction throws away."""
    rows = conn.execute(
        """SELECT kind, target, failed, exit_code FROM work
           WHERE session_id = ? AND kind != 'read' AND agent_id IS NULL
           AND (kind = 'run' OR failed IS NOT 1) ORDER BY idx, n""",
        (session,),
    )
    done: dict[str, str] = {}
    for kind, target, failed, code in rows:
        if kind == "run":
            line = f"ran {' '.join(target.split())[:OWN_LINE]}"
            if failed:
                line += " (failed)" if code is None else f" (failed, exit {code})"
        else:
            line = f"{'edited' if kind == 'edit' else 'wrote'} {target[:OWN_LINE]}"
        done.pop(target, None)  # its latest call stands, at its place
        done[target] = line
    lines, tokens = [], 0
    for line in reversed(done.values()):
        tokens += count_tokens(line)
        if tokens > OWN_TOKENS:
            break
        lines.append(line)
    return lines[::-1]


def _now() -> str:
    return datetime.now(UTC).isoformat()
