"""Signals: the `memory.signals` service.

Detection is deterministic and runs only when something it reads has changed: the notes
(`meta.note_seq` against `meta.signals_note_seq`), the messages (`meta.seq` against
`meta.errors_seq`, read incrementally), or the day (stale_state and tag_burst count days).
Asking for signals on an unchanged corpus is a read.
"""

from __future__ import annotations

import bisect
import builtins
import dataclasses
import itertools
import logging
import re
import sqlite3
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta

import numpy as np

from memtui.config import Config
from memtui.engine import detect, errortext, inferences, validate
from memtui.engine.detect import Found
from memtui.engine.flashbacks import ref
from memtui.engine.signal_types import (
    SIGNAL_STATUSES,
    SIGNAL_TYPES,
    Counts,
    MessageRef,
    Signal,
    SignalList,
)
from memtui.engine.snippets import snippet
from memtui.errors import InvalidArgument, MemtuiError, NotFound
from memtui.store import db
from memtui.store import notes as notes_store
from memtui.store import signals as store
from memtui.store.note_index import NoteIndexes

log = logging.getLogger(__name__)

# What a person may turn a signal into, by its status now (issue 19's triage).
TRANSITIONS: dict[str, tuple[str, ...]] = {
    "new": ("dismissed", "snoozed"),
    "snoozed": ("new",),
    "dismissed": ("new",),
    "synthesized": (),
}
TRANSITION_HINTS = {
    "new": "a new signal can be dismissed or snoozed",
    "snoozed": "set it back to new first",
    "dismissed": "set it back to new first",
    "synthesized": "an inference holds it: `list_inferences` shows which",
}
SNOOZE = re.compile(r"(\d{1,4})([hdw])")
DETECT_TRIES = 3  # runs a detection makes when forgets keep coming in between
MAX_ERROR_LINES = 20_000  # evidence lines kept between calls (a few MB at most)
_UNITS = {"h": 3_600, "d": 86_400, "w": 7 * 86_400}


def _now() -> datetime:
    return datetime.now(UTC)


