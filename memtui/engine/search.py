"""Hybrid search: Tantivy's ranking and hnswlib's ranking, fused, with the same filters on both."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

import numpy as np

from memtui.engine import near, sessions, validate
from memtui.engine.near import NEAR_LIFT
from memtui.engine.quoting import HIT_TITLE_CUT, short_title
from memtui.engine.snippets import snippet
from memtui.engine.types import (
    AGENTS,
    BYS,
    MODE_ALIASES,
    MODES,
    ROLES,
    By,
    SearchResponse,
    SearchResult,
    SessionHit,
)
from memtui.errors import InvalidArgument
from memtui.store import db, turns
from memtui.store.fts import LONG_TOKEN, FtsFilter, FullText, as_words
from memtui.store.indexes import VECTOR_WHERE, Indexes
from memtui.store.vectors import Vectors
from memtui.words import counted

MAX_ALTERNATIVES = 4
# How far paging reaches in every mode; "of N" counts the results it can reach, at most this.
REACH = validate.REACH
DEPTH = validate.DEPTH
# Fusion (bench/quality_sessions.py; chosen on the tuning half of its sets): a full-text match
# scores its coverage (the share of the query's words it has, by rarity: FullText.weight) plus
# MEANING times its lift (how much nearer the query it is than the archive's ordinary text:
# near.py) when that is above 0; a message found by meaning alone comes in only when it is
# near (lift at least near.NEAR_LIFT), at MEANING times its lift; the rest never. Ranks alone
# (the fusion before) put the vector ranking's first entry beside full text's first however
# far it was.
MEANING = 2.0
# A person's prompt among the top ANSWERED brings Claude's answer to it (the turn's last
# message that says something) in just below, at REPLY times the prompt's score: a question
# asked months later often repeats the words of the question asked then, not of the answer
# (bench/quality_results.md).
ANSWERED = 10
REPLY = 0.95
NEAREST = 10  # the nearest by meaning, set apart, when nothing matches
# By session: a conversation ranks by its best message, plus TOGETHER times the next best
# (AMONG - 1) of its messages that score at least STRONG times the list's best (weak matches
# piling up in a long session are not evidence), plus TITLED times the share of the query's
# words its title has; ties go to the conversation with more matches.
TOGETHER = 0.1
AMONG = 3
STRONG = 0.5
TITLED = 0.1
TITLES_KEPT = 10_000
# What is not conversation ranks below it: compaction summaries, subagents Claude Code only
# warmed up (their prompt is WARMUP), the compaction agent (its agent id starts COMPACT_AGENT).
NOISE, COPY = 1, 2
WARMUP = "Warmup"
COMPACT_AGENT = "acompact"

Ranking = list[tuple[int, float]]  # (message id, score), best first
_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="memtui-vectors")
# Vectors from which their ranking runs on _POOL: at 409k it takes 11 ms of a search's 32, and
# hiding it behind full text took one server's p50 from 29 to 19 ms; at 79k it takes 4 ms, and
# with four servers searching at once waiting for both threads cost more than it saved (200k
# messages, four servers' p95: 52.7, 61.1 and 61.1 ms beside, 56.5 ms in line; bench/README).
BESIDE = 150_000

# Finer than SPEC's roles (user, assistant: what MCP and the CLI take). Claude Code sends tool
# output back as `user` lines, so `user` holds it too; a front end that shows the person's
# own words apart from tool output asks for one of these instead (the TUI does).
PROMPTS = "prompts"  # what the person typed: prompts, and the commands they ran
TOOL_OUTPUT = "tool_output"  # what tools sent back to Claude
WHO: dict[str, tuple[str, tuple[str, ...]]] = {  # value: (role, kinds)
    PROMPTS: ("user", ("prompt", "meta")),
    TOOL_OUTPUT: ("user", ("tool_result",)),
}


@dataclass(slots=True)
class Filters:
    projects: tuple[str, ...] | None = None  # any of these projects
    session_id: str | None = None
    role: str | None = None
    after: int | None = None
    before: int | None = None
    kinds: tuple[str, ...] | None = None  # with a role of WHO: the kinds of message it holds
    agent: str | None = None
    # The agent's sessions for the full-text index, which has no agent: only these, or all
    # but the other agents' (whichever list is shorter; neither when all are the agent's).
    only_sessions: tuple[str, ...] | None = None
    not_sessions: tuple[str, ...] = ()

    def any(self) -> bool:
        kept = (self.projects, self.session_id, self.role, self.after, self.before, self.agent)
        return any(v is not None for v in kept)


def parse_when(value: str | date | datetime | None, name: str) -> int | None:
    """An ISO 8601 date or date-time as epoch seconds (naive means UTC)."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    else:
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            raise InvalidArgument(
                f"{name} must be an ISO 8601 date or date-time like 2026-11-01 or "
                f"2026-11-01T14:00:00Z, not {value!r}"
            ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp())


