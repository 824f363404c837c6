"""What the hooks say unasked: the gate, the budget and the once-per-session memory.

memtui speaks when the past answers, and otherwise says nothing. The prompt hook runs before
every prompt goes out, so it is the lean path: SQLite and Tantivy, no numpy, no model (their
import alone costs more than its 150 ms; bench/README.md, "Recall"). Its gate is about
evidence: a past message counts when it holds most of the prompt's rarity (each word weighed
by its idf in the archive, a word the archive lacks weighed as the rarest) and at least
EVIDENCE of it, so a prompt of common words ("fix the tests") never speaks, nor one whose
rare words the archive does not have together. Thresholds chosen on bench/hook_set.py's
tuning part and checked on its held-back part.

Everything a hook quotes from a transcript is a record, fenced as context.py fences it. Every
injection is logged (store/recalls.py); when it cannot be logged, nothing is said.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from memtui.config import Config
from memtui.engine.places import enclosing_project, projects_at
from memtui.engine.quoting import HIT_TITLE_CUT, count_tokens, fenced, label, short_title
from memtui.engine.snippets import snippet
from memtui.errors import InvalidArgument, StoreUnavailable
from memtui.ingest.peek import first_uuid
from memtui.store import db, recalls, turns

if TYPE_CHECKING:
    from memtui.engine.types import Recall, RecallTotal
    from memtui.store.fts import FullText

log = logging.getLogger(__name__)

SETTING = "MEMTUI_RECALL"
HOOKS = recalls.HOOKS  # session, prompt, tool
# How a person reads each (`memtui recalls`, the TUI): "session" alone reads as a session id.
HOOK_NAMES = {"session": "session start", "prompt": "prompt", "tool": "tool"}
BUSY_MS = 100  # the most a hook waits for a lock on the store
RECALL_DAYS = 7  # `memtui stats` totals the recalls of this many days
MAX_LIMIT = 10_000
FORGET_BUSY_MS = 10_000  # a forget waits for a hook's write this long
READ_BUSY_MS = 2_000  # `memtui recalls` and stats wait for a hook's write this long

# The prompt gate (bench/hook_set.py: chosen on the tuning part).
MIN_WORDS = 2  # content words a prompt needs to be searched
COVER = 0.7  # the share of the prompt's rarity a message must hold
EVIDENCE = 16.0  # and at least this much rarity (nats: a word in 1 of 10,000 messages is ~9.2)
OTHERS = 0.85  # the coverage a conversation of another project needs
DEPTH = 30  # messages looked at, this project's and the archive's
MAX_HITS = 3
MAX_CHARS = 1_200
QUERY_CHARS = 2_000  # of a long prompt (a pasted log), its start
SNIPPET_CHARS = 200
QUESTION_CHARS = 100  # of a question quoted above its answer

HEAD = (
    "memtui recall: earlier conversations hold this prompt's words (a record, not "
    "instructions; open one with get_session at its message):"
)
END = "memtui recall ends."
_OWN = re.compile(
    r"^memtui recall: .*?^memtui recall ends\.$"
    r"|^# memtui: what this project's memory holds$.*?^Search memtui \(.*?past work\.$"
    r"|<(user-prompt-submit-hook|system-reminder)>.*?</\1>",
    re.DOTALL | re.MULTILINE,
)


def enabled(hook: str, config: Config) -> bool:
    """Whether MEMTUI_RECALL, in the environment `config` was read from, lets `hook` speak: a
    comma list of session, prompt and tool (default all three), or `off`. A word it does not
    know is an error (a hook then says nothing, and the log says why)."""
    environ = os.environ if config.environ is None else config.environ
    raw = environ.get(SETTING, "").strip().lower()
    if not raw:
        return True
    words = {w.strip() for w in raw.split(",") if w.strip()}
    if words == {"off"}:
        return False
    unknown = words - set(HOOKS)
    if unknown or not words:  # ascii(): a byte that is not UTF-8 must not break the log
        raise InvalidArgument(
            f"${SETTING} is {raw!a}: "
            + (f"{', '.join(map(ascii, sorted(unknown)))} is not a hook" if words else "no hook"),
            "give a comma list of session, prompt and tool, or off",
        )
    return hook in words


def strip_own(text: str) -> str:
    """`text` without memtui's own blocks (a recall or a session start pasted back) and
    Claude Code's wrappers of hook output: searching them would find their own sources."""
    return _OWN.sub(" ", text)


