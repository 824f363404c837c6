"""The query engine on real transcripts and on data made here: modes, filters, concepts, paging."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from memtui.config import Config
from memtui.engine import history
from memtui.engine import search as search_module
from memtui.engine.memory import Memory
from memtui.engine.search import SearchResponse, answered, nearest, settled
from memtui.errors import Ambiguous, InvalidArgument, NotFound
from memtui.store.fts import LONG_TOKEN
from tests.lines import assistant, text, user, write

SHOP, CRAWLER = "/home/dev/shop-api", "/home/dev/crawler"


def build(root: Path) -> None:
    """Two projects; 'webhook' in 1 shop message and 40 crawler ones, at known dates."""
    shop = root / "-home-dev-shop-api" / "shop-1.jsonl"
    write(
        shop,
        user(
            "shop-u1", "the checkout webhook test is flaky", "shop-1", "2026-01-10T09:00:00Z", SHOP
        ),
    )
    write(
        shop,
        assistant(
            "shop-a1",
            "msg_shop_1",
            text("I froze the clock in the fixture; the refresh token expiry was racing."),
            "shop-1",
            "2026-01-10T09:01:00Z",
            SHOP,
        ),
    )
    write(
        shop,
        user(
            "shop-u2",
            "rename snake_case_helper in billing/invoice.py",
            "shop-1",
            "2026-01-10T09:05:00Z",
            SHOP,
        ),
    )
    crawler = root / "-home-dev-crawler" / "crawl-1.jsonl"
    for n in range(40):
        day = f"2026-06-{1 + n % 28:02d}T10:00:00Z"
        write(
            crawler,
            user(f"crawl-u{n}", f"webhook retry number {n} hits HTTP 503", "crawl-1", day, CRAWLER),
        )
        write(
            crawler,
            assistant(
                f"crawl-a{n}",
                f"msg_crawl_{n}",
                text(f"backing off the webhook retry {n}"),
                "crawl-1",
                day,
                CRAWLER,
            ),
        )


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    tmp = tmp_path_factory.mktemp("made")
    build(tmp / "projects")
    memory = Memory(Config(tmp / "data", tmp / "projects", tmp / "logs"))
    memory.upkeep.ingest()
    yield memory
    memory.close()


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    shared = Path(__file__).resolve().parents[1].parent / "shared" / "transcripts" / "projects"
    if not shared.is_dir():
        pytest.skip("../shared/transcripts is not beside this checkout")
    tmp = tmp_path_factory.mktemp("real")
    memory = Memory(Config(tmp / "data", shared, tmp / "logs"))
    memory.upkeep.ingest()
    yield memory
    memory.close()


# -- real transcripts ------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["fts", "hybrid"])
def test_known_phrase_found_in_its_session(real: Memory, mode: str) -> None:
    response = real.history.search("phx.server doesnt seem to start", mode)
    top = response.results[0]
    assert top.uuid == "7d48cbd2-6615-4dd8-87f6-38f12b8167d6"
    assert top.session_id == "55604662-cf2a-4331-851a-ec234028f8ca"
    assert top.project == "/home/marco/projects/spotter"
    page = real.history.get_session(top.session_id, offset=top.message_index, limit=1)
    assert page.messages[0].uuid == top.uuid and page.messages[0].kind == "prompt"
    assert "**phx.server**" in top.snippet or "**phx**" in top.snippet


def test_vector_mode_finds_by_meaning(real: Memory) -> None:
    target = "7d48cbd2-6615-4dd8-87f6-38f12b8167d6"  # "mix phx.server doesnt seem to start"
    response = real.history.search("the phoenix server does not start", "vector", limit=5)
    assert target in [r.uuid for r in response.results]
    assert all(r.found_by == ["vector"] for r in response.results)
    assert response.vector_total == len(response.results) and response.nearest == []
    # Asked in other words (elixir, launch), it is not near in meaning: no match, and the
    # nearest, it among them, set apart.
    apart = real.history.search("elixir server fails to launch", "vector", limit=5)
    assert apart.results == [] and target in [r.uuid for r in apart.nearest]


def test_tool_output_is_searchable(real: Memory) -> None:
    response = real.history.search("Reconnected to tidewave", "fts")
    assert response.total >= 1


def test_list_projects_and_recent(real: Memory) -> None:
    projects = {p.project: p for p in real.history.list_projects()}
    assert projects["/home/marco/projects/spotter"].sessions == 3
    recent = real.history.recent_sessions("/home/marco/projects/spotter", limit=2).sessions
    assert len(recent) == 2 and recent[0].last_timestamp >= recent[1].last_timestamp


def test_read_session_numbered_lines(real: Memory) -> None:
    full = real.history.read_session("55604662")
    lines = full.markdown.splitlines()
    assert lines[0].lstrip().startswith("1  # ")
    assert (full.start_line, full.end_line, full.next_start_line) == (1, full.lines, None)
    part = real.history.read_session("55604662", start_line=3, end_line=5)
    assert part.markdown.splitlines() == lines[2:5]
    assert (part.end_line, part.next_start_line) == (5, 6)


def test_get_session_cuts_long_pages(real: Memory) -> None:
    long_page = real.history.get_session("4d5611e5", limit=50)
    assert all(len(m.text) <= 500 for m in long_page.messages)
    short_page = real.history.get_session("4d5611e5", limit=5, order="desc")
    assert short_page.messages[0].message_index == short_page.total - 1
    assert short_page.has_more


# -- made data: filters, modes, concepts, paging --------------------------------------------


@pytest.mark.parametrize("mode", ["fts", "vector", "hybrid"])
def test_project_filter_still_fills_the_limit(made: Memory, mode: str) -> None:
    shop = made.history.search("webhook", mode, project=SHOP, limit=5)
    assert shop.results and {r.project for r in shop.results} == {SHOP}
    # Vectors list only their near neighbours: ten of the crawler's are.
    want = 25 if mode != "vector" else 10
    crawler = made.history.search("webhook", mode, cwd=CRAWLER, limit=want)
    assert len(crawler.results) == want and {r.project for r in crawler.results} == {CRAWLER}
    # Claude Code started in a folder of the project searches the project (it found nothing)
    inside = made.history.search("webhook", mode, cwd=f"{CRAWLER}/src/../lib", limit=want)
    assert [r.uuid for r in inside.results] == [r.uuid for r in crawler.results]


@pytest.mark.parametrize("mode", ["fts", "vector", "hybrid"])
def test_role_session_and_date_filters(made: Memory, mode: str) -> None:
    users = made.history.search("webhook retry", mode, role="user", limit=20)
    assert len(users.results) == 20 and {r.role for r in users.results} == {"user"}
    in_session = made.history.search("webhook", mode, session="shop", limit=10)  # a prefix
    with pytest.raises(InvalidArgument, match="session is empty"):  # searched every session
        made.history.search("webhook", mode, session=" ")
    assert in_session.results and {r.session_id for r in in_session.results} == {"shop-1"}
    june = made.history.search("webhook", mode, after="2026-06-10", before="2026-06-12", limit=50)
    days = {r.timestamp[:10] for r in june.results}
    assert days == {"2026-06-10", "2026-06-11"}


def test_swapped_dates_are_refused_not_answered_with_nothing(made: Memory) -> None:
    with pytest.raises(InvalidArgument, match="later than before"):
        made.history.search("webhook", "hybrid", after="2026-06-12", before="2026-06-10")
    same_day = made.history.search("webhook", "fts", after="2026-06-10", before="2026-06-10")
    assert same_day.results == [], "an empty range is not an error"
    assert same_day.note == (
        "after and before are the same moment (2026-06-10): nothing falls between them; "
        "for one day, give before the day after it"
    )


def test_hybrid_marks_which_ranking_found_it(made: Memory) -> None:
    response = made.history.search("checkout webhook flaky", "hybrid")
    assert response.mode == "hybrid"
    top = response.results[0]
    assert top.uuid == "shop-u1" and set(top.found_by) == {"fts", "vector"}


def test_identifiers_and_stemming(made: Memory) -> None:
    assert made.history.search("snake_case_helper", "fts").results[0].uuid == "shop-u2"
    assert made.history.search("invoice.py", "fts").results[0].uuid == "shop-u2"
    assert (
        made.history.search("freezing clocks", "fts").results[0].uuid == "shop-a1"
    )  # froze ≠ freez
    assert made.history.search("HTTP 503", "fts").total == 40


def test_concepts_all_must_match(made: Memory) -> None:
    both = made.history.search(["webhook", "flaky"], "fts")
    assert [r.uuid for r in both.results] == ["shop-u1"]
    hybrid = made.history.search(["webhook", "flaky"], "hybrid")
    assert hybrid.results[0].uuid == "shop-u1"
    # Vectors: ranked by the weakest similarity, so the message near both concepts leads.
    assert made.history.search(["webhook", "flaky test"], "vector").results[0].uuid == "shop-u1"
    with pytest.raises(InvalidArgument, match="2 to 5"):
        made.history.search(["only one"], "fts")


def test_paging_is_stable_and_disjoint(made: Memory) -> None:
    first = made.history.search("webhook retry", "hybrid", limit=10)
    second = made.history.search("webhook retry", "hybrid", limit=10, offset=10)
    both = made.history.search("webhook retry", "hybrid", limit=20)
    assert [r.uuid for r in first.results + second.results] == [r.uuid for r in both.results]
    assert not {r.uuid for r in first.results} & {r.uuid for r in second.results}


def test_snippet_marks_matched_words(made: Memory) -> None:
    result = made.history.search("refresh tokens", "fts").results[0]
    assert "**refresh**" in result.snippet and "**token**" in result.snippet


AWKWARD = [
    '"unbalanced',
    "AND OR",
    "field:",
    "title:webhook",
    "webhook " * 500,  # 4,000 characters: the most a query may have
    "🔥💥 webhook 🚀",
    "\x00\x1b[31m",
    "NOT",
    "a:b:c OR -d",
    "webhook*",
    '"webhook',
]
NOTHING_TO_SEARCH = ["", "   ", "\u0000", "\t\n", "*", "-", "(((", "🔥💥🚀", "?!…", '""', "**"]


@pytest.mark.parametrize("query", AWKWARD)
@pytest.mark.parametrize("mode", ["fts", "vector", "hybrid"])
def test_awkward_queries_never_raise(made: Memory, query: str, mode: str) -> None:
    response = made.history.search(query, mode)
    assert isinstance(response.results, list)
    assert response.total >= len(response.results)


@pytest.mark.parametrize("query", NOTHING_TO_SEARCH)
@pytest.mark.parametrize("mode", ["fts", "vector", "hybrid"])
def test_a_query_with_nothing_to_search_is_refused(made: Memory, query: str, mode: str) -> None:
    with pytest.raises(InvalidArgument, match="nothing to search for"):
        made.history.search(query, mode)
    with pytest.raises(InvalidArgument, match="nothing to search for"):
        made.history.search(["webhook", query], mode)


@pytest.mark.parametrize("mode", ["fts", "hybrid"])
def test_a_word_too_long_to_index_is_said_to_be_left_out(made: Memory, mode: str) -> None:
    """The index drops words of LONG_TOKEN bytes or more (a pasted blob), so a query cannot
    find them: the answer says so, never that the query held only marks."""
    blob = "Qz" * (LONG_TOKEN // 2)
    with pytest.raises(InvalidArgument, match=f"words of {LONG_TOKEN} bytes or more") as e:
        made.history.search(blob, mode)
    assert "only spaces" not in str(e.value)
    mixed = made.history.search(f"webhook {blob}", mode)
    plain = made.history.search("webhook", mode)
    assert [r.uuid for r in mixed.results] == [r.uuid for r in plain.results]
    assert mixed.note is not None and "1 word of 256 bytes or more left out" in mixed.note
    assert plain.note is None or "left out" not in plain.note
    wide = made.history.search("webhook " + "é" * (LONG_TOKEN // 2), mode)  # 128 characters
    assert wide.note is not None and "1 word of 256 bytes or more left out" in wide.note
    kept = made.history.search("webhook " + "Qz" * (LONG_TOKEN // 2 - 1), mode)
    assert kept.note is None or "left out" not in kept.note, "255 bytes are indexed"


def test_alternatives_with_nothing_to_search_are_ignored(made: Memory) -> None:
    plain = made.history.search("webhook retry", "hybrid")
    padded = made.history.search("webhook retry", "hybrid", alternatives=["🔥", "*", "   "])
    assert [r.uuid for r in padded.results] == [r.uuid for r in plain.results]


def test_bad_arguments_say_what_to_fix(made: Memory) -> None:
    with pytest.raises(InvalidArgument, match="mode"):
        made.history.search("x", "semantic")
    with pytest.raises(InvalidArgument, match="ISO 8601"):
        made.history.search("x", after="last tuesday")
    with pytest.raises(InvalidArgument, match="role"):
        made.history.search("x", role="system")
    with pytest.raises(InvalidArgument, match="limit"):
        made.history.search("x", limit=0)
    with pytest.raises(NotFound, match="no session"):
        made.history.search("x", session="nope")
    with pytest.raises(InvalidArgument, match="4,000"):
        made.history.search("webhook " * 501)
    with pytest.raises(InvalidArgument, match="offset"):
        made.history.search("x", offset=10**12)
    with pytest.raises(InvalidArgument, match="UTF-8"):
        made.history.search("caf\udcff")
    with pytest.raises(NotFound, match="no project"):
        made.history.search("x", project="/no/such/project")


def search_alt(
    made: Memory, query: str, mode: str, alternatives: object, limit: int = 10
) -> SearchResponse:
    return made.history.search(query, mode, alternatives=alternatives, limit=limit)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["fts", "vector", "hybrid"])
def test_alternatives_find_what_the_answer_says(made: Memory, mode: str) -> None:
    # The question has none of the message's words; the alternative has some of them.
    question, alternative = "tidy up naming in the money code", "rename the billing helper"
    alone = [r.uuid for r in search_alt(made, question, mode, None).results]
    both = search_alt(made, question, mode, [alternative])
    assert both.results[0].uuid == "shop-u2"
    if mode == "fts":
        assert "shop-u2" not in alone
    assert both.total >= len(both.results)


def test_alternatives_are_fused_not_anded(made: Memory) -> None:
    # Each phrasing finds its own message; a message need not match them all.
    found = search_alt(made, "snake_case_helper", "fts", ["refresh token expiry"])
    assert {r.uuid for r in found.results} == {"shop-u2", "shop-a1"}
    assert "**snake_case_helper**" in " ".join(r.snippet for r in found.results)
    assert "**token**" in " ".join(r.snippet for r in found.results)
    # Nothing to add: the same page as without them.
    plain = search_alt(made, "webhook retry", "hybrid", None)
    empty = search_alt(made, "webhook retry", "hybrid", ["", "  "])
    assert [r.uuid for r in plain.results] == [r.uuid for r in empty.results]


def test_phrasings_vector_rankings_merge_at_their_closest() -> None:
    # The alternative's close match beats the question's far neighbours.
    question = [(1, 0.41), (2, 0.40), (3, 0.39)]
    alternative = [(3, 0.82), (4, 0.35)]
    assert nearest([question, alternative]) == [(3, 0.82), (1, 0.41), (2, 0.40), (4, 0.35)]


@pytest.mark.parametrize(
    ("alternatives", "message"),
    [
        (["a", "b", "c", "d", "e"], "at most 4"),
        ("refresh token", "list of 0 to 4 strings"),
        (["fine", 3], "list of 0 to 4 strings"),
    ],
)
def test_bad_alternatives_say_what_to_fix(made: Memory, alternatives: object, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        search_alt(made, "webhook", "hybrid", alternatives)


def test_engine_imports_no_front_end() -> None:
    code = (
        "import sys, memtui.engine.memory; "
        "print(sorted(m for m in ('textual', 'mcp') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


GIFT = "2026-03-02T18:00:00Z"


@pytest.fixture(scope="module")
def turns(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    """A conversation whose answer shares no word with the prompt it answers, among others."""
    tmp = tmp_path_factory.mktemp("turns")
    path = tmp / "projects" / "-home-dev-shop-api" / "gift.jsonl"
    lines = [
        user("g-u1", "my dad turns 70 next week and loves birdwatching: any gift ideas?"),
        assistant("g-a1", "msg_g1", text("Let me think about it.")),
        assistant(
            "g-a2",
            "msg_g2",
            text(
                "A pair of 8x42 binoculars, a field guide for your region, or a feeder camera "
                "so he can watch from the kitchen window."
            ),
        ),
        user("g-u2", "now the refunds bug: partial refunds are rounded twice"),
        assistant(
            "g-a3",
            "msg_g3",
            text("The amount is converted to cents before and after the fee: once is enough."),
        ),
    ]
    for n, line in enumerate(lines):
        write(path, line.replace(b"2026-11-01T10:00", f"2026-03-02T18:{n:02d}".encode()))
    for n in range(30):
        write(
            tmp / "projects" / "-home-dev-crawler" / "c.jsonl",
            user(f"c-u{n}", f"idea number {n} for the crawler's retry budget", "c-1", GIFT),
        )
    memory = Memory(Config(tmp / "data", tmp / "projects", tmp / "logs"))
    memory.upkeep.ingest()
    yield memory
    memory.close()


def test_a_question_in_the_words_of_the_prompt_finds_the_answer(turns: Memory) -> None:
    """Asked later in the words of the prompt, hybrid brings Claude's answer (the turn's last
    message that says something) in just below the prompt; full text alone cannot."""
    question = "what gift ideas did you have for my dad?"
    found = turns.history.search(question, "hybrid").results
    hybrid = [r.uuid for r in found]
    assert hybrid[:2] == ["g-u1", "g-a2"]
    # Found as the answer to a hit, and labelled so: neither words nor meaning (was []).
    assert "fts" in found[0].found_by and found[1].found_by == ["answer"]
    assert "g-a2" not in [r.uuid for r in turns.history.search(question, "fts").results]
    # Filters hold: no answer among prompts only, nor outside the dates asked for.
    users = turns.history.search(question, "hybrid", role="user").results
    assert {r.role for r in users} == {"user"}
    early = turns.history.search(question, "hybrid", before="2026-03-02T18:01:30Z").results
    assert "g-a2" not in [r.uuid for r in early] and "g-u1" in [r.uuid for r in early]


def test_answers_come_in_below_their_prompt() -> None:
    ranking = [(1, 0.9), (2, 0.5), (3, 0.48)]
    # 1's answer is 7, which had nothing; 3's answer is 2, which keeps its own better score.
    assert answered(ranking, {1: 7, 3: 2}) == [
        (1, 0.9),
        (7, pytest.approx(0.855)),
        (2, 0.5),
        (3, 0.48),
    ]
    far = [(mid, 1.0 - mid / 100) for mid in range(1, 21)]
    assert len(answered(far, {15: 99})) == 20  # only the top ANSWERED bring their answers


@pytest.mark.parametrize("mode", ["fts", "vector", "hybrid"])
def test_equal_scores_page_whole_and_survive_a_reindex(tmp_path: Path, mode: str) -> None:
    # 25 identical prompts score the same in both rankings.
    for n in range(25):
        session, ts = f"s-{n % 3}", f"2026-03-{n + 1:02d}T08:00:00Z"
        prompt = user(f"u{n:02d}", "deploy the canary build again", session, ts, "/p")
        write(tmp_path / "projects" / "-p" / f"{session}.jsonl", prompt)
    memory = Memory(Config(tmp_path / "data", tmp_path / "projects", tmp_path / "logs"))
    memory.upkeep.ingest()

    def pages() -> list[str]:
        found = [
            memory.history.search("canary deploy", mode, limit=10, offset=o) for o in (0, 10, 20)
        ]
        return [r.uuid for page in found for r in page.results]

    before = pages()
    assert before == [
        r.uuid for r in memory.history.search("canary deploy", mode, limit=30).results
    ]
    assert len(set(before)) == 25
    memory.upkeep.reindex()
    assert pages() == before
    memory.close()


def test_settled_makes_the_group_at_the_cut_whole_or_drops_it() -> None:
    # Scores 9, then eight messages tied at 5, then 1; the index returns the tie in any order.
    ranking = [(1, 9.0)] + [(mid, 5.0) for mid in (14, 11, 17, 12, 16, 13, 15, 18)] + [(2, 1.0)]
    asked: list[int] = []

    def fetch(n: int) -> list[tuple[int, float]]:
        asked.append(n)
        return ranking[:n]

    # The cut at 3 falls inside the tie: it is fetched whole, then ordered last archived first.
    assert settled(fetch, 3, keep=3) == [(1, 9.0), (18, 5.0), (17, 5.0)]
    assert asked == [4, 16]
    # When `keep` messages rank above the tie, the tie is dropped instead of fetched.
    asked.clear()
    assert settled(fetch, 3, keep=1) == [(1, 9.0)]
    assert asked == [4]
    # No tie at the cut: one fetch, nothing reordered.
    asked.clear()
    assert settled(fetch, 1, keep=1) == [(1, 9.0)]
    assert asked == [2]
    # A fetch that already cuts a tie at its last archived is not asked again.
    ordered = [(1, 9.0)] + [(mid, 5.0) for mid in range(18, 10, -1)] + [(2, 1.0)]
    asked.clear()
    ranking = ordered
    assert settled(fetch, 3, keep=3, ordered=True) == [(1, 9.0), (18, 5.0), (17, 5.0)]
    assert asked == [4]


@pytest.mark.parametrize("mode", ["fts", "vector", "hybrid"])
def test_total_is_what_paging_reaches_in_every_mode(made: Memory, mode: str) -> None:
    first = made.history.search("webhook retry", mode, limit=5)
    total = first.total
    assert 0 < total < 1_000
    last = made.history.search("webhook retry", mode, limit=1, offset=total - 1)
    assert len(last.results) == 1 and last.total == total
    assert made.history.search("webhook retry", mode, limit=1, offset=total).results == []


def test_paging_stops_at_the_reach(made: Memory) -> None:
    assert made.history.search("webhook", offset=995, limit=10).results == []  # cut at 1,000
    with pytest.raises(InvalidArgument, match="below 1,000"):
        made.history.search("webhook", offset=1000, limit=10)


def test_project_by_a_part_of_its_path(made: Memory) -> None:
    assert {r.project for r in made.history.search("webhook", project="shop-api").results} == {SHOP}
    assert made.history.list_sessions("crawler/")[0].project == CRAWLER
    with pytest.raises(Ambiguous, match=r"matches 2: /home/dev/crawler, /home/dev/shop-api"):
        made.history.search("webhook", project="/home/dev")


# -- what developers paste, counts that mean something, noise below conversation --------------

SHA = "9f3c2ab41d7e6f5a8b0c9d1e2f3a4b5c6d7e8f90"
LAB = "/home/dev/lab"
PASTED = {
    "lab-sha": f"the regression came in with commit {SHA}, revert it",
    "lab-migrate": "the migrations on staging took forty minutes",
    "lab-path": "the total is wrong in src/api/orders.py since Monday",
    "lab-ossl": "node 17 fails with ERR_OSSL_EVP_UNSUPPORTED on build",
    "lab-flag": "never commit with --no-verify, the hooks catch secrets",
    "lab-kafka": "why is the kafka consumer lag growing on the orders topic?",
}


def _record(kind: str, uid: str, content: object, session: str, n: int, **extra: object) -> bytes:
    message = {"role": kind, "content": content}
    if kind == "assistant":
        message["id"] = f"msg_{uid}"
    record = {
        "type": kind,
        "uuid": uid,
        "parentUuid": None,
        "sessionId": session,
        "cwd": LAB,
        "timestamp": f"2026-03-01T10:{n:02d}:00Z",
        "isSidechain": False,
        "message": message,
        **extra,
    }
    return json.dumps(record).encode() + b"\n"


def build_lab(root: Path) -> None:
    """A session with pasted tokens, a real answer about consumer lag, its compaction (the
    summary as `you`, the compaction agent's copy as `claude`) and a warmed-up subagent."""
    folder = root / "-home-dev-lab"
    main, n = folder / "lab-1.jsonl", 0
    for uid, prompt in PASTED.items():
        write(main, _record("user", uid, prompt, "lab-1", n))
        n += 1
    answer = "The kafka consumer lag grows because the orders consumer commits offsets late."
    write(main, _record("assistant", "lab-kafka-a", [text(answer)], "lab-1", n))
    summary = (
        "This session is being continued from a previous conversation. Summary: the kafka "
        "consumer lag on the orders topic grows because offsets are committed late."
    )
    write(main, _record("user", "lab-summary", summary, "lab-1", n + 1, isCompactSummary=True))
    agents = folder / "lab-1" / "subagents"
    side = {"isSidechain": True}
    compact = agents / "agent-acompact-1a2b3c.jsonl"
    write(
        compact,
        _record(
            "user",
            "lab-c-ask",
            "Your task is to create a detailed summary",
            "lab-1",
            30,
            agentId="acompact-1a2b3c",
            **side,
        ),
    )
    write(
        compact,
        _record(
            "assistant",
            "lab-c-copy",
            [text(summary.split("Summary: ")[1])],
            "lab-1",
            31,
            agentId="acompact-1a2b3c",
            **side,
        ),
    )
    warm = agents / "agent-a9f8e7d.jsonl"
    write(warm, _record("user", "lab-w-ask", "Warmup", "lab-1", 40, agentId="a9f8e7d", **side))
    write(
        warm,
        _record(
            "assistant",
            "lab-w-reply",
            [text("Ready to help: kafka consumer lag, orders topics, offsets, anything you need.")],
            "lab-1",
            41,
            agentId="a9f8e7d",
            **side,
        ),
    )


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    tmp = tmp_path_factory.mktemp("lab")
    build(tmp / "projects")
    build_lab(tmp / "projects")
    memory = Memory(Config(tmp / "data", tmp / "projects", tmp / "logs"))
    memory.upkeep.ingest()
    yield memory
    memory.close()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (SHA, "lab-sha"),
        (SHA[:7], "lab-sha"),
        (SHA.upper(), "lab-sha"),
        ("migrat*", "lab-migrate"),
        ('"migrations on staging"', "lab-migrate"),
        ("src/api/orders.py", "lab-path"),
        ("ERR_OSSL_EVP_UNSUPPORTED", "lab-ossl"),
        ("--no-verify", "lab-flag"),
        ('"orders topic', "lab-kafka"),
    ],
)
@pytest.mark.parametrize("mode", ["fts", "hybrid"])
def test_what_developers_paste_is_found_first(
    lab: Memory, query: str, expected: str, mode: str
) -> None:
    found = lab.history.search(query, mode, project=LAB)
    assert found.results[0].uuid == expected, [r.uuid for r in found.results]
    assert found.fts_total is not None and found.fts_total >= 1


