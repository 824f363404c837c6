"""A turn: a prompt and Claude's answer to it, the last message before the next prompt that
says something. Search ranks the answer beside its prompt; the prompt hook quotes it."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection

from memtui.store import db

SAYS_SOMETHING = 80  # characters of text an answer holds at least (not "Done." alone)
_NEVER = 1 << 62


def replies(
    conn: sqlite3.Connection,
    ids: Collection[int],
    after: int | None = None,
    before: int | None = None,
) -> dict[int, int]:
    """For each prompt among `ids` (other messages are left out), its answer's id, when it
    has one written at or after `after` and before `before` (epoch seconds)."""
    found: dict[int, int] = {}
    for chunk in db.chunks(list(ids)):
        rows = conn.execute(
            f"""SELECT p.id, (
                    SELECT a.id FROM messages a
                    WHERE a.session_id = p.session_id AND a.idx > p.idx
                      AND a.idx < coalesce((SELECT min(n.idx) FROM messages n
                          WHERE n.session_id = p.session_id AND n.idx > p.idx
                            AND n.kind = 'prompt'), {_NEVER})
                      AND a.kind = 'assistant' AND length(a.text) >= {SAYS_SOMETHING}
                      AND a.epoch >= ? AND a.epoch < ?
                    ORDER BY a.idx DESC LIMIT 1)
                FROM messages p WHERE p.kind = 'prompt' AND p.id IN ({db.marks(chunk)})""",
            [-_NEVER if after is None else after, _NEVER if before is None else before, *chunk],
        )
        found.update((prompt, reply) for prompt, reply in rows if reply is not None)
    return found
