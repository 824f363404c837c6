"""The Tantivy full-text index, on a real index in a temp dir."""

from __future__ import annotations

import multiprocessing
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from memtui.store import fts
from memtui.store.fts import FtsDoc, FtsFilter, FullText
from memtui.store.locks import file_lock


def doc(
    mid: int,
    text: str,
    tool_text: str = "",
    *,
    session_id: str | None = None,
    project: str = "/p",
    role: str = "user",
    kind: str = "prompt",
    timestamp: int = 0,
) -> FtsDoc:
    # Sessions vary, so that a partitioned index spreads the documents over its partitions.
    session = f"s{mid % 7}" if session_id is None else session_id
    return FtsDoc(mid, session, project, role, kind, timestamp, text, tool_text)


@pytest.fixture(params=[1, 3], ids=["one", "partitioned"])
def ft(tmp_path: Path, request: pytest.FixtureRequest) -> FullText:
    return FullText(tmp_path / "fts", request.param)


def ids_of(ft: FullText, query: str | list[str], filt: FtsFilter | None = None) -> list[int]:
    return [mid for mid, _ in ft.search(query, filt, 50)]


def test_stemming_finds_other_forms(ft: FullText) -> None:
    ft.write([doc(1, "We should migrate the schema first"), doc(2, "nothing to see here")])
    for query in ("migrations", "migrated", "migrating", "Migrate"):
        assert ids_of(ft, query) == [1], query


IDENTIFIER_DOCS = [
    doc(1, "the hook useEffect runs twice in dev"),
    doc(2, "rename the column to snake_case_name please"),
    doc(3, "edit file.py and run it again"),
    doc(4, "it crashes in src/app/main.rs on startup"),
    doc(5, "error[E0502]: cannot borrow `v` as mutable"),
    doc(6, "the server answered HTTP 503 again"),
    # Distractors: the same parts, apart or in another order.
    doc(7, "use the effect; the file is python, py files and main things"),
    doc(8, "a snake, a case and a name; the app src; rs232 and main"),
    doc(9, "HTTP is fine, 503 errors come from elsewhere, e0 and 502"),
]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("useEffect", 1),
        ("useeffect", 1),
        ("snake_case_name", 2),
        ("file.py", 3),
        ("src/app/main.rs", 4),
        ("main.rs", 4),
        ("E0502", 5),
        ("e0502", 5),
        ("HTTP 503", 6),
        ('"HTTP 503"', 6),
    ],
)
def test_identifiers_are_found_first(ft: FullText, query: str, expected: int) -> None:
    ft.write(IDENTIFIER_DOCS)
    assert ids_of(ft, query)[0] == expected


def test_identifier_parts_must_be_adjacent(ft: FullText) -> None:
    ft.write(IDENTIFIER_DOCS)
    for query, expected in (("file.py", [3]), ("src/app/main.rs", [4]), ("snake_case_name", [2])):
        assert ids_of(ft, query) == expected


def test_tool_text_is_found_but_ranked_below_prose(ft: FullText) -> None:
    ft.write([doc(1, "ran the suite", "pytest tests/test_api.py -x"), doc(2, "see test_api.py")])
    assert ids_of(ft, "test_api.py") == [2, 1]


def test_phrase(ft: FullText) -> None:
    ft.write([doc(1, "red apples and green pears"), doc(2, "green apples and red pears")])
    assert ids_of(ft, '"red apple"') == [1]
    assert ids_of(ft, '"red apple" pears') == [1]
    assert sorted(ids_of(ft, '"red apple')) == [1, 2]  # unbalanced: plain words


