"""Writes OpenCode sessions as OpenCode does: `opencode.db` and the older `storage/` JSON tree.

Written from OpenCode's own source (github.com/sst/opencode, now anomalyco/opencode):
packages/opencode/src/session/session.sql.ts (the session, message and part tables),
storage/schema.sql.ts (time_created, time_updated: milliseconds, time_updated set on every
write, upserts included), session/message-v2.ts (the message and part shapes: text, reasoning,
tool with its pending/running/completed/error state, file, step-start/finish, compaction,
subtask; the assistant's `summary` and `time.completed`), storage/json-migration.ts (the tree
`storage/{session/<project>,message/<session>,part/<message>}/<id>.json` and how it is copied
into the database, ids from file names), storage/db.ts (WAL, opencode.db) and session/index.ts
(default titles). No real session is copied: every text here is made up.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

T0 = 1_750_000_000_000  # 2025-06-15, in milliseconds: well before any test runs

# The columns OpenCode's tables have (session.sql.ts), enough of them for a reader.
SCHEMA = """
CREATE TABLE IF NOT EXISTS project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL,
  workspace_id TEXT, parent_id TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL, path TEXT,
  title TEXT NOT NULL, version TEXT NOT NULL, share_url TEXT, cost REAL NOT NULL DEFAULT 0,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, time_compacting INTEGER,
  time_archived INTEGER);
CREATE INDEX IF NOT EXISTS session_parent_idx ON session (parent_id);
CREATE TABLE IF NOT EXISTS message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL
  REFERENCES session(id) ON DELETE CASCADE, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS message_session_time_created_id_idx
  ON message (session_id, time_created, id);
CREATE TABLE IF NOT EXISTS part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL
  REFERENCES message(id) ON DELETE CASCADE, session_id TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS part_message_id_id_idx ON part (message_id, id);
CREATE INDEX IF NOT EXISTS part_session_idx ON part (session_id);
"""


class Ids:
    """OpenCode's ids: a prefix, then hex that grows with time, then random base62."""

    def __init__(self, seed: int = 1) -> None:
        self.n = seed * 1_000_000

    def __call__(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}_{self.n:012x}" + "Zq" * 7


@dataclass
class Session:
    id: str
    directory: str
    title: str
    parent: str | None = None
    created: int = T0
    updated: int = T0
    messages: list[tuple[str, dict[str, Any], list[tuple[str, dict[str, Any]]]]] = field(
        default_factory=list
    )


def user(ids: Ids, s: Session, at: int, *parts: dict[str, Any]) -> str:
    """A user message with its parts; returns the message id."""
    mid = ids("msg")
    info = {
        "role": "user",
        "time": {"created": at},
        "agent": "build",
        "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4"},
    }
    s.messages.append((mid, info, [(ids("prt"), p) for p in parts]))
    return mid


def assistant(
    ids: Ids,
    s: Session,
    at: int,
    parent: str,
    *parts: dict[str, Any],
    done: bool = True,
    summary: bool = False,
) -> str:
    mid = ids("msg")
    info: dict[str, Any] = {
        "role": "assistant",
        "time": {"created": at, **({"completed": at + 900} if done else {})},
        "parentID": parent,
        "modelID": "claude-sonnet-4",
        "providerID": "anthropic",
        "mode": "build",
        "agent": "build",
        "path": {"cwd": s.directory, "root": s.directory},
        "cost": 0.01,
        "tokens": {"input": 10, "output": 20, "reasoning": 0, "cache": {"read": 0, "write": 0}},
        **({"summary": True} if summary else {}),
        **({"finish": "stop"} if done else {}),
    }
    s.messages.append((mid, info, [(ids("prt"), p) for p in parts]))
    return mid


def text(
    value: str, at: int | None = None, *, ended: bool = True, synthetic: bool = False
) -> dict[str, Any]:
    part: dict[str, Any] = {"type": "text", "text": value}
    if synthetic:
        part["synthetic"] = True
    if at is not None:
        part["time"] = {"start": at, **({"end": at + 50} if ended else {})}
    return part


def reasoning(value: str, at: int) -> dict[str, Any]:
    return {"type": "reasoning", "text": value, "time": {"start": at, "end": at + 40}}


def tool(
    name: str, call_id: str, tool_input: dict[str, Any], status: str, at: int, result: str = ""
) -> dict[str, Any]:
    """A tool part in one of its states (message-v2.ts ToolState*)."""
    if status == "pending":
        state: dict[str, Any] = {"status": "pending", "input": {}, "raw": ""}
    elif status == "running":
        state = {"status": "running", "input": tool_input, "title": name, "time": {"start": at}}
    elif status == "completed":
        state = {
            "status": "completed",
            "input": tool_input,
            "output": result,
            "title": name,
            "metadata": {},
            "time": {"start": at, "end": at + 300},
        }
    else:
        state = {
            "status": "error",
            "input": tool_input,
            "error": result,
            "time": {"start": at, "end": at + 300},
        }
    return {"type": "tool", "callID": call_id, "tool": name, "state": state}


def step_start() -> dict[str, Any]:
    return {"type": "step-start", "snapshot": "4b825dc642cb6eb9a060e54bf8d69288fbee4904"}


def step_finish() -> dict[str, Any]:
    return {
        "type": "step-finish",
        "reason": "stop",
        "cost": 0.01,
        "tokens": {"input": 10, "output": 20, "reasoning": 0, "cache": {"read": 0, "write": 0}},
    }


