"""Notes: the `memory.notes` service. The guards are here, not in the front ends.

Every write names its caller (`by="person"` from the TUI and CLI, `by="agent"` over MCP),
checks every argument before touching the store (one InvalidArgument naming the field,
nothing partly written), commits, and only then brings the notes' own indexes up to the
store. A note is acknowledged once committed: should indexing fail, the next write or
search of any process catches the indexes up from their marks.

Threading: reads run on the calling thread's connection; writes share one connection under
a lock, in transactions taken at once (BEGIN IMMEDIATE), so writers in other processes queue.
"""

from __future__ import annotations

import builtins
import dataclasses
import logging
import sqlite3
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from memtui.config import Config
from memtui.engine import lookalike, near, note_fields, sessions, validate
from memtui.engine.context import folder_projects
from memtui.engine.flashbacks import NOTE_POOL, ref
from memtui.engine.flashbacks import find as find_flashbacks
from memtui.engine.near import NEAR_LIFT
from memtui.engine.notes_types import (
    MAX_DUPLICATE,
    MAX_TITLE_CHARS,
    MIN_DUPLICATE,
    ON_CONFLICT,
    RULE_STATUSES,
    Author,
    Flashbacks,
    FolderCount,
    ImportReport,
    Layer,
    Note,
    NoteDetail,
    NoteDraft,
    NoteHit,
    NoteLink,
    NoteSearchResponse,
    NoteSource,
    OnConflict,
    PastImmutable,
    RuleStatus,
    RuleUserOnly,
    SaveResult,
    SimilarNote,
    TagCount,
    UpdatedNote,
)
from memtui.engine.quoting import HIT_TITLE_CUT, short_title
from memtui.engine.rules import HouseRules
from memtui.engine.rules import house_rules as read_house_rules
from memtui.engine.search import NEAREST, fuse, searchable
from memtui.engine.snippets import snippet
from memtui.engine.types import MODE_ALIASES, MODES
from memtui.errors import InvalidArgument, MemtuiError, NotFound
from memtui.store import db
from memtui.store import notes as store
from memtui.store.indexes import Indexes
from memtui.store.mask import Masker
from memtui.store.note_index import NoteIndexes, vector_text

log = logging.getLogger(__name__)

SIMILAR_MAX = 5  # similar notes named on save


def _note(r: store.NoteRow, twins: dict[int, int] | None = None) -> Note:
    return Note(
        r.id,
        r.title,
        r.body,
        r.layer,
        r.folder,
        list(r.tags),
        r.created,
        r.updated,
        r.author,
        r.status,
        r.source_session,
        r.source_uuid,
        None if twins is None else twins.get(r.id),
    )


def _bound(value: str | date | datetime | None, name: str, end: bool) -> str | None:
    """A date filter as a stored time to compare with: a bare date_to takes in its whole day."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        text = validate.text(name, value, 64).strip()
        try:  # a date in either form (2026-11-01, 20261101) is a whole day
            value = date.fromisoformat(text)
        except ValueError:
            try:
                value = datetime.fromisoformat(text)
            except ValueError:
                raise InvalidArgument(
                    f"{name} must be an ISO 8601 date or date-time like 2026-11-01, not {value!r}"
                ) from None
    try:
        if not isinstance(value, datetime):
            moment = datetime(value.year, value.month, value.day, tzinfo=UTC)
            if end:
                moment += timedelta(days=1)
        else:
            moment = value if value.tzinfo else value.replace(tzinfo=UTC)
            if end:
                moment += timedelta(microseconds=1)
        return moment.astimezone(UTC).isoformat(timespec="microseconds")
    except OverflowError:  # past the calendar's end (9999-12-31 as date_to) or before its start
        edge = datetime.min if value.year < 2 else datetime.max
        return edge.replace(tzinfo=UTC).isoformat(timespec="microseconds")


def guard(
    conn: sqlite3.Connection,
    note: store.NoteRow,
    body: str | None,
    tags: list[str] | None,
    doing: str,
) -> None:
    """An agent's refusals, in every write that changes or removes a note (forget too): past
    notes stay as written, rules are the person's."""
    if note.layer == "rule":
        raise RuleUserOnly(f"note {note.id} is a rule: only the person may {doing} it")
    if note.layer == "past":
        raise PastImmutable(
            f"note {note.id} is a past note: what happened is not rewritten",
            _amendment(conn, note, body, tags, doing),
        )


