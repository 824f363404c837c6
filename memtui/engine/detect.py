"""The detectors: deterministic patterns over the notes and the conversations.

memtui notices; it never concludes. Each detector returns `Found` items whose fingerprint is
a hash of the detector and its evidence, so the same pattern found again is the same signal
(and keeps its triage) while new evidence makes a new one.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import numpy as np

from memtui.engine.errortext import SIGNATURE_REST, shows_files, signatures
from memtui.store import signals as store

# tag_burst: a tag used at least BURST_MIN times in the last BURST_DAYS, and at least
# BURST_FACTOR times its weekly rate over the BASE_WEEKS before (a new tag's rate is 0).
BURST_MIN = 3
BURST_DAYS = 7
BURST_FACTOR = 3.0
BASE_WEEKS = 8
# hidden_arc: at least ARC_MIN notes whose vectors lie within ARC_DIST (cosine distance) of
# one seed note, unlinked to each other, spanning ARC_FOLDERS folders or ARC_DAYS days. The
# model's vectors crowd together (bench/quality_results.md): unrelated notes sit at 0.4-0.6,
# notes on one subject in other words at 0.15-0.3, so 0.3 keeps subjects and drops mere topics.
ARC_MIN = 3
ARC_MAX = 8
ARC_DIST = 0.3
ARC_FOLDERS = 2
ARC_DAYS = 14
ARC_NEAREST = 32  # neighbours kept per note: an arc takes ARC_MAX of them at most
ARC_BLOCK = 1024  # rows of similarities at a time: ~40 MB at 10,000 notes
ARC_STRIDE = 8  # every 8th similarity of a row samples it for the floor of its nearest
# recurring_error: the same error in ERROR_SESSIONS sessions over at least ERROR_DAYS days.
ERROR_SESSIONS = 3
ERROR_DAYS = 7
# The error scan's rules: a new version scans every message again (meta.errors_scan).
# 3: a signature keeps `[Errno <n>]`'s opening bracket.
ERROR_SCAN = 3
ERROR_EVIDENCE = 10  # messages kept as evidence: the first sighting in each of that many sessions


@dataclass(slots=True)
class Found:
    type: str
    title: str
    detail: str
    notes: list[int]
    messages: list[int]  # row ids: for showing, not for the fingerprint (they change on reindex)
    key: str  # what besides the evidence makes it this signal
    sessions: list[str] = field(default_factory=list)  # the sessions of message evidence

    @property
    def fingerprint(self) -> str:
        """Of the type, the key and the evidence by ids that outlive a reindex or an export
        and import (note ids, session ids)."""
        evidence = json.dumps([self.type, self.key, sorted(self.notes), sorted(self.sessions)])
        return hashlib.sha256(evidence.encode()).hexdigest()[:32]

    @property
    def pattern(self) -> str:
        """Of the type and the key alone: the same pattern on other evidence."""
        return hashlib.sha256(json.dumps([self.type, self.key]).encode()).hexdigest()[:32]

    def row(self) -> tuple[str, str, str, str, list[int], list[int], str]:
        return (
            self.type,
            self.fingerprint,
            self.title,
            self.detail,
            self.notes,
            self.messages,
            self.pattern,
        )


def _epoch(iso: str) -> float:
    return datetime.fromisoformat(iso).timestamp()


def dangling_links(conn: sqlite3.Connection) -> list[Found]:
    rows = conn.execute(
        """SELECT target_key, min(target), group_concat(DISTINCT source_id)
           FROM note_links WHERE target_id IS NULL GROUP BY target_key ORDER BY target_key"""
    )
    out = []
    for key, target, sources in rows:
        ids = sorted(int(i) for i in str(sources).split(","))
        many = f"{len(ids)} notes link" if len(ids) > 1 else "a note links"
        out.append(
            Found(
                "dangling_link",
                f"[[{target}]] has no note",
                f"{many} to [[{target}]], and no note has that title: write it, or fix the link",
                ids,
                [],
                key,
            )
        )
    return out


def stale_states(conn: sqlite3.Connection, now: datetime, stale_days: int) -> list[Found]:
    """State notes untouched for `stale_days` while their folder has newer notes, or the
    project of the session they came from has newer sessions: the plan may have moved on."""
    cutoff = (now - timedelta(days=stale_days)).isoformat()
    rows = conn.execute(
        """SELECT n.id, n.title, n.updated,
                  (SELECT count(*) FROM notes o WHERE o.folder = n.folder AND o.id != n.id
                     AND o.updated > n.updated),
                  (SELECT count(*) FROM sessions s2
                     JOIN sessions s1 ON s1.project_id = s2.project_id
                     WHERE s1.id = n.source_session AND s2.id != s1.id
                       AND s2.last_epoch > CAST(strftime('%s', n.updated) AS INTEGER))
           FROM notes n WHERE n.layer = 'state' AND n.updated < ? ORDER BY n.id""",
        (cutoff,),
    )
    out = []
    for note_id, title, updated, newer_notes, newer_sessions in rows:
        if not (newer_notes or newer_sessions):
            continue
        days = int((now.timestamp() - _epoch(updated)) // 86_400)
        since = []
        if newer_notes:
            since.append(f"{newer_notes} newer notes in its folder")
        if newer_sessions:
            since.append(f"{newer_sessions} newer sessions in its project")
        out.append(
            Found(
                "stale_state",
                f"{title!r} may be out of date",
                f"state note not updated for {days} days, with {' and '.join(since)}",
                [note_id],
                [],
                updated,
            )
        )
    return out


def tag_bursts(conn: sqlite3.Connection, now: datetime) -> list[Found]:
    recent_from = (now - timedelta(days=BURST_DAYS)).isoformat()
    base_from = (now - timedelta(days=BURST_DAYS + 7 * BASE_WEEKS)).isoformat()
    rows = conn.execute(
        """SELECT t.tag_key, n.id, n.created >= ? FROM note_tags t JOIN notes n ON n.id = t.note_id
           WHERE n.created >= ? ORDER BY t.tag_key, n.id""",
        (recent_from, base_from),
    )
    by_tag: dict[str, tuple[list[int], list[int]]] = {}
    for tag, note_id, recent in rows:
        recent_ids, base_ids = by_tag.setdefault(tag, ([], []))
        (recent_ids if recent else base_ids).append(note_id)
    out = []
    for tag, (recent_ids, base_ids) in by_tag.items():
        rate = len(base_ids) / BASE_WEEKS
        if len(recent_ids) < BURST_MIN or len(recent_ids) < BURST_FACTOR * rate:
            continue
        out.append(
            Found(
                "tag_burst",
                f"#{tag} is suddenly busy",
                f"#{tag} on {len(recent_ids)} notes in {BURST_DAYS} days, against "
                f"{rate:.1f} a week over the {BASE_WEEKS} weeks before",
                recent_ids,
                [],
                tag,
            )
        )
    return out


def hidden_arcs(
    conn: sqlite3.Connection,
    ids: np.ndarray,
    vecs: np.ndarray,
    covered: Sequence[set[int]],
) -> list[Found]:
    """Notes close in meaning that nothing ties together yet: a star around a seed note (the
    one with most close neighbours first), so each note joins one arc at most and the result
    does not depend on the order notes were written in. No two notes of an arc are tied: by
    a link either way, or by being evidence of one inference (what an inference already
    covers is no news). Similarities are taken a block of rows at a time and only each
    note's ARC_NEAREST nearest are kept: at 10,000 notes a full matrix would be 400 MB."""
    n = len(ids)
    if n < ARC_MIN:
        return []
    order = np.argsort(ids)
    ids, vecs = ids[order], vecs[order]
    vecs = vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
    at = {int(i): k for k, i in enumerate(ids)}
    tied: dict[int, set[int]] = {}
    for a, b in conn.execute("SELECT source_id, target_id FROM note_links"):
        if a in at and b in at and a != b:
            tied.setdefault(a, set()).add(b)
            tied.setdefault(b, set()).add(a)
    for cover in covered:
        for a in cover:
            tied.setdefault(a, set()).update(cover - {a})
    pairs = [(at[a], at[b]) for a, others in tied.items() for b in others if a in at and b in at]
    linked = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    meta = {
        r[0]: (r[1], r[2], r[3])
        for r in conn.execute("SELECT id, folder, created, title FROM notes")
    }
    degree, close = _nearest(vecs, linked)
    taken: set[int] = set()
    out = []
    for row in sorted(close, key=lambda r: (-int(degree[r]), r)):
        seed = int(ids[row])
        if seed in taken or seed not in meta:
            continue
        group = [seed]
        for m in (int(ids[c]) for c in close[row]):
            if len(group) == ARC_MAX:
                break
            if m not in taken and m in meta and not tied.get(m, set()).intersection(group):
                group.append(m)
        group.sort()
        if len(group) < ARC_MIN:
            continue
        folders = {meta[m][0] for m in group}
        times = [_epoch(meta[m][1]) for m in group]
        days = (max(times) - min(times)) / 86_400
        if len(folders) < ARC_FOLDERS and days < ARC_DAYS:
            continue
        taken.update(group)
        out.append(
            Found(
                "hidden_arc",
                # the note first: two arcs side by side differ in their first words
                f"{meta[seed][2]!r} and {len(group) - 1} notes like it, unlinked",
                f"close in meaning across {len(folders)} folders and {days:.0f} days, "
                "with no link between them",
                group,
                [],
                "",
            )
        )
    return out


