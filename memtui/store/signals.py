"""Signals, inferences and error sightings in the store of record: the SQL, nothing else.

A signal is keyed by the fingerprint of its evidence, so detection can run again and again:
a pattern seen before keeps its row and its triage (a dismissed one stays dismissed), new
evidence is a new fingerprint and so a new signal. An inference keeps each piece of evidence
with the hash and text it had at mint time, so staleness is a comparison, not a guess.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from memtui.store import db


@dataclass(slots=True)
class SignalRow:
    id: int
    type: str
    fingerprint: str
    title: str
    detail: str
    note_ids: list[int]
    message_ids: list[int]
    status: str
    snooze_until: str | None
    created: str
    updated: str


_SIGNAL_COLS = (
    "id, type, fingerprint, title, detail, note_ids, message_ids, status, snooze_until, "
    "created, updated"
)


def _signal(r: sqlite3.Row) -> SignalRow:
    return SignalRow(
        r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), json.loads(r[6]), r[7], r[8], r[9], r[10]
    )


def mark(conn: sqlite3.Connection, name: str) -> int:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (name,)).fetchone()
    return int(row[0]) if row else 0


def set_mark(conn: sqlite3.Connection, name: str, value: int | str) -> None:
    conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (name, str(value)))


FORGETS = "forgets"  # counts forgets: detection that read across one records nothing


def count_forget(conn: sqlite3.Connection) -> None:
    conn.execute(
        "INSERT INTO meta VALUES (?, '1') ON CONFLICT (key) DO UPDATE SET value = value + 1",
        (FORGETS,),
    )


def text_mark(conn: sqlite3.Connection, name: str) -> str:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (name,)).fetchone()
    return str(row[0]) if row else ""


def inferences_mark(conn: sqlite3.Connection) -> str:
    """Changes when an inference is minted, imported or dropped: what hidden_arc follows."""
    count, last = conn.execute("SELECT count(*), coalesce(max(id), 0) FROM inferences").fetchone()
    return f"{count}:{last}"


def day(conn: sqlite3.Connection) -> str | None:
    """The day detection last ran: stale_state and tag_burst count days."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'signals_day'").fetchone()
    return str(row[0]) if row else None


def set_day(conn: sqlite3.Connection, today: str) -> None:
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('signals_day', ?)", (today,))


# -- signals ---------------------------------------------------------------------------------


def upsert_found(
    conn: sqlite3.Connection,
    found: Sequence[tuple[str, str, str, str, list[int], list[int], str]],
    types: Sequence[str],
    now: str,
) -> None:
    """Record one detection run over `types`: (type, fingerprint, title, detail, notes,
    messages, pattern) each. Known fingerprints keep their status; the ones of these types not
    seen this time stop being live (their triage is kept, so a dismissal outlives a lull)."""
    conn.execute(f"UPDATE signals SET live = 0 WHERE type IN ({db.marks(types)})", tuple(types))
    decided = _decided(conn)
    conn.executemany(
        """INSERT INTO signals (type, fingerprint, title, detail, note_ids, message_ids,
                                pattern, status, snooze_until, created, updated)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (fingerprint) DO UPDATE SET live = 1, title = excluded.title,
                                                   detail = excluded.detail,
                                                   pattern = excluded.pattern""",
        [
            (t, f, title, d, json.dumps(n), json.dumps(m), p, *_start(decided, p, n, m), now, now)
            for t, f, title, d, n, m, p in found
        ],
    )


_Decided = dict[str, list[tuple[str, str | None, set[int], set[int]]]]


def _decided(conn: sqlite3.Connection) -> _Decided:
    """Every signal by its pattern, the newest first: its status and evidence."""
    out: _Decided = {}
    rows = conn.execute(
        "SELECT pattern, status, snooze_until, note_ids, message_ids FROM signals "
        "WHERE pattern IS NOT NULL ORDER BY id DESC"
    )
    for pattern, status, until, notes, messages in rows:
        evidence = (status, until, set(json.loads(notes)), set(json.loads(messages)))
        out.setdefault(pattern, []).append(evidence)
    return out


def _start(
    decided: _Decided, pattern: str, notes: list[int], messages: list[int]
) -> tuple[str, str | None]:
    """The status a signal not seen before starts with: the pattern's newest signal whose
    evidence holds all of this one's (a note of it deleted, a session forgotten) passes on
    the person's decision, dismissed or snoozed; new evidence starts new."""
    for status, until, had_notes, had_messages in decided.get(pattern, []):
        if set(notes) <= had_notes and set(messages) <= had_messages:
            return (status, until) if status in ("dismissed", "snoozed") else ("new", None)
    return "new", None


def wake_snoozed(conn: sqlite3.Connection, now: str) -> None:
    conn.execute(
        "UPDATE signals SET status = 'new', snooze_until = NULL, updated = ? "
        "WHERE status = 'snoozed' AND snooze_until <= ?",
        (now, now),
    )


def any_woken(conn: sqlite3.Connection, now: str) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM signals WHERE status = 'snoozed' AND snooze_until <= ? LIMIT 1", (now,)
        ).fetchone()
        is not None
    )


