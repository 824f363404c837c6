"""Trace: check a draft against the record, claim by claim.

A draft is cut into claims (sentences, and list items). For each, the engine's own searches
over notes and messages bring candidates, and a candidate supports the claim by the share of
the claim's content words one passage of its text holds (sentences or lines running, up to
PASSAGE_CHARS; stemmed crudely, so "migrated" meets "migration").
A claim whose best support holds less than SUPPORTED of its words is listed as unsupported:
a suspected hallucination, for the person or Claude to check, not a verdict.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable

from memtui.engine import validate
from memtui.engine.signal_types import Claim, Support, Trace
from memtui.errors import InvalidArgument
from memtui.store import db
from memtui.store import notes as notes_store
from memtui.store.fts import STOP_WORDS

MAX_TEXT = 50_000  # SPEC: trace text
MAX_CLAIMS = 40  # claims checked per draft: each costs two searches
CANDIDATES = 5  # per search
SUPPORTED = 0.6  # share of a claim's content words its best support must hold
MIN_WORDS = 2  # a claim needs this many content words to be checkable at all
# A claim's support is found within this many characters running (whole sentences or lines,
# one at least): a long sentence wrapped over lines, a few sentences saying one thing.
PASSAGE_CHARS = 500

_CLAIMS = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])|\n\s*(?:[-*•]|\d+[.)])?\s*")
_WORDS = re.compile(r"[A-Za-z0-9_][\w.\-/]*[\w]|[A-Za-z0-9]")
_SUFFIX = re.compile(r"(?:ations?|ing|ed|es|s|ly|ion|ions|ment)$")


def claims(text: str) -> list[str]:
    parts = [" ".join(p.split()) for p in _CLAIMS.split(text)]
    return [p for p in parts if len(words(p)) >= MIN_WORDS][:MAX_CLAIMS]


def _stem(word: str) -> str:
    word = word.casefold()
    return _SUFFIX.sub("", word) if len(word) > 5 else word


def words(text: str) -> set[str]:
    return {
        _stem(w)
        for w in _WORDS.findall(text)
        if w.casefold() not in STOP_WORDS and (len(w) > 2 or w.isdigit())
    }


class Tracer:
    """`memory.trace`: `note_hits` and `message_hits` are the engine's searches, answering
    the ids of a claim's best candidates (note ids, message uuids)."""

    def __init__(
        self,
        reader: Callable[[], sqlite3.Connection],
        note_hits: Callable[[str], list[int]],
        message_hits: Callable[[str], list[str]],
    ) -> None:
        self._conn = reader
        self._note_hits = note_hits
        self._message_hits = message_hits

    def trace(self, text: str) -> Trace:
        text = validate.text("text", text, MAX_TEXT)
        found = claims(text)
        if not found:
            raise InvalidArgument(
                "text holds no claim to check", "give a draft of one or more sentences"
            )
        out = []
        for claim in found:
            support = sorted(self._support(claim), key=lambda s: -s.score)[:CANDIDATES]
            ok = bool(support) and support[0].score >= SUPPORTED
            out.append(Claim(claim, ok, [s for s in support if s.score >= SUPPORTED / 2]))
        return Trace(out, [c.text for c in out if not c.supported])

    def _support(self, claim: str) -> list[Support]:
        want = words(claim)
        conn = self._conn()
        out = []
        for note in notes_store.many(conn, self._note_hits(claim)).values():
            body = f"{note.title}\n{note.body}"
            out.append(
                Support("note", str(note.id), note.title, _excerpt(body, want), _share(want, body))
            )
        uuids = self._message_hits(claim)
        for part in db.chunks(uuids):
            rows = conn.execute(
                f"""SELECT u.uuid, m.session_id, m.idx, m.text, m.tool_output,
                           coalesce(s.custom_title, s.summary_title, s.first_prompt, '')
                    FROM uuids u JOIN messages m ON m.id = u.message_id
                    JOIN sessions s ON s.id = m.session_id
                    WHERE u.uuid IN ({db.marks(part)})""",
                tuple(part),
            )
            for uuid, session_id, idx, body, output, title in rows:
                full = f"{body}\n{output}"
                out.append(
                    Support(
                        "message",
                        uuid,
                        " ".join(str(title).split())[:120],
                        _excerpt(full, want),
                        _share(want, full),
                        session_id,
                        idx,
                    )
                )
        return out


def _share(want: set[str], text: str) -> float:
    """The share of the claim's words in the passage of `text` that holds most of them
    (sentences or lines running, PASSAGE_CHARS at most): a long message holds most words
    somewhere, and words scattered over it support nothing together."""
    if not want:
        return 0.0
    parts = _CLAIMS.split(text)
    held = [want & words(part) for part in parts]
    best = 0
    for start in range(len(parts)):
        found: set[str] = set()
        size = 0
        for part, words_held in zip(parts[start:], held[start:], strict=True):
            if size and size + len(part) > PASSAGE_CHARS:
                break
            found |= words_held
            size += len(part)
        best = max(best, len(found))
    return round(best / len(want), 3)


def _excerpt(text: str, want: set[str]) -> str:
    """The sentence of `text` holding most of the claim's words."""
    best = max(_CLAIMS.split(text), key=lambda s: len(want & words(s)))
    return " ".join(best.split())[:300]