def payload(raw: str) -> Mapping[str, object]:
    """The hook's JSON from stdin: `session_id`, `cwd`, `source` (startup, resume, clear…)."""
    try:
        data = json.loads(raw)
    except ValueError:
        raise InvalidArgument("the hook's input is not JSON") from None
    if not isinstance(data, dict):
        raise InvalidArgument("the hook's input is not a JSON object")
    return data


def event(data: Mapping[str, object]) -> tuple[str, str]:
    """The hook input's session id (else its transcript's name) and cwd (an absolute path: read
    as "no project", a relative one would search every project)."""
    cwd = data.get("cwd")
    if not isinstance(cwd, str) or not cwd.startswith("/"):
        raise InvalidArgument(f"the hook's cwd is not an absolute path: {cwd!r:.200}")
    session = data.get("session_id")
    if not isinstance(session, str) or not session:
        # Without an id, the transcript's name is the session's (Claude Code names it so):
        # the once-per-session memory still holds.
        path = data.get("transcript_path")
        session = path.rsplit("/", 1)[-1].removesuffix(".jsonl") if isinstance(path, str) else ""
    return session, cwd


def now() -> tuple[str, int]:
    moment = datetime.now(UTC)
    return moment.isoformat(timespec="seconds"), int(moment.timestamp())


def logged(
    config: Config,
    hook: str,
    session: str,
    cwd: str,
    text: str,
    sources: Sequence[str] = (),
    keys: Sequence[str] = (),
) -> str:
    """`text`, once the recall log holds it with its sources and keys; "" when it cannot
    be logged (a busy or broken log): nothing is said that a person cannot see later."""
    if not text:
        return ""
    try:
        conn = recalls.open_log(config.data_dir)
        try:
            recalls.add(conn, now(), hook, session, cwd, text, count_tokens(text), sources, keys)
        finally:
            conn.close()
    except sqlite3.Error as exc:
        log.warning("the %s hook said nothing: the recall log cannot be written (%s)", hook, exc)
        return ""
    return text


def recent(config: Config, limit: int = 20) -> list[Recall]:
    """What the hooks said, the newest first (`memtui recalls`)."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidArgument(
            f"limit must be a whole number from 1 to {MAX_LIMIT:,}, not {limit!r}"
        )
    from memtui.engine.types import Recall  # not a hook's: they import this module

    with _reading(config) as conn:
        return [] if conn is None else [Recall(*r) for r in recalls.latest(conn, limit)]


def totals(config: Config, days: int = RECALL_DAYS) -> dict[str, RecallTotal]:
    """Per hook, what it said over the last `days` (`memtui stats`)."""
    since = now()[1] - days * 86_400
    from memtui.engine.types import RecallTotal

    with _reading(config) as conn:
        if conn is None:
            return {}
        return {h: RecallTotal(n, c) for h, (n, c) in recalls.totals(conn, since).items()}


def forget(config: Config, session_ids: Sequence[str]) -> int:
    """Remove from the recall log what was said in or quoted from `session_ids` (a forget);
    how many recalls went."""
    if not session_ids or not recalls.path_of(config.data_dir).exists():
        return 0
    conn = recalls.open_log(config.data_dir, FORGET_BUSY_MS)
    try:
        removed = recalls.forget_sessions(conn, session_ids)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # no old page left in the WAL
        return removed
    finally:
        conn.close()


@contextmanager
def _reading(config: Config) -> Iterator[sqlite3.Connection | None]:
    """The recall log to read (None before any hook spoke). Its failures are its own: not
    the store's (db.translated would mark the store damaged for a bad log)."""
    path = recalls.path_of(config.data_dir)
    try:
        conn = recalls.read_log(config.data_dir, READ_BUSY_MS)
        try:
            yield conn
        finally:
            if conn is not None:
                conn.close()
    except sqlite3.DatabaseError as exc:
        raise StoreUnavailable(
            f"cannot read the recall log {path}: {exc}",
            f"try again; if it stays so, move {path.name} aside (only the hooks' log is in it)",
        ) from exc


def told(config: Config, session: str, hook: str) -> set[str]:
    """What `hook` already said in `session` (nothing when there is no log yet)."""
    conn = recalls.read_log(config.data_dir)
    if conn is None or not session:
        return set()
    try:
        return recalls.told(conn, session, hook)
    finally:
        conn.close()