def test_a_phrase_that_is_not_there_in_that_order_finds_nothing(lab: Memory) -> None:
    assert lab.history.search('"staging on migrations"', "fts").results == []


@pytest.mark.parametrize("mode", ["fts", "hybrid"])
def test_summaries_and_warmups_rank_below_conversation_and_never_twice(
    lab: Memory, mode: str
) -> None:
    found = lab.history.search("kafka consumer lag", mode, project=LAB, limit=50)
    uuids = [r.uuid for r in found.results]
    assert set(uuids[:2]) == {"lab-kafka", "lab-kafka-a"}, uuids
    assert {"lab-summary", "lab-w-reply"} <= set(uuids[2:])  # still searchable
    assert "lab-c-copy" not in uuids  # the summary's second copy
    assert len({(r.session_id, r.snippet) for r in found.results}) == len(uuids)
    assert found.total == len(uuids)
    top = lab.history.search("kafka consumer lag", mode, project=LAB, limit=2)
    assert {r.uuid for r in top.results} == {"lab-kafka", "lab-kafka-a"}
    assert top.total == found.total


def test_a_warm_up_session_ranks_below_every_conversation_by_session(tmp_path: Path) -> None:
    """Claude Code 1.x wrote a subagent's warm-up as a session of its own: by session, it
    comes after the conversations, however many of the words its reply repeats."""
    folder = tmp_path / "projects" / "-home-dev-lab"
    side = {"isSidechain": True, "agentId": "a1b2c3d"}
    write(
        folder / "real-1.jsonl", _record("user", "real-u", "the kafka lag alert again", "real-1", 1)
    )
    write(
        folder / "warm-1.jsonl",
        _record("user", "warm-u", "Warmup", "warm-1", 2, **side)
        + _record(
            "assistant",
            "warm-a",
            [text("Ready: kafka lag, kafka consumer lag, kafka offsets, kafka lag dashboards.")],
            "warm-1",
            3,
            **side,
        ),
    )
    with Memory(Config(tmp_path / "data", tmp_path / "projects", tmp_path / "logs")) as memory:
        memory.upkeep.ingest()
        for mode in ("fts", "hybrid"):
            found = memory.history.search("kafka lag", mode, by="session")
            order = [hit.session.session_id for hit in found.sessions]
            assert order == ["real-1", "warm-1"], (mode, order)
            second = memory.history.search("kafka lag", mode, by="session", limit=1, offset=1)
            assert [h.session.session_id for h in second.sessions] == ["warm-1"]
            assert second.total == 2 and second.results[0].session_id == "warm-1"


