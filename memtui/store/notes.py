"""Notes in the store of record: the SQL, nothing else (the engine validates and guards).

Every change to a note takes the next `meta.note_seq` inside its write transaction and
stamps the note with it (a deletion leaves its id and seq in `notes_gone`), so the notes'
indexes follow them the way the message indexes follow messages.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from memtui.store import db

COLUMNS = (
    "id, title, body, layer, folder, tags, created, updated, author, status, "
    "source_session, source_uuid"
)


@dataclass(slots=True)
class NoteRow:
    id: int
    title: str
    body: str
    layer: str
    folder: str
    tags: list[str]
    created: str
    updated: str
    author: str
    status: str | None
    source_session: str | None
    source_uuid: str | None


@dataclass(slots=True)
class Link:
    target: str
    shown: str | None


def row(r: sqlite3.Row | tuple) -> NoteRow:
    return NoteRow(
        r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), r[6], r[7], r[8], r[9], r[10], r[11]
    )


def key(title: str) -> str:
    """What titles compare by: case and surrounding space aside."""
    return title.strip().casefold()


@contextmanager
def writing(conn: sqlite3.Connection) -> Iterator[None]:
    """One write transaction, taken at once so that writers in other processes queue."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def note_seq(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT value FROM meta WHERE key = 'note_seq'").fetchone()[0])


def next_seq(conn: sqlite3.Connection) -> int:
    """The next note sequence number (inside a write transaction)."""
    conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'note_seq'")
    return note_seq(conn)


# -- writing ---------------------------------------------------------------------------------


def insert(conn: sqlite3.Connection, note: NoteRow, *, keep_id: bool = False) -> int:
    seq = next_seq(conn)
    values = (
        note.title,
        key(note.title),
        note.body,
        note.layer,
        note.folder,
        json.dumps(note.tags),
        note.created,
        note.updated,
        note.author,
        note.status,
        note.source_session,
        note.source_uuid,
        seq,
    )
    cols = (
        "title, title_key, body, layer, folder, tags, created, updated, author, status, "
        "source_session, source_uuid, seq"
    )
    if keep_id:
        conn.execute(
            f"INSERT INTO notes (id, {cols}) VALUES (?, {db.marks(values)})", (note.id, *values)
        )
        note_id = note.id
    else:
        cur = conn.execute(f"INSERT INTO notes ({cols}) VALUES ({db.marks(values)})", values)
        note_id = int(cur.lastrowid or 0)
    conn.execute("DELETE FROM notes_gone WHERE id = ?", (note_id,))
    _set_tags(conn, note_id, note.tags)
    # Links written before this title existed now find it.
    conn.execute(
        "UPDATE note_links SET target_id = ? WHERE target_key = ? AND target_id IS NULL",
        (note_id, key(note.title)),
    )
    return note_id


def update(conn: sqlite3.Connection, note: NoteRow) -> None:
    conn.execute(
        """UPDATE notes SET title = ?, title_key = ?, body = ?, layer = ?, folder = ?, tags = ?,
               updated = ?, status = ?, seq = ? WHERE id = ?""",
        (
            note.title,
            key(note.title),
            note.body,
            note.layer,
            note.folder,
            json.dumps(note.tags),
            note.updated,
            note.status,
            next_seq(conn),
            note.id,
        ),
    )
    _set_tags(conn, note.id, note.tags)
    conn.execute(
        "UPDATE note_links SET target_id = ? WHERE target_key = ? AND target_id IS NULL",
        (note.id, key(note.title)),
    )


def set_body(conn: sqlite3.Connection, note_id: int, body: str) -> None:
    """A body rewritten for a renamed link target: reindexed, its `updated` left alone."""
    conn.execute("UPDATE notes SET body = ?, seq = ? WHERE id = ?", (body, next_seq(conn), note_id))