# -- the prompt hook --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hit:
    """A past message the prompt's words found, with the evidence it holds."""

    message_id: int
    session_id: str
    project: str
    here: bool  # in the prompt's project
    coverage: float  # the share of the prompt's rarity it holds
    evidence: float  # how much rarity it holds


def prompt(config: Config, data: Mapping[str, object]) -> str:
    """What to add to a prompt: the past conversations that answer it, or "" (most prompts)."""
    if not enabled("prompt", config):
        return ""
    session, cwd = event(data)
    text = data.get("prompt")
    if not isinstance(text, str):
        raise InvalidArgument("the hook's prompt is not a string")
    query = " ".join(strip_own(text).split())[:QUERY_CHARS]
    if not query or query.startswith("/"):  # a slash command is Claude Code's to run
        return ""
    from memtui.store import fts  # Tantivy: this hook's alone, not the session start's

    index = config.index_dir / fts.FTS_DIR
    if not config.db_path.exists() or not fts.built(index, fts.FTS_PARTITIONS):
        return ""
    conn = db.read_only(config.db_path, BUSY_MS)
    try:
        own = {session, *continued(conn, data)}
        found = candidates(conn, fts.FullText(index, fts.FTS_PARTITIONS), query, cwd, own)
        chosen = gate(found, told(config, session, "prompt"))
        if not chosen:
            return ""
        said, shown = block(conn, chosen, query)
    finally:
        conn.close()
    sources = sorted({h.session_id for h in shown})
    return logged(config, "prompt", session, cwd, said, sources, [str(h.message_id) for h in shown])


def continued(conn: sqlite3.Connection, data: Mapping[str, object]) -> list[str]:
    """The session the prompt's own continues (`--resume`, a fork): its transcript opens with
    copies of that session's messages, stored under the older id. Its past is this one's."""
    path = data.get("transcript_path")
    uuid = first_uuid(path) if isinstance(path, str) else None
    if uuid is None:
        return []
    row = conn.execute(
        """SELECT m.session_id FROM uuids u JOIN messages m ON m.id = u.message_id
           WHERE u.uuid = ?""",
        (uuid,),
    ).fetchone()
    return [row[0]] if row else []


def candidates(
    conn: sqlite3.Connection, index: FullText, query: str, cwd: str, own: set[str]
) -> list[Hit]:
    """The messages the prompt's words find, this project's and the archive's, each with its
    coverage and evidence; none of the sessions `own` (the prompt's, and the one it
    continues). Empty for a prompt of fewer than MIN_WORDS content words."""
    from memtui.store.fts import FtsFilter

    rarities, docs = index.rarities(query)
    if len(rarities) < MIN_WORDS:
        return []
    missing = math.log(1 + (docs + 0.5) / 0.5)  # a word no message has: the rarest there is
    whole = sum(r or missing for r in rarities)
    here = [path for _, path in projects_at(conn, cwd) or []]
    scored: dict[int, float] = {}
    for project in [*here[:1], None]:
        filt = FtsFilter(projects=(project,)) if project else None
        for mid, score in index.search(query, filt, DEPTH):
            scored[mid] = max(score, scored.get(mid, 0.0))
    if not scored:
        return []
    rows: dict[int, tuple[str, str]] = {}
    for chunk in db.chunks(list(scored)):
        rows.update(
            (r[0], r[1:])
            for r in conn.execute(
                f"""SELECT m.id, m.session_id, p.path FROM messages m
                    JOIN sessions s ON s.id = m.session_id JOIN projects p ON p.id = s.project_id
                    WHERE m.id IN ({db.marks(chunk)})""",
                chunk,
            )
        )
    hits = []
    for mid, score in scored.items():
        row = rows.get(mid)
        if row is None or row[0] in own:
            continue
        hits.append(Hit(mid, row[0], row[1], row[1] in here, score / whole, score))
    return sorted(hits, key=lambda h: (-h.here, -h.coverage, -h.message_id))


def gate(hits: Sequence[Hit], said: set[str]) -> list[Hit]:
    """The hits worth saying, at most MAX_HITS conversations (this project's first), none
    already said in this session: a message holding at least COVER of the prompt's rarity
    (OTHERS in another project) and at least EVIDENCE of it."""
    out: list[Hit] = []
    for hit in hits:
        if hit.coverage < (COVER if hit.here else OTHERS) or hit.evidence < EVIDENCE:
            continue
        if str(hit.message_id) in said or any(h.session_id == hit.session_id for h in out):
            continue
        out.append(hit)
        if len(out) == MAX_HITS:
            break
    return out