def test_fts_total_counts_matches_and_vector_total_near_neighbours(lab: Memory) -> None:
    fts = lab.history.search("snake_case_helper", "fts")
    assert (fts.total, fts.fts_total, fts.vector_total) == (1, 1, None)
    hybrid = lab.history.search("snake_case_helper", "hybrid", limit=50)
    assert hybrid.fts_total == 1 and hybrid.vector_total is not None
    # What is listed: the one match, the near neighbours, their answers; nothing else.
    assert hybrid.total == len(hybrid.results) <= 1 + hybrid.vector_total * 2
    assert hybrid.nearest == []
    vector = lab.history.search("snake_case_helper", "vector", limit=50)
    assert vector.fts_total is None
    assert vector.total == len(vector.results) == vector.vector_total
    many = lab.history.search("webhook", "fts")
    assert many.fts_total == many.total == 81  # 1 in shop, 40 prompts and 40 answers in crawler


def test_an_index_of_the_old_format_is_rebuilt_on_upgrade(tmp_path: Path) -> None:
    """An index made before long tokens were kept (no format file) is emptied when opened
    and refilled by the next catch-up: the full SHA it could not hold is then found."""
    build_lab(tmp_path / "projects")
    config = Config(tmp_path / "data", tmp_path / "projects", tmp_path / "logs")
    with_old = Memory(config)
    with_old.upkeep.ingest()
    with_old.close()
    (config.index_dir / "text" / "memtui-format").unlink()  # as every index before it had
    upgraded = Memory(config)
    try:
        emptied = upgraded.history.search(SHA, "fts")  # emptied on open
        assert emptied.total == 0 and "the full-text index is empty" in (emptied.note or "")
        upgraded.upkeep.ingest()  # what `memtui index`, the TUI and MCP's catch-up do
        found = upgraded.history.search(SHA, "fts")
        assert [r.uuid for r in found.results] == ["lab-sha"] and found.note is None
        assert upgraded.history.search("kafka", "fts").total == 4
    finally:
        upgraded.close()


