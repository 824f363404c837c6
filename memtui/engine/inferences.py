"""Inferences: the `memory.inferences` service.

An inference is a person's conclusion, never memtui's: minting is refused unless
`confirmed` is the boolean True, whoever calls. Each piece of evidence keeps its text and
hash from mint time; listing and getting compare them with the store, so a changed or
deleted note (or a forgotten session) marks the inference stale and says which.

Light on purpose (SQLite only): the SessionStart hook counts stale inferences through it.
"""

from __future__ import annotations

import builtins
import dataclasses
import difflib
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from memtui.config import Config
from memtui.engine import validate
from memtui.engine.signal_types import INFERENCE_STATUSES, Counts, Evidence, Inference
from memtui.errors import InvalidArgument, NotConfirmed, NotFound
from memtui.store import db
from memtui.store import notes as notes_store
from memtui.store import signals as store

if TYPE_CHECKING:  # the masker's patterns take ~30 ms to load: not for the MCP handshake's counts
    from memtui.store.mask import Masker

MAX_SUMMARY = 10_000
BUSY_MS = 200


@dataclass(slots=True)
class Portable:
    """An inference as an export carries it: its signal by fingerprint, not by id."""

    inference: store.InferenceRow
    evidence: list[store.EvidenceRow]
    signal: str | None


def _now() -> str:
    return datetime.now(UTC).isoformat()