def unlink_renamed(conn: sqlite3.Connection, note_id: int) -> None:
    """After a rename: links still naming the note's old title no longer lead to it."""
    conn.execute(
        """UPDATE note_links SET target_id = NULL WHERE target_id = ?
             AND target_key != (SELECT title_key FROM notes WHERE id = ?)""",
        (note_id, note_id),
    )


def set_source(conn: sqlite3.Connection, note_id: int, session: str, uuid: str | None) -> None:
    """The conversation a note came from (a merge hands it to the note merged into)."""
    conn.execute(
        "UPDATE notes SET source_session = ?, source_uuid = ? WHERE id = ?",
        (session, uuid, note_id),
    )


def delete(conn: sqlite3.Connection, note_id: int) -> None:
    conn.execute("DELETE FROM notes WHERE id = ?", (note_id,))
    conn.execute("DELETE FROM note_tags WHERE note_id = ?", (note_id,))
    conn.execute("DELETE FROM note_links WHERE source_id = ?", (note_id,))
    conn.execute("UPDATE note_links SET target_id = NULL WHERE target_id = ?", (note_id,))
    conn.execute("INSERT OR REPLACE INTO notes_gone VALUES (?, ?)", (note_id, next_seq(conn)))


def set_links(conn: sqlite3.Connection, note_id: int, links: Sequence[Link]) -> None:
    """The links of a note's body, each resolved to the note with its title, if any."""
    conn.execute("DELETE FROM note_links WHERE source_id = ?", (note_id,))
    for position, link in enumerate(links):
        k = key(link.target)
        hit = conn.execute("SELECT id FROM notes WHERE title_key = ?", (k,)).fetchone()
        conn.execute(
            "INSERT INTO note_links VALUES (?, ?, ?, ?, ?, ?)",
            (note_id, position, link.target, k, link.shown, hit[0] if hit else None),
        )


def _set_tags(conn: sqlite3.Connection, note_id: int, tags: Sequence[str]) -> None:
    conn.execute("DELETE FROM note_tags WHERE note_id = ?", (note_id,))
    conn.executemany(
        "INSERT OR IGNORE INTO note_tags (note_id, tag_key, tag) VALUES (?, ?, ?)",
        [(note_id, t.casefold(), t) for t in tags],
    )


def set_status(conn: sqlite3.Connection, note_id: int, status: str, updated: str) -> None:
    conn.execute(
        "UPDATE notes SET status = ?, updated = ?, seq = ? WHERE id = ?",
        (status, updated, next_seq(conn), note_id),
    )


# -- reading ---------------------------------------------------------------------------------


def get(conn: sqlite3.Connection, note_id: int) -> NoteRow | None:
    r = conn.execute(f"SELECT {COLUMNS} FROM notes WHERE id = ?", (note_id,)).fetchone()
    return row(r) if r else None


def many(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, NoteRow]:
    out: dict[int, NoteRow] = {}
    for chunk in db.chunks(list(ids)):
        for r in conn.execute(
            f"SELECT {COLUMNS} FROM notes WHERE id IN ({db.marks(chunk)})", chunk
        ):
            out[r[0]] = row(r)
    return out


@dataclass(slots=True)
class RefRow:
    """What a list names a note by, without its body."""

    id: int
    title: str
    layer: str
    folder: str
    updated: str
    created: str
    status: str | None  # rules: provisional or approved


def refs(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, RefRow]:
    out: dict[int, RefRow] = {}
    for chunk in db.chunks(list(ids)):
        for r in conn.execute(
            f"""SELECT id, title, layer, folder, updated, created, status FROM notes
                WHERE id IN ({db.marks(chunk)})""",
            chunk,
        ):
            out[r[0]] = RefRow(*r)
    return out


def id_by_title(conn: sqlite3.Connection, title: str) -> int | None:
    hit = conn.execute("SELECT id FROM notes WHERE title_key = ?", (key(title),)).fetchone()
    return hit[0] if hit else None