class Signals:
    def __init__(
        self,
        config: Config,
        reader: Callable[[], sqlite3.Connection],
        note_index: Callable[[], NoteIndexes],
    ) -> None:
        self.config = config
        self._conn = reader
        self._note_index = note_index
        self._writer = db.Writer(config.db_path)
        self._detecting = threading.Lock()  # one run at a time: a second finds it done
        # (message uuid, signal title): the lines of that message reporting that error. A
        # stored message's text never changes under its uuid; one forgotten is not read again.
        self._error_lines: dict[tuple[str, str], str | None] = {}

    def close(self) -> None:
        self._writer.close()

    # -- detection ---------------------------------------------------------------------------

    def _dirty(self, conn: sqlite3.Connection, today: str) -> set[str]:
        """The detectors whose inputs changed since they last ran (none: nothing to do).
        Every detector reads the notes (recurring_error: whether a note mentions the error);
        new or forgotten messages feed recurring_error and stale_state (its newer sessions);
        a new day moves stale_state's and tag_burst's windows; a minted or imported
        inference may cover a hidden arc."""
        due: set[str] = set()
        if store.mark(conn, "signals_note_seq") != notes_store.note_seq(conn):
            due.update(SIGNAL_TYPES)
        if store.mark(conn, "errors_seq") != db.store_seq(conn):
            due.update(("recurring_error", "stale_state"))
        if store.mark(conn, "errors_scan") != detect.ERROR_SCAN:
            due.add("recurring_error")
        if store.day(conn) != today:
            due.update(("stale_state", "tag_burst"))
        if store.text_mark(conn, "signals_inferences") != store.inferences_mark(conn):
            due.add("hidden_arc")
        return due

    def detect(self, force: bool = False) -> None:
        """Run the detectors whose inputs changed (or all, `force`). They read on the reader
        connection, so the store's write lock is held only to record what they found (a
        run at 10,000 notes takes seconds, and a note saved meanwhile must not wait)."""
        with self._detecting, db.translated(self.config.db_path):
            # A forget in another process while this one read would be undone by what it
            # read (the forgotten session's errors, a note's title): read again after it.
            for _ in range(DETECT_TRIES):
                if self._detect_once(force):
                    return
            log.warning("detection gave way to %d forgets in a row: next time", DETECT_TRIES)

    def _detect_once(self, force: bool) -> bool:
        """One detection run; False, with nothing recorded, if a forget came in between."""
        now = _now()
        today = now.date().isoformat()
        conn = self._conn()
        forgets = store.mark(conn, store.FORGETS)  # before anything it is to guard is read
        due: set[str] = set(SIGNAL_TYPES) if force else self._dirty(conn, today)
        if not due:
            return True
        note_seq, inferred = notes_store.note_seq(conn), store.inferences_mark(conn)
        after, upto = store.mark(conn, "errors_seq"), db.store_seq(conn)
        # Sightings found by older rules are found again, all of them, by these.
        rescan = store.mark(conn, "errors_scan") != detect.ERROR_SCAN
        if upto > after or rescan:  # new messages: only they are scanned for errors
            sightings = detect.scan_errors(conn, 0 if rescan else after, upto)
            with self._writer.transaction() as w:
                if store.mark(w, store.FORGETS) != forgets:
                    return False
                if rescan:
                    store.clear_sightings(w)
                store.add_sightings(w, sightings)
                store.set_mark(w, "errors_seq", upto)
                store.set_mark(w, "errors_scan", detect.ERROR_SCAN)
        found = self._find(conn, due, now)
        with self._writer.transaction() as w:
            if store.mark(w, store.FORGETS) != forgets:
                return False
            store.upsert_found(w, [f.row() for f in found], sorted(due), now.isoformat())
            store.set_mark(w, "signals_note_seq", note_seq)
            store.set_mark(w, "signals_inferences", inferred)
            store.set_day(w, today)
        return True

    def _note_vectors(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Every note's vector, for hidden_arc; None (that detector skipped, logged) when
        the notes' vectors cannot be had."""
        try:
            index = self._note_index()
            index.catch_up()
            vectors = index.vectors
            ids = np.array(sorted(vectors.ids()), dtype=np.int64)
            return ids, vectors.vectors(ids) if len(ids) else np.zeros((0, 1), np.float32)
        except MemtuiError as exc:
            log.warning("hidden_arc skipped: note vectors unavailable: %s", exc.line())
            return None

    def _find(self, conn: sqlite3.Connection, due: set[str], now: datetime) -> list[Found]:
        """What the `due` detectors find; a detector that cannot run leaves `due` (its
        signals stay as they were)."""
        found: list[Found] = []
        if "dangling_link" in due:
            found += detect.dangling_links(conn)
        if "stale_state" in due:
            found += detect.stale_states(conn, now, self.config.stale_days)
        if "tag_burst" in due:
            found += detect.tag_bursts(conn, now)
        if "hidden_arc" in due:
            vectors = self._note_vectors()
            if vectors is None:
                due.discard("hidden_arc")
            else:
                found += detect.hidden_arcs(conn, *vectors, store.note_sets_covered(conn))
        if "recurring_error" in due:
            found += detect.recurring_errors(conn, self._mentioned(conn))
        return found

    @staticmethod
    def _mentioned(conn: sqlite3.Connection) -> Callable[[str], bool]:
        """Whether any note holds an error's name and most of its words. The notes are one
        text, searched for the name with `str.find`, so that only notes holding it are
        looked at: hundreds of signatures over 10,000 notes one by one took 0.7 s."""
        texts = [f"{t}\n{b}".casefold() for t, b in conn.execute("SELECT title, body FROM notes")]
        starts = list(itertools.accumulate((len(t) + 1 for t in texts), initial=0))
        everything = "\0".join(texts)

        def mentioned(signature: str) -> bool:
            name, words = errortext.error_words(signature)
            at = everything.find(name)
            while at >= 0:
                note = bisect.bisect_right(starts, at) - 1
                text = texts[note]
                if sum(w in text for w in words) * 2 >= len(words):
                    return True
                at = everything.find(name, starts[note + 1])
            return False

        return mentioned

    # -- signals -----------------------------------------------------------------------------

    def list(
        self, type: str | None = None, status: str | None = "new", limit: int = 50
    ) -> SignalList:
        """The newest `limit` signals of a type and status (None: any), and how many there are;
        detection runs first when anything it reads has changed. A snooze that has run out
        lists as new."""
        if type is not None:
            validate.choice("type", type, SIGNAL_TYPES)
        if status is not None:
            validate.choice("status", status, SIGNAL_STATUSES)
        validate.page(limit, 0)
        self.detect()
        self._wake()
        with db.translated(self.config.db_path):
            conn = self._conn()
            rows, total = store.listing(conn, type, status, limit)
            signals = self._signals(conn, rows)
        return SignalList(signals, total)

    def _wake(self) -> None:
        """Snoozes that have run out become new again (a write only when one has)."""
        now = _now().isoformat()
        with db.translated(self.config.db_path):
            if not store.any_woken(self._conn(), now):
                return
            with self._writer.transaction() as conn:
                store.wake_snoozed(conn, now)

    def get(self, signal_id: int) -> Signal:
        validate.positive("signal_id", signal_id)
        with db.translated(self.config.db_path):
            conn = self._conn()
            row = store.get(conn, signal_id)
            if row is None:
                raise NotFound(f"signal {signal_id} not found", "list them with `get_signals`")
            return self._signal(conn, row)

    def _signal(self, conn: sqlite3.Connection, r: store.SignalRow) -> Signal:
        return self._signals(conn, [r])[0]

    def _signals(
        self, conn: sqlite3.Connection, rows: Sequence[store.SignalRow]
    ) -> builtins.list[Signal]:
        """Signals with their evidence, read for all of them at once (a page of 50 took a
        query or two each)."""
        notes = notes_store.many(conn, sorted({i for r in rows for i in r.note_ids}))
        messages = _messages(conn, sorted({i for r in rows for i in r.message_ids}))
        return [
            Signal(
                r.id,
                r.type,
                r.title,
                r.detail,
                r.status,
                r.snooze_until,
                r.created,
                [ref(notes[i]) for i in r.note_ids if i in notes],
                [self._evidence(r, *messages[i]) for i in r.message_ids if i in messages],
            )
            for r in rows
        ]

    def _evidence(
        self, row: store.SignalRow, message: MessageRef, kind: str, text: str
    ) -> MessageRef:
        """A message as a signal's evidence: for a recurring error, the lines reporting it,
        found once per message and error (a page of signals holds hundreds of messages, and
        finding them again on every call cost an unchanged corpus 60 ms of its 70)."""
        if row.type != "recurring_error":
            return message
        key = (message.uuid, row.title)
        if key not in self._error_lines:
            if len(self._error_lines) >= MAX_ERROR_LINES:
                self._error_lines.clear()
            said = row.title.removesuffix(detect.ERROR_TITLE)
            self._error_lines[key] = errortext.error_lines(text, kind, said)
        lines = self._error_lines[key]
        return dataclasses.replace(message, snippet=lines[:300]) if lines else message

    def update_status(self, signal_id: int, status: str, snooze_until: str | None = None) -> Signal:
        """A person's triage, by hand: new → dismissed | snoozed, and snoozed or dismissed →
        new (a snooze also ends by itself when it runs out). new → synthesized is minting's;
        a synthesized signal stays so: its inference holds it. `snooze_until` (required for
        snoozed, refused otherwise) is an ISO date or date-time in the future, or a duration
        like `7d`, `12h`, `2w`."""
        validate.positive("signal_id", signal_id)
        validate.choice("status", status, ("new", "dismissed", "snoozed"))
        if status == "snoozed":
            until = _until(snooze_until)
        elif snooze_until is not None:
            raise InvalidArgument("`snooze_until` goes only with status 'snoozed'")
        else:
            until = None
        now = _now().isoformat()
        with db.translated(self.config.db_path), self._writer.transaction() as conn:
            row = store.get(conn, signal_id)
            if row is None:
                raise NotFound(f"signal {signal_id} not found", "list them with `get_signals`")
            if row.status == "snoozed" and row.snooze_until and row.snooze_until <= now:
                row.status = "new"  # its snooze has run out: it lists as new already
            if status not in TRANSITIONS[row.status]:
                said = f"signal {signal_id} is {row.status}"
                if row.status != status:
                    said += f": it cannot become {status}"
                raise InvalidArgument(said, TRANSITION_HINTS[row.status])
            store.set_status(conn, signal_id, status, until, now)
        return self.get(signal_id)

    def counts(self) -> Counts:
        """New signals and stale inferences (see `inferences.counts`)."""
        with db.translated(self.config.db_path):
            return inferences.counts(self._conn())


def _messages(
    conn: sqlite3.Connection, ids: Sequence[int]
) -> dict[int, tuple[MessageRef, str, str]]:
    """The messages by id, each with its kind and its text and tool output."""
    found: dict[int, tuple[MessageRef, str, str]] = {}
    for chunk in db.chunks(list(ids)):
        rows = conn.execute(
            f"""SELECT m.id, m.session_id, p.path,
                       coalesce(s.custom_title, s.summary_title, s.first_prompt, ''),
                       m.idx, m.uuid, m.ts, m.text, m.tool_output, m.kind
                FROM messages m JOIN sessions s ON s.id = m.session_id
                JOIN projects p ON p.id = s.project_id
                WHERE m.id IN ({db.marks(chunk)})""",
            chunk,
        )
        for r in rows:
            text = f"{r[7]}\n{r[8]}"
            found[r[0]] = (
                MessageRef(
                    r[1],
                    r[2],
                    " ".join(str(r[3]).split())[:120],
                    r[4],
                    r[5],
                    r[6],
                    snippet(text, [], "")[:300],
                ),
                r[9],
                text,
            )
    return found


def _until(value: str | None) -> str:
    if value is None:
        raise InvalidArgument(
            "`snooze_until` is needed to snooze", "give a duration like 7d or an ISO date-time"
        )
    text = validate.text("`snooze_until`", value, 40).strip()
    now = _now()
    if m := SNOOZE.fullmatch(text):
        if int(m[1]) == 0:  # a date-time now is refused as not in the future: so is 0d
            raise InvalidArgument(f"`snooze_until` {value!r} is no time at all", "give 1h or more")
        return (now + timedelta(seconds=int(m[1]) * _UNITS[m[2]])).isoformat()
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidArgument(
            "`snooze_until` must be a duration like 7d, 12h or 2w, or an ISO date-time, "
            f"not {value!r}"
        ) from None
    when = when if when.tzinfo else when.replace(tzinfo=UTC)
    if when <= now:
        raise InvalidArgument(f"`snooze_until` {value!r} is not in the future")
    return when.astimezone(UTC).isoformat()
