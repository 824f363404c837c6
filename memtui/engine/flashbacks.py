"""Flashbacks: what was thought about the same thing long ago, somewhere else.

Older notes from another folder, and messages of past conversations in other projects, at
least MEMTUI_FLASHBACK_DAYS older than the anchor note and within MEMTUI_FLASHBACK_DIST of
it; at most MEMTUI_FLASHBACK_LIMIT of each, nearest first.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from memtui.config import Config
from memtui.engine.notes_types import Flashbacks, NoteFlashback, SessionFlashback
from memtui.engine.quoting import HIT_TITLE_CUT, short_title
from memtui.engine.snippets import snippet
from memtui.engine.types import NoteRef
from memtui.store import db
from memtui.store import notes as store
from memtui.store.indexes import Indexes

SESSION_POOL = 100  # nearest messages looked at for session flashbacks, before filtering
NOTE_POOL = 200  # nearest notes looked at for similar notes and note flashbacks


def ref(row: store.NoteRow | store.RefRow) -> NoteRef:
    return NoteRef(row.id, row.title, row.layer, row.folder, row.updated, row.status)


def _age(newer: str, older: str | None) -> int:
    if not older:
        return 0
    try:
        return (datetime.fromisoformat(newer) - datetime.fromisoformat(older)).days
    except (ValueError, TypeError):  # unreadable, or a time without its zone
        return 0


def _older_than(created: str, days: int) -> datetime | None:
    """The moment `days` before `created`; None before the calendar's start (a note imported
    as written in year 1): nothing is older."""
    try:
        return datetime.fromisoformat(created) - timedelta(days=days)
    except OverflowError:
        return None


def find(
    config: Config,
    conn: sqlite3.Connection,
    near: list[tuple[int, float]],
    messages: Callable[[], Indexes] | None,
    anchor: store.NoteRow,
    vec: np.ndarray,
    project: str | None,
) -> Flashbacks:
    """Flashbacks for `anchor` (its vector `vec`; `near`: the notes nearest to it, nearest
    first, NOTE_POOL of them). `project`: the caller's working directory, whose conversations
    are no flashbacks; None: the project of the note's source session, if it has one."""
    before = _older_than(anchor.created, config.flashback_days)
    if not np.any(vec) or config.flashback_limit <= 0 or before is None:
        return Flashbacks()
    cutoff = before.isoformat(timespec="microseconds")
    close = [(nid, d) for nid, d in near if d <= config.flashback_dist and nid != anchor.id]
    notes: list[NoteFlashback] = []
    for part in _nearest_first(close, config.flashback_limit):
        rows = store.refs(conn, [nid for nid, _ in part])
        notes += [
            NoteFlashback(ref(r), _age(anchor.created, r.created), round(d, 4))
            for nid, d in part
            if (r := rows.get(nid)) and r.folder != anchor.folder and r.created <= cutoff
        ]
        if len(notes) >= config.flashback_limit:
            break
    sessions = (
        [] if messages is None else _sessions(config, conn, messages, anchor, vec, project, before)
    )
    return Flashbacks(notes[: config.flashback_limit], sessions)


def _nearest_first(near: list[tuple[int, float]], limit: int) -> Iterator[list[tuple[int, float]]]:
    """`near` in growing slices: most of the nearest qualify, so the rows of the whole pool
    (most of what a flashback cost) are seldom read."""
    start, step = 0, max(4 * limit, 8)
    while start < len(near):
        yield near[start : start + step]
        start, step = start + step, 4 * step


def _sessions(
    config: Config,
    conn: sqlite3.Connection,
    messages: Callable[[], Indexes],
    anchor: store.NoteRow,
    vec: np.ndarray,
    project: str | None,
    before: datetime,
) -> list[SessionFlashback]:
    indexes = messages()
    if not indexes.vectors_ready():
        return []  # being built by this process's writer: no flashbacks rather than a wait
    near = [
        (mid, d)
        for mid, d in indexes.vectors.search(vec, SESSION_POOL)
        if d <= config.flashback_dist
    ]
    if not near:
        return []
    if project is not None:
        project = project.rstrip("/") or "/"  # a working directory, as get_recent_sessions takes it
    elif anchor.source_session:
        hit = conn.execute(
            "SELECT p.path FROM sessions s JOIN projects p ON p.id = s.project_id WHERE s.id = ?",
            (anchor.source_session,),
        ).fetchone()
        project = hit[0] if hit else None
    latest = int(before.timestamp())
    chosen: list[tuple[float, tuple[Any, ...]]] = []
    seen: set[str] = set()
    for part in _nearest_first(near, config.flashback_limit):
        ids = [mid for mid, _ in part]
        rows = {  # without the texts, which are long: only the chosen ones' are read
            r[0]: r
            for r in conn.execute(
                f"""SELECT m.id, m.session_id, p.path, m.uuid, m.idx, m.ts,
                           coalesce(s.custom_title, s.summary_title, s.first_prompt, '')
                    FROM messages m JOIN sessions s ON s.id = m.session_id
                    JOIN projects p ON p.id = s.project_id
                    WHERE m.id IN ({db.marks(ids)}) AND m.epoch > 0
                      AND m.epoch <= ? AND p.path IS NOT ?""",
                [*ids, latest, project],
            )
        }
        for mid, d in part:
            r = rows.get(mid)
            if r is not None and r[1] not in seen and len(chosen) < config.flashback_limit:
                seen.add(r[1])
                chosen.append((d, r))
        if len(chosen) >= config.flashback_limit:
            break
    if not chosen:
        return []
    picked = [r[0] for _, r in chosen]
    texts = dict(
        conn.execute(f"SELECT id, text FROM messages WHERE id IN ({db.marks(picked)})", picked)
    )
    return [
        SessionFlashback(
            session_id=r[1],
            project=r[2],
            session_title=short_title(r[6], HIT_TITLE_CUT),
            message_uuid=r[3],
            message_index=r[4],
            timestamp=r[5],
            snippet=snippet(texts.get(r[0], ""), []),
            age_days=_age(anchor.created, r[5]),
            distance=round(d, 4),
        )
        for d, r in chosen
    ]