# Each case: a filter and which of the corpus docs it admits.
FILTER_CASES: list[tuple[FtsFilter, Callable[[FtsDoc], bool]]] = [
    (FtsFilter(projects=("/p3",)), lambda d: d.project == "/p3"),
    (FtsFilter(session_id="s7"), lambda d: d.session_id == "s7"),
    (FtsFilter(role="assistant"), lambda d: d.role == "assistant"),
    (FtsFilter(kinds=("summary", "meta")), lambda d: d.kind in ("summary", "meta")),
    (FtsFilter(kinds=()), lambda d: False),
    (FtsFilter(after=1_150), lambda d: d.timestamp >= 1_150),
    (FtsFilter(before=1_030), lambda d: d.timestamp < 1_030),
    (FtsFilter(after=1_020, before=1_060), lambda d: 1_020 <= d.timestamp < 1_060),
    (
        FtsFilter(projects=("/p1",), role="user", after=1_000, before=1_100),
        lambda d: d.project == "/p1" and d.role == "user" and d.timestamp < 1_100,
    ),
]


@pytest.mark.parametrize(("filt", "admits"), FILTER_CASES)
def test_filters_apply_inside_the_query(
    ft: FullText, filt: FtsFilter, admits: Callable[[FtsDoc], bool]
) -> None:
    kinds = ["prompt", "assistant", "tool_result", "summary", "meta"]
    corpus = [
        doc(
            i,
            "",
            session_id=f"s{i % 10}",
            project=f"/p{i % 4}",
            role=("user", "assistant")[(i // 3) % 2],
            kind=kinds[i % 5],
            timestamp=1_000 + i,
        )
        for i in range(200)
    ]
    for d in corpus:
        # Filtered-out docs score higher, so filtering after the search would come up short.
        d.text = "deploy failed later" if admits(d) else "deploy deploy deploy failed"
    ft.write(corpus)
    admitted = {d.message_id for d in corpus if admits(d)}
    hits = ids_of(ft, "deploy", filt)[:10]
    assert len(hits) == min(10, len(admitted))
    assert set(hits) <= admitted
    assert ft.count("deploy", filt) == len(admitted)


def test_concepts_must_all_match(ft: FullText) -> None:
    ft.write([doc(1, "alpha beta"), doc(2, "alpha gamma"), doc(3, "beta gamma")])
    assert ids_of(ft, ["alpha", "beta"]) == [1]
    assert sorted(ids_of(ft, ["alpha", "gamma delta"])) == [2]
    assert ids_of(ft, ["alpha", "beta", "gamma"]) == []
    assert sorted(ids_of(ft, ["alpha", "  "])) == [1, 2]  # a concept with no words is dropped
    assert ft.count(["beta", "gamma"], None) == 1


def test_all_words_rank_first(ft: FullText) -> None:
    ft.write([doc(1, "cache invalidation bug"), doc(2, "cache cache cache"), doc(3, "bug bug")])
    assert ids_of(ft, "cache bug")[0] == 1


def test_replaying_a_batch_is_idempotent(ft: FullText) -> None:
    batch = [doc(i, f"message number {i}") for i in range(1, 101)]
    ft.write(batch)
    ft.write(batch)
    assert ft.doc_count() == 100
    assert ft.ids() == set(range(1, 101))
    assert sorted(ids_of(ft, "message")) == sorted(set(ids_of(ft, "message")))
    assert ft.count("message", None) == 100


def test_rewrite_replaces_and_delete_removes(ft: FullText) -> None:
    ft.write([doc(1, "old words"), doc(2, "keep me"), doc(3, "drop me")])
    ft.write([doc(1, "new words")], delete_ids=[3, 999])
    assert ids_of(ft, "old") == []
    assert ids_of(ft, "new") == [1]
    assert ft.ids() == {1, 2}
    ft.clear()
    assert ft.doc_count() == 0
    assert ft.ids() == set()
    assert ids_of(ft, "keep") == []


AWKWARD = [
    "",
    "   ",
    '"',
    '"unbalanced quote',
    'two "unbalanced" quotes"',
    "AND OR",
    "NOT",
    "field:",
    "text:foo",
    "message_id:1",
    "*",
    "foo*",
    "-",
    "-foo",
    "+",
    "()",
    "(foo",
    "[1 TO 5]",
    "{}",
    "foo^2",
    "~",
    "foo~2",
    "\\",
    "/regex/",
    "'",
    "x" * 10_000,
    "word " * 2_000,
    "😀🔥",
    "日本語のテキスト",
    "\x00\x01\x1b[31m",
    "\u200b\ufeff",
    "a" * 100 + ".py",
    '""',
    '" "',
]


@pytest.mark.parametrize("query", AWKWARD)
def test_awkward_queries_never_raise(ft: FullText, query: str) -> None:
    ft.write([doc(1, "word and foo and text"), doc(2, "日本語のテキスト 😀")])
    assert isinstance(ft.search(query, None, 10), list)
    assert isinstance(ft.search([query, "foo"], FtsFilter(projects=("/p",)), 10), list)
    assert ft.count(query, None) >= 0
    assert isinstance(ft.terms(query), list)


def test_queries_with_no_words_return_nothing(ft: FullText) -> None:
    ft.write([doc(1, "something")])
    for query in ("", "  ", "*", "-", "😀", '""', []):
        assert ft.search(query, None, 10) == []
        assert ft.count(query, None) == 0


def test_terms_for_highlighting(ft: FullText) -> None:
    assert ft.terms("Migrations useEffect") == ["migrations", "migrat", "useeffect"]
    assert "main" in ft.terms('"src/app/main.rs"')
    assert ft.terms(["alpha", "beta"]) == ["alpha", "beta"]
    assert ft.terms("*") == []


def test_a_second_instance_sees_new_commits(tmp_path: Path) -> None:
    writer, reader = FullText(tmp_path / "fts"), FullText(tmp_path / "fts")
    assert reader.search("hello", None, 10) == []
    writer.write([doc(1, "hello there")])
    assert ids_of(reader, "hello") == [1]
    writer.write([doc(2, "hello again")], delete_ids=[1])
    assert ids_of(reader, "hello") == [2]
    assert reader.doc_count() == 1


def test_write_lock_is_exclusive(tmp_path: Path) -> None:
    lock = tmp_path / "write.lock"
    with file_lock(lock) as held, file_lock(lock, blocking=False) as second:
        assert held and not second
    with file_lock(lock, blocking=False) as again:
        assert again
    assert lock.stat().st_mode & 0o777 == 0o600


def _write_batches(path: Path, start: int) -> None:
    ft = FullText(path)
    for b in range(5):
        first = start + b * 200
        ft.write(doc(i, f"process batch {start} item {i}") for i in range(first, first + 200))


def test_two_processes_write_at_once(tmp_path: Path) -> None:
    path = tmp_path / "fts"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_write_batches, args=(path, start)) for start in (0, 10_000)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    ft = FullText(path)
    expected = set(range(0, 1_000)) | set(range(10_000, 11_000))
    assert ft.ids() == expected
    assert ft.doc_count() == len(expected)
    assert ft.count("process", None) == len(expected)


def test_question_words_do_not_weigh_in(ft: FullText) -> None:
    # Message 1 answers the question; the others are full of the question's small words.
    filler = [
        doc(i, "what did we say we would do about that last time? when did you talk to them?")
        for i in range(2, 12)
    ]
    ft.write([doc(1, "the staging migration moves the databases first, then services"), *filler])
    assert ids_of(ft, "when did we last talk about the staging migration?") == [1]


def test_a_common_word_is_left_out_when_a_rarer_one_is_asked(
    ft: FullText, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The floor is 10,000 messages; lowered, a word in more than COMMON of them is common.
    monkeypatch.setattr(fts, "COMMON_FLOOR", 0)
    fixes = [doc(i, f"fix the build in module {i}") for i in range(2, 41)]
    ft.write([doc(1, "the sidebar spacing comes from tokens"), *fixes, doc(41, "sidebar fix")])
    # "fix" is in 40 of 41 messages, "sidebar" in 2: asked beside it, "fix" finds nothing...
    assert sorted(ids_of(ft, "fix the sidebar")) == [1, 41]
    # ...and still searches when nothing rarer is asked, or when the rarer word is in no
    # message at all.
    assert len(ids_of(ft, "fix the build")) == 40
    assert len(ids_of(ft, "fix the sidebarr")) == 40
    monkeypatch.setattr(fts, "COMMON_FLOOR", 1_000)  # a small archive keeps every word
    assert ids_of(ft, "fix the sidebar")[0] == 41
    assert len(ids_of(ft, "fix the sidebar")) == 41


def test_a_word_s_rarity_follows_new_commits(tmp_path: Path) -> None:
    """Frequencies are remembered between queries, and forgotten at the next commit."""
    ft = FullText(tmp_path / "fts", 2)
    ft.write([doc(1, "the sidebar"), *(doc(i, "other things") for i in range(2, 10))])
    rare = ft.weight("sidebar")
    ft.write([doc(i, "sidebar again") for i in range(10, 40)])
    assert ft.weight("sidebar") < rare


def test_a_clitic_goes_with_its_word(ft: FullText) -> None:
    """ "grandmother's" is the word grandmother: its "s", alone, found every "let's"."""
    ft.write(
        [
            doc(1, "my grandmother baked the cake"),
            doc(2, "let's check the logs; here's the trace"),
            doc(3, "we'll ship what they've built"),
        ]
    )
    assert ids_of(ft, "grandmother's recipe") == [1]
    assert ids_of(ft, "grandmother\u2019s") == [1]
    assert ids_of(ft, "they've shipped") == [3]
    assert "s" not in ft.terms("grandmother's")


def test_a_query_of_small_words_still_searches(ft: FullText) -> None:
    ft.write([doc(1, "what was it"), doc(2, "a plain note")])
    assert ids_of(ft, "what was it") == [1]


def test_rare_words_beat_common_words_in_short_messages(ft: FullText) -> None:
    # A long answer with the question's rarest word, against short messages that have its
    # two common words; tool results (no prose) make every message's prose look long to BM25.
    answer = (
        "A race in the withdraw handler: both requests read the balance, both pass the check, "
        "and both write. I replaced the read-check-write with one atomic statement and treat "
        "zero updated rows as insufficient funds, which the client shows as a plain error."
    )
    common = [doc(i, f"fix the race condition in module {i}") for i in range(2, 12)]
    tools = [doc(i, "", "exit code 0", kind="tool_result") for i in range(12, 60)]
    ft.write([doc(1, answer), *common, *tools])
    assert ids_of(ft, "was the double withdrawal a race condition?")[0] == 1


def test_scores_fall_with_fewer_rare_words(ft: FullText) -> None:
    ft.write(
        [
            doc(1, "kafka rebalance duplicates"),
            doc(2, "kafka rebalance"),
            doc(3, "kafka"),
            *(doc(i, "unrelated words here") for i in range(4, 20)),
        ]
    )
    assert ids_of(ft, "why did kafka rebalance and make duplicates") == [1, 2, 3]


# -- what developers paste (issue 20) ----------------------------------------------------------

SHA = "9f3c2ab41d7e6f5a8b0c9d1e2f3a4b5c6d7e8f90"
SHA_256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
PASTED_DOCS = [
    doc(1, f"the regression came in with commit {SHA} on Friday"),
    doc(2, "we ran the migrations on staging and they were slow"),
    doc(3, "please look at src/api/orders.py, the total is wrong"),
    doc(4, "node 17 fails with ERR_OSSL_EVP_UNSUPPORTED at startup"),
    doc(5, "don't commit with --no-verify, the hooks matter"),
    doc(6, "the migration of orders is done; the api is fine; verify that src builds"),
    doc(7, f"the image digest is sha256:{SHA_256}"),
    doc(8, "the error was not supported by the evp layer of openssl"),
    doc(9, "a short hash like 9f3c2ab is what git log --oneline prints"),
]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (SHA, [1]),
        (SHA.upper(), [1]),
        (SHA[:7], [1, 9]),
        (SHA[:12], [1]),
        (SHA_256, [7]),
        (SHA_256[:10], [7]),
        ("migrat*", [2, 6]),
        ("migrations*", [2, 6]),
        ('"ran the migrations on staging"', [2]),
        ("src/api/orders.py", [3]),
        ("ERR_OSSL_EVP_UNSUPPORTED", [4]),
        ("err_ossl_evp_unsupported", [4]),
        ("--no-verify", [5]),
        ("src/api/ord*", [3]),
    ],
)
def test_what_developers_paste_is_found(ft: FullText, query: str, expected: list[int]) -> None:
    ft.write(PASTED_DOCS)
    assert sorted(ids_of(ft, query)) == expected, query
    assert ft.count(query, None) == len(expected)