def normalise_query(query: str | list[str]) -> str | list[str]:
    """Any string is a query (an odd one finds nothing); a list must be 2 to 5 concepts."""
    if isinstance(query, str):
        return validate.text("query", query)
    if not isinstance(query, list) or not all(isinstance(q, str) for q in query):
        raise InvalidArgument("query must be a string or a list of 2 to 5 strings (concepts)")
    if not 2 <= len(query) <= 5:
        raise InvalidArgument(f"a concept list needs 2 to 5 strings, got {len(query)}")
    return [validate.text("a concept", q) for q in query]


def normalise_alternatives(alternatives: object) -> list[str]:
    """Other phrasings of the query: a list of 0 to 4 strings; blank ones are ignored."""
    if alternatives is None:
        return []
    if not isinstance(alternatives, list) or not all(isinstance(a, str) for a in alternatives):
        raise InvalidArgument("alternatives must be a list of 0 to 4 strings (other phrasings)")
    if len(alternatives) > MAX_ALTERNATIVES:
        raise InvalidArgument(
            f"alternatives takes at most {MAX_ALTERNATIVES} phrasings, got {len(alternatives)}"
        )
    return [validate.text("an alternative", a) for a in alternatives if a.strip()]


def searchable(fts: FullText, texts: list[str], hint: str) -> int:
    """Refuse a query with nothing the index can look for (InvalidArgument, with `hint`: what
    may be typed); else how many of its words are too long to be indexed (a pasted blob),
    which it leaves out."""
    blobs = sum(fts.unindexed(text) for text in texts)
    if not all(fts.searchable(text) for text in texts):
        if blobs:
            raise InvalidArgument(
                f"the query has nothing to search for: words of {LONG_TOKEN} bytes or more "
                "(a pasted blob or key) are not indexed",
                "search for the words around it",
            )
        raise InvalidArgument(
            "the query has nothing to search for (only spaces, marks or emoji)",
            hint,
        )
    return blobs


def fuse(fts: Ranking, lifts: dict[int, float]) -> Ranking:
    """The hybrid order of a full-text ranking scored by coverage (the share of the query's
    words a message has, by rarity: `FullText.weight`) and the lifts of the messages with a
    vector (near.py: the vector ranking's candidates and the full-text matches).

    A full-text match scores its coverage plus MEANING times its lift above 0, so meaning
    orders matches that have the same words; a message found by meaning alone comes in only
    when it is near, at MEANING times its lift; one neither ranking supports never does.
    """
    scored = {mid: cov + MEANING * max(lifts.get(mid, 0.0), 0.0) for mid, cov in fts}
    for mid, lift in lifts.items():
        if mid not in scored and lift >= NEAR_LIFT:
            scored[mid] = MEANING * lift
    return sorted(scored.items(), key=lambda kv: (-kv[1], -kv[0]))


def conversations(
    ranked: Ranking, session_of: dict[int, str], titled: dict[str, float]
) -> list[tuple[str, float, int, int]]:
    """`ranked` (messages, best first) as conversations, best first: (session, score, its
    best message, how many of `ranked` are in it). `titled`: the share of the query's words
    each session's title has."""
    by: dict[str, list[tuple[int, float]]] = {}
    for mid, score in ranked:
        session = session_of.get(mid)
        if session is not None:
            by.setdefault(session, []).append((mid, score))
    floor = STRONG * ranked[0][1] if ranked else 0.0
    out = []
    for session, hits in by.items():
        scores = sorted((score for _, score in hits), reverse=True)
        more = sum(score for score in scores[1:AMONG] if score >= floor)
        total = scores[0] + TOGETHER * more + TITLED * titled.get(session, 0.0)
        out.append((session, total, hits[0][0], len(hits)))
    # The stable tie-break: more matches, then the best message archived later, then the id.
    return sorted(out, key=lambda s: (-s[1], -s[3], -s[2], s[0]))


def answered(ranking: Ranking, replies: dict[int, int]) -> Ranking:
    """`ranking` with the answer to each prompt in its top ANSWERED (`replies`: prompt id to
    answer id) scored REPLY times the prompt, when that is more than it has."""
    best = dict(ranking)
    for mid, score in ranking[:ANSWERED]:
        reply = replies.get(mid)
        if reply is not None and REPLY * score > best.get(reply, -np.inf):
            best[reply] = REPLY * score
    return sorted(best.items(), key=lambda kv: (-kv[1], -kv[0]))


def below(ranked: Ranking, flags: dict[int, int], looked: int) -> Ranking:
    """`ranked` with what `flags` marks (looked at in its first `looked`) below the rest of
    those: NOISE kept, a COPY left out."""
    if not flags:
        return ranked
    top = ranked[:looked]
    real = [r for r in top if r[0] not in flags]
    return real + [r for r in top if flags.get(r[0]) == NOISE] + ranked[looked:]