def _amendment(
    conn: sqlite3.Connection,
    note: store.NoteRow,
    body: str | None,
    tags: list[str] | None,
    doing: str,
) -> NoteDraft:
    room = MAX_TITLE_CHARS - len("[Amendment 99] ")
    name = note.title[:room].strip()
    taken = store.titles_taken(conn, "[amendment")
    title, n = f"[Amendment] {name}", 2
    while title.casefold() in taken:
        title, n = f"[Amendment {n}] {name}", n + 1
    if doing in ("delete", "forget"):
        text = "It no longer holds: say what replaced it, and why."
    else:
        text = body if body is not None else "What changed, and why."
    return NoteDraft(
        title,
        f"Amends [[{note.title}]].\n\n{text}",
        "past",
        note.folder,
        tags if tags is not None else list(note.tags),
    )


class Notes:
    def __init__(
        self,
        config: Config,
        reader: Callable[[], sqlite3.Connection],
        index: Callable[[], NoteIndexes],
        messages: Callable[[], Indexes],
        masker: Masker | None = None,
    ) -> None:
        self.config = config
        # Secrets in a note's texts are masked before the store sees them (store/mask.py).
        self._mask: Callable[[str], str] = masker.mask if masker is not None else str
        self._db_path: Path = config.db_path
        self._conn = reader
        self._index = index
        self._messages = messages
        self._writer: sqlite3.Connection | None = None
        self._write_lock = threading.Lock()
        self._twins: tuple[int, dict[int, int]] = (-1, {})  # (note_seq, look-alike titles)

    def _folder(self, value: object, name: str = "folder") -> str:
        """A folder checked, then masked (a marker is a valid folder part)."""
        return self._mask(note_fields.folder(value, name))

    def _tags(self, value: object) -> list[str]:
        """Tags checked, then masked; checked again, as a masked tag may now equal another."""
        return note_fields.tags([self._mask(t) for t in note_fields.tags(value)])

    def close(self) -> None:
        with self._write_lock:
            if self._writer is not None:
                self._writer.close()
                self._writer = None

    # -- writing -----------------------------------------------------------------------------

    def _write(self) -> sqlite3.Connection:
        if self._writer is None:
            self._writer = db.connect(self._db_path, migrate_schema=False)
        return self._writer

    def _indexed(self) -> NoteIndexes | None:
        """After a write: the note indexes following the store (the vectors caught up, full
        text on its way); None (logged) if they cannot be: the note is saved all the same,
        and the next write or search catches them up from their marks."""
        try:
            index = self._index()
            index.after_write()
            return index
        except MemtuiError as exc:
            log.warning("notes indexes not updated: %s", exc.line())
            return None

    def save(
        self,
        title: str,
        body: str,
        layer: Layer,
        *,
        by: Author,
        folder: str = "",
        tags: Sequence[str] = (),
        source_session_id: str | None = None,
        source_message_uuid: str | None = None,
        project: str | None = None,
    ) -> SaveResult:
        """Save a new note; answer it with the similar notes and its flashbacks."""
        author = note_fields.author(by)
        row = store.NoteRow(
            id=0,
            title=self._mask(note_fields.title(title)),
            body=self._mask(note_fields.body(body)),
            layer=note_fields.layer(layer),
            folder=self._folder(folder),
            tags=self._tags(tags),
            created="",
            updated="",
            author=author,
            status=None,
            source_session=None,
            source_uuid=validate.optional_text("source_message_uuid", source_message_uuid, 100),
        )
        note_fields.rule_text(row.layer, row.body)
        if row.layer == "rule":
            row.status = "provisional" if author == "agent" else "approved"
        if source_session_id is not None:
            with db.translated(self._db_path):
                row.source_session = sessions.resolve(
                    self._conn(), validate.text("source_session_id", source_session_id, 100)
                )
        elif row.source_uuid is not None:
            raise InvalidArgument("source_message_uuid needs source_session_id")
        project = validate.optional_text("project", project, 4096)
        with self._write_lock, db.translated(self._db_path):
            conn = self._write()
            with store.writing(conn):
                self._title_free(conn, row.title, None)
                row.created = row.updated = note_fields.now()
                row.id = store.insert(conn, row)
                store.set_links(conn, row.id, note_fields.links(row.body))
        with db.translated(self._db_path):
            saved = _note(row, self._lookalikes(self._conn()))  # a lookalike is said at once
            index = self._indexed()
            if index is None:
                return SaveResult(saved, [], Flashbacks())
            vec = index.vector_of(row.id)
            if vec is None:  # deleted by another process already
                vec = index.encode([vector_text(row.title, row.body)])[0]
            near = index.nearest(vec, NOTE_POOL)
            similar = self._similar(near, row.id, 1.0 - self.config.similar_dist, SIMILAR_MAX)
            fb = find_flashbacks(self.config, self._conn(), near, self._messages, row, vec, project)
        return SaveResult(saved, similar, fb)

    def _title_free(self, conn: sqlite3.Connection, title: str, note_id: int | None) -> None:
        other = store.id_by_title(conn, title)
        if other is not None and other != note_id:
            raise InvalidArgument(
                f"title {title!r} is taken by note {other}",
                f"update note {other} instead, or choose another title",
            )

    def update(
        self,
        note_id: int,
        *,
        by: Author,
        title: str | None = None,
        body: str | None = None,
        tags: Sequence[str] | None = None,
        folder: str | None = None,
        layer: Layer | None = None,
        expected_updated: str | None = None,
    ) -> UpdatedNote:
        """Change the fields given (None: unchanged). An agent may change `state` notes only.
        `expected_updated`: the note's `updated` when the caller read it; a note changed
        since (elsewhere, while it was being edited) is refused, not overwritten."""
        note_id = note_fields.note_id(note_id)
        author = note_fields.author(by)
        new_title = None if title is None else self._mask(note_fields.title(title))
        new_body = None if body is None else self._mask(note_fields.body(body))
        new_tags = None if tags is None else self._tags(tags)
        new_folder = None if folder is None else self._folder(folder)
        new_layer = None if layer is None else note_fields.layer(layer)
        if all(v is None for v in (new_title, new_body, new_tags, new_folder, new_layer)):
            raise InvalidArgument("nothing to change: give title, body, tags, folder or layer")
        with self._write_lock, db.translated(self._db_path):
            conn = self._write()
            with store.writing(conn):
                old = self._stored(conn, note_id)
                if expected_updated is not None and old.updated != expected_updated:
                    raise InvalidArgument(
                        f"note {note_id} was changed elsewhere ({old.updated}) while you edited it",
                        "compare it with the note as saved now, and edit again",
                    )
                if author == "agent":
                    guard(conn, old, new_body, new_tags, "change")
                    if new_layer == "rule":
                        raise RuleUserOnly("only the person may make a note a rule")
                new = store.NoteRow(
                    old.id,
                    new_title if new_title is not None else old.title,
                    new_body if new_body is not None else old.body,
                    new_layer or old.layer,
                    new_folder if new_folder is not None else old.folder,
                    new_tags if new_tags is not None else list(old.tags),
                    old.created,
                    note_fields.now(),
                    old.author,
                    old.status,
                    old.source_session,
                    old.source_uuid,
                )
                note_fields.rule_text(new.layer, new.body)
                if new.layer != "rule":
                    new.status = None
                elif old.layer != "rule":
                    new.status = "approved"  # the person made it a rule
                renamed = store.key(new.title) != store.key(old.title)
                if renamed:
                    self._title_free(conn, new.title, note_id)
                store.update(conn, new)
                store.set_links(conn, note_id, note_fields.links(new.body))
                relinked = 0
                if new.title != old.title:
                    relinked = self._relink(conn, note_id, store.key(old.title), new.title, author)
        self._indexed()
        return UpdatedNote(**dataclasses.asdict(_note(new)), relinked=relinked)

    def _relink(
        self, conn: sqlite3.Connection, note_id: int, old_key: str, title: str, by: str
    ) -> int:
        """Links to a renamed note follow it: the bodies linking to it name its new title.
        Not in a rule or a past note when the agent renames or merges: a rule is the person's
        text and a past note says what happened, so their links keep the old title and
        dangle. Refusing the rename instead would tell the agent which rules link to it.
        Answers how many notes were rewritten."""
        relinked = 0
        for r in store.backlinks(conn, note_id):
            if by == "agent" and r.layer in ("rule", "past"):
                continue
            body = note_fields.renamed(r.body, old_key, title)
            if body != r.body:
                store.set_body(conn, r.id, body)
                store.set_links(conn, r.id, note_fields.links(body))
                relinked += 1
        store.unlink_renamed(conn, note_id)
        return relinked

    def _stored(self, conn: sqlite3.Connection, note_id: int) -> store.NoteRow:
        row = store.get(conn, note_id)
        if row is None:
            raise NotFound(f"note {note_id} not found", "it was deleted, or never saved")
        return row

    def delete(self, note_id: int, *, by: Author) -> Note:
        """Delete a note (the deleted note is returned); links to it become dangling."""
        note_id = note_fields.note_id(note_id)
        author = note_fields.author(by)
        with self._write_lock, db.translated(self._db_path):
            conn = self._write()
            with store.writing(conn):
                row = self._stored(conn, note_id)
                if author == "agent":
                    guard(conn, row, None, None, "delete")
                store.delete(conn, note_id)
        self._indexed()
        return _note(row)

    def merge(self, note_id: int, into: int, *, by: Author) -> Note:
        """Merge note `note_id` into note `into`, all or nothing, in one transaction: its text
        goes under its title at the end of `into`, its tags join, links to it lead to `into`,
        its source conversation too when `into` has none, and it is deleted. The merged note
        `into` is returned."""
        note_id = note_fields.note_id(note_id)
        into = note_fields.note_id(into, "into")
        author = note_fields.author(by)
        if note_id == into:
            raise InvalidArgument(f"into is note {into} itself: merge a note into another")
        with self._write_lock, db.translated(self._db_path):
            conn = self._write()
            with store.writing(conn):
                gone = self._stored(conn, note_id)
                target = self._stored(conn, into)
                self._relink(conn, note_id, store.key(gone.title), target.title, author)
                old = self._stored(conn, into)  # again: its own links to `gone` follow too
                body = note_fields.body(
                    f"{old.body.rstrip()}\n\n## {gone.title}\n\n{gone.body.strip()}\n".lstrip()
                )
                tags = note_fields.tags([*old.tags, *gone.tags])
                if author == "agent":
                    guard(conn, old, body, tags, "change")
                    guard(conn, gone, None, None, "delete")
                new = dataclasses.replace(old, body=body, tags=tags, updated=note_fields.now())
                if new.source_session is None and gone.source_session is not None:
                    # the merged text still leads back to the conversation it came from
                    new.source_session, new.source_uuid = gone.source_session, gone.source_uuid
                    store.set_source(conn, into, new.source_session, new.source_uuid)
                store.update(conn, new)
                store.set_links(conn, into, note_fields.links(body))
                store.delete(conn, note_id)
        self._indexed()
        return _note(new)

    def approve(self, note_id: int, *, by: Author = "person") -> Note:
        """Approve a provisional rule: from now on it is a house rule."""
        note_id = note_fields.note_id(note_id)
        if note_fields.author(by) == "agent":
            raise RuleUserOnly("only the person may approve a rule")
        with self._write_lock, db.translated(self._db_path):
            conn = self._write()
            with store.writing(conn):
                row = self._stored(conn, note_id)
                if row.layer != "rule":
                    raise InvalidArgument(f"note {note_id} is a {row.layer} note, not a rule")
                row.status, row.updated = "approved", note_fields.now()
                store.set_status(conn, note_id, row.status, row.updated)
        return _note(row)

    # -- reading -----------------------------------------------------------------------------

    def get(self, note_id: int) -> NoteDetail:
        """A note with its links (dangling ones too), backlinks and source."""
        note_id = note_fields.note_id(note_id)
        with db.translated(self._db_path):
            conn = self._conn()
            twins = self._lookalikes(conn)
            row = self._stored(conn, note_id)
            links = [NoteLink(t, s, i) for t, s, i in store.links(conn, note_id)]
            back = [ref(r) for r in store.backlinks(conn, note_id)]
            return NoteDetail(_note(row, twins), links, back, self._source(conn, row))

    def _lookalikes(self, conn: sqlite3.Connection) -> dict[int, int]:
        """The notes whose titles look like another's, read again only when a note changed.
        The mark is read first: titles newer than it are read again next time, never kept."""
        seq = store.note_seq(conn)
        if self._twins[0] != seq:
            self._twins = (seq, lookalike.twins(store.titles_by_id(conn)))
        return self._twins[1]

    def _source(self, conn: sqlite3.Connection, row: store.NoteRow) -> NoteSource | None:
        if not row.source_session:
            return None
        s = conn.execute(
            """SELECT p.path, coalesce(s.custom_title, s.summary_title, s.first_prompt, '')
               FROM sessions s JOIN projects p ON p.id = s.project_id WHERE s.id = ?""",
            (row.source_session,),
        ).fetchone()
        index = None
        if row.source_uuid:
            m = conn.execute(
                "SELECT idx FROM messages WHERE session_id = ? AND uuid = ?",
                (row.source_session, row.source_uuid),
            ).fetchone()
            index = m[0] if m else None
        return NoteSource(
            row.source_session,
            row.source_uuid,
            index,
            s[0] if s else None,
            short_title(s[1], HIT_TITLE_CUT) if s else "",
        )

    def list(
        self,
        folder: str | None = None,
        tag: str | None = None,
        layer: Layer | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[Note]:
        """Newest (last updated) first; `folder` takes in its subfolders."""
        validate.page(limit, offset)
        f, t, lay = self._filters(folder, tag, layer)
        with db.translated(self._db_path):
            conn = self._conn()
            twins = self._lookalikes(conn)
            return [_note(r, twins) for r in store.listing(conn, f, t, lay, limit, offset)]

    def count(
        self, folder: str | None = None, tag: str | None = None, layer: Layer | None = None
    ) -> int:
        f, t, lay = self._filters(folder, tag, layer)
        with db.translated(self._db_path):
            return store.count(self._conn(), f, t, lay)

    def _filters(
        self, folder: str | None, tag: str | None, layer: str | None
    ) -> tuple[str | None, str | None, str | None]:
        # masked as stored: a filter naming a secret finds the note that holds its marker
        one_tag = note_fields.one_tag(tag)
        return (  # folder "": the notes in no folder
            None if folder is None else self._folder(folder),
            None if one_tag is None else self._mask(one_tag),
            None if layer is None else note_fields.layer(layer),
        )

    def folders(self) -> builtins.list[FolderCount]:
        with db.translated(self._db_path):
            return [FolderCount(f, n) for f, n in store.folders(self._conn())]

    def tags(self) -> builtins.list[TagCount]:
        with db.translated(self._db_path):
            return [TagCount(t, n) for t, n in store.tags(self._conn())]

    def titles(self, prefix: str = "", limit: int = 20) -> builtins.list[str]:
        """Titles starting with `prefix` (any case), last updated first: `[[` completion."""
        validate.page(limit, 0)
        prefix = validate.text("prefix", prefix, MAX_TITLE_CHARS)
        with db.translated(self._db_path):
            return store.titles(self._conn(), prefix.strip(), limit)

    def rules(self, status: RuleStatus | None = None) -> builtins.list[Note]:
        """Rules: provisional ones (awaiting the person) first, newest first within; with
        `status`, only those, newest first."""
        if status is not None and status not in RULE_STATUSES:
            raise InvalidArgument(
                f"status must be one of {', '.join(RULE_STATUSES)}, not {status!r}"
            )
        with db.translated(self._db_path):
            conn = self._conn()
            twins = self._lookalikes(conn)
            rows = store.rules(conn, status)
        return [_note(r, twins) for r in (rows if status is None else reversed(rows))]

    def applies_in(self, notes: Sequence[Note]) -> dict[int, builtins.list[str]]:
        """The projects each note applies in, by its folder (SPEC's scoping of rules and
        signals); an empty list: everywhere."""
        with db.translated(self._db_path):
            found = folder_projects(self._conn(), {n.folder for n in notes})
        return {n.id: found[n.folder] for n in notes}

    def house_rules(self, max_chars: int | None = None) -> HouseRules:
        return read_house_rules(self.config, max_chars)

    # -- search ------------------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        offset: int = 0,
        mode: str = "hybrid",
        layer: Layer | None = None,
        folder: str | None = None,
        tag: str | None = None,
        date_from: str | date | datetime | None = None,
        date_to: str | date | datetime | None = None,
        flashbacks: bool = True,
        project: str | None = None,
    ) -> NoteSearchResponse:
        """Notes only, never messages: full text and vectors fused (mode "hybrid"), as
        messages are (search.fuse). Only matches are results: notes with the words, or near
        in meaning; when none is, `nearest` holds the nearest however far, to be shown apart."""
        query = validate.text("query", query)
        mode = MODE_ALIASES.get(mode, mode)
        if mode not in MODES:
            raise InvalidArgument(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        validate.page(limit, offset, reach=validate.REACH)
        f, t, lay = self._filters(folder, tag, layer)
        start = _bound(date_from, "date_from", end=False)
        end = _bound(date_to, "date_to", end=True)
        if start is not None and end is not None and start >= end:  # swapped: nothing between
            raise InvalidArgument(
                f"date_from ({date_from}) is not before date_to ({date_to}): no note falls "
                "between them; swap them"
            )
        project = validate.optional_text("project", project, 4096)
        with db.translated(self._db_path):
            conn = self._conn()
            index = self._index()
            searchable(index.fts, [query], 'type words, a "quoted phrase" or a prefix*')
            if f is not None and not store.under(conn, f):
                raise NotFound(
                    f"no note is in a folder {f!r}", "leave it out to search every folder"
                )
            index.catch_up()
            filtered = any(v is not None for v in (f, t, lay, start, end))
            allowed = store.matching_ids(conn, f, t, lay, start, end) if filtered else None
            want = min(offset + limit, validate.REACH)
            # One order for every page: notes are few, so each ranking gives all it can
            # reach (a depth that grew with the page would order each page differently).
            depth = validate.REACH
            fts_ranked: list[tuple[int, float]] = []
            sims: dict[int, float] = {}
            lifts: dict[int, float] = {}
            if mode != "vector":
                weight = index.fts.weight(query) or 1.0
                hits = index.fts.search(query, None, depth)
                fts_ranked = [
                    (nid, score / weight)
                    for nid, score in hits
                    if allowed is None or nid in allowed
                ]
            if mode != "fts" and query.strip():
                vec = index.encode([query])[0]
                base = float(near.baselines(index, [query], vec[None])[0])
                sims = {nid: 1.0 - d for nid, d in index.nearest(vec, depth, allowed)}
                missing = [nid for nid, _ in fts_ranked if nid not in sims]
                found_too = index.similarities(missing, vec) if missing and mode == "hybrid" else {}
                lifts = {nid: sim - base for nid, sim in (sims | found_too).items()}
            close = {nid for nid in sims if lifts[nid] >= NEAR_LIFT}
            if mode == "fts":
                ranked = fts_ranked
            elif mode == "vector":
                ranked = sorted(((n, sims[n]) for n in close), key=lambda kv: (-kv[1], -kv[0]))
            else:
                ranked = fuse(fts_ranked, lifts)
            found = {"fts": {n for n, _ in fts_ranked}, "vector": close}
            terms = index.fts.terms(query)

            def hits_of(page: list[tuple[int, float]]) -> list[NoteHit]:
                rows = store.many(conn, [nid for nid, _ in page])
                return [
                    NoteHit(
                        ref(rows[nid]),
                        snippet(f"{rows[nid].title}\n{rows[nid].body}", terms),
                        round(float(score), 6),
                        [name for name, ids in found.items() if nid in ids] or ["vector"],
                    )
                    for nid, score in page
                    if nid in rows
                ]

            # Nothing matched: the nearest however far, set apart, by their similarity.
            far = sorted(sims.items(), key=lambda kv: (-kv[1], -kv[0])) if not ranked else []
            fb = Flashbacks()
            if flashbacks and ranked and ranked[0][0] in (top := store.many(conn, [ranked[0][0]])):
                anchor = top[ranked[0][0]]
                anchor_vec = index.vector_of(anchor.id)
                if anchor_vec is not None:
                    near_notes = index.nearest(anchor_vec, NOTE_POOL)
                    fb = find_flashbacks(
                        self.config, conn, near_notes, self._messages, anchor, anchor_vec, project
                    )
            return NoteSearchResponse(
                hits_of(ranked[offset:want]),
                len(ranked),
                mode,
                fb,
                offset,
                limit,
                nearest=hits_of(far[: min(limit, NEAREST)]),
            )

    def find_duplicates(
        self,
        note_id: int | None = None,
        text: str | None = None,
        threshold: float = 0.85,
        limit: int = 10,
    ) -> builtins.list[SimilarNote]:
        """Notes at least `threshold` similar (cosine) to a note or to a text."""
        if (note_id is None) == (text is None):
            raise InvalidArgument("give exactly one of note_id and text")
        if (
            isinstance(threshold, bool)
            or not isinstance(threshold, int | float)
            or not MIN_DUPLICATE <= threshold <= MAX_DUPLICATE
        ):
            raise InvalidArgument(
                f"threshold must be from {MIN_DUPLICATE} to {MAX_DUPLICATE}, not {threshold!r}"
            )
        validate.page(limit, 0, max_limit=50)
        with db.translated(self._db_path):
            if note_id is not None:
                note_id = note_fields.note_id(note_id)
                self._stored(self._conn(), note_id)
            index = self._index()
            index.catch_up()
            if note_id is not None:
                vec = index.vector_of(note_id)
            else:
                vec = index.encode([note_fields.body(text, "text")])[0]
            if vec is None:
                return []
            near = index.nearest(vec, limit + 1)
            return self._similar(near, note_id, float(threshold), limit)

    def _similar(
        self, near: builtins.list[tuple[int, float]], exclude: int | None, least: float, keep: int
    ) -> builtins.list[SimilarNote]:
        near = [(n, d) for n, d in near if n != exclude and 1.0 - d >= least][:keep]
        rows = store.refs(self._conn(), [n for n, _ in near])
        return [SimilarNote(ref(rows[n]), round(d, 4)) for n, d in near if n in rows]

    def flashbacks(self, note_id: int, project: str | None = None) -> Flashbacks:
        """Older notes from other folders and past conversations in other projects."""
        note_id = note_fields.note_id(note_id)
        project = validate.optional_text("project", project, 4096)
        with db.translated(self._db_path):
            conn = self._conn()
            row = self._stored(conn, note_id)
            index = self._index()
            index.catch_up()
            vec = index.vector_of(note_id)
            if vec is None:
                return Flashbacks()
            near = index.nearest(vec, NOTE_POOL)
            return find_flashbacks(self.config, conn, near, self._messages, row, vec, project)

    # -- bulk: export and import -------------------------------------------------------------

    def export_all(self) -> builtins.list[Note]:
        """Every note, by id, with its timestamps, author, rule status and source."""
        with db.translated(self._db_path):
            return [_note(r) for r in store.everything(self._conn())]

    def import_notes(
        self, notes: Sequence[Note], on_conflict: OnConflict = "error"
    ) -> ImportReport:
        """Insert notes as given (ids, timestamps, author, status) in one transaction: every
        one or none. A bad or conflicting item raises InvalidArgument("notes[i]: …") with
        `.item = i`."""
        if on_conflict not in ON_CONFLICT:
            raise InvalidArgument(
                f"on_conflict must be one of {', '.join(ON_CONFLICT)}, not {on_conflict!r}"
            )
        rows = [self._checked(i, n) for i, n in enumerate(notes)]
        seen_ids: dict[int | str, int] = {}
        seen_titles: dict[int | str, int] = {}
        for i, r in enumerate(rows):
            for seen, k, what in (
                (seen_ids, r.id, "id"),
                (seen_titles, store.key(r.title), "title"),
            ):
                if k in seen:
                    raise ItemInvalid(i, f"{what} repeats notes[{seen[k]}]")
                seen[k] = i
        report = ImportReport(0, 0, 0)
        with self._write_lock, db.translated(self._db_path):
            conn = self._write()
            with store.writing(conn):
                added: list[store.NoteRow] = []
                for i, r in enumerate(rows):
                    held = r.id if store.get(conn, r.id) else None
                    clash = {i for i in (held, store.id_by_title(conn, r.title)) if i is not None}
                    if clash:
                        if on_conflict == "error":
                            raise ItemInvalid(
                                i,
                                f"note {r.id} ({r.title!r}) conflicts with a stored note",
                                "import with `on_conflict` skip to keep the stored notes,"
                                " or overwrite to replace them",
                            )
                        if on_conflict == "skip":
                            report.skipped += 1
                            continue
                        for other in clash:
                            store.delete(conn, other)
                        report.overwritten += 1
                    else:
                        report.added += 1
                    store.insert(conn, r, keep_id=True)
                    added.append(r)
                for r in added:
                    store.set_links(conn, r.id, note_fields.links(r.body))
        self._indexed()
        return report

    def _checked(self, i: int, n: Note) -> store.NoteRow:
        try:
            if not isinstance(n, Note):
                raise InvalidArgument(f"is a {type(n).__name__}, not a Note")
            layer = note_fields.layer(n.layer)
            status = n.status
            if layer == "rule" and status not in RULE_STATUSES:
                raise InvalidArgument(f"status must be one of {', '.join(RULE_STATUSES)}")
            if layer != "rule" and status is not None:
                raise InvalidArgument("status is for rules only")
            created = note_fields.when(n.created, "created")
            updated = note_fields.when(n.updated, "updated")
            if created is None or updated is None:
                raise InvalidArgument("created and updated are required")
            return store.NoteRow(
                note_fields.note_id(n.id, "id"),
                self._mask(note_fields.title(n.title)),
                self._mask(note_fields.body(n.body)),
                layer,
                self._folder(n.folder),
                self._tags(n.tags),
                created,
                updated,
                note_fields.author(n.author, "author"),
                status,
                validate.optional_text("source_session_id", n.source_session_id, 100),
                validate.optional_text("source_message_uuid", n.source_message_uuid, 100),
            )
        except InvalidArgument as exc:
            raise ItemInvalid(i, str(exc)) from None


class ItemInvalid(InvalidArgument):
    """A bad item of an import: `item` is its index in the list given."""

    def __init__(self, item: int, message: str, hint: str | None = None) -> None:
        super().__init__(f"notes[{item}]: {message}", hint)
        self.item = item