def test_the_vector_ranking_beside_full_text_gives_the_same_answers(
    real: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From BESIDE vectors on, a search runs its vector ranking on a second thread: the same
    pages as in line, filters, concepts and alternatives included."""
    asks: list[dict[str, object]] = [
        {"query": "refresh token expiry", "mode": "hybrid"},
        {"query": "flaky tests", "mode": "vector", "role": "assistant"},
        {"query": ["token", "clock"], "mode": "hybrid"},
        {"query": "race", "mode": "hybrid", "alternatives": ["timing bug"], "offset": 2},
    ]

    def answers() -> list[list[tuple[str, int, float, list[str]]]]:
        found = [real.history.search(**ask) for ask in asks]  # type: ignore[arg-type]
        return [
            [(r.session_id, r.message_index, r.score, r.found_by) for r in f.results + f.nearest]
            for f in found
        ]

    inline = answers()
    monkeypatch.setattr(search_module, "BESIDE", 0)
    assert answers() == inline and all(inline)


@pytest.fixture(scope="module")
def kafka_150(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    """150 conversations of one message each, every one matching "kafka"."""
    root = tmp_path_factory.mktemp("kafka")
    for n in range(150):
        session = f"k-{n:03d}"
        line = user(f"u{n}", f"the kafka consumer lag again ({n})", session, "2026-03-01T08:00:00Z")
        write(root / "projects" / "-lab" / f"{session}.jsonl", line)
    with Memory(Config(root / "data", root / "projects", root / "logs")) as memory:
        memory.upkeep.ingest()
        yield memory


def test_a_conversation_count_is_a_floor_when_more_match_than_were_ranked(
    kafka_150: Memory,
) -> None:
    """By session, conversations are counted among the first DEPTH messages ranked: with
    more full-text matches than that, the total says it is a floor, the same on every page
    it covers; a page past them counts them all."""
    search = kafka_150.history.search
    for limit in (1, 60, 100):
        first = search("kafka", "fts", by="session", limit=limit)
        assert (first.fts_total, first.total, first.more) == (150, 100, True)
    past = search("kafka", "fts", by="session", offset=100, limit=10)
    assert past.total == 150 and not past.more
    assert not search("kafka", "fts", limit=1).more  # 150 messages, all paged
    # Near in meaning and matched by full text further down: counted once, and the count
    # a floor (what is near may or may not match further down).
    hybrid = search("kafka lag", "hybrid")
    assert hybrid.vector_total and (hybrid.fts_total, hybrid.total, hybrid.more) == (150, 150, True)
    # The vector ranking reaches its first 100: as many near as that is a floor too.
    vector = search("kafka lag", "vector")
    floors = (vector.more, vector.more_near)
    assert (vector.vector_total, vector.total, *floors) == (100, 100, True, True)


def test_near_is_a_floor_where_a_tie_at_the_cut_was_dropped(tmp_path: Path) -> None:
    """70 texts near "kafka lag", then 80 copies of one text a little further: the vector
    ranking's first 100 end inside the copies, and `settled` drops them whole (they tie).
    The near count said 70, exact, and vector paging stopped there (the break-it pass saw
    96, then 505 past the first 100); now 70 is a floor, and paging reaches all 150."""
    root = tmp_path
    for n in range(70):
        write(root / "p" / "-lab" / f"a-{n}.jsonl", user(f"a{n}", f"kafka lag ({n})", f"a-{n}"))
    copy = "kafka consumer lag"
    for n in range(80):
        write(root / "p" / "-lab" / f"b-{n}.jsonl", user(f"b{n}", copy, f"b-{n}"))
    with Memory(Config(root / "data", root / "p", root / "logs")) as memory:
        memory.upkeep.ingest()
        first = memory.history.search("kafka lag", "vector", limit=10)
        assert (first.vector_total, first.more_near, first.more) == (70, True, True)
        seen = []
        for offset in range(0, 200, 30):
            page = memory.history.search("kafka lag", "vector", offset=offset, limit=30)
            seen += [r.session_id for r in page.results]
        assert len(seen) == len(set(seen)) == 150


@pytest.fixture(scope="module")
def kafka_noisy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    """150 conversations matching "kafka", and 40 compaction summaries that match it better
    (short, the word twice) but rank below every conversation."""
    root = tmp_path_factory.mktemp("noisy")
    for n in range(150):
        session = f"k-{n:03d}"
        line = user(f"u{n}", f"the kafka consumer lag again ({n})", session, "2026-03-01T08:00:00Z")
        write(root / "projects" / "-lab" / f"{session}.jsonl", line)
    for n in range(40):
        summary = f"Summary: kafka lag, kafka ({n})"
        record = _record("user", f"sum-{n}", summary, f"k-{n:03d}", 5, isCompactSummary=True)
        write(root / "projects" / "-lab" / f"k-{n:03d}.jsonl", record)
    with Memory(Config(root / "data", root / "projects", root / "logs")) as memory:
        memory.upkeep.ingest()
        yield memory


@pytest.mark.parametrize("alternatives", [[], ["kafka consumer delay"]], ids=["one", "alt"])
@pytest.mark.parametrize("archive", ["kafka_150", "kafka_noisy"])
@pytest.mark.parametrize("by", ["message", "session"])
@pytest.mark.parametrize("mode", ["fts", "hybrid"])
def test_pages_neither_repeat_nor_skip(
    request: pytest.FixtureRequest, archive: str, mode: str, by: str, alternatives: list[str]
) -> None:
    """Every page is cut from one order, however large the page and wherever it starts: pages
    of 7 and of 30 list the same results in the same order, across the first DEPTH and past
    it, what is not conversation (compaction summaries) included, below the rest; with
    another phrasing fused in too."""
    memory: Memory = request.getfixturevalue(archive)

    def paged(size: int) -> list[tuple[str, int]]:
        out: list[tuple[str, int]] = []
        for offset in range(0, 200, size):
            page = memory.history.search(
                "kafka lag", mode, by=by, offset=offset, limit=size, alternatives=alternatives
            )
            out += [(r.session_id, r.message_index) for r in page.results]
        return out

    sevens = paged(7)
    assert (
        len(sevens)
        == len(set(sevens))
        == (190 if archive == "kafka_noisy" and by == "message" else 150)
    )
    assert paged(30) == sevens


def test_counts_say_which_way_each_match_was_found_and_where_a_count_is_a_floor() -> None:
    response = SearchResponse(
        [], 1_000, "hybrid", fts_total=1_000, vector_total=98, more=True, more_near=True
    )
    assert response.counts() == ["1,000+ full-text matches", "98+ near in meaning"]
    exact = SearchResponse([], 100, "vector", vector_total=100)  # all there is: no floor
    assert exact.counts() == ["100 near in meaning"]
    one = SearchResponse([], 1, "hybrid", fts_total=1, vector_total=0)
    assert one.counts() == ["1 full-text match", "0 near in meaning"]
    assert SearchResponse([], 0, "fts", fts_total=0).counts() == ["0 full-text matches"]


def test_a_hits_title_is_one_line_cut_at_a_word_without_code_fences(tmp_path: Path) -> None:
    """A session that opens with pasted code: its title beside a hit loses the fence's marks
    and is cut at a word, as a conversation's title is."""
    prompt = "```python\ndef charge(order):\n    return gateway.charge(order.total)\n```\n" + (
        "why does this charge twice when the payment gateway retries after a timeout " * 3
    )
    write(tmp_path / "projects" / "-lab" / "f-1.jsonl", user("f-u1", prompt, "f-1"))
    with Memory(Config(tmp_path / "data", tmp_path / "projects", tmp_path / "logs")) as memory:
        memory.upkeep.ingest()
        (hit,) = memory.history.search("gateway retries", "fts").results
        assert hit.session_title.startswith("def charge(order): return gateway.charge")
        assert "```" not in hit.session_title and hit.session_title.endswith("…")
        assert len(hit.session_title) <= 80 and hit.session_title[:-1].split()[-1] in prompt.split()
        (info,) = memory.history.list_sessions()
        assert "```" not in info.title


@pytest.mark.parametrize("mode", ["fts", "hybrid"])
def test_a_name_no_message_has_as_written_searches_its_words(tmp_path: Path, mode: str) -> None:
    """`text:flaky` (field syntax memtui does not have) or a path no message holds: searched
    as written first, then, when nothing has it, as its words, and the note says so."""
    session = tmp_path / "projects" / "-lab" / "w-1.jsonl"
    write(session, user("w-u1", "the checkout test is flaky on CI again", "w-1"))
    write(session, user("w-u2", "see src/api/orders.py for the retry", "w-1"))
    with Memory(Config(tmp_path / "data", tmp_path / "projects", tmp_path / "logs")) as memory:
        memory.upkeep.ingest()
        found = memory.history.search("text:flaky", mode)
        assert [r.uuid for r in found.results][:1] == ["w-u1"] and found.fts_total == 1
        assert "nothing has that name as written" in (found.note or "")
        exact = memory.history.search("src/api/orders.py", mode)
        assert exact.fts_total == 1 and exact.note is None  # as written: no second search
        neither = memory.history.search("zebra:quagga", mode)
        assert neither.fts_total == 0 and neither.note is None


def test_a_page_that_would_end_past_the_reach_is_cut_there(kafka_150: Memory) -> None:
    """Paging reaches 1,000 results: a page running past it ends there; one starting there is
    refused with what to do."""
    search = kafka_150.history.search
    last = search("kafka", "fts", offset=140, limit=100)
    assert [r.session_id for r in last.results] == [
        r.session_id for r in search("kafka", "fts", limit=150).results[140:]
    ]
    assert search("kafka", "fts", offset=990, limit=50).results == []  # past the 150
    with pytest.raises(InvalidArgument, match="offset must be below 1,000"):
        search("kafka", "fts", offset=1000)
    assert kafka_150.notes.search("kafka", offset=990, limit=50).results == []


def test_a_cwd_keeps_to_its_project_and_those_under_it(tmp_path: Path) -> None:
    """A search or the recent sessions from a working directory: the project it is and those
    under it (a folder above several, `/` every one), or in a project's subfolder that
    project; a project above it (a home folder archived too) is not among them."""
    places = {
        "home": "/home/dev",
        "a": "/home/dev/work/a",
        "inner": "/home/dev/work/a/inner",
        "b": "/home/dev/work/b",
    }
    for name, cwd in places.items():
        line = user(f"u-{name}", f"deploy timeout in {name}", name, cwd=cwd)
        write(tmp_path / "projects" / cwd.replace("/", "-") / f"{name}.jsonl", line)
    with Memory(Config(tmp_path / "data", tmp_path / "projects", tmp_path / "logs")) as memory:
        memory.upkeep.ingest()

        def sessions_from(cwd: str) -> tuple[set[str], set[str], str | None]:
            found = memory.history.search("deploy timeout", "fts", cwd=cwd, limit=50)
            recent = memory.history.recent_sessions(cwd, limit=50)
            said = found.note and found.note.replace("to search them all", "for every project's")
            assert recent.note == said
            ids = {s.session_id for s in recent.sessions}
            return {r.session_id for r in found.results}, ids, found.note

        def covering(expected: set[str]) -> str | None:
            paths = sorted(places[name] for name in expected)
            said = f"cwd covers {len(paths)} projects: {', '.join(paths)}"
            return said if len(paths) > 1 else None

        for cwd, expected in [
            ("/home/dev/work", {"a", "inner", "b"}),
            ("/home/dev/work/../work/", {"a", "inner", "b"}),
            ("/home/dev/work/a", {"a", "inner"}),
            ("/home/dev/work/a/src", {"a"}),
            ("/home/dev/other", {"home"}),
            ("/home/dev/WORK/a", {"home"}),  # another folder (case counts): not work's projects
            ("/", set(places)),
            ("//", set(places)),
        ]:
            assert sessions_from(cwd) == (expected, expected, covering(expected)), cwd
        both = memory.history.search("deploy timeout", "fts", project="/home/dev/work/b", cwd="/")
        assert {r.session_id for r in both.results} == {"b"}
        assert both.note == "searched project /home/dev/work/b; cwd left aside"
        found, recent, note = sessions_from("/srv/../nowhere")
        assert (found, recent) == (set(), set())
        assert note == "no conversation from /nowhere is archived: leave out cwd to search them all"


def test_a_symlink_in_an_archived_folder_leads_to_its_targets_project(tmp_path: Path) -> None:
    """Found by a break-it pass: with a home folder archived, a subfolder reached through a
    link in it (home/code -> proj/real) went to the home folder's project, whose spelling
    holds it, not to the project its target is in."""
    home, app = tmp_path / "home", tmp_path / "proj" / "real" / "app"
    (app / "sub").mkdir(parents=True)
    home.mkdir()
    (home / "code").symlink_to(tmp_path / "proj" / "real")
    for name, cwd in [("home", str(home)), ("app", str(app))]:
        line = user(f"u-{name}", f"deploy timeout in {name}", name, cwd=cwd)
        write(tmp_path / "projects" / f"p-{name}" / f"{name}.jsonl", line)
    with Memory(Config(tmp_path / "data", tmp_path / "projects", tmp_path / "logs")) as memory:
        memory.upkeep.ingest()
        for cwd in (home / "code" / "app" / "sub", home / "code" / "app"):
            found = memory.history.search("deploy timeout", "fts", cwd=str(cwd)).results
            assert {r.session_id for r in found} == {"app"}, cwd
        found = memory.history.search("deploy timeout", "fts", cwd=str(home / "else")).results
        assert {r.session_id for r in found} == {"home"}


def test_a_cwd_is_found_in_any_spelling_of_its_folder(tmp_path: Path) -> None:
    """Found by a break-it pass: a folder given decomposed (as macOS reports `é`) missed the
    project archived composed, and a symlink to a project's folder (a shell's `$PWD`) missed
    the project Claude Code archived under the link's target."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    composed = "/home/dev/caf\u00e9"
    for name, cwd in [("cafe", composed), ("real", str(real))]:
        line = user(f"u-{name}", f"deploy timeout in {name}", name, cwd=cwd)
        write(tmp_path / "projects" / f"p-{name}" / f"{name}.jsonl", line)
    with Memory(Config(tmp_path / "data", tmp_path / "projects", tmp_path / "logs")) as memory:
        memory.upkeep.ingest()

        def found(cwd: str) -> set[str]:
            results = memory.history.search("deploy timeout", "fts", cwd=cwd).results
            recent = memory.history.recent_sessions(cwd).sessions
            assert {s.session_id for s in recent} == {r.session_id for r in results}
            return {r.session_id for r in results}

        assert found("/home/dev/cafe\u0301") == {"cafe"}
        assert found("/home/dev/cafe\u0301/src") == {"cafe"}
        assert found(str(tmp_path / "link")) == {"real"}
        assert found(str(tmp_path / "link" / "src")) == {"real"}
        assert found(str(tmp_path / "nowhere")) == set()
        assert found(str(tmp_path / "real\0x")) == set()  # no path holds a NUL: found nowhere


def test_a_note_names_five_of_the_projects_a_cwd_covers() -> None:
    assert history._covered(tuple(f"/p{i}" for i in range(7))) == (
        "cwd covers 7 projects: /p0, /p1, /p2, /p3, /p4 and 2 more"
    )
    assert history._covered(("/p0",)) is None
