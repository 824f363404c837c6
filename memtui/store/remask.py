"""An archive stored before masking (or before masking knew a kind), masked in place.

Every text the store keeps passes the masker again: messages, titles, pending titles, notes
(and their links and tags), signals, inferences and their evidence, error signatures.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import orjson

from memtui.progress import Meter
from memtui.store import db, notes, signals
from memtui.store.mask import Masker

_MASK_BATCH = 5_000  # message ids per transaction


def mask_store(conn: sqlite3.Connection, masker: Masker, meter: Meter) -> tuple[int, int]:
    """Mask every stored text in place (an archive made before masking): messages, titles,
    pending titles, notes (and their links), signals, inferences and their evidence, error
    signatures. Freed bytes are zeroed (`secure_delete`); a changed message or note gets a
    new `seq`, so its indexes would follow (the caller rebuilds them: old index files hold the
    secret, and `REBUILD` in meta says so). Returns the messages and the notes changed."""
    conn.execute("PRAGMA secure_delete = ON")
    (total,) = conn.execute("SELECT coalesce(max(id), 0) FROM messages").fetchone()
    changed = 0
    start = 0
    while start < total:
        conn.execute("BEGIN IMMEDIATE")
        try:
            rows = conn.execute(
                "SELECT id, text, thinking, tool_calls, tool_output FROM messages "
                "WHERE id > ? AND id <= ?",
                (start, start + _MASK_BATCH),
            ).fetchall()
            updates = []
            for mid, text, thinking, calls, output in rows:
                new = (masker.mask(text), masker.mask(thinking), _mask_calls(masker, calls))
                new_output = masker.mask(output)
                if new != (text, thinking, calls) or new_output != output:
                    updates.append((*new, new_output, mid))
            if updates:
                seq = db.store_seq(conn)
                conn.executemany(
                    "UPDATE messages SET text = ?, thinking = ?, tool_calls = ?, tool_output = ?,"
                    " seq = ? WHERE id = ?",
                    [(*u[:4], seq + n + 1, u[4]) for n, u in enumerate(updates)],
                )
                conn.execute(
                    "UPDATE meta SET value = ? WHERE key = 'seq'", (str(seq + len(updates)),)
                )
                _rebuild_after(conn)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        changed += len(updates)
        start += _MASK_BATCH
        meter(min(start, total), total, f"{changed:,} messages held secrets")
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Before they were digests, checkpoints kept the last bytes read of each transcript.
        conn.execute("UPDATE files SET tail = NULL WHERE substr(tail, 1, 2) != x'0068'")
        for table, key, columns in _TEXTS:
            if _has_table(conn, table):
                _mask_table(conn, masker, table, key, columns)
        notes = _mask_notes(conn, masker) if _has_table(conn, "notes") else 0
        if notes:
            _rebuild_after(conn)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return changed, notes


REBUILD = "mask_rebuild"  # meta: texts changed, the indexes (which hold the old ones) are not


def _rebuild_after(conn: sqlite3.Connection) -> None:
    """Note, with the change, that the indexes must be rebuilt: a crash before the rebuild
    leaves the flag, so the next start rebuilds them even though it masks nothing new."""
    conn.execute(f"INSERT OR REPLACE INTO meta VALUES ('{REBUILD}', '1')")


# The other texts a store kept before masking: (table, its key columns, its text columns).
_TEXTS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("sessions", ("id",), ("summary_title", "custom_title", "first_prompt", "git_branch")),
    ("pending_titles", ("leaf_uuid",), ("title",)),
    ("note_links", ("source_id", "position"), ("target", "shown")),
    ("note_tags", ("note_id", "tag_key"), ("tag",)),
    ("signals", ("id",), ("title", "detail")),
    ("inferences", ("id",), ("title", "summary")),
    ("inference_evidence", ("inference_id", "kind", "ref"), ("title", "text")),
    ("error_sightings", ("signature", "message_id"), ("signature",)),
)


def _has_table(conn: sqlite3.Connection, table: str) -> bool:
    found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,))
    return found.fetchone() is not None


def _mask_table(
    conn: sqlite3.Connection,
    masker: Masker,
    table: str,
    key: tuple[str, ...],
    columns: tuple[str, ...],
) -> None:
    """Mask `columns` of every row; keys derived from a masked text follow it (a link's
    target, a tag, an evidence's hash, an error signature that is its own key)."""
    names = list(dict.fromkeys((*key, *columns)))
    for row in conn.execute(f"SELECT {', '.join(names)} FROM {table}").fetchall():
        old = dict(zip(names, row, strict=True))
        # Any, as SQLite's values are: the columns a key is derived from are NOT NULL.
        new: dict[str, Any] = {c: None if old[c] is None else masker.mask(old[c]) for c in columns}
        if all(new[c] == old[c] for c in columns):
            continue
        if table == "note_links":
            new["target_key"] = notes.key(new["target"])
        elif table == "note_tags":
            new["tag_key"] = new["tag"].casefold()
        elif table == "inference_evidence":
            new["hash"] = signals.text_hash(new["text"])
        where = " AND ".join(f"{k} = ?" for k in key)
        sets = ", ".join(f"{c} = ?" for c in new)
        # OR REPLACE: a masked key may now equal another row's (two sightings of one error).
        conn.execute(
            f"UPDATE OR REPLACE {table} SET {sets} WHERE {where}",
            (*new.values(), *(old[k] for k in key)),
        )


def _mask_notes(conn: sqlite3.Connection, masker: Masker) -> int:
    """Mask notes' titles, bodies, folders and tags; a changed note gets the next note
    sequence number (`note_tags` is masked with the other tables)."""
    changed = 0
    rows = conn.execute("SELECT id, title, body, folder, tags FROM notes").fetchall()
    for note_id, title, body, folder, tags in rows:
        old = (title, body, folder, tags)
        # the tags column is written as store/notes.py writes it
        new = (
            masker.mask(title),
            masker.mask(body),
            masker.mask(folder),
            json.dumps([masker.mask(t) for t in json.loads(tags)]),
        )
        if new == old:
            continue
        conn.execute(
            "UPDATE notes SET title = ?, title_key = ?, body = ?, folder = ?, tags = ?, seq = ? "
            "WHERE id = ?",
            (new[0], notes.key(new[0]), *new[1:], notes.next_seq(conn), note_id),
        )
        changed += 1
    return changed


def _mask_calls(masker: Masker, calls: str) -> str:
    if calls == "[]":
        return calls
    parsed = orjson.loads(calls)
    masked = [[masker.mask_tool_name(name), masker.mask(arg)] for name, arg in parsed]
    return calls if masked == parsed else orjson.dumps(masked).decode()