def test_a_phrase_must_match_in_order(ft: FullText) -> None:
    ft.write(PASTED_DOCS)
    assert ids_of(ft, '"on staging"') == [2]
    assert ids_of(ft, '"staging on"') == []


def test_a_short_prefix_is_a_plain_word(ft: FullText) -> None:
    ft.write([doc(1, "mi casa"), doc(2, "migrations ran")])
    assert ids_of(ft, "mi*") == [1]


def test_a_prefix_ranks_with_the_other_words(ft: FullText) -> None:
    ft.write(PASTED_DOCS)
    assert ids_of(ft, "migrat* staging")[0] == 2


def test_a_word_of_hex_letters_only_is_not_a_prefix(ft: FullText) -> None:
    ft.write([doc(1, "the facade pattern"), doc(2, "a facadeXYZ class")])
    assert ids_of(ft, "facade") == [1]


@pytest.mark.parametrize("query", ['"unclosed', "*", "AND OR", "x" * 10_000, '"', "***", "(("])
def test_malformed_queries_search_as_plain_words(ft: FullText, query: str) -> None:
    ft.write([*PASTED_DOCS, doc(10, "unclosed quotes and or nothing"), doc(11, "x" * 300)])
    found = ids_of(ft, query)
    assert ft.count(query, None) == len(found)
    if query == '"unclosed':
        assert found == [10]
    if query == "AND OR":
        assert 10 in found