def titles_by_id(conn: sqlite3.Connection) -> list[tuple[int, str]]:
    return [(r[0], r[1]) for r in conn.execute("SELECT id, title FROM notes")]


def titles_taken(conn: sqlite3.Connection, prefix: str) -> set[str]:
    """The title keys starting with `prefix` (casefolded)."""
    return {
        r[0]
        for r in conn.execute(
            "SELECT title_key FROM notes WHERE substr(title_key, 1, ?) = ?",
            (len(prefix), prefix.casefold()),
        )
    }


def under(conn: sqlite3.Connection, folder: str) -> list[str]:
    """The folders notes are in that are `folder` or below it, in any case (as tags are):
    `Work` finds `work/plans`."""
    key = folder.casefold()
    return [
        name
        for (name,) in conn.execute("SELECT DISTINCT folder FROM notes")
        if name.casefold() == key or name.casefold().startswith(key + "/")
    ]


def _filters(
    conn: sqlite3.Connection,
    folder: str | None,
    tag: str | None,
    layer: str | None,
    updated_from: str | None = None,
    updated_to: str | None = None,
) -> tuple[str, list[object]]:
    where: list[str] = ["1"]
    args: list[object] = []
    if folder is not None:
        names = under(conn, folder)
        where.append(f"n.folder IN ({', '.join('?' * len(names))})" if names else "0")
        args += names
    if tag:
        where.append("n.id IN (SELECT note_id FROM note_tags WHERE tag_key = ?)")
        args.append(tag.casefold())
    if layer:
        where.append("n.layer = ?")
        args.append(layer)
    if updated_from:
        where.append("n.updated >= ?")
        args.append(updated_from)
    if updated_to:
        where.append("n.updated < ?")
        args.append(updated_to)
    return " AND ".join(where), args


def listing(
    conn: sqlite3.Connection,
    folder: str | None,
    tag: str | None,
    layer: str | None,
    limit: int,
    offset: int,
) -> list[NoteRow]:
    where, args = _filters(conn, folder, tag, layer)
    rows = conn.execute(
        f"""SELECT {COLUMNS} FROM notes n WHERE {where}
            ORDER BY n.updated DESC, n.id DESC LIMIT ? OFFSET ?""",
        [*args, limit, offset],
    )
    return [row(r) for r in rows]


def count(conn: sqlite3.Connection, folder: str | None, tag: str | None, layer: str | None) -> int:
    where, args = _filters(conn, folder, tag, layer)
    return conn.execute(f"SELECT count(*) FROM notes n WHERE {where}", args).fetchone()[0]


def matching_ids(
    conn: sqlite3.Connection,
    folder: str | None,
    tag: str | None,
    layer: str | None,
    updated_from: str | None,
    updated_to: str | None,
) -> set[int]:
    where, args = _filters(conn, folder, tag, layer, updated_from, updated_to)
    return {r[0] for r in conn.execute(f"SELECT n.id FROM notes n WHERE {where}", args)}


def folders(conn: sqlite3.Connection) -> list[tuple[str, int]]:
    """Each folder with how many notes it holds. Folders that differ only in case are one, as
    a filter takes them (`under`): each part written as the oldest note under it writes it."""
    spelled: dict[str, str] = {}  # a folder casefolded: as first written
    counts: dict[str, int] = {}
    rows = conn.execute("SELECT folder, count(*) FROM notes GROUP BY folder ORDER BY min(id)")
    for folder, n in rows:
        parts = folder.split("/")
        for depth in range(1, len(parts) + 1):
            key = "/".join(parts[:depth]).casefold()
            if key not in spelled:
                above = spelled["/".join(parts[: depth - 1]).casefold()] if depth > 1 else ""
                spelled[key] = f"{above}/{parts[depth - 1]}" if depth > 1 else parts[0]
        name = spelled[folder.casefold()]
        counts[name] = counts.get(name, 0) + n
    return sorted(counts.items())