def conversation(ids: Ids, directory: str = "/work/shop", at: int = T0) -> tuple[Session, Session]:
    """A session with every kind of part OpenCode writes, and a subagent (child) session."""
    s = Session(ids("ses"), directory, "Flaky checkout test", created=at, updated=at + 60_000)
    m1 = user(
        ids,
        s,
        at + 1000,
        text("why does test_checkout fail on CI only? see @tests/test_checkout.py"),
        text(
            "Called the Read tool with the following input: tests/test_checkout.py", synthetic=True
        ),
        {"type": "file", "mime": "text/plain", "filename": "test_checkout.py", "url": "file:///x"},
    )
    assistant(
        ids,
        s,
        at + 2000,
        m1,
        step_start(),
        reasoning("The test depends on the wall clock.", at + 2100),
        text("Let me run it.", at + 2200),
        tool(
            "bash",
            "toolu_run1",
            {"command": "pytest tests/test_checkout.py"},
            "completed",
            at + 2300,
            "1 failed",
        ),
        tool(
            "read",
            "toolu_read1",
            {"filePath": "/work/shop/missing.py"},
            "error",
            at + 2400,
            "File not found",
        ),
        step_finish(),
    )
    m2 = user(ids, s, at + 5000, text("use freezegun"), {"type": "agent", "name": "general"})
    assistant(
        ids,
        s,
        at + 6000,
        m2,
        step_start(),
        text("Frozen the clock in the fixture; the test passes.", at + 6100),
        tool(
            "task",
            "toolu_task1",
            {"description": "check other tests", "prompt": "find clock uses"},
            "completed",
            at + 6200,
            "2 more",
        ),
        step_finish(),
    )
    m3 = user(ids, s, at + 20_000, {"type": "compaction", "auto": True})
    assistant(
        ids,
        s,
        at + 21_000,
        m3,
        text("Summary: the checkout test now freezes time.", at + 21_100),
        summary=True,
    )
    child = Session(
        ids("ses"),
        directory,
        "Child session - 2025-06-15T15:06:46.000Z",
        parent=s.id,
        created=at + 6300,
    )
    c1 = user(ids, child, at + 6300, text("find clock uses"))
    assistant(
        ids,
        child,
        at + 6400,
        c1,
        tool(
            "grep",
            "toolu_grep1",
            {"pattern": "datetime.now", "path": "tests"},
            "completed",
            at + 6500,
            "2 matches",
        ),
        text("Two more tests read the clock.", at + 6600),
    )
    return s, child


def expected_records() -> int:
    """What `conversation` stores: 2 prompts, 1 synthetic, 3 answers with their tool calls,
    3 tool results, 1 summary; the child: 1 prompt, 1 answer, 1 tool result."""
    return 2 + 1 + 2 + 3 + 1 + 1 + 1 + 1


# -- writers ---------------------------------------------------------------------------------


def open_db(root: Path) -> sqlite3.Connection:
    root.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(root / "opencode.db", isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.executescript(SCHEMA)
    return conn


def write_db(conn: sqlite3.Connection, *sessions: Session, at: int | None = None) -> None:
    """Insert (or upsert, as OpenCode's projectors do) the sessions' rows."""
    with conn:
        conn.execute("BEGIN")
        conn.execute("INSERT OR IGNORE INTO project VALUES ('global', '/', ?, ?)", (T0, T0))
        for s in sessions:
            conn.execute(
                """INSERT INTO session (id, project_id, parent_id, slug, directory, title,
                     version, time_created, time_updated)
                   VALUES (?, 'global', ?, 'slug', ?, ?, '1.0.0', ?, ?)
                   ON CONFLICT(id) DO UPDATE SET title = excluded.title,
                     time_updated = excluded.time_updated""",
                (s.id, s.parent, s.directory, s.title, s.created, at or s.updated),
            )
            for mid, info, parts in s.messages:
                stamp = at or info["time"]["created"]
                conn.execute(
                    """INSERT INTO message VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET
                         data = excluded.data, time_updated = excluded.time_updated""",
                    (mid, s.id, info["time"]["created"], stamp, compact(info)),
                )
                for pid, part in parts:
                    set_part(conn, s.id, mid, pid, part, at=stamp)


def set_part(
    conn: sqlite3.Connection,
    session_id: str,
    message_id: str,
    part_id: str,
    part: dict[str, Any],
    at: int,
) -> None:
    """One part written or rewritten in place, its time_updated moved on (OpenCode's
    PartUpdated projector: insert ... on conflict do update)."""
    conn.execute(
        """INSERT INTO part VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET
             data = excluded.data, time_updated = excluded.time_updated""",
        (part_id, message_id, session_id, at, at, compact(part)),
    )


def write_tree(root: Path, *sessions: Session, project: str = "a1b2c3") -> list[Path]:
    """The older releases' JSON tree; returns the session files."""
    storage = root / "storage"
    files = []
    for s in sessions:
        info = {
            "id": s.id,
            "slug": "slug",
            "version": "0.15.0",
            "projectID": project,
            "directory": s.directory,
            "title": s.title,
            "time": {"created": s.created, "updated": s.updated},
            **({"parentID": s.parent} if s.parent else {}),
        }
        files.append(_write(storage / "session" / project / f"{s.id}.json", info))
        for mid, message, parts in s.messages:
            _write(
                storage / "message" / s.id / f"{mid}.json",
                {"id": mid, "sessionID": s.id, **message},
            )
            for pid, part in parts:
                body = {"id": pid, "sessionID": s.id, "messageID": mid, **part}
                _write(storage / "part" / mid / f"{pid}.json", body)
    _write(storage / "project" / f"{project}.json", {"id": project, "worktree": "/work/shop"})
    return files


def compact(value: dict[str, Any]) -> str:
    """As drizzle stores a json column: JSON.stringify, no spaces."""
    return json.dumps(value, separators=(",", ":"))


def _write(path: Path, value: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2))  # Storage.write: JSON.stringify(v, null, 2)
    return path