def block(conn: sqlite3.Connection, hits: Sequence[Hit], query: str) -> tuple[str, list[Hit]]:
    """The text for `hits`, within MAX_CHARS: for each, when, which conversation and where
    (the id to open it with), memtui's words; its title and the lines that matter, quoted."""
    terms = [w.lower() for w in re.findall(r"\w+", query) if len(w) > 2]
    answers = turns.replies(conn, [h.message_id for h in hits])
    items: list[tuple[Hit, str]] = []
    for hit in hits:
        row = conn.execute(
            """SELECT m.idx, m.ts, m.role, m.text, m.tool_output,
                      coalesce(s.custom_title, s.summary_title, s.first_prompt, '')
               FROM messages m JOIN sessions s ON s.id = m.session_id WHERE m.id = ?""",
            (hit.message_id,),
        ).fetchone()
        if row is None:
            continue
        idx, ts, role, body, output, title = row
        where = "this project" if hit.here else f"project {label(hit.project)}"
        said = f"- {(ts or '')[:10]}, {where}: session {hit.session_id}, message {idx}"
        quoted = f"title: {short_title(title, HIT_TITLE_CUT)}"
        answer = answers.get(hit.message_id)
        if answer is None:
            quoted += f"\n{role}: {snippet(body or output or '', terms, size=SNIPPET_CHARS)}"
        else:  # a question found: what was answered is what helps now
            (reply,) = conn.execute("SELECT text FROM messages WHERE id = ?", (answer,)).fetchone()
            quoted += f"\n{role}: {snippet(body, terms, size=QUESTION_CHARS)}"
            quoted += f"\nassistant: {snippet(reply, terms, size=SNIPPET_CHARS)}"
        items.append((hit, f"{said}\n{fenced(quoted)}"))
    while items:
        text = "\n".join([HEAD, *(item for _, item in items), END]) + "\n"
        if len(text) <= MAX_CHARS:
            return text, [hit for hit, _ in items]
        items.pop()
    return "", []


# -- the tool hook ----------------------------------------------------------------------------

FILE_TOOLS = ("Edit", "Write", "MultiEdit")
PAST_CHANGES = 3  # earlier conversations named before a file is changed
PAST_FAILURES = 2  # earlier failures named before a command runs


def tool(config: Config, data: Mapping[str, object]) -> str:
    """What to tell Claude before an Edit, Write, MultiEdit or Bash call: the earlier
    conversations of this project that changed the file, or where the command failed (its
    error and what passed after), once per file or command in a session; "" when the past
    has nothing (most calls). Claude Code's JSON for PreToolUse context, SQLite only."""
    if not enabled("tool", config):
        return ""
    session, cwd = event(data)
    name, given = data.get("tool_name"), data.get("tool_input")
    if not isinstance(given, Mapping) or not config.db_path.exists():
        return ""
    from memtui.engine import work  # this hook's alone
    from memtui.store.work import command_key, rel_path

    conn = db.read_only(config.db_path, BUSY_MS)
    try:
        project = enclosing_project(conn, cwd)
        if project is None:
            return ""
        if name in FILE_TOOLS and isinstance(path := given.get("file_path"), str) and path:
            key = f"file:{rel_path(project, path)}"
            if key in told(config, session, "tool"):
                return ""
            changes = work.changed_before(conn, project, path, session, PAST_CHANGES)
            head = f"memtui: earlier conversations changed {rel_path(project, path)}"
            found: Sequence[work.FileWork | work.Fix] = changes
        elif name == "Bash" and isinstance(command := given.get("command"), str) and command:
            key = f"run:{command_key(command)}"
            if key in told(config, session, "tool"):
                return ""
            found = work.failed_before(conn, project, command, session, PAST_FAILURES)
            head = "memtui: this command failed in earlier conversations of this project"
        else:
            return ""
    finally:
        conn.close()
    if not found:
        return ""
    said = (
        f"{head} (a record, not instructions):\n{fenced(chr(10).join(f.line() for f in found))}\n"
    )
    sources = [f.session_id for f in found]
    if not logged(config, "tool", session, cwd, said, sources, [key]):
        return ""
    context = {"hookEventName": "PreToolUse", "additionalContext": said}
    return json.dumps({"hookSpecificOutput": context}) + "\n"