class Inferences:
    def __init__(
        self,
        config: Config,
        reader: Callable[[], sqlite3.Connection],
        masker: Masker | None = None,
    ) -> None:
        self.config = config
        self._conn = reader
        self._writer = db.Writer(config.db_path)
        # A title and summary are masked before the store sees them (store/mask.py).
        self._mask: Callable[[str], str] = masker.mask if masker is not None else str

    def close(self) -> None:
        self._writer.close()

    def mint(
        self,
        title: str,
        summary: str,
        confidence: float,
        *,
        confirmed: object,
        evidence_note_ids: Sequence[int] = (),
        evidence_message_uuids: Sequence[str] = (),
        signal_id: int | None = None,
    ) -> Inference:
        """A person's conclusion from evidence. Refused (NOT_CONFIRMED, nothing written)
        unless `confirmed` is the boolean True; every piece of evidence must exist."""
        if confirmed is not True:
            raise NotConfirmed(
                "mint_inference needs confirmed: true (the boolean)",
                "ask the person to approve this inference, then call again with confirmed true",
            )
        title = self._mask(validate.text("title", title, 300).strip())
        if not title:
            raise InvalidArgument("title is empty")
        summary = self._mask(validate.text("summary", summary, MAX_SUMMARY).strip())
        if isinstance(confidence, bool) or not isinstance(confidence, int | float):
            raise InvalidArgument("confidence must be a number from 0 to 1")
        if not 0.0 <= float(confidence) <= 1.0:
            raise InvalidArgument(f"confidence must be from 0 to 1, not {confidence}")
        note_ids = sorted({validate.positive("evidence_note_ids", i) for i in evidence_note_ids})
        uuids = sorted(
            {validate.text("evidence_message_uuids", u, 100) for u in evidence_message_uuids}
        )
        empty = InvalidArgument(
            "evidence_note_ids and evidence_message_uuids are both empty",
            "give at least one note or message the inference rests on",
        )
        if signal_id is None and not note_ids and not uuids:
            raise empty
        if signal_id is not None:
            validate.positive("signal_id", signal_id)
        created = _now()
        with db.translated(self.config.db_path), self._writer.transaction() as conn:
            if signal_id is not None:
                signal = store.get(conn, signal_id)
                if signal is None:
                    raise NotFound(f"signal {signal_id} not found")
                if signal.status == "synthesized":
                    raise InvalidArgument(f"signal {signal_id} is already synthesized")
                if not note_ids and not uuids:  # none named: the signal's own, as the TUI offers
                    note_ids, uuids = sorted(signal.note_ids), _uuids(conn, signal.message_ids)
                if not note_ids and not uuids:
                    raise empty
                store.set_status(conn, signal_id, "synthesized", None, created)
            evidence = _evidence_now(conn, note_ids, uuids)
            missing = [f"note {i}" for i in note_ids if ("note", str(i)) not in evidence]
            missing += [f"message {u}" for u in uuids if ("message", u) not in evidence]
            if missing:
                raise NotFound(f"no such evidence: {', '.join(missing)}")
            new_id = store.add_inference(
                conn,
                store.InferenceRow(0, title, summary, float(confidence), signal_id, created),
                _rows(evidence),
            )
        return self.get_inference(new_id)

    # -- a stale inference: its person keeps or drops it (the TUI and the CLI: not MCP) ----

    def keep(self, inference_id: int) -> Inference:
        """A stale inference its person still holds: each piece of evidence is recorded as it
        reads now, and one deleted since leaves it. Refused when none is left: drop it."""
        validate.positive("inference_id", inference_id)
        with db.translated(self.config.db_path), self._writer.transaction() as conn:
            if not store.inferences(conn, [inference_id]):
                raise _unknown(inference_id)
            now = _evidence_of(conn, store.evidence(conn, inference_id))
            if not now:
                raise InvalidArgument(
                    f"inference {inference_id} has no evidence left: all it rested on is deleted",
                    "drop it instead",
                )
            store.put_evidence(conn, inference_id, _rows(now))
        return self.get_inference(inference_id)

    def drop(self, inference_id: int) -> Inference:
        """Delete an inference; the signal it came from is new again (no inference holds
        it). Answers the inference as it was."""
        gone = self.get_inference(inference_id)
        with db.translated(self.config.db_path), self._writer.transaction() as conn:
            # Read again under the write lock: another process may have dropped it since.
            rows = store.inferences(conn, [inference_id])
            if not rows:
                raise _unknown(inference_id)
            (row,) = rows
            store.drop_inference(conn, inference_id)
            signal = store.get(conn, row.signal_id) if row.signal_id is not None else None
            # An import can bring a second inference on the same signal: it still holds it.
            held = signal is not None and store.holds(conn, signal.id)
            if signal is not None and signal.status == "synthesized" and not held:
                store.set_status(conn, signal.id, "new", None, _now())
        return gone

    def list(self, status: str | None = None) -> list[Inference]:
        """Every inference, newest first, each re-checked against the store first."""
        if status is not None:
            validate.choice("status", status, INFERENCE_STATUSES)
        with db.translated(self.config.db_path):
            found = checked(self._conn(), None)
        return [i for i in found if status is None or i.status == status]

    def get_inference(self, inference_id: int) -> Inference:
        """One inference with its full provenance: each piece of evidence unchanged, changed
        (with a diff from its text at mint time) or deleted."""
        validate.positive("inference_id", inference_id)
        with db.translated(self.config.db_path):
            found = checked(self._conn(), [inference_id], diffs=True)
        if not found:
            raise _unknown(inference_id)
        return found[0]

    # -- export and import (engine/transfer.py writes and reads the records) ----------------

    def dump(self) -> tuple[builtins.list[store.SignalRow], builtins.list[Portable]]:
        """Every signal decided on, and every inference with its evidence and the
        fingerprint of the signal it came from."""
        with db.translated(self.config.db_path):
            conn = self._conn()
            triage = store.triaged(conn)
            prints = {r.id: r.fingerprint for r in triage}
            found = [
                Portable(row, store.evidence(conn, row.id), prints.get(row.signal_id or 0))
                for row in reversed(store.inferences(conn))
            ]
        return triage, found

    def load(
        self, triage: Sequence[store.SignalRow], found: Sequence[Portable], on_conflict: str
    ) -> tuple[int, int, int]:
        """Bring in decisions and inferences in one transaction. A signal's decision always
        lands (the newer of two decisions is the import's); an inference whose id is taken
        by another: kept (skip), replaced (overwrite) or refused (error). Answers (added,
        overwritten, skipped) inferences."""
        added = overwritten = skipped = 0
        with db.translated(self.config.db_path), self._writer.transaction() as conn:
            for decided in triage:
                title, detail = self._mask(decided.title), self._mask(decided.detail)
                store.put_triage(conn, dataclasses.replace(decided, title=title, detail=detail))
            for item in found:
                row = dataclasses.replace(
                    item.inference,
                    title=self._mask(item.inference.title),
                    summary=self._mask(item.inference.summary),
                )
                evidence = [self._masked(e) for e in item.evidence]
                if item.signal is not None:
                    signal = store.by_fingerprint(conn, item.signal)
                    row.signal_id = signal.id if signal else None
                existing = store.inferences(conn, [row.id])
                if existing:
                    same = existing[0] == row and store.evidence(conn, row.id) == evidence
                    if same or on_conflict == "skip":
                        skipped += 1
                        continue
                    if on_conflict == "error":
                        raise InvalidArgument(
                            f"inference {row.id} exists with other content",
                            "import with --on-conflict skip or overwrite",
                        )
                    store.drop_inference(conn, row.id)
                    overwritten += 1
                else:
                    added += 1
                store.add_inference(conn, row, evidence, keep_id=True)
        return added, overwritten, skipped

    def _masked(self, e: store.EvidenceRow) -> store.EvidenceRow:
        """Imported evidence masked as the store's own texts are (its hash follows)."""
        text = self._mask(e.text)
        return store.EvidenceRow(e.kind, e.ref, self._mask(e.title), text, store.text_hash(text))