def nearest(rankings: list[Ranking]) -> Ranking:
    """Rankings of several phrasings as one: each message at its best score. Vector
    similarities compare across phrasings, and so do full-text coverages: a phrasing with a
    close match wins over one whose hits are all far (rank fusion would count both the same).
    """
    best: dict[int, float] = {}
    for ranking in rankings:
        for mid, sim in ranking:
            best[mid] = max(sim, best.get(mid, sim))
    return sorted(best.items(), key=lambda kv: (-kv[1], -kv[0]))


def settled(fetch: Callable[[int], Ranking], n: int, keep: int, ordered: bool = False) -> Ranking:
    """The best n of `fetch` (an index's ranking), with equal scores in a fixed order.

    An index orders equal scores by how it was built (segments, insertion order), so a rebuilt
    index would shuffle them and pick different members of a group cut at n. The group at the
    cut is made whole, by fetching further, or dropped when at least `keep` rank above it; each
    group is then ordered by message id, the last archived first. One store gives one answer
    however its indexes grew, and pages never repeat or skip a message. An `ordered` fetch
    already cuts a group at its last archived (the vectors' search): nothing is fetched again.
    """
    size = n + 1
    ranked = fetch(size)
    while len(ranked) == size and ranked[-1][1] == ranked[n - 1][1]:
        start = next(i for i, (_, score) in enumerate(ranked) if score == ranked[n - 1][1])
        if start >= keep:
            ranked = ranked[:start]
            break
        if ordered:
            break
        size *= 4
        ranked = fetch(size)
    return sorted(ranked, key=lambda r: (-r[1], -r[0]))[:n]


@dataclass(slots=True)
class Meaning:
    """The vector side of one search: each phrasing's concept vectors with their baselines
    (their similarity to the centre: near.py), and the neighbours found, each with its lift
    and similarity (of the phrasing that lifts it most)."""

    vectors: Vectors
    cut_short: bool = False  # a phrasing's ranking was cut with more near past the cut
    probes: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    lifts: dict[int, float] = field(default_factory=dict)
    sims: dict[int, float] = field(default_factory=dict)

    def near(self) -> Ranking:
        """The neighbours near in meaning, nearest first."""
        close = [(mid, lift) for mid, lift in self.lifts.items() if lift >= NEAR_LIFT]
        return sorted(close, key=lambda kv: (-kv[1], -kv[0]))

    def lift_of(self, ids: list[int]) -> dict[int, float]:
        """The lifts of `ids` the ranking did not reach (full-text matches): a few rows
        scored each, never a pass over the index."""
        missing = [mid for mid in ids if mid not in self.lifts]
        best: dict[int, float] = {}
        for probe in self.probes if missing else []:
            for mid, lift in self.probe_lifts(probe, missing).items():
                best[mid] = max(lift, best.get(mid, lift))
        return best

    def probe_lifts(self, probe: tuple[np.ndarray, np.ndarray], ids: list[int]) -> dict[int, float]:
        """The lifts of `ids` for one phrasing: the weakest over its concepts."""
        vecs, bases = probe
        out: dict[int, float] = {}
        for n, (vec, base) in enumerate(zip(vecs, bases, strict=True)):
            sims = self.vectors.similarities(ids, vec)
            lifts = {mid: sim - float(base) for mid, sim in sims.items()}
            out = lifts if n == 0 else {m: min(out[m], lifts[m]) for m in out if m in lifts}
        return out


@dataclass(slots=True)
class _Ask:
    """One search's question: its phrasings, mode and filters (`replies`: answers join)."""

    phrasings: list[str | list[str]]
    mode: str
    filt: Filters
    fts_filter: FtsFilter
    replies: bool


@dataclass(slots=True)
class _Pool:
    """The fusion of each ranking's first `depth`: the order pages are cut from. `matched`:
    the full-text matches it holds; `near`: the near in meaning; `total`: every match;
    `whole`: every full-text match is in `ranked`; `floor`: `total` may count too few."""

    ranked: Ranking
    matched: set[int]
    near: set[int]
    meaning: Meaning | None
    fts_total: int | None
    total: int
    whole: bool
    floor: bool
    note: str | None

    @property
    def vector_total(self) -> int | None:
        return None if self.meaning is None else len(self.near)

    @property
    def beyond(self) -> bool:
        """More match than the pool holds."""
        return not self.whole or (self.meaning is not None and self.meaning.cut_short)