def listing(
    conn: sqlite3.Connection, type_: str | None, status: str | None, limit: int
) -> tuple[list[SignalRow], int]:
    """The newest `limit` signals of a type and status, and how many there are in all."""
    where, args = ["live = 1 OR status = 'synthesized'"], []
    if type_:
        where.append("type = ?")
        args.append(type_)
    if status:
        where.append("status = ?")
        args.append(status)
    clause = f"({where[0]})" + "".join(f" AND {w}" for w in where[1:])
    (total,) = conn.execute(f"SELECT count(*) FROM signals WHERE {clause}", args).fetchone()
    rows = conn.execute(
        f"SELECT {_SIGNAL_COLS} FROM signals WHERE {clause} ORDER BY id DESC LIMIT ?",
        [*args, limit],
    )
    return [_signal(r) for r in rows], int(total)


def get(conn: sqlite3.Connection, signal_id: int) -> SignalRow | None:
    r = conn.execute(f"SELECT {_SIGNAL_COLS} FROM signals WHERE id = ?", (signal_id,)).fetchone()
    return _signal(r) if r else None


def triaged(conn: sqlite3.Connection) -> list[SignalRow]:
    """Every signal a person (or an inference) has decided on: what an export carries."""
    rows = conn.execute(f"SELECT {_SIGNAL_COLS} FROM signals WHERE status != 'new' ORDER BY id")
    return [_signal(r) for r in rows]


def by_fingerprint(conn: sqlite3.Connection, fingerprint: str) -> SignalRow | None:
    r = conn.execute(
        f"SELECT {_SIGNAL_COLS} FROM signals WHERE fingerprint = ?", (fingerprint,)
    ).fetchone()
    return _signal(r) if r else None


def put_triage(conn: sqlite3.Connection, row: SignalRow) -> int:
    """A decision brought in by an import: a signal known by its fingerprint takes its status;
    an unknown one is kept (not live) so that detection finding it later keeps the decision."""
    conn.execute(
        """INSERT INTO signals (type, fingerprint, title, detail, note_ids, message_ids, status,
                                snooze_until, live, created, updated)
           VALUES (?, ?, ?, ?, ?, '[]', ?, ?, 0, ?, ?)
           ON CONFLICT (fingerprint) DO UPDATE SET status = excluded.status,
               snooze_until = excluded.snooze_until, updated = excluded.updated""",
        (
            row.type,
            row.fingerprint,
            row.title,
            row.detail,
            json.dumps(row.note_ids),
            row.status,
            row.snooze_until,
            row.created,
            row.updated,
        ),
    )
    found = by_fingerprint(conn, row.fingerprint)
    assert found is not None
    return found.id


def set_status(
    conn: sqlite3.Connection, signal_id: int, status: str, until: str | None, now: str
) -> None:
    conn.execute(
        "UPDATE signals SET status = ?, snooze_until = ?, updated = ? WHERE id = ?",
        (status, until, now, signal_id),
    )


def counts(conn: sqlite3.Connection, now: str) -> dict[str, int]:
    """Live signals by status, a snooze that has run out counted as new (a read: no write)."""
    rows = conn.execute(
        """SELECT CASE WHEN status = 'snoozed' AND snooze_until <= ? THEN 'new' ELSE status END,
                  count(*)
           FROM signals WHERE live = 1 GROUP BY 1""",
        (now,),
    )
    return {status: n for status, n in rows}


# -- inferences ------------------------------------------------------------------------------


@dataclass(slots=True)
class InferenceRow:
    id: int
    title: str
    summary: str
    confidence: float
    signal_id: int | None
    created: str


@dataclass(slots=True)
class EvidenceRow:
    kind: str
    ref: str
    title: str
    text: str
    hash: str


def add_inference(
    conn: sqlite3.Connection,
    inference: InferenceRow,
    evidence: Sequence[EvidenceRow],
    *,
    keep_id: bool = False,
) -> int:
    """Insert an inference (under its own id when `keep_id`: an import)."""
    cur = conn.execute(
        "INSERT INTO inferences (id, title, summary, confidence, signal_id, created) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (
            inference.id if keep_id else None,
            inference.title,
            inference.summary,
            inference.confidence,
            inference.signal_id,
            inference.created,
        ),
    )
    new_id = int(cur.lastrowid or 0)
    put_evidence(conn, new_id, evidence)
    return new_id


def put_evidence(
    conn: sqlite3.Connection, inference_id: int, evidence: Sequence[EvidenceRow]
) -> None:
    """An inference's evidence, in place of what it held."""
    conn.execute("DELETE FROM inference_evidence WHERE inference_id = ?", (inference_id,))
    conn.executemany(
        "INSERT INTO inference_evidence VALUES (?, ?, ?, ?, ?, ?)",
        [(inference_id, e.kind, e.ref, e.title, e.text, e.hash) for e in evidence],
    )