def checked(
    conn: sqlite3.Connection, ids: Sequence[int] | None, diffs: bool = False
) -> list[Inference]:
    """Inferences (all, or `ids`), newest first, each piece of evidence compared with the
    store as it is now."""
    out = []
    for row in store.inferences(conn, ids):
        kept = store.evidence(conn, row.id)
        now = _evidence_of(conn, kept)
        evidence = []
        for e in kept:
            current = now.get((e.kind, e.ref))
            if current is None:
                evidence.append(Evidence(e.kind, e.ref, e.title, "deleted"))
            elif store.text_hash(current[1]) != e.hash:
                diff = _diff(e.text, current[1]) if diffs else None
                evidence.append(Evidence(e.kind, e.ref, e.title, "changed", diff))
            else:
                evidence.append(Evidence(e.kind, e.ref, e.title, "unchanged"))
        stale = any(e.state != "unchanged" for e in evidence)
        out.append(
            Inference(
                row.id,
                row.title,
                row.summary,
                row.confidence,
                row.signal_id,
                row.created,
                "stale" if stale else "active",
                citation(row.id, row.confidence, kept),
                evidence,
            )
        )
    return out


def counts(conn: sqlite3.Connection) -> Counts:
    """New signals and stale inferences, from the store as it is: no detection run, no index,
    no model (the MCP instructions and the SessionStart hook say these, never content)."""
    new = store.counts(conn, _now()).get("new", 0)
    return Counts(new, sum(1 for i in checked(conn, None) if i.status == "stale"))


def waiting(config: Config) -> Counts | None:
    """`counts` on a read-only connection of its own that waits at most BUSY_MS for a lock
    (the MCP handshake and the SessionStart hook must not be held up); None without an
    archive, or when the store cannot be read now."""
    if not config.db_path.exists():
        return None
    try:
        conn = db.read_only(config.db_path, BUSY_MS)
        try:
            return counts(conn)
        finally:
            conn.close()
    except sqlite3.Error:
        return None


def citation(inference_id: int, confidence: float, evidence: Sequence[store.EvidenceRow]) -> str:
    """`[Inference #42, conf 0.78, from notes #1, #2]` (messages by their uuid's first 8)."""
    notes = [f"#{e.ref}" for e in evidence if e.kind == "note"]
    messages = [e.ref[:8] for e in evidence if e.kind == "message"]
    parts = []
    if notes:
        parts.append("notes " + ", ".join(notes))
    if messages:
        parts.append("messages " + ", ".join(messages))
    return f"[Inference #{inference_id}, conf {confidence:.2f}, from {' and '.join(parts)}]"


def _diff(before: str, after: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(), after.splitlines(), "at mint", "now", lineterm="", n=1
    )
    return "\n".join(lines)


def _unknown(inference_id: int) -> NotFound:
    return NotFound(
        f"inference {inference_id} not found",
        "list them with `list_inferences`",
    )


def _rows(evidence: dict[tuple[str, str], tuple[str, str]]) -> list[store.EvidenceRow]:
    """Evidence as it reads now (`_evidence_now`), to be kept with its hash."""
    return [
        store.EvidenceRow(kind, key, name, text, store.text_hash(text))
        for (kind, key), (name, text) in sorted(evidence.items())
    ]


def _uuids(conn: sqlite3.Connection, message_ids: Sequence[int]) -> list[str]:
    """The uuids of the messages (row ids) a signal holds."""
    out: list[str] = []
    for part in db.chunks(list(message_ids)):
        rows = conn.execute(
            f"SELECT uuid FROM messages WHERE id IN ({db.marks(part)})", tuple(part)
        )
        out += [r[0] for r in rows if r[0]]
    return sorted(out)


def _evidence_of(
    conn: sqlite3.Connection, kept: Sequence[store.EvidenceRow]
) -> dict[tuple[str, str], tuple[str, str]]:
    """`_evidence_now` of the notes and messages an inference kept."""
    return _evidence_now(
        conn,
        [int(e.ref) for e in kept if e.kind == "note"],
        [e.ref for e in kept if e.kind == "message"],
    )


def _evidence_now(
    conn: sqlite3.Connection, note_ids: Sequence[int], uuids: Sequence[str]
) -> dict[tuple[str, str], tuple[str, str]]:
    """(kind, ref) -> (name, text) for the evidence that exists now."""
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for note in notes_store.many(conn, list(note_ids)).values():
        out[("note", str(note.id))] = (note.title, _note_text(note.title, note.body))
    for part in db.chunks(list(uuids)):
        rows = conn.execute(
            f"""SELECT u.uuid, coalesce(s.custom_title, s.summary_title, s.first_prompt, ''),
                       m.text
                FROM uuids u JOIN messages m ON m.id = u.message_id
                JOIN sessions s ON s.id = m.session_id
                WHERE u.uuid IN ({db.marks(part)})""",
            tuple(part),
        )
        for uuid, title, text in rows:
            out[("message", uuid)] = (" ".join(str(title).split())[:120], text)
    return out


def _note_text(title: str, body: str) -> str:
    return f"{title}\n\n{body}"