class Searcher:
    """Searches on the calling thread's own read connection (`reader`): never the writer's."""

    def __init__(self, reader: Callable[[], sqlite3.Connection], indexes: Indexes) -> None:
        self.reader = reader
        self.indexes = indexes
        self._titles: dict[str, frozenset[str]] = {}  # a title's stems (_share)

    def filters(
        self,
        projects: tuple[str, ...] | None,
        session: str | None,
        role: str | None,
        after: str | date | datetime | None,
        before: str | date | datetime | None,
        agent: str | None = None,
    ) -> Filters:
        kinds = None
        if role in WHO:
            role, kinds = WHO[role]
        elif role is not None and role not in ROLES:
            raise InvalidArgument(f"role must be one of {', '.join(ROLES)}, not {role!r}")
        start, end = parse_when(after, "after"), parse_when(before, "before")
        if start is not None and end is not None and start > end:  # swapped: nothing between
            raise InvalidArgument(
                f"after ({after}) is later than before ({before}): no message falls between "
                "them; swap them"
            )
        conn = self.reader()
        if session is not None and not validate.text("session", session).strip():
            raise InvalidArgument("session is empty", "give a session id or a unique prefix")
        full = sessions.resolve(conn, session) if session is not None else None
        filt = Filters(projects, full, role, start, end, kinds)
        if agent is not None:
            validate.choice("agent", agent, AGENTS)
            mine: list[str] = []
            others: list[str] = []
            for sid, its in conn.execute("SELECT id, agent FROM sessions"):
                (mine if its == agent else others).append(sid)
            if others:  # else every session is the agent's: nothing to leave out
                filt.agent = agent
                if len(mine) <= len(others):
                    filt.only_sessions = tuple(mine)
                else:
                    filt.not_sessions = tuple(others)
        return filt

    def search(
        self,
        query: str | list[str],
        mode: str,
        filt: Filters,
        limit: int,
        offset: int,
        alternatives: list[str] | None = None,
        by: str = "message",
    ) -> SearchResponse:
        """One page of results: messages, or with `by="session"` conversations (each one's
        best message in `results`, its facts at the same place in `sessions`). `alternatives`
        are other phrasings of the same question (the words the answer may use): each is
        searched like the query, in every mode, and the rankings are merged, each message at
        its best; a message need not match them all. Only matches are results: messages with
        the words, or near in meaning; when there is none, the nearest by meaning however far
        are set apart in `nearest`."""
        mode = MODE_ALIASES.get(mode, mode)
        if mode not in MODES:
            raise InvalidArgument(f"mode must be one of hybrid, fts, vector, not {mode!r}")
        if by not in BYS:
            raise InvalidArgument(f"by must be one of {', '.join(BYS)}, not {by!r}")
        validate.page(limit, offset, reach=REACH)
        query = normalise_query(query)
        fts = self.indexes.fts
        texts = [query] if isinstance(query, str) else query
        blobs = searchable(
            fts, texts, 'type words, a "quoted phrase", a prefix* or a name like src/api/orders.py'
        )
        others = [a for a in normalise_alternatives(alternatives) if fts.searchable(a)]
        phrasings: list[str | list[str]] = [query, *others]
        want = min(offset + limit, REACH)
        note = None
        vectors_ready = mode == "fts" or self.indexes.vectors_ready()
        building = "vectors are still being built"
        if not vectors_ready and self.indexes.other_model:
            building = "the vectors are another model's and are being embedded again"
        if mode == "hybrid" and not vectors_ready:
            mode, note = "fts", f"{building}: these results are full text only"
        elif mode == "vector" and not vectors_ready:
            return SearchResponse([], 0, mode, offset, limit, building, by=by)
        fts_filter = FtsFilter(
            filt.projects,
            filt.session_id,
            filt.role,
            filt.kinds,
            filt.after,
            filt.before,
            filt.only_sessions,
            filt.not_sessions,
        )
        terms = list(dict.fromkeys(t for p in phrasings for t in fts.terms(p)))
        ask = _Ask(phrasings, mode, filt, fts_filter, replies=isinstance(query, str))
        # Every page is cut from one order: the fusion of each ranking's first DEPTH, then,
        # for a page past its end, what the fusion of their first REACH adds below it. A
        # pool as deep as the page would order each page differently: pages would repeat
        # and skip.
        pool = head = self._pool(ask, DEPTH, want, by)
        loose = as_words(query) if isinstance(query, str) and not others else query
        if mode != "vector" and head.fts_total == 0 and not head.note and loose != query:
            # A name no message has as written ("text:flaky", a path): its words instead,
            # when they match.
            words = dataclasses.replace(ask, phrasings=[loose])
            retry = self._pool(words, DEPTH, want, by)
            if retry.fts_total:
                ask, phrasings, terms = words, words.phrasings, fts.terms(loose)
                pool = head = retry
                # Not the query itself: it may be a secret, which no answer repeats.
                note = note or "nothing has that name as written: these have its words"
        if note is None:
            note = head.note
        if blobs:
            left_out = (
                f"{counted(blobs, 'word')} of {LONG_TOKEN} bytes or more left out (not indexed)"
            )
            note = f"{note}; {left_out}" if note else left_out
        hits: list[SessionHit] = []
        if by == "session":
            asked = {
                s
                for p in phrasings
                for q in ([p] if isinstance(p, str) else p)
                for s in fts.stems(q)
            }
            found = self._conversations(head.ranked, asked)
            if want > len(found) and head.beyond:
                pool = self._pool(ask, REACH, want, by)
                listed = {c[0] for c in found}
                deeper = self._conversations(pool.ranked, asked)
                found += [c for c in deeper if c[0] not in listed]
            ranked, hits = self._sessions_page(found[offset:want])
            total = len(found)
        else:
            ranked = self._quiet(head.ranked, want)
            if want > len(ranked) and head.beyond:
                pool = self._pool(ask, REACH, want, by)
                known = {mid for mid, _ in head.ranked}
                rest = [r for r in pool.ranked if r[0] not in known]
                ranked += self._quiet(rest, want - len(ranked))
            total = len(ranked) if pool.whole else pool.total
            ranked = ranked[offset:want]
        # What neither ranking found is the answer to a prompt they found (`answered`).
        found_by = (("fts", pool.matched), ("vector", pool.near))
        scored = [
            (mid, score, [n for n, ids in found_by if mid in ids] or ["answer"])
            for mid, score in ranked
        ]
        apart: list[tuple[int, float, list[str]]] = []
        meaning = pool.meaning
        if not total and meaning is not None:
            # Nothing matched: the nearest however far, set apart, by their similarity.
            far = sorted(meaning.lifts.items(), key=lambda kv: (-kv[1], -kv[0]))
            apart = [(mid, meaning.sims[mid], ["vector"]) for mid, _ in far]
        set_apart = self._nearest(apart, terms, min(limit, NEAREST), by)
        fts_total = pool.fts_total
        return SearchResponse(
            self._results(scored, terms),
            min(total, REACH),
            mode,
            offset,
            limit,
            note,
            fts_total if fts_total is None else min(fts_total, REACH),
            pool.vector_total,
            nearest=set_apart,
            by=by,
            sessions=hits,
            # By session, conversations are counted among the ranked messages: when more
            # match than were ranked, there may be more conversations.
            more=total >= REACH or (pool.beyond if by == "session" else pool.floor),
            more_near=meaning is not None and meaning.cut_short,
        )

    def _pool(self, ask: _Ask, depth: int, want: int, by: By) -> _Pool:
        """The fusion of each ranking's first `depth` (settled: the tie at a cut made whole
        or dropped the same way for every page), best first, answers joined. Full text alone,
        by message, reads as far as the page (`want`): its order does not depend on how far
        it was read."""
        fts = self.indexes.fts
        phrasings, mode, keep = ask.phrasings, ask.mode, depth // 2
        # A large vector ranking runs beside the full-text one: both spend their time outside
        # the GIL (numpy, Tantivy), so one search uses both cores of a quiet machine.
        vec_job = None
        if mode != "fts" and len(self.indexes.vectors) >= BESIDE:
            vec_job = _POOL.submit(self._meaning, phrasings, ask.filt, depth, keep)

        counts: dict[int, int] = {}  # full-text matches of each phrasing, as each search found

        def fts_ranking(i: int, n: int, keep: int) -> Ranking:
            def fetch(size: int) -> Ranking:
                ranking, counts[i] = fts.search_counted(phrasings[i], ask.fts_filter, size)
                return ranking

            return settled(fetch, n, keep)

        def covered(i: int) -> Ranking:
            """The full-text ranking with each score as the share of the phrasing it covers."""
            weight = fts.weight(phrasings[i]) or 1.0
            return [(mid, score / weight) for mid, score in fts_ranking(i, depth, keep)]

        fts_list: Ranking = []
        meaning = None
        fts_total = None
        note = None
        if mode != "vector":
            if mode == "fts" and len(phrasings) == 1 and by == "message":
                # The page; all matches when they fit in DEPTH (then the total is exact); and
                # on until it holds `want` messages of conversation, as what is not ranks
                # below them (`_quiet`): so every page is cut from one order.
                fts_list = fts_ranking(0, want, want)
                if want < counts[0] <= max(depth, want):
                    fts_list = fts_ranking(0, max(depth, want), want)
                n = max(len(fts_list), want)
                while n < counts[0]:
                    ids = [mid for mid, _ in fts_list]
                    flags, looked = self._flags(ids, want)
                    if sum(1 for mid in ids[:looked] if mid not in flags) >= want:
                        break
                    n *= 2
                    fts_list = fts_ranking(0, n, want)
            else:
                fts_list = nearest([covered(i) for i in range(len(phrasings))])
            fts_total = self._fts_total(phrasings, ask.fts_filter, [counts[i] for i in counts])
            if not fts_total and self._fts_unbuilt():
                note = (
                    "the full-text index is empty: `memtui index` rebuilds it "
                    "(a running memtui does too)"
                )
        if mode != "fts":
            meaning = (
                vec_job.result() if vec_job else self._meaning(phrasings, ask.filt, depth, keep)
            )
        near = [] if meaning is None else meaning.near()
        matched = {mid for mid, _ in fts_list}  # before answers join: what full text counted
        if meaning is None:
            ranked = fts_list
        elif mode == "vector":
            ranked = [(mid, meaning.sims[mid]) for mid, _ in near]
        else:
            lifts = meaning.lifts | meaning.lift_of([mid for mid in matched])
            ranked = fuse(fts_list, lifts)
            if ask.replies and ask.filt.role is None:  # concepts ask for what has them
                replies = self._replies({mid for mid, _ in ranked[:ANSWERED]}, ask.filt)
                ranked = answered(ranked, replies)
        # Every match is in the list, or the full-text matches are counted and what else
        # the list holds (the near, the answers) may be among them further down: a floor.
        # So is a count the vector ranking's depth cut short.
        whole = fts_total is None or fts_total <= len(matched)
        total = len(ranked) if whole or fts_total is None else fts_total
        floor = (not whole and any(mid not in matched for mid, _ in ranked)) or bool(
            meaning and meaning.cut_short
        )
        near_ids = {mid for mid, _ in near}
        return _Pool(ranked, matched, near_ids, meaning, fts_total, total, whole, floor, note)

    def _nearest(
        self, apart: list[tuple[int, float, list[str]]], terms: list[str], reach: int, by: By
    ) -> list[SearchResult]:
        """The first `reach` of `apart`; by conversation, one message each (its nearest), as
        the matches would have been."""
        if by != "session":
            return self._results(apart[:reach], terms)
        shown: list[SearchResult] = []
        sessions: set[str] = set()
        for start in range(0, len(apart), reach * 4):
            for hit in self._results(apart[start : start + reach * 4], terms):
                if hit.session_id not in sessions and len(shown) < reach:
                    sessions.add(hit.session_id)
                    shown.append(hit)
            if len(shown) == reach:
                break
        return shown

    def _share(self, title: str, asked: set[str]) -> float:
        """The share of the query's words (`asked`: their stems) that `title` (as stored) has,
        shortened as a listing shows it. A title's stems are kept: the same conversations
        come back search after search, and a first prompt can be long."""
        if not asked:
            return 0.0
        stems = self._titles.get(title)
        if stems is None:
            if len(self._titles) >= TITLES_KEPT:
                self._titles.clear()
            stems = self._titles[title] = frozenset(self.indexes.fts.stems(short_title(title)))
        return len(stems & asked) / len(asked)

    def _conversations(self, ranked: Ranking, asked: set[str]) -> list[tuple[str, float, int, int]]:
        """The conversations of `ranked`, best first (`conversations`): a conversation whose
        best message is not conversation (a warm-up session, a compaction's) comes after
        every one that is, as its messages do. Every one's title counts, and every message is
        looked at once for what is not conversation (a compaction agent's copy leaves its
        conversation's count): the count and the order do not depend on the page."""
        flags, _ = self._flags([mid for mid, _ in ranked], len(ranked))
        ranked = below(ranked, flags, len(ranked))
        if not ranked:
            return []
        conn = self.reader()
        session_of: dict[int, str] = {}
        for chunk in db.chunks([mid for mid, _ in ranked]):
            session_of.update(
                conn.execute(
                    f"SELECT id, session_id FROM messages WHERE id IN ({db.marks(chunk)})", chunk
                ).fetchall()
            )
        titles = sessions.titles(conn, set(session_of.values()))
        titled = {sid: self._share(title, asked) for sid, title in titles.items()}
        found = [c for c in conversations(ranked, session_of, titled) if c[0] in titles]
        return [c for c in found if c[2] not in flags] + [c for c in found if c[2] in flags]

    def _sessions_page(
        self, page: list[tuple[str, float, int, int]]
    ) -> tuple[Ranking, list[SessionHit]]:
        """The page's conversations: each one's best message, scored as its conversation,
        and its facts (read for the page only)."""
        infos = sessions.infos(self.reader(), {sid for sid, _, _, _ in page})
        page = [c for c in page if c[0] in infos]  # forgotten since the titles were read
        best = [(mid, score) for _, score, mid, _ in page]
        hits = [SessionHit(infos[sid], matches, round(score, 6)) for sid, score, _, matches in page]
        return best, hits

    def _fts_total(
        self, phrasings: list[str | list[str]], fts_filter: FtsFilter, counts: list[int]
    ) -> int:
        """How many messages full text matches (any phrasing; `counts` each one's), at
        most REACH."""
        fts = self.indexes.fts
        if len(counts) == 1 or max(counts) >= REACH:
            return min(max(counts), REACH)
        found = {mid for p in phrasings for mid, _ in fts.search(p, fts_filter, REACH)}
        return min(len(found), REACH)

    def _meaning(
        self, phrasings: list[str | list[str]], filt: Filters, depth: int, keep: int
    ) -> Meaning:
        """The vector side: each phrasing's nearest `depth` (DEPTH, or the page's end), with
        their lifts (near.py); a message at its best over the phrasings."""
        allowed = self._allowed(filt) if filt.any() else None
        meaning = Meaning(self.indexes.vectors)
        for phrasing in phrasings:
            concepts = [c for c in ([phrasing] if isinstance(phrasing, str) else phrasing) if c]
            vecs = self.indexes.embedder.encode(concepts)
            if not len(vecs) or not np.any(vecs):
                continue
            meaning.probes.append((vecs, near.baselines(self.indexes, concepts, vecs)))
            ranking, past = self._vector_ranking(vecs, allowed, depth, keep)
            if len(vecs) == 1:
                lifts = {mid: sim - float(meaning.probes[-1][1][0]) for mid, sim in ranking}
            else:  # every concept must be near: a message's lift is its weakest
                lifts = meaning.probe_lifts(meaning.probes[-1], [mid for mid, _ in ranking])
            for mid, sim in ranking:
                lift = lifts.get(mid)
                if lift is not None and lift > meaning.lifts.get(mid, -np.inf):
                    meaning.lifts[mid], meaning.sims[mid] = lift, sim
            # Cut with more near past it: the first past the cut is near (one concept; the cut
            # may be before the depth, where `settled` dropped a tie); several concepts, the
            # cut at the depth with the last still near (nearest first: then more may be).
            if len(vecs) == 1:
                more = past is not None and past - float(meaning.probes[-1][1][0]) >= NEAR_LIFT
            else:
                last = lifts.get(ranking[-1][0], -np.inf) if ranking else -np.inf
                more = len(ranking) >= depth and last >= NEAR_LIFT
            meaning.cut_short = meaning.cut_short or more
        return meaning

    def _quiet(self, ranked: Ranking, want: int) -> Ranking:
        """`ranked` with what is not conversation (compaction summaries, subagent warm-ups,
        the compaction agent's work) below every message of conversation, and the compaction
        agent's copy of a summary the session also holds left out: it would show twice."""
        flags, looked = self._flags([mid for mid, _ in ranked], want)
        return below(ranked, flags, looked)

    def _flags(self, ids: list[int], want: int) -> tuple[dict[int, int], int]:
        """`_noise` of the first of `ids`, and how many were looked at: from the top, twice as
        far each time, until `want` of conversation are found (a row read each costs ~0.1 ms),
        so that the first `want` are as if all had been looked at."""
        flags: dict[int, int] = {}
        looked = 0
        while looked < len(ids):
            end = min(len(ids), max(2 * want, 2 * looked))
            flags.update(self._noise(ids[looked:end]))
            looked = end
            if sum(1 for mid in ids[:looked] if mid not in flags) >= want:
                break
        return flags, looked

    def _noise(self, ids: list[int]) -> dict[int, int]:
        """For each of `ids` that is not conversation: NOISE, or COPY for a summary's copy.
        A warm-up is Claude Code's "Warmup" prompt to a subagent and the reply right after
        it; one indexed row each, never a scan of the session."""
        out: dict[int, int] = {}
        conn = self.reader()
        for chunk in db.chunks(ids):
            rows = conn.execute(
                f"""SELECT m.id,
                      m.kind = 'compact_summary'
                      OR substr(m.agent_id, 1, {len(COMPACT_AGENT)}) = :compact
                      OR (m.kind = 'prompt' AND m.text = :warmup)
                      OR EXISTS (SELECT 1 FROM messages p WHERE p.session_id = m.session_id
                          AND p.idx = m.idx - 1 AND p.agent_id = m.agent_id
                          AND p.kind = 'prompt' AND p.text = :warmup),
                      m.kind = 'assistant'
                      AND substr(m.agent_id, 1, {len(COMPACT_AGENT)}) = :compact
                      AND EXISTS (SELECT 1 FROM messages c WHERE c.session_id = m.session_id
                          AND c.kind = 'compact_summary')
                    FROM messages m WHERE m.id IN ({",".join(map(str, chunk))})
                      AND (m.kind = 'compact_summary' OR m.is_sidechain)""",
                {"compact": COMPACT_AGENT, "warmup": WARMUP},
            ).fetchall()
            out.update((mid, COPY if copy else NOISE) for mid, noise, copy in rows if noise)
        return out

    def _fts_unbuilt(self) -> bool:
        """An empty full-text index over a store with messages (a first run, an upgrade)."""
        if self.indexes.fts.doc_count():
            return False
        return self.reader().execute("SELECT 1 FROM messages LIMIT 1").fetchone() is not None

    def _replies(self, ids: set[int], filt: Filters) -> dict[int, int]:
        """For each prompt among `ids`, Claude's answer, within the date filters."""
        return turns.replies(self.reader(), ids, filt.after, filt.before)

    # -- vectors -----------------------------------------------------------------------------

    def _vector_ranking(
        self, vecs: np.ndarray, allowed: set[int] | None, depth: int, keep: int
    ) -> tuple[Ranking, float | None]:
        """The nearest to the concept vectors `vecs` (one row a concept), by similarity; and
        the similarity of the nearest past the cut (None: none was fetched)."""
        if allowed is not None and not allowed:
            return [], None
        vectors = self.indexes.vectors
        fetched: list[Ranking] = []

        def nearest(n: int) -> Ranking:
            fetched.append(found := search(n))
            return found

        def search(n: int) -> Ranking:
            if len(vecs) == 1:
                return [(mid, 1.0 - dist) for mid, dist in vectors.search(vecs[0], n, allowed)]
            # Every concept must be near: a message ranks by the weakest of its similarities.
            # Candidates are the neighbours of the concepts' sum and of each concept, then
            # scored against every concept. Intersecting the concepts' own neighbourhoods
            # found almost nothing through the graph, where each neighbourhood is a sample.
            width = max(n * 3, 300)
            pool: set[int] = set()
            for vec in (vecs.sum(axis=0), *vecs):
                pool.update(mid for mid, _ in vectors.search(vec, width, allowed))
            sims: dict[int, list[float]] = {}
            for vec in vecs:
                for mid, dist in vectors.search(vec, len(pool), pool):
                    sims.setdefault(mid, []).append(1.0 - dist)
            shared = [(mid, min(s)) for mid, s in sims.items() if len(s) == len(vecs)]
            return sorted(shared, key=lambda kv: kv[1], reverse=True)[:n]

        ranking = settled(nearest, depth, keep, ordered=len(vecs) == 1)
        kept = {mid for mid, _ in ranking}
        past = [sim for mid, sim in fetched[-1] if mid not in kept] if fetched else []
        return ranking, max(past, default=None)

    def _allowed(self, filt: Filters) -> set[int]:
        where = [VECTOR_WHERE]
        args: list[str | int] = []
        if filt.session_id:
            where.append("m.session_id = ?")
            args.append(filt.session_id)
        if filt.role:
            where.append("m.role = ?")
            args.append(filt.role)
        if filt.kinds:
            where.append(f"m.kind IN ({db.marks(filt.kinds)})")
            args.extend(filt.kinds)
        if filt.after is not None:
            where.append("m.epoch >= ?")
            args.append(filt.after)
        if filt.before is not None:
            where.append("m.epoch < ?")
            args.append(filt.before)
        if filt.projects is not None:
            where.append(
                "m.session_id IN (SELECT s.id FROM sessions s JOIN projects p "
                f"ON p.id = s.project_id WHERE p.path IN ({db.marks(filt.projects)}))"
            )
            args.extend(filt.projects)
        if filt.agent:
            where.append("m.session_id IN (SELECT s.id FROM sessions s WHERE s.agent = ?)")
            args.append(filt.agent)
        sql = f"SELECT m.id FROM messages m WHERE {' AND '.join(where)}"
        return {row[0] for row in self.reader().execute(sql, args)}

    # -- results -----------------------------------------------------------------------------

    def _results(
        self, scored: list[tuple[int, float, list[str]]], terms: list[str]
    ) -> list[SearchResult]:
        if not scored:
            return []
        ids = [mid for mid, _, _ in scored]
        marks = ",".join("?" * len(ids))
        rows = {
            row[0]: row
            for row in self.reader().execute(
                f"""SELECT m.id, m.session_id, p.path, m.idx, m.uuid, m.role, m.kind, m.ts,
                      m.text, m.tool_output, m.tool_calls,
                      coalesce(s.custom_title, s.summary_title, s.first_prompt, ''), s.agent
                    FROM messages m JOIN sessions s ON s.id = m.session_id
                    JOIN projects p ON p.id = s.project_id WHERE m.id IN ({marks})""",
                ids,
            )
        }
        results = []
        for mid, score, found_by in scored:
            row = rows.get(mid)
            if row is None:  # forgotten since the index saw it
                continue
            body = row[8] or row[9] or row[10]
            results.append(
                SearchResult(
                    session_id=row[1],
                    project=row[2],
                    message_index=row[3],
                    uuid=row[4],
                    role=row[5],
                    kind=row[6],
                    timestamp=row[7],
                    snippet=snippet(body, terms, row[9]),
                    score=round(float(score), 6),
                    found_by=found_by,
                    session_title=short_title(row[11], HIT_TITLE_CUT),
                    agent=row[12],
                )
            )
        return results
