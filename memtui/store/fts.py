"""Full-text index over messages (Tantivy). Derived from the SQLite store and rebuildable.

Tokenising: prose and tool text go into two fields analysed alike (`simple` tokenizer,
ascii-fold, lowercase, English stemmer), so "migrations" finds "migrate"; tool text is scored
lower. Tokens up to LONG_TOKEN bytes are kept (Tantivy's default drops 40 and more, which lost
every full git SHA); changing the analyser changes FORMAT, and an index of another format is
emptied on open and refilled by the next catch-up (indexes.py sees it torn).
Identifiers survive that analyser as one token (`useEffect`, `E0502`, `503`) or as
parts (`src/app/main.rs` -> src app main rs), so a query word that analyses to several tokens
becomes a phrase query: the parts must appear together, in order. A third field keeping
identifiers whole (Tantivy's regex tokenizer) was measured and dropped: it doubled indexing
time (60k docs: 27 s -> 60 s) and only changed ranking, never what is found.

Queries are built from analysed tokens, never by Tantivy's query parser, so no input can be a
syntax error (an unclosed quote, a lone `*`, `AND OR` are plain words or nothing): a "quoted
phrase" must match as a phrase, a list of concepts requires every concept, and other words are
OR'd. `migrat*` is a prefix (its last part at least MIN_PREFIX characters; shorter is the plain
word), and a word of 7 to 39 hex digits (with a digit) also finds the longer tokens it starts,
so a SHA is found by its short form. Prefixes expand through the term dictionary (a regex
automaton), which costs nothing at indexing time. Words that say nothing about the answer
("when", "did", "the", "last": STOP_WORDS) are dropped unless the query has nothing else. A
query of several words scores each word it finds by its rarity (BM25's idf), whatever the
message's length, with BM25 at a fifth of that weight to order messages with the same words:
plain BM25 put short messages with one common query word above a long answer with the rare ones,
because tool results (no prose) make the prose field's average length small. On
bench/quality.py's natural questions and lexical queries that took full text from below an
SQLite FTS5 bm25 baseline with common words dropped to above it (bench/quality_results.md).
BM25 reads the prose field only, and single words only: a phrase (a path, a snake_case name)
and tool output count by their rarity. On a large archive a word in more than COMMON of the
messages ("fix", "test") is left out of a query that has rarer ones: at a million messages
those words were most of the postings a 5-12-word question walked (bench/README.md).

The messages' index is split into partitions by session (FTS_PARTITIONS), each its
own Tantivy index: a forget must re-index every other document of the segments that held the
session, and Tantivy's merges grow segments without bound, so a partition bounds the work. A
query is built once, with document frequencies summed over the partitions (a word's rarity
is the archive's), and run on each, on a thread pool (Tantivy releases the GIL); the hits
are merged by score.

Other processes commit to the same directory: before each search one stat of meta.json
(~2 us) tells whether to reload the reader (~0.07 ms).

Measured on 200k synthetic docs (118 MB index, built in 76 s at 5k docs a commit): search p50
0.1-1.6 ms, p95 under 4 ms, except phrases of very common words (p95 ~30 ms).
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import shutil
import zlib
from collections.abc import Callable, Collection, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import tantivy
from tantivy import Occur, Query

from memtui.errors import IndexDamaged
from memtui.store.locks import file_lock

log = logging.getLogger(__name__)

# The messages' index: its folder under the index dir, and its partitions, by session: a forget
# re-indexes the rest of the segments that held the session (Tantivy's binding cannot merge one
# away), and a partition bounds their size. Here, not in indexes.py, so a hook reads the index
# without loading numpy.
FTS_DIR = "text"
FTS_PARTITIONS = 8

_STEM_TOKENIZER = "memtui_stem"
# The analyser's version, kept in the index folder: another value (or none) empties the index.
FORMAT = "2"
_FORMAT_FILE = "memtui-format"
LONG_TOKEN = 256  # bytes; a SHA-512 in hex is 128
MIN_PREFIX = 3  # "mi*" would expand to thousands of terms and say little
# How a query is cut into words: word characters joined by . / : - @ stay one word (a phrase);
# a trailing * makes the last part a prefix. An English clitic ('s, 're, 'll, 't ...) goes with
# its word and is dropped: alone, "s" would find every "let's" and "here's".
_WORD = re.compile(r"(\w+(?:[./:@\-]\w+)*)(?:['\u2019](?:s|re|ve|ll|d|m|t)\b)?(\*?)", re.IGNORECASE)


def _words(text: str) -> list[str]:
    return [word + star for word, star in _WORD.findall(text)]


_HEX_PREFIX = re.compile(r"(?=[a-f]*\d)[0-9a-f]{7,39}")
_PHRASE = re.compile(r'"([^"]*)"')
# A name of letters only, joined by . / : @ - ("text:flaky", "src/api/orders.py"): a token
# with digits in it (a key, a hash, a version) is never cut up.
_LETTER_NAME = re.compile(r"(?<![\w./:@\-])[^\W\d_]+(?:[./:@\-][^\W\d_]+)+(?![\w./:@\-])")
_JOINER = re.compile(r"[./:@\-]")


def as_words(text: str) -> str:
    """`text` with each name of letters in it cut into its words, quoted phrases kept: what
    a query that matched nothing as written searches for next."""
    parts = _PHRASE.split(text)  # outside, phrase, outside, ...
    return "".join(
        f'"{part}"' if i % 2 else _LETTER_NAME.sub(lambda m: _JOINER.sub(" ", m[0]), part)
        for i, part in enumerate(parts)
    )


# Words that say nothing about the answer: function words, question words, and the words of
# asking about a conversation ("when did we last talk about ..."). A query drops them unless
# it has nothing else; a quoted phrase keeps them.
STOP_WORDS = frozenset(
    """
    a about above after again all also am an and any are as at be been before being below
    between both but by can could did do does doing done down during each either else ever
    for from further get got had has have having he her here hers herself him himself his how
    i if in into is it its itself just last me might more most much must my myself no nor not
    now of off on once one only or other our ours ourselves out over own please same say said
    says shall she should so some such talk talked talking tell than that the their theirs
    them themselves then there these they this those through to told too under until up upon
    us very was we were what whatever when where whether which while who whom whose why will
    with would yes yet you your yours yourself yourselves
    """.split()  # noqa: SIM905 - a word list reads best as words
)

_TOOL_BOOST = 0.4
_FIELDS = (("text", 1.0), ("tool_text", _TOOL_BOOST))  # where a word is searched, and its weight
_BM25_WEIGHT = 0.2  # BM25's share next to the idf of the words found (bench/quality.py)
_MAX_WORDS = 32  # longer queries are cut: more words add cost, not precision
# A query word in more than this share of the messages, and in more than COMMON_FLOOR of
# them, is left out when the query has rarer ones: the time it costs is its number of messages,
# and on small archives leaving it out loses answers (bench/quality_results.md).
COMMON = 0.05
COMMON_FLOOR = 10_000
_MAX_FREQS = 10_000  # remembered word counts, until the next commit
# A partition of more segments is rewritten in one pass after a catch-up that wrote a large
# share of the index (indexes.py): at 1M messages, 7-17 segments a partition to 3, and a
# search's CPU down a ninth (bench/README.md).
COMPACT_OVER = 4

# One indexing thread leaves the second core to merges; measured faster than two on 2 cores.
_WRITER_HEAP = 64_000_000
_WRITER_THREADS = 1
_PURGE_HEAP = 256_000_000
_PURGE_THREADS = 2
_POOL = ThreadPoolExecutor(max_workers=os.cpu_count() or 2, thread_name_prefix="memtui-fts")


def _analyzer(stem: bool) -> tantivy.TextAnalyzer:
    builder = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(LONG_TOKEN))
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.lowercase())
    )
    return (builder.filter(tantivy.Filter.stemmer("english")) if stem else builder).build()


def _schema() -> tantivy.Schema:
    b = tantivy.SchemaBuilder()
    b.add_integer_field("message_id", stored=True, indexed=True, fast=True)
    for name in ("session_id", "project", "role", "kind"):
        b.add_text_field(name, tokenizer_name="raw", index_option="basic")
    b.add_integer_field("timestamp", indexed=True, fast=True)
    b.add_text_field("text", tokenizer_name=_STEM_TOKENIZER)
    b.add_text_field("tool_text", tokenizer_name=_STEM_TOKENIZER)
    return b.build()


@dataclass(slots=True)
class FtsDoc:
    message_id: int
    session_id: str
    project: str
    role: str
    kind: str
    timestamp: int  # epoch seconds, 0 if unknown
    text: str  # prose (prompt / answer / summary)
    tool_text: str  # tool call names+args and tool output: searchable, ranked lower


@dataclass(slots=True)
class FtsFilter:
    projects: tuple[str, ...] | None = None  # any of these projects
    session_id: str | None = None
    role: str | None = None
    kinds: tuple[str, ...] | None = None
    after: int | None = None  # epoch seconds, inclusive
    before: int | None = None  # epoch seconds, exclusive
    # One agent's conversations: only these sessions, or all but these (the shorter list).
    only_sessions: tuple[str, ...] | None = None
    not_sessions: tuple[str, ...] = ()


@dataclass(slots=True)
class _Found:
    hits: list[tuple[float, tuple[int, tantivy.DocAddress]]]
    count: int | None


class _Searchers:
    """The partitions' searchers as one: counts and document frequencies summed (so a
    word's rarity is the archive's), hits merged by score."""

    def __init__(self, searchers: list[tantivy.Searcher]) -> None:
        self._all = searchers

    @property
    def num_docs(self) -> int:
        return sum(s.num_docs for s in self._all)

    def doc_freq(self, field: str, term: object) -> int:
        return sum(s.doc_freq(field, term) for s in self._all)

    def search(self, query: Query, limit: int, count: bool = True) -> _Found:
        hits: list[tuple[float, tuple[int, tantivy.DocAddress]]] = []
        total = 0

        def one(searcher: tantivy.Searcher) -> tantivy.SearchResult:
            return searcher.search(query, limit, count=count)

        # Tantivy searches outside the GIL: the partitions share the cores.
        each = list(_POOL.map(one, self._all)) if len(self._all) > 1 else [one(self._all[0])]
        for n, found in enumerate(each):
            hits += [(score, (n, addr)) for score, addr in found.hits]
            # The stub lacks SearchResult.count (tantivy 0.27 has it).
            total += found.count or 0  # type: ignore[attr-defined]
        hits.sort(key=lambda h: -h[0])  # stable: ties keep each partition's order
        return _Found(hits[:limit], total if count else None)

    def fast_field_values(
        self, field: str, addrs: list[tuple[int, tantivy.DocAddress]]
    ) -> list[int]:
        by_part: dict[int, list[int]] = {}
        for i, (part, _) in enumerate(addrs):
            by_part.setdefault(part, []).append(i)
        out = [0] * len(addrs)
        for part, at in by_part.items():
            # The fields read here are integers every document has (the binding's type is
            # any field's: int, float, bool or missing).
            values = cast(
                "list[int]", self._all[part].fast_field_values(field, [addrs[i][1] for i in at])
            )
            for i, v in zip(at, values, strict=True):
                out[i] = int(v)
        return out


class FullText:
    def __init__(self, path: Path, partitions: int = 1) -> None:
        """The index in `path`; with `partitions`, that many Tantivy indexes in its
        subfolders, each message in the one its session hashes to."""
        self._path = path
        self._lock = path / "write.lock"
        self._parts = partitions
        self._format = FORMAT if partitions == 1 else f"{FORMAT}/{partitions}"
        self._schema = _schema()
        self._stem = _analyzer(stem=True)
        # Words as the analyser cuts them, none dropped: which of them it drops as too long.
        self._cut = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple()).build()
        self._fold = _analyzer(stem=False)  # a prefix is matched as typed, not stemmed
        self._open()

    def _aside(self) -> Path:
        """Where a damaged index is set aside: it holds every word it had, so a purge removes it."""
        return self._path.with_name(self._path.name + ".damaged")

    def _dirs(self) -> list[Path]:
        if self._parts == 1:
            return [self._path]
        return [self._path / f"p{n:02d}" for n in range(self._parts)]

    def _part_of(self, session_id: str) -> int:
        return zlib.crc32(session_id.encode()) % self._parts

    def _open(self) -> None:
        """Open the index in the folder (creating it), and remember which folder that was:
        a rebuild swaps in a new one, and readers notice by its inode."""
        self._path.mkdir(parents=True, exist_ok=True)
        try:
            self._indexes = self._existing_or_new()
        except ValueError as exc:  # Tantivy's word for files it cannot read
            failed = _os_error(exc)
            if failed is not None:  # the disk's (full, read-only): not damage, set nothing aside
                raise failed from exc
            log.warning("the full-text index %s is damaged (%s): set aside", self._path, exc)
            aside = self._aside()
            shutil.rmtree(aside, ignore_errors=True)
            os.replace(self._path, aside)
            self._path.mkdir()
            self._indexes = self._existing_or_new()  # empty: the next catch-up refills it
        self._dir_ino = os.stat(self._path).st_ino
        for index in self._indexes:
            index.register_tokenizer(_STEM_TOKENIZER, self._stem)
            # We reload ourselves when meta.json changes; the built-in policy polls with a delay.
            index.config_reader("manual")
        self._metas = [d / "meta.json" for d in self._dirs()]
        self._meta_keys: list[tuple[int, int, int] | None] = [None] * self._parts
        # Documents matching a phrase or prefix, per (word, field), for the reader loaded: a
        # search, its count and its weight each ask, and each answer is a pass over postings.
        self._freqs: dict[tuple[str, str], int] = {}
        self._refresh()

    def _existing_or_new(self) -> list[tantivy.Index]:
        fmt = self._path / _FORMAT_FILE
        dirs = self._dirs()

        def ready() -> bool:
            return _read(fmt) == self._format and all(
                d.is_dir() and tantivy.Index.exists(str(d)) for d in dirs
            )

        if ready():
            return [tantivy.Index(self._schema, str(d), reuse=True) for d in dirs]
        # Two processes starting on an empty dir must not both create an index.
        with file_lock(self._lock):
            if not ready():
                # Of this format but not ready: a partition was lost. A catch-up refills an
                # empty index only, so the others are emptied too.
                lost = _read(fmt) == self._format
                if lost or any(f != self._lock for f in self._path.iterdir()):
                    log.warning(
                        "the full-text index %s is of another format or lost a partition: emptied",
                        self._path,
                    )
                    for f in self._path.iterdir():
                        if f.is_dir():
                            shutil.rmtree(f)
                        elif f != self._lock:
                            f.unlink()
                for d in dirs:
                    d.mkdir(exist_ok=True)
            indexes = [tantivy.Index(self._schema, str(d), reuse=True) for d in dirs]
            fmt.write_text(self._format)
            return indexes

    # -- writing ---------------------------------------------------------------------------

    def write(self, docs: Iterable[FtsDoc], delete_ids: Iterable[int] = ()) -> None:
        """Add or replace `docs`, each in its session's partition; delete `delete_ids` from
        every partition."""
        by_part: dict[int, list[FtsDoc]] = {}
        for d in docs:
            by_part.setdefault(self._part_of(d.session_id), []).append(d)
        extra = set(delete_ids)
        parts = sorted(set(by_part) | (set(range(self._parts)) if extra else set()))
        if not parts:
            return
        with file_lock(self._lock):
            for n in parts:
                mine = by_part.get(n, [])
                # Deleting every incoming id first makes replaying a batch idempotent.
                ids = {*extra, *(d.message_id for d in mine)}
                with _writer(self._indexes[n]) as writer:
                    writer.delete_documents_by_query(
                        Query.term_set_query(self._schema, "message_id", sorted(ids))
                    )
                    for d in mine:
                        writer.add_document(self._document(d))
                    writer.commit()

    def purge(self, ids: Collection[int], docs_for: Callable[[set[int]], Iterable[FtsDoc]]) -> int:
        """Delete the documents `ids` so that no file keeps their words (forget).

        Tantivy only marks a document deleted; its terms and positions stay in the segment
        until a merge rewrites it, which the Python binding cannot ask for. So every live
        document of each segment that holds one of `ids`, or, when one of them changed since
        it was indexed, of each segment of its partition with a deleted document (its older
        version may be among them), is written again from the store (`docs_for`) into a new
        segment; the old segments, left with no live document, are dropped at the commit and
        their files removed. A session's messages share a partition, so forgetting it
        rewrites segments of that partition only. Returns the documents rewritten."""
        targets = set(ids)
        with file_lock(self._lock):
            shutil.rmtree(self._aside(), ignore_errors=True)
            return sum(
                self._purge_part(index, meta, targets, docs_for)
                for index, meta in zip(self._indexes, self._metas, strict=True)
            )

    def crowded(self) -> list[int]:
        """The partitions of more than COMPACT_OVER segments."""
        out = []
        for n, index in enumerate(self._indexes):
            index.reload()
            if index.searcher().num_segments > COMPACT_OVER:
                out.append(n)
        return out

    def compact(self, n: int, docs_for: Callable[[set[int]], Iterable[FtsDoc]]) -> int:
        """Rewrite partition `n` from the store (`docs_for`) in one pass: Tantivy merges what
        one writer makes, so the partition ends in a few segments, where commits a batch at a
        time leave as many as its merge policy keeps (up to seven a size). The same documents
        are found; deleted ones stop counting in a word's statistics, as after any merge.
        Returns the documents rewritten."""
        with file_lock(self._lock):
            return self._purge_part(self._indexes[n], self._metas[n], set(), docs_for, every=True)

    def _purge_part(
        self,
        index: tantivy.Index,
        meta: Path,
        targets: set[int],
        docs_for: Callable[[set[int]], Iterable[FtsDoc]],
        every: bool = False,
    ) -> int:
        """Rewrite the segments of `index` that hold one of `targets` (or `every` segment)
        without them."""
        index.reload()
        searcher = index.searcher()
        # Tantivy's document frequency counts deleted documents too: a partition where no
        # version of a target was ever indexed has nothing to rewrite (most of them).
        held = sum(searcher.doc_freq("message_id", i) for i in targets)
        dirty: set[int] = set()
        kept: set[int] = set()
        if held or every:
            hits = searcher.search(Query.all_query(), max(searcher.num_docs, 1)).hits
            addrs = [addr for _, addr in hits]
            owners = (
                cast("list[int]", searcher.fast_field_values("message_id", addrs)) if addrs else []
            )
            if every:
                dirty = set(range(searcher.num_segments))
            else:
                dirty = {a.segment_ord for a, i in zip(addrs, owners, strict=True) if i in targets}
            # An older version of a forgotten message (it changed since) is a deleted
            # document in some segment; which one, the binding cannot say, so then every
            # segment with deletes is rewritten.
            if held > sum(1 for i in owners if i in targets):
                dirty |= self._segments_with_deletes(searcher, addrs, meta)
            kept = {
                int(i)
                for a, i in zip(addrs, owners, strict=True)
                if a.segment_ord in dirty and i not in targets
            }
        # Both cores and a larger heap when a forget waits on a rewrite; a partition with
        # nothing to rewrite only has files a crashed purge left removed.
        big = bool(dirty)
        with _writer(index, *((_PURGE_HEAP, _PURGE_THREADS) if big else ())) as writer:
            if big:
                writer.delete_documents_by_query(
                    Query.term_set_query(self._schema, "message_id", sorted(targets | kept))
                )
                for d in docs_for(kept):
                    writer.add_document(self._document(d))
                writer.commit()
            writer.garbage_collect_files()
        return len(kept)

    def _segments_with_deletes(
        self, searcher: tantivy.Searcher, addrs: list, meta: Path
    ) -> set[int]:
        """The ordinals of segments holding deleted documents, from meta.json (in the
        searcher's segment order). If the live counts disagree with the searcher's, every
        segment counts: rewriting too much is slow, too little leaves words behind."""
        segments = json.loads(meta.read_text())["segments"]
        live: dict[int, int] = {}
        for a in addrs:
            live[a.segment_ord] = live.get(a.segment_ord, 0) + 1
        out = set()
        for ord_, seg in enumerate(segments):
            deleted = (seg.get("deletes") or {}).get("num_deleted_docs", 0)
            if seg["max_doc"] - deleted != live.get(ord_, 0):
                return set(range(max(len(segments), searcher.num_segments)))
            if deleted:
                out.add(ord_)
        return out

    def clear(self) -> None:
        with file_lock(self._lock):
            for index in self._indexes:
                with _writer(index) as writer:
                    writer.delete_all_documents()
                    writer.commit()

    def _document(self, d: FtsDoc) -> tantivy.Document:
        doc = tantivy.Document()
        doc.add_integer("message_id", d.message_id)
        doc.add_text("session_id", d.session_id)
        doc.add_text("project", d.project)
        doc.add_text("role", d.role)
        doc.add_text("kind", d.kind)
        doc.add_integer("timestamp", d.timestamp)
        doc.add_text("text", d.text)
        doc.add_text("tool_text", d.tool_text)
        return doc

    # -- reading ---------------------------------------------------------------------------

    def search(
        self,
        query: str | list[str],
        filt: FtsFilter | None,
        limit: int,
    ) -> list[tuple[int, float]]:
        """(message id, score), best first."""
        return self.search_counted(query, filt, limit, count=False)[0]

    def search_counted(
        self, query: str | list[str], filt: FtsFilter | None, limit: int, count: bool = True
    ) -> tuple[list[tuple[int, float]], int]:
        """`search`, and how many messages match in all (one pass for both; 0 unasked)."""
        searcher = self._searcher()
        q = self._query(query, filt, searcher)
        if q is None or limit <= 0:
            return [], 0
        found = searcher.search(q, limit, count=count)
        total = found.count if count else 0
        if not found.hits:
            return [], total or 0
        ids = searcher.fast_field_values("message_id", [addr for _, addr in found.hits])
        return [(int(mid), s) for (s, _), mid in zip(found.hits, ids, strict=True)], total or 0

    def count(self, query: str | list[str], filt: FtsFilter | None) -> int:
        searcher = self._searcher()
        q = self._query(query, filt, searcher)
        if q is None:
            return 0
        # Tantivy refuses limit=0; one top hit is the cheapest way to get the count.
        return searcher.search(q, 1, count=True).count or 0

    def weight(self, query: str | list[str]) -> float:
        """What a message with every content word of `query` scores, BM25's share aside: a
        hit's score over this says how much of the query it matched."""
        searcher = self._searcher()
        total = 0.0
        for text in [query] if isinstance(query, str) else query:
            total += sum(self._idf(w, searcher) for w in self._content(text, searcher))
        return total

    def rarities(self, query: str) -> tuple[list[float], int]:
        """The rarity (idf) of each word a search of `query` weighs, as `weight` adds them up
        (0 for a word the index does not have; none for a query of STOP_WORDS only), and how
        many messages the index holds."""
        searcher = self._searcher()
        content = self._content(query, searcher, keep_all=False)
        return [self._idf(w, searcher) for w in content], searcher.num_docs

    def unindexed(self, text: str) -> int:
        """How many words of `text` no index holds: LONG_TOKEN bytes or more (a pasted blob or
        key), which the analyser drops when indexing and so when querying too."""
        return sum(1 for token in self._cut.analyze(text) if len(token.encode()) >= LONG_TOKEN)

    def searchable(self, text: str) -> bool:
        """Whether `text` has anything the index can look for (a word, not only marks)."""
        return any(self._stem.analyze(w.rstrip("*")) for w in _words(text))

    def terms(self, query: str | list[str]) -> list[str]:
        """Query words lowercased, each followed by its stems, for prefix highlighting."""
        out: dict[str, None] = {}
        for text in [query] if isinstance(query, str) else query:
            for word in (w.rstrip("*") for w in _words(text)[:_MAX_WORDS]):
                stems = self._stem.analyze(word)
                if stems:
                    out[word.lower()] = None
                    out.update(dict.fromkeys(stems))
        return list(out)

    def stems(self, text: str) -> set[str]:
        """The stems of the words of `text` worth searching (STOP_WORDS left out), analysed
        in one call (a call costs ~0.1 ms, whatever its length)."""
        words = [w.rstrip("*") for w in _words(text) if w.lower() not in STOP_WORDS]
        return set(self._stem.analyze(" ".join(words)))

    def ids(self) -> set[int]:
        searcher = self._searcher()
        if searcher.num_docs == 0:
            return set()
        hits = searcher.search(Query.all_query(), searcher.num_docs, count=False).hits
        return set(searcher.fast_field_values("message_id", [addr for _, addr in hits]))

    def doc_count(self) -> int:
        return self._searcher().num_docs

    def size_bytes(self) -> int:
        try:
            return sum(f.stat().st_size for f in self._path.rglob("*") if f.is_file())
        except FileNotFoundError:
            return 0

    def _refresh(self) -> None:
        try:
            if os.stat(self._path).st_ino != self._dir_ino:
                self._open()  # a rebuild swapped in a new folder
                return
            stats = [os.stat(m) for m in self._metas]
        except FileNotFoundError:
            self._open()  # the folder was deleted: an empty index until the next catch-up
            return
        # Tantivy replaces meta.json atomically on commit, so a new inode or mtime means a commit.
        for n, st in enumerate(stats):
            key = (st.st_ino, st.st_mtime_ns, st.st_size)
            if key != self._meta_keys[n]:
                self._indexes[n].reload()
                self._meta_keys[n] = key
                self._freqs = {}

    def _searcher(self) -> _Searchers:
        try:
            self._refresh()
            return _Searchers([index.searcher() for index in self._indexes])
        except ValueError as exc:
            raise IndexDamaged(f"the full-text index cannot be read: {exc}") from exc

    # -- query building --------------------------------------------------------------------

    def _query(
        self, query: str | list[str], filt: FtsFilter | None, searcher: _Searchers
    ) -> Query | None:
        if isinstance(query, str):
            text_query = self._text_query(query, searcher)
        else:
            # Concepts: each must match; a concept with no words is ignored.
            parts = [q for q in (self._text_query(c, searcher) for c in query) if q is not None]
            text_query = _all(parts) if parts else None
        if text_query is None:
            return None
        filters = self._filters(filt) if filt else []
        if not filters:
            return text_query
        # Filters only select; scoring comes from the text alone.
        return _all([text_query, Query.const_score_query(_all(filters), 0.0)])

    def _text_query(self, text: str, searcher: _Searchers) -> Query | None:
        phrases = [q for p in _PHRASE.findall(text) if (q := self._stemmed_text(p)) is not None]
        content = self._content(text, searcher, keep_all=not phrases)
        if phrases:
            word_queries = [q for w in content if (q := self._stemmed_text(w)) is not None]
            return Query.boolean_query(
                [(Occur.Must, q) for q in phrases] + [(Occur.Should, q) for q in word_queries]
            )
        weighed = [q for w in content if (q := self._weighed(w, searcher)) is not None]
        if not weighed:
            return None
        # BM25 orders messages with the same words, by their prose: tool output (most of the
        # postings) counts by rarity alone. So does a word of several parts (a path, a
        # snake_case name), a phrase and the costliest query to run twice, unless the query
        # has nothing else.
        single = [w for w in content if len(self._stem.analyze(w.rstrip("*"))) == 1] or content
        prose = [q for w in single if (q := self._word_query(w, "text")) is not None]
        return _any([*weighed, Query.boost_query(_any(prose), _BM25_WEIGHT)])

    def _content(self, text: str, searcher: _Searchers, keep_all: bool = True) -> list[str]:
        """The words a query searches for, quoted phrases aside. Words like "when", "did",
        "last" (STOP_WORDS) match most messages: left in, they let a long message full of
        them outrank the answer; a query of nothing else keeps them (`keep_all`). Words in
        more than COMMON of the messages ("fix", "test", "run") are left out too when the
        query has a rarer word the archive holds: they cost the most to search, and at a
        million messages they barely order what the rare words find."""
        words = list(dict.fromkeys(_words(_PHRASE.sub(" ", text))))[:_MAX_WORDS]
        content = [w for w in words if w.lower() not in STOP_WORDS]
        if not content:
            return words if keep_all else []
        most = max(COMMON * searcher.num_docs, COMMON_FLOOR)
        freqs = [max(self._doc_freq(w, field, searcher) for field, _ in _FIELDS) for w in content]
        if not any(0 < f <= most for f in freqs):
            return content
        return [w for w, f in zip(content, freqs, strict=True) if f <= most]

    def _idf(self, word: str, searcher: _Searchers) -> float:
        """The most a word can add to a message's score (its best field)."""
        return max(self._rarity(word, field, searcher) * boost for field, boost in _FIELDS)

    def _rarity(self, word: str, field: str, searcher: _Searchers) -> float:
        """BM25's idf of `word` in `field`; 0 where no message has it."""
        df = self._doc_freq(word, field, searcher)
        if not df:
            return 0.0
        n = max(searcher.num_docs, 1)
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def _weighed(self, word: str, searcher: _Searchers) -> Query | None:
        """A word that scores its rarity (BM25's idf) wherever it appears, however long the
        message: which words a message has decides, how often and in how long a text only
        breaks ties."""
        per_field = []
        for field, boost in _FIELDS:
            q = self._word_query(word, field)
            idf = self._rarity(word, field, searcher)
            if q is not None and idf:
                per_field.append(Query.const_score_query(q, idf * boost))
        if not per_field:
            return None
        return per_field[0] if len(per_field) == 1 else Query.disjunction_max_query(per_field)

    def _doc_freq(self, word: str, field: str, searcher: _Searchers) -> int:
        """How many messages have `word` in `field`: remembered until the next commit, as a
        query asks it of each word several times (what to search, its rarity, its share)."""
        freq = self._freqs.get((word, field))
        if freq is None:
            stems = self._stem.analyze(word)
            plain = len(stems) == 1 and not word.endswith("*")
            if plain and not _HEX_PREFIX.fullmatch(self._fold.analyze(word)[0]):
                freq = searcher.doc_freq(field, stems[0])
            else:
                q = self._word_query(word, field)
                freq = 0 if q is None else searcher.search(q, 1, count=True).count or 0
            if len(self._freqs) >= _MAX_FREQS:
                self._freqs = {}
            self._freqs[word, field] = freq
        return freq

    def _stemmed_text(self, text: str) -> Query | None:
        """A word or a quoted phrase in prose or (scored lower) tool text."""
        per_field = []
        for field, boost in _FIELDS:
            q = self._word_query(text, field)
            if q is None:
                return None
            per_field.append(Query.boost_query(q, boost) if boost != 1.0 else q)
        return _any(per_field)

    def _word_query(self, word: str, field: str) -> Query | None:
        """One field's query for a word, a `prefix*` or a phrase: its stems in order."""
        core = word.rstrip("*")
        stems = self._stem.analyze(core)[:_MAX_WORDS]
        if not stems:
            return None
        last = self._fold.analyze(core)[len(stems) - 1 : len(stems)]
        if word.endswith("*") and last and len(last[0]) >= MIN_PREFIX:
            if len(stems) > 1:
                return Query.phrase_prefix_query(self._schema, field, [*stems[:-1], last[0]])
            # As typed or as stemmed: "migrations*" still finds "migrate" (stem "migrat").
            starts = "|".join(dict.fromkeys([last[0], stems[0]]))
            return Query.regex_query(self._schema, field, f"(?:{starts}).*")
        if len(stems) > 1:
            # The stub wants list[str | tuple[int, str]]: a list[str] fits, but list is invariant.
            return Query.phrase_query(self._schema, field, stems)  # type: ignore[arg-type]
        term = Query.term_query(self._schema, field, stems[0])
        if last and _HEX_PREFIX.fullmatch(last[0]):  # a short SHA finds the full one
            longer = Query.regex_query(self._schema, field, f"{last[0]}.*")
            return Query.boolean_query([(Occur.Should, term), (Occur.Should, longer)])
        return term

    def _filters(self, f: FtsFilter) -> list[Query]:
        out = [
            Query.term_query(self._schema, name, value)
            for name, value in (
                ("session_id", f.session_id),
                ("role", f.role),
            )
            if value is not None
        ]
        if f.projects is not None:
            out.append(Query.term_set_query(self._schema, "project", list(f.projects)))
        if f.kinds is not None:
            out.append(Query.term_set_query(self._schema, "kind", list(f.kinds)))
        if f.only_sessions is not None:
            out.append(Query.term_set_query(self._schema, "session_id", list(f.only_sessions)))
        if f.not_sessions:
            others = Query.term_set_query(self._schema, "session_id", list(f.not_sessions))
            out.append(
                Query.boolean_query([(Occur.Must, Query.all_query()), (Occur.MustNot, others)])
            )
        if f.after is not None or f.before is not None:
            out.append(
                Query.range_query(
                    self._schema,
                    "timestamp",
                    tantivy.FieldType.Integer,
                    lower_bound=f.after,
                    upper_bound=f.before,
                    include_lower=True,
                    # Tantivy rejects an exclusive bound on an open side.
                    include_upper=f.before is None,
                )
            )
        return out


@contextmanager
def _writer(
    index: tantivy.Index, heap: int = _WRITER_HEAP, threads: int = _WRITER_THREADS
) -> Iterator[tantivy.IndexWriter]:
    try:
        writer = index.writer(heap, threads)
        try:
            yield writer
        finally:
            # Consumes the writer: merges finish (dropping would cancel them) and Tantivy's
            # own writer lock is freed before ours, so the next process can open a writer.
            writer.wait_merging_threads()
    except ValueError as exc:
        failed = _os_error(exc)
        if failed is None:
            raise
        raise failed from exc


def _os_error(exc: ValueError) -> OSError | None:
    """Tantivy's ValueError for a failed read or write of the disk (`… No space left on
    device (os error 28) …`) as the OSError it was, which the engine says plainly."""
    found = re.search(r"\(os error (\d+)\)", str(exc))
    return OSError(int(found.group(1)), str(exc)) if found else None


def built(path: Path, partitions: int = 1) -> bool:
    """Whether `path` holds an index of this format: a reader that must not make one (a
    hook) looks before it opens."""
    return _read(path / _FORMAT_FILE) == (FORMAT if partitions == 1 else f"{FORMAT}/{partitions}")


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        return None


def _all(queries: list[Query]) -> Query:
    return (
        queries[0] if len(queries) == 1 else Query.boolean_query([(Occur.Must, q) for q in queries])
    )


def _any(queries: list[Query]) -> Query:
    return (
        queries[0]
        if len(queries) == 1
        else Query.boolean_query([(Occur.Should, q) for q in queries])
    )