def _nearest(vecs: np.ndarray, linked: np.ndarray) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    """Each row's count of rows within ARC_DIST, and its nearest ARC_NEAREST of them (rows,
    nearest first) for rows that have any; a row and the rows `linked` to it excluded.

    At 10,000 notes this was 5 s: a top-k over every similarity of every row, and each
    similarity computed twice. Now each block of rows is multiplied only with the rows from
    its own on (a similarity serves both of its rows), and a row's k-th best among every
    ARC_STRIDE-th row is a floor under its k-th best overall (a sample's k-th best is never
    above the whole's), so only the few similarities above it are sorted."""
    n = len(vecs)
    k = min(ARC_NEAREST, n - 1)
    stride = ARC_STRIDE if n >= ARC_STRIDE * 4 * k else 1
    least = 1.0 - ARC_DIST
    sample = np.ascontiguousarray(vecs[::stride])
    floor = np.empty(n, dtype=np.float32)
    for start in range(0, n, ARC_BLOCK):
        block = vecs[start : start + ARC_BLOCK]
        sims = block @ sample.T
        _exclude(sims, start, 0, stride, linked)
        floor[start : start + len(block)] = np.partition(sims, sims.shape[1] - k, axis=1)[:, -k]
    floor = np.maximum(floor, least)
    degree = np.zeros(n, dtype=np.int64)
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for start in range(0, n, ARC_BLOCK):
        end = min(start + ARC_BLOCK, n)
        sims = vecs[start:end] @ vecs[start:].T  # rows start..end against rows start..n
        _exclude(sims, start, start, 1, linked)
        degree[start:end] += (sims >= least).sum(axis=1)
        degree[end:] += (sims[:, end - start :] >= least).sum(axis=0)
        r, c = np.nonzero(sims >= floor[start:end, None])  # as rows start..end see it
        found.append((r + start, c + start, sims[r, c]))
        r, c = np.nonzero(sims[:, end - start :] >= floor[None, end:])  # as the later rows do
        found.append((c + end, r + start, sims[r, c + end - start]))
    rows, cols, sim = (np.concatenate(part) for part in zip(*found, strict=True))
    by = np.argsort(rows * 4.0 + (1.0 - sim), kind="stable")  # by row, most similar first
    rows, cols = rows[by], cols[by]
    bounds = np.searchsorted(rows, np.arange(n + 1))
    close = {
        int(row): cols[bounds[row] : min(bounds[row] + k, bounds[row + 1])]
        for row in np.flatnonzero(bounds[1:] > bounds[:-1])
    }
    return degree, close