def test_searchable_says_whether_a_query_has_words(ft: FullText) -> None:
    for query in ("", "   ", "\u0000", "🎉🚀", "*", "?!…", '""', "—"):
        assert not ft.searchable(query), query
    for query in ("a", "migrat*", "日本", "x1", "--no-verify"):
        assert ft.searchable(query), query


def test_an_index_of_an_older_format_is_emptied_on_open(tmp_path: Path) -> None:
    path = tmp_path / "fts"
    FullText(path).write([doc(1, "kept until the format changes")])
    assert FullText(path).doc_count() == 1
    (path / "memtui-format").write_text("1")
    assert FullText(path).doc_count() == 0
    assert (path / "memtui-format").read_text() == fts.FORMAT
    reopened = FullText(path)
    reopened.write([doc(2, "written in the new format")])
    assert FullText(path).doc_count() == 1


@pytest.mark.parametrize("lose", ["files", "folder"])
def test_a_lost_partition_empties_the_index_for_the_catch_up_to_refill(
    tmp_path: Path, lose: str
) -> None:
    """A catch-up rebuilds an index it finds empty; one partition's files gone while the
    others stand would leave its sessions unfindable, with the index said to be in step."""
    path = tmp_path / "fts"
    FullText(path, 3).write([doc(i, f"message {i}") for i in range(1, 30)])
    lost = path / "p01"
    if lose == "files":
        for f in lost.iterdir():
            f.unlink()
    else:
        shutil.rmtree(lost)
    reopened = FullText(path, 3)
    assert reopened.doc_count() == 0
    assert not (tmp_path / "fts.damaged").exists()  # nothing kept aside: a plain refill
    reopened.write([doc(1, "written again")])
    assert FullText(path, 3).doc_count() == 1