def drop_inference(conn: sqlite3.Connection, inference_id: int) -> None:
    conn.execute("DELETE FROM inference_evidence WHERE inference_id = ?", (inference_id,))
    conn.execute("DELETE FROM inferences WHERE id = ?", (inference_id,))


def holds(conn: sqlite3.Connection, signal_id: int) -> bool:
    """Whether an inference rests on the signal (it stays synthesized)."""
    sql = "SELECT 1 FROM inferences WHERE signal_id = ? LIMIT 1"
    return conn.execute(sql, (signal_id,)).fetchone() is not None


def text_hash(text: str) -> str:
    """An evidence's hash: of its text at mint time, compared with its text now."""
    return hashlib.sha256(text.encode()).hexdigest()


FORGOTTEN = "forgotten"  # an evidence's title once what it named was forgotten


def forget_evidence(conn: sqlite3.Connection, kind: str, refs: Sequence[str]) -> None:
    """Evidence that was forgotten keeps its ref and hash (the inference reads it as deleted,
    so stale) but loses the title and text it copied at mint time."""
    for chunk in db.chunks(list(refs)):
        conn.execute(
            "UPDATE inference_evidence SET title = ?, text = '' "
            f"WHERE kind = ? AND ref IN ({db.marks(chunk)})",
            (FORGOTTEN, kind, *chunk),
        )


def forget_signal_evidence(
    conn: sqlite3.Connection, message_ids: Sequence[int], note_ids: Sequence[int]
) -> None:
    """Signals citing forgotten messages or notes quote them (a note's title, an error's
    text): they lose their title and detail, and the forgotten ids, keeping their triage."""
    gone_messages, gone_notes = set(message_ids), set(note_ids)
    rows = conn.execute("SELECT id, note_ids, message_ids FROM signals").fetchall()
    for signal_id, notes_json, messages_json in rows:
        notes, messages = json.loads(notes_json), json.loads(messages_json)
        if gone_notes.isdisjoint(notes) and gone_messages.isdisjoint(messages):
            continue
        conn.execute(
            "UPDATE signals SET title = ?, detail = '', note_ids = ?, message_ids = ? WHERE id = ?",
            (
                FORGOTTEN,
                json.dumps([n for n in notes if n not in gone_notes]),
                json.dumps([m for m in messages if m not in gone_messages]),
                signal_id,
            ),
        )


def inferences(conn: sqlite3.Connection, ids: Sequence[int] | None = None) -> list[InferenceRow]:
    sql = "SELECT id, title, summary, confidence, signal_id, created FROM inferences"
    if ids is not None:
        sql += f" WHERE id IN ({db.marks(ids)})"
    return [InferenceRow(*r) for r in conn.execute(sql + " ORDER BY id DESC", tuple(ids or ()))]


def evidence(conn: sqlite3.Connection, inference_id: int) -> list[EvidenceRow]:
    rows = conn.execute(
        "SELECT kind, ref, title, text, hash FROM inference_evidence WHERE inference_id = ? "
        "ORDER BY kind DESC, CAST(ref AS INTEGER), ref",
        (inference_id,),
    )
    return [EvidenceRow(*r) for r in rows]


def note_sets_covered(conn: sqlite3.Connection) -> list[set[int]]:
    """The evidence notes of each inference: an arc they already cover is no news."""
    sets: dict[int, set[int]] = {}
    for inference_id, ref in conn.execute(
        "SELECT inference_id, ref FROM inference_evidence WHERE kind = 'note'"
    ):
        sets.setdefault(inference_id, set()).add(int(ref))
    return list(sets.values())


# -- error sightings -------------------------------------------------------------------------


def add_sightings(conn: sqlite3.Connection, rows: Sequence[tuple[str, int, str, int]]) -> None:
    conn.executemany("INSERT OR IGNORE INTO error_sightings VALUES (?, ?, ?, ?)", rows)


def clear_sightings(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM error_sightings")


def forget_sightings(conn: sqlite3.Connection, message_ids: Sequence[int]) -> None:
    for part in db.chunks(message_ids):
        conn.execute(
            f"DELETE FROM error_sightings WHERE message_id IN ({db.marks(part)})", tuple(part)
        )


def recurring(
    conn: sqlite3.Connection, min_sessions: int, min_days: int
) -> list[tuple[str, list[tuple[int, str, int]]]]:
    """Signatures seen in at least `min_sessions` sessions over at least `min_days`: each with
    its first sighting in every session (message id, session id, epoch), oldest first."""
    found = conn.execute(
        """SELECT signature FROM error_sightings GROUP BY signature
           HAVING count(DISTINCT session_id) >= ? AND max(epoch) - min(epoch) >= ?""",
        (min_sessions, min_days * 86_400),
    ).fetchall()
    out = []
    for (signature,) in found:
        rows = conn.execute(
            """SELECT min(message_id), session_id, min(epoch) FROM error_sightings
               WHERE signature = ? GROUP BY session_id ORDER BY 3""",
            (signature,),
        ).fetchall()
        out.append((signature, [(int(m), s, int(e)) for m, s, e in rows]))
    return out