def tags(conn: sqlite3.Connection) -> list[tuple[str, int]]:
    """Each tag as the oldest note using it writes it, with its count (tags compare
    case-insensitively), most used first."""
    rows = conn.execute(
        """SELECT (SELECT t2.tag FROM note_tags t2 WHERE t2.tag_key = t.tag_key
                   ORDER BY t2.note_id LIMIT 1), count(*)
           FROM note_tags t GROUP BY t.tag_key ORDER BY count(*) DESC, t.tag_key"""
    )
    return [(r[0], r[1]) for r in rows]


def titles(conn: sqlite3.Connection, prefix: str, limit: int) -> list[str]:
    rows = conn.execute(
        """SELECT title FROM notes WHERE substr(title_key, 1, ?) = ?
           ORDER BY updated DESC LIMIT ?""",
        (len(prefix), prefix.casefold(), limit),
    )
    return [r[0] for r in rows]


def links(conn: sqlite3.Connection, note_id: int) -> list[tuple[str, str | None, int | None]]:
    return [
        (r[0], r[1], r[2])
        for r in conn.execute(
            "SELECT target, shown, target_id FROM note_links WHERE source_id = ? ORDER BY position",
            (note_id,),
        )
    ]


def backlinks(conn: sqlite3.Connection, note_id: int) -> list[NoteRow]:
    rows = conn.execute(
        f"""SELECT {COLUMNS} FROM notes WHERE id IN
              (SELECT source_id FROM note_links WHERE target_id = ?)
            ORDER BY updated DESC, id DESC""",
        (note_id,),
    )
    return [row(r) for r in rows]


def rules(conn: sqlite3.Connection, status: str | None = None) -> list[NoteRow]:
    if status is None:
        sql = f"""SELECT {COLUMNS} FROM notes WHERE layer = 'rule'
                  ORDER BY status = 'approved', updated DESC, id DESC"""
        return [row(r) for r in conn.execute(sql)]
    sql = f"SELECT {COLUMNS} FROM notes WHERE layer = 'rule' AND status = ? ORDER BY created, id"
    return [row(r) for r in conn.execute(sql, (status,))]


def everything(conn: sqlite3.Connection) -> list[NoteRow]:
    return [row(r) for r in conn.execute(f"SELECT {COLUMNS} FROM notes ORDER BY id")]


def all_ids(conn: sqlite3.Connection) -> set[int]:
    return {r[0] for r in conn.execute("SELECT id FROM notes")}


# -- for the indexes -------------------------------------------------------------------------


def changed_after(
    conn: sqlite3.Connection, mark: int, target: int, limit: int
) -> list[tuple[int, str, str, str, str, str, str, int]]:
    """(id, title, body, layer, folder, tags JSON, updated, seq) of notes changed in
    (mark, target], in seq order."""
    return conn.execute(
        """SELECT id, title, body, layer, folder, tags, updated, seq FROM notes
           WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?""",
        (mark, target, limit),
    ).fetchall()


def gone_after(conn: sqlite3.Connection, mark: int, target: int) -> list[int]:
    return [
        r[0]
        for r in conn.execute(
            "SELECT id FROM notes_gone WHERE seq > ? AND seq <= ?", (mark, target)
        )
    ]


def count_upto(conn: sqlite3.Connection, mark: int) -> tuple[int, int]:
    """(notes at or below `mark`, all notes): what an index at that mark may hold."""
    least = conn.execute("SELECT count(*) FROM notes WHERE seq <= ?", (mark,)).fetchone()[0]
    most = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
    return least, most


def index_rows(
    conn: sqlite3.Connection, ids: Collection[int]
) -> list[tuple[int, str, str, str, str, str, str, int]]:
    out = []
    for chunk in db.chunks(list(ids)):
        out += conn.execute(
            f"""SELECT id, title, body, layer, folder, tags, updated, seq FROM notes
                WHERE id IN ({db.marks(chunk)})""",
            chunk,
        ).fetchall()
    return out