def _exclude(sims: np.ndarray, start: int, first: int, stride: int, linked: np.ndarray) -> None:
    """In a block of similarities (rows from `start`, columns every `stride`-th row from
    `first`), a row with itself and with the rows linked to it: -1, never near."""
    pairs = np.concatenate(
        [np.repeat(np.arange(start, start + len(sims)), 2).reshape(-1, 2), linked]
    )
    mine = (pairs[:, 0] >= start) & (pairs[:, 0] < start + len(sims))
    mine &= (pairs[:, 1] >= first) & ((pairs[:, 1] - first) % stride == 0)
    sims[pairs[mine, 0] - start, (pairs[mine, 1] - first) // stride] = -1.0


# -- errors in conversations -----------------------------------------------------------------

# Cheap pre-filter for SQL: a message holding none of these cannot match errortext's patterns.
_ERROR_HINTS = ("Error", "Exception", "FAILED", "error[", "error TS", "ERR_", "npm ERR!")
# Tools whose output shows files rather than something that ran: the code they show names
# errors that never happened.
_SHOWS_FILES = frozenset(
    ("Read", "Grep", "Glob", "LS", "NotebookRead", "Edit", "MultiEdit", "Write", "NotebookEdit")
)
ERROR_TITLE = " keeps coming back"  # after the signature, in a recurring_error's title
ERROR_TITLE_CHARS = 100  # of the signature in that title


def _key(signature: str) -> str:
    """A recurring_error's identity as ERROR_SCAN 2 wrote it (every bracket trimmed off the
    ends), so a signal dismissed then keeps its fingerprint: it never comes back."""
    name, said, rest = signature.partition(": ")
    return f"{name}: {rest.strip(' .,:;()[]')}" if said else signature


def _error_title(signature: str) -> str:
    """The signature as a title, never ending in a cut word: where `_signature` (or the
    title's own limit) cut it, it ends at the last whole word, with an ellipsis."""
    name, said, rest = signature.partition(": ")
    title = signature
    if said and len(rest) >= SIGNATURE_REST:
        title = f"{name}: {rest.rsplit(' ', 1)[0]} …" if " " in rest else signature
    if len(title) > ERROR_TITLE_CHARS:
        title = title[: ERROR_TITLE_CHARS - 1].rsplit(" ", 1)[0] + " …"
    return title


def _tool(conn: sqlite3.Connection, session_id: str, idx: int) -> str | None:
    """The tool whose result the message at `idx` holds: results follow their calls in order
    (`A(x) A(y) R(x) R(y)` or `A(x, y) R(x) R(y)`), so count the results since the calls."""
    results = 0
    calls: list[list[str]] = []  # [name, argument]
    for kind, tool_calls in conn.execute(
        """SELECT kind, tool_calls FROM messages WHERE session_id = ? AND idx < ?
           ORDER BY idx DESC LIMIT 64""",
        (session_id, idx),
    ):
        if kind == "tool_result":
            if calls:
                break
            results += 1
        elif kind == "assistant":
            calls[:0] = json.loads(tool_calls)
        elif kind != "meta":
            break
    return str(calls[results][0]) if results < len(calls) else None


def scan_errors(conn: sqlite3.Connection, after: int, upto: int) -> list[tuple[str, int, str, int]]:
    """Error sightings in the messages changed in (after, upto]: (signature, message id,
    session id, epoch). Errors count in tools' results but not in a file a tool showed,
    and in the person's and the assistant's words but not in their code. Only messages
    holding an error's tell-tale text reach Python."""
    hint = " OR ".join(f"instr(text, '{h}') OR instr(tool_output, '{h}')" for h in _ERROR_HINTS)
    rows = conn.execute(
        f"""SELECT id, session_id, idx, kind, epoch, text, tool_output FROM messages
            WHERE seq > ? AND seq <= ? AND kind IN ('assistant', 'tool_result', 'prompt')
              AND is_sidechain = 0 AND ({hint})""",
        (after, upto),
    )
    out = []
    for message_id, session_id, idx, kind, epoch, text, output in rows.fetchall():
        if kind == "tool_result" and (
            shows_files(output) or _tool(conn, session_id, idx) in _SHOWS_FILES
        ):
            continue
        for sig in signatures(f"{text}\n{output}", kind != "tool_result"):
            out.append((sig, message_id, session_id, epoch))
    return out


def recurring_errors(conn: sqlite3.Connection, mentioned: Callable[[str], bool]) -> list[Found]:
    out = []
    for sig, sightings in store.recurring(conn, ERROR_SESSIONS, ERROR_DAYS):
        if mentioned(sig):
            continue
        projects = {
            r[0]
            for r in conn.execute(
                f"""SELECT DISTINCT s.project_id FROM sessions s
                    WHERE s.id IN ({",".join("?" * len(sightings))})""",
                [s for _, s, _ in sightings],
            )
        }
        days = (sightings[-1][2] - sightings[0][2]) / 86_400
        where = "one project" if len(projects) == 1 else f"{len(projects)} projects"
        shown = sightings[-ERROR_EVIDENCE:]
        out.append(
            Found(
                "recurring_error",
                f"{_error_title(sig)}{ERROR_TITLE}",
                f"seen in {len(sightings)} sessions over {days:.0f} days, in {where}; "
                "no note mentions it",
                [],
                [m for m, _, _ in shown],
                _key(sig),
                [s for _, s, _ in shown],
            )
        )
    return out
