"""The command line as a user runs it: a real subprocess per command."""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from memtui.cli import base, build_parser
from memtui.config import Config
from memtui.engine import SearchResponse, SearchResult
from memtui.mcp.history import search_markdown
from tests.cli_run import memtui, one_line_error
from tests.lines import assistant, exchange, text, user, write


@pytest.fixture
def indexed(cfg: Config) -> Config:
    for session in ("aaaa1111-one", "aaaa2222-two", "bbbb3333-three"):
        write(cfg.claude_dir / "-home-dev-shop-api" / f"{session}.jsonl", exchange(1, session))
    result = memtui(cfg, "index")
    assert result.returncode == 0, result.stderr
    assert "3 sessions, 6 new messages" in result.stderr
    return cfg


def test_version_and_help(cfg: Config) -> None:
    assert memtui(cfg, "--version").stdout.startswith("memtui 0.")
    help_text = memtui(cfg, "--help").stdout
    for command in ("index", "stats", "show"):
        assert command in help_text


def test_every_command_says_what_it_does_and_each_limit_its_default() -> None:
    """`memtui notes --help` said nothing but its options, and `--limit LIMIT` no more
    (found by the new-user pass)."""

    def commands(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for command in action.choices.values():
                    yield command
                    yield from commands(command)

    made = list(commands(build_parser()))
    assert len(made) > 20
    for command in made:
        assert command.description, command.prog
        for option in command._actions:
            if "--limit" in option.option_strings:
                assert option.help and f"({option.default})" in option.help, command.prog


def test_show_by_unique_prefix(indexed: Config) -> None:
    markdown = memtui(indexed, "show", "bbbb")
    assert markdown.returncode == 0
    assert "bbbb3333-three" in markdown.stdout and "question number 1" in markdown.stdout
    doc = json.loads(memtui(indexed, "show", "bbbb", "--json").stdout)
    assert doc["session"]["session_id"] == "bbbb3333-three"
    assert [m["kind"] for m in doc["messages"]] == ["prompt", "assistant"]


def test_ambiguous_prefix_lists_candidates(indexed: Config) -> None:
    result = memtui(indexed, "show", "aaaa")
    assert result.returncode == 1
    assert "aaaa1111-one" in result.stderr and "aaaa2222-two" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_stats_json(indexed: Config) -> None:
    stats = json.loads(memtui(indexed, "stats", "--json").stdout)
    assert stats["sessions"] == 3 and stats["by_kind"] == {"assistant": 3, "prompt": 3}


@pytest.mark.parametrize(
    "args",
    [("show", "nope"), ("index", "--source", "/no/such/dir"), ("bogus",), ("stats", "--xml")],
)
def test_bad_input_is_one_line_and_nonzero(indexed: Config, args: tuple[str, ...]) -> None:
    result = memtui(indexed, *args)
    assert result.returncode != 0
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stdout == ""


def test_data_files_are_private(indexed: Config) -> None:
    for path in [indexed.data_dir, *indexed.data_dir.rglob("*")]:
        assert path.stat().st_mode & 0o077 == 0, path


def test_nothing_new_reads_nothing(indexed: Config) -> None:
    result = memtui(indexed, "index")
    assert "0 new messages" in result.stderr


def test_shared_transcripts_index(cfg: Config, shared: Path) -> None:
    result = memtui(cfg, "index", "--source", str(shared / "projects"))
    assert result.returncode == 0, result.stderr


def test_search_json_shape(indexed: Config) -> None:
    result = memtui(indexed, "search", "checkout", "test", "--json", "--limit", "2")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["mode"] == "hybrid" and doc["total"] >= 1 and len(doc["results"]) <= 2
    first = doc["results"][0]
    for key in (
        "session_id",
        "project",
        "message_index",
        "uuid",
        "role",
        "timestamp",
        "snippet",
        "score",
    ):
        assert key in first
    assert "**checkout**" in first["snippet"]


def test_search_readable_output_and_concepts(indexed: Config) -> None:
    result = memtui(indexed, "search", "--concepts", "checkout", "answer", "--mode", "fts")
    assert result.returncode == 0
    # No message holds both concepts: said so, with the count.
    assert result.stdout == "no matches (fts: 0 full-text matches)\n"
    plain = memtui(
        indexed, "search", "question", "--project", "/home/dev/shop-api", "--mode", "fts"
    )
    assert "aaaa1111" in plain.stdout and "3 of 3 (fts: 3 full-text matches)" in plain.stdout
    # Under the hits, how to open one: the first hit's handle, which `show` takes as it is.
    handle = re.search(r"^(\w+)#(\d+) ", plain.stdout, re.M)
    assert handle, plain.stdout
    assert f"open one: memtui show {handle[0].strip()}\n" in plain.stdout
    opened = memtui(indexed, "show", handle[0].strip()).stdout
    assert re.findall(r"^## \[(\d+)\]", opened, re.M)[0] == handle[2]
    both = memtui(indexed, "show", handle[0].strip(), "--at", str(int(handle[2]) + 1))
    assert both.returncode == 1 and "give one" in both.stderr
    odd = memtui(indexed, "show", handle[1] + "#abc")  # not "no session matches"
    assert (
        one_line_error(odd)
        and f"after # comes a message's number, as in {handle[1]}#12" in odd.stderr
    )


def test_a_project_typed_from_here_is_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--project .` named no project (found by a break-it pass): as a shell reads it."""
    here = tmp_path / "work" / "shop"
    here.mkdir(parents=True)
    monkeypatch.chdir(here)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert [base.project(p) for p in (".", "..", "./api", "../web", "~/x")] == [
        str(here),
        str(here.parent),
        str(here / "api"),
        str(here.parent / "web"),
        str(tmp_path / "x"),
    ]
    assert [base.project(p) for p in ("/home/dev/shop", "shop", ".hidden")] == [
        "/home/dev/shop",
        "shop",
        ".hidden",
    ]


def test_reindex_and_doctor(indexed: Config) -> None:
    assert memtui(indexed, "reindex").returncode == 0
    doctor = memtui(indexed, "doctor")
    assert doctor.returncode == 0 and doctor.stdout.count(" ok") == 6  # store, 2 + 2 indexes, work
    assert "notes full text" in doctor.stdout and "notes vectors" in doctor.stdout
    assert re.search(r"^secrets +0 masked$", doctor.stdout, re.M), doctor.stdout
    stats = json.loads(memtui(indexed, "stats", "--json").stdout)
    # Short answers ("answer number 1") are left out of the vectors: see store/indexes.py.
    assert stats["index"]["fts_docs"] == 6 and stats["index"]["vectors"] == 3


@pytest.mark.parametrize(
    "args",
    [
        ("search", "x", "--after", "yesterday"),
        ("search", "x", "--limit", "0"),
        ("search", "x", "--mode", "semantic"),
        ("search", "x", "--session", "zzzz"),
    ],
)
def test_search_bad_input(indexed: Config, args: tuple[str, ...]) -> None:
    result = memtui(indexed, *args)
    assert result.returncode != 0 and len(result.stderr.strip().splitlines()) == 1, result.stderr


@pytest.mark.parametrize("query", ["", "   ", "🔥🚀", "*", "?!"])
def test_search_with_nothing_to_search_for_is_refused(indexed: Config, query: str) -> None:
    result = memtui(indexed, "search", query)
    assert result.returncode != 0 and result.stdout == "", result.stdout
    assert "INVALID_ARGUMENT: the query has nothing to search for" in result.stderr


def test_search_finds_a_prefix_and_counts_matches(indexed: Config) -> None:
    doc = json.loads(memtui(indexed, "search", "quest*", "--mode", "fts", "--json").stdout)
    assert doc["total"] == doc["fts_total"] == len(doc["results"]) > 0
    assert doc["vector_total"] is None


def test_a_bad_argument_is_one_line_with_its_code(cfg: Config) -> None:
    """argparse's own errors carry SPEC's code, as every other failure does."""
    done = memtui(cfg, "signals", "--type", "bogus")
    assert done.returncode == 2
    assert done.stderr.startswith("memtui: INVALID_ARGUMENT: memtui signals: argument --type")
    assert done.stderr.count("\n") == 1


# ESC, BEL, NUL, DEL, a C1 control (CSI) and the bidi override RLO: what a transcript may hold
# that a terminal would act on (recolour, move, retitle, reorder) rather than show.
RAW = ("\x1b", "\x07", "\x00", "\x7f", "\x9b", "\u202e")


def test_control_characters_are_shown_escaped_never_sent_to_the_terminal(cfg: Config) -> None:
    prompt = "paint the \x1b[31m flamingo \x1b[0m \u202eevil\x07 \x00nul\x7f \x9b2J done"
    session = "cccc4444-ctl"
    write(
        cfg.claude_dir / "-home-dev-shop-api" / f"{session}.jsonl",
        user("c1", prompt, session) + assistant("c2", "msg_c2", text(prompt), session),
    )
    assert memtui(cfg, "index").returncode == 0
    for args in (
        ("show", session),
        ("search", "flamingo", "--mode", "fts"),
        ("sessions",),
        ("projects",),
    ):
        result = memtui(cfg, *args)
        assert result.returncode == 0, result.stderr
        assert not [c for c in RAW if c in result.stdout + result.stderr], args
    shown = memtui(cfg, "show", session).stdout
    assert "\\x1b[31m flamingo \\x1b[0m" in shown and "\\u202eevil\\x07" in shown
    assert "\\x00nul\\x7f \\x9b2J" in shown
    assert "\\x1b[31m flamingo" in memtui(cfg, "search", "flamingo", "--mode", "fts").stdout
    doc = json.loads(memtui(cfg, "show", session, "--json").stdout)
    assert doc["messages"][0]["text"] == prompt  # JSON escapes them itself: the text as stored


@pytest.fixture
def conversations(cfg: Config) -> Config:
    """Three conversations: one with the checkout test twice, two with it once, each its own
    first prompt as its title."""
    folder = cfg.claude_dir / "-home-dev-shop-api"
    write(
        folder / "cccc1111-twice.jsonl",
        exchange(1, "cccc1111-twice") + exchange(2, "cccc1111-twice"),
    )
    for session in ("dddd2222-once", "eeee3333-once"):
        write(folder / f"{session}.jsonl", exchange(3, session))
    assert memtui(cfg, "index").returncode == 0
    return cfg


def test_show_at_starts_at_that_message_as_the_conversation_reads(cfg: Config) -> None:
    """A subagent's messages are numbered after the session's own but read where the
    subagent ran: `--at N` starts at message N, not at every message numbered N or more."""
    folder = cfg.claude_dir / "-home-dev-shop-api"
    session = "ffff4444-sub"
    main = b"".join(
        user(f"m{i}", f"prompt {i} about the cart", session, f"2026-11-01T10:0{2 * i}:00.000Z")
        + assistant(
            f"m{i}a",
            f"msg_m{i}",
            text(f"answer {i}"),
            session,
            f"2026-11-01T10:0{2 * i + 1}:00.000Z",
        )
        for i in range(2)
    )
    write(folder / f"{session}.jsonl", main)
    sub = b"".join(
        json.dumps(
            {
                "type": "user" if i == 0 else "assistant",
                "uuid": f"s{i}",
                "parentUuid": None,
                "sessionId": session,
                "cwd": "/home/dev/shop-api",
                "timestamp": f"2026-11-01T10:01:3{i}.000Z",
                "isSidechain": True,
                "agentId": "a1b2c3d4",
                "message": {"role": "user", "content": "look for the cart code"}
                if i == 0
                else {"id": "msg_s1", "role": "assistant", "content": [text("found it")]},
            }
        ).encode()
        + b"\n"
        for i in range(2)
    )
    write(folder / session / "subagents" / "agent-a1b2c3d4.jsonl", sub)
    assert memtui(cfg, "index").returncode == 0

    def numbers(*args: str) -> list[int]:
        shown = memtui(cfg, "show", session, *args)
        assert shown.returncode == 0, shown.stderr
        return [int(n) for n in re.findall(r"^## \[(\d+)\]", shown.stdout, re.M)]

    assert numbers() == [0, 1, 4, 5, 2, 3], "the subagent reads where it ran"
    assert numbers("--at", "2") == [2, 3]
    assert numbers("--at", "4") == [4, 5, 2, 3]
    assert (
        memtui(cfg, "show", f"{session}#2").stdout
        == memtui(cfg, "show", session, "--at", "2").stdout
    )
    past = memtui(cfg, "show", session, "--at", "6")
    assert past.returncode == 1 and "0 to 5" in past.stderr, past.stderr


def test_search_sessions_lists_conversations_with_their_best_hit(conversations: Config) -> None:
    """`memtui search … --sessions` answers "which conversation was it?": a conversation an
    entry, its facts, its best hit's line and how to open it there."""
    shown = memtui(conversations, "search", "checkout", "--sessions", "--mode", "fts")
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    first = out.splitlines()[:4]
    assert first[0] == "1. question number 1 about the checkout test"
    assert re.fullmatch(
        r"   \d{4}-\d\d-\d\d \d\d:\d\d /home/dev/shop-api 4 messages, 2 hits \d+\.\d{4}",
        first[1],
    ), first[1]
    assert first[2].startswith("   user question number ") and "checkout" in first[2]
    opened = re.fullmatch(r"   open: (memtui show cccc1111-twice --at ([02]))", first[3])
    assert opened, first[3]
    read = memtui(conversations, *opened[1].split()[1:]).stdout  # what the line says to run
    assert read.startswith("# question number 1 about the checkout test\n")
    assert re.findall(r"^## \[(\d+)\]", read, re.M)[0] == opened[2], "at the best hit"
    later = memtui(conversations, "show", "cccc1111", "--at", "2")
    assert re.findall(r"^## \[(\d+)\]", later.stdout, re.M) == ["2", "3"]
    later_json = json.loads(memtui(conversations, "show", "cccc1111", "--at", "2", "--json").stdout)
    assert [m["message_index"] for m in later_json["messages"]] == [2, 3]
    past = memtui(conversations, "show", "cccc1111", "--at", "9")  # printed a header only
    assert past.returncode == 1 and one_line_error(past), past.stderr
    assert past.stderr.startswith("memtui: INVALID_ARGUMENT: --at 9 is past the end")
    assert "0 to 3" in past.stderr
    assert out.count("memtui show ") == 3 and "1 hit " in out
    assert out.rstrip().endswith("3 of 3 conversations (fts: 4 full-text matches)")
    one = memtui(conversations, "search", "checkout", "--sessions", "--mode", "fts", "--limit", "1")
    assert one.stdout.rstrip().endswith("1 of 3 conversations (fts: 4 full-text matches)")
    # A page past the first says where it starts (it said `1 of 3` for the third too).
    third = ("--sessions", "--mode", "fts", "--limit", "1", "--offset", "2")
    paged = memtui(conversations, "search", "checkout", *third).stdout.rstrip()
    assert paged.endswith("3-3 of 3 conversations (fts: 4 full-text matches)")
    two = memtui(conversations, "search", "checkout", *third[:-3], "2", "--offset", "1").stdout
    assert two.rstrip().endswith("2-3 of 3 conversations (fts: 4 full-text matches)")
    past = memtui(conversations, "search", "checkout", *third[:-1], "5").stdout.rstrip()
    assert past.endswith("0 from 6 of 3 conversations (fts: 4 full-text matches)")
    doc = json.loads(
        memtui(conversations, "search", "checkout", "--sessions", "--mode", "fts", "--json").stdout
    )
    assert doc["by"] == "session" and doc["total"] == 3 and doc["nearest"] == []
    assert doc["more"] is False
    assert [s["session"]["session_id"] for s in doc["sessions"]] == [
        r["session_id"] for r in doc["results"]
    ]
    assert (
        doc["sessions"][0]["matches"] == 2 and doc["sessions"][0]["session"]["message_count"] == 4
    )
    messages = json.loads(memtui(conversations, "search", "checkout", "--json").stdout)
    assert messages["by"] == "message" and messages["sessions"] == []


def test_search_that_matches_nothing_says_so_and_sets_the_nearest_apart(
    conversations: Config,
) -> None:
    """Issue 26's `memtui search flaky --after …`: results about something else under a footer
    of 0 matches. Now: `no matches` with the true counts, then the nearest by meaning apart,
    labelled, and never counted."""
    shown = memtui(conversations, "search", "zebra", "giraffe", "savanna")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == "no matches (hybrid: 0 full-text matches, 0 near in meaning)"
    assert lines[1] == "" and lines[2].startswith("nearest messages by meaning — not matches (")
    assert lines[2].endswith(", similarity as score)")
    hits = lines[3::2]
    assert hits and all(re.search(r" -?\d\.\d{4} vector$", hit) for hit in hits), hits
    assert " of " not in shown.stdout  # no "N of M": nothing was found to count
    doc = json.loads(
        memtui(conversations, "search", "zebra", "giraffe", "savanna", "--json").stdout
    )
    assert doc["results"] == [] and doc["total"] == 0
    assert (doc["fts_total"], doc["vector_total"]) == (0, 0)
    assert len(doc["nearest"]) == len(hits) and doc["nearest"][0]["found_by"] == ["vector"]
    # Conversations alike: no conversation matched, the nearest conversations apart, each
    # once, under its title, with its nearest message.
    by_session = memtui(conversations, "search", "zebra", "giraffe", "savanna", "--sessions")
    said = by_session.stdout.splitlines()
    assert said[0] == lines[0] and said[2].startswith("nearest conversations by meaning")
    titles = said[3::4]
    assert [t.split(". ", 1)[0] for t in titles] == ["1", "2", "3"]
    assert sorted(t.split(". ", 1)[1] for t in titles) == [
        f"question number {n} about the checkout test" for n in (1, 3, 3)
    ]
    assert all(line.startswith("   open: memtui show ") for line in said[6::4]), said
    sessions = json.loads(
        memtui(conversations, "search", "zebra", "giraffe", "--sessions", "--json").stdout
    )["nearest"]
    assert sorted(r["session_id"] for r in sessions) == [
        "cccc1111-twice",
        "dddd2222-once",
        "eeee3333-once",
    ]
    # Full text alone has no nearest to give: the counts, and nothing under them.
    fts = memtui(conversations, "search", "zebra", "--mode", "fts")
    assert fts.stdout == "no matches (fts: 0 full-text matches)\n"


def test_a_tool_output_hit_says_tool_not_user(cfg: Config) -> None:
    """Transcripts store a tool's output as a `user` line: a hit on it says `tool`, in the
    CLI and in MCP's markdown, while `--json` keeps SPEC's role and the kind."""
    call = {"type": "tool_use", "id": "t-1", "name": "Bash", "input": {"command": "pytest"}}
    output = {"type": "tool_result", "tool_use_id": "t-1", "content": "zebrafish fixture failed"}
    session = cfg.claude_dir / "-home-dev-shop-api" / "ffff1111-tool.jsonl"
    write(session, user("u-1", "run the tests", "ffff1111-tool"))
    write(session, assistant("a-1", "msg-1", call, "ffff1111-tool"))
    write(
        session,
        json.dumps(
            {
                "type": "user",
                "uuid": "u-2",
                "parentUuid": "a-1",
                "sessionId": "ffff1111-tool",
                "timestamp": "2026-11-01T10:00:09.000Z",
                "cwd": "/home/dev/shop-api",
                "message": {"role": "user", "content": [output]},
            }
        ).encode()
        + b"\n",
    )
    assert memtui(cfg, "index").returncode == 0
    shown = memtui(cfg, "search", "zebrafish", "--mode", "fts").stdout
    assert " tool " in shown.splitlines()[0] and " user " not in shown.splitlines()[0], shown
    (hit,) = json.loads(memtui(cfg, "search", "zebrafish", "--json").stdout)["results"]
    assert (hit["role"], hit["kind"]) == ("user", "tool_result")
    assert search_markdown(SearchResponse([SearchResult(**hit)], 1, "fts")).count("· tool ·") == 1
