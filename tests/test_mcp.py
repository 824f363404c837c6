"""The MCP server in process, through the real mcp client: every tool, resource, prompt and
error path, on a small archive ingested for each test."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, TextContent

from memtui.engine import Busy, Memory
from memtui.engine.render import READ_BYTES
from memtui.mcp import tools as mcp_tools
from memtui.mcp.engine import Engine
from memtui.mcp.server import build_server
from memtui.mcp.tools import Server, run_bounded
from tests.lines import user, write
from tests.mcp_data import ARGUMENTS, BILLING, CHECKOUT, CRAWL, CRAWLER, SHOP, build

TOOLS = {
    "search_history",
    "get_session",
    "read_session",
    "get_recent_sessions",
    "list_projects",
    "memory_stats",
    "forget",
}
CODES = ("INVALID_ARGUMENT", "NOT_FOUND", "AMBIGUOUS", "BUSY")


@pytest.fixture
def archive(memory: Memory, claude_dir: Path) -> Memory:
    build(claude_dir)
    report = memory.upkeep.ingest(claude_dir)
    assert report is not None and report.messages > 0
    return memory


@pytest.fixture
def server(archive: Memory) -> Server:
    return build_server(Engine(memory=archive))


def connect(server: Server) -> Client:
    # A client per test body: pytest-asyncio runs an async fixture's teardown in another task,
    # which anyio's cancel scopes refuse.
    return Client(server, mode="legacy")


def text_of(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def ok(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    return result.structured_content


async def error(client: Client, tool: str, args: dict[str, Any], code: str) -> str:
    result = await client.call_tool(tool, args)
    assert result.is_error, result
    message = text_of(result)
    assert message.startswith(f"{code}: "), message
    return message


# -- the surface --------------------------------------------------------------------------------


async def test_tools_have_specs_names_schemas_and_read_only_hints(server: Server) -> None:
    async with connect(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools if t.name in TOOLS}
        assert set(tools) == TOOLS
        for tool in tools.values():
            assert tool.annotations is not None
            assert tool.annotations.read_only_hint is (tool.name != "forget")
            assert tool.output_schema is not None and tool.output_schema["type"] == "object"
            assert tool.input_schema["additionalProperties"] is False
            assert 60 < len(tool.description or "") < 300  # when to call, in a sentence or two
        search = tools["search_history"].input_schema["properties"]
        assert list(search) == ARGUMENTS["search_history"]
        assert set(search["mode"]["enum"]) == {"hybrid", "fts", "vector", "text", "both"}
        assert search["limit"]["maximum"] == 50 and search["limit"]["minimum"] == 1
        for name in TOOLS & set(ARGUMENTS):
            assert list(tools[name].input_schema.get("properties", {})) == ARGUMENTS[name]
        assert "desc" in (tools["get_session"].description or "")
        assert "before answering" in (tools["search_history"].description or "")


async def test_instructions_say_to_search_before_answering(server: Server) -> None:
    async with connect(server) as client:
        assert client.instructions is not None
        assert "search_history" in client.instructions
        assert client.server_info is not None and client.server_info.name == "memtui"


# -- search_history -----------------------------------------------------------------------------


async def test_search_finds_marked_snippets_with_where_and_when(server: Server) -> None:
    async with connect(server) as client:
        found = await ok(client, "search_history", query="refresh token expiry", mode="fts")
        top = found["results"][0]
        assert top["session_id"] == CHECKOUT and top["project"] == SHOP
        assert "**" in top["snippet"] and top["role"] == "assistant"
        assert {"message_index", "timestamp", "score"} <= set(top)
        assert found["mode"] == "fts"


async def test_search_modes_and_their_aliases(server: Server) -> None:
    async with connect(server) as client:
        for mode, answered in [("text", "fts"), ("both", "hybrid"), ("hybrid", "hybrid")]:
            found = await ok(client, "search_history", query="webhook", mode=mode, limit=3)
            assert found["mode"] == answered and len(found["results"]) == 3
        vector = await ok(client, "search_history", query="flaky checkout test", mode="vector")
        assert vector["results"]


async def test_search_filters_apply(server: Server) -> None:
    async with connect(server) as client:
        crawler = await ok(client, "search_history", query="webhook", cwd=CRAWLER, limit=50)
        assert crawler["results"] and {r["project"] for r in crawler["results"]} == {CRAWLER}
        shop = await ok(
            client, "search_history", query="webhook", mode="fts", project=SHOP, role="user"
        )
        assert [r["session_id"] for r in shop["results"]] == [CHECKOUT]
        june = await ok(
            client,
            "search_history",
            query="webhook",
            mode="fts",
            after="2026-06-05",
            before="2026-06-07T00:00:00Z",
        )
        assert len(june["results"]) == 2
        one = await ok(client, "search_history", query="webhook", session_id=CRAWL[:6], limit=50)
        assert {r["session_id"] for r in one["results"]} == {CRAWL}
        nowhere = await ok(client, "search_history", query="webhook", cwd="/home/dev/unknown")
        assert nowhere["results"] == []
        assert "no conversation from /home/dev/unknown is archived" in nowhere["note"]
        within = await ok(client, "search_history", query="webhook", cwd=f"{CRAWLER}/src")
        assert within["results"] and within.get("note") is None
        # A folder above several projects searches all of them (it was "not archived").
        above = await ok(client, "search_history", query="webhook", cwd="/home/dev/", limit=50)
        assert {r["project"] for r in above["results"]} == {SHOP, CRAWLER}
        assert above["note"] == f"cwd covers 2 projects: {CRAWLER}, {SHOP}"  # which, it says
        by = await ok(client, "search_history", query="webhook", cwd="/home", by="session")
        assert {s["session"]["project"] for s in by["sessions"]} == {SHOP, CRAWLER}


async def test_search_concepts_must_all_match(server: Server) -> None:
    async with connect(server) as client:
        found = await ok(client, "search_history", query=["webhook", "flaky"], mode="fts")
        assert [r["session_id"] for r in found["results"]] == [CHECKOUT]


async def test_search_takes_alternatives(server: Server) -> None:
    async with connect(server) as client:
        result = await client.call_tool(
            "search_history", {"query": "webhook", "alternatives": ["callback", "hook"]}
        )
        # The schema takes them; until the engine fuses them it says so with the argument's code.
        assert not result.is_error or text_of(result).startswith("INVALID_ARGUMENT: alternatives")


async def test_search_markdown_opens_each_hit(server: Server) -> None:
    async with connect(server) as client:
        result = await client.call_tool(
            "search_history",
            {"query": "refresh token expiry", "mode": "fts", "response_format": "markdown"},
        )
        shown = text_of(result)
        assert not result.is_error
        assert SHOP in shown and "2026-01-10 09:06" in shown and "score" in shown
        assert "the checkout webhook test is flaky" in shown  # the session's title
        assert f'get_session(session_id="{CHECKOUT}", offset=1, limit=5)' in shown
        assert result.structured_content is not None  # the JSON rides along


async def test_search_markdown_says_when_nothing_matched_and_the_nearest_are_shown(
    server: Server,
) -> None:
    """A word no message has, nothing near in meaning: no results and true counts, then the
    nearest by meaning apart and labelled, in the JSON and the Markdown alike."""
    async with connect(server) as client:
        result = await client.call_tool(
            "search_history", {"query": "zzqqxx", "response_format": "markdown"}
        )
        assert not result.is_error
        found = result.structured_content
        assert found is not None
        assert found["results"] == [] and found["total"] == 0
        assert (found["fts_total"], found["vector_total"]) == (0, 0)
        assert found["nearest"], "the nearest are set apart however far"
        shown = text_of(result)
        assert shown.startswith("No matches (hybrid: 0 full-text matches, 0 near in meaning).")
        assert "Nearest by meaning, none near enough to count as a match" in shown
        assert shown.count("open: get_session(") == len(found["nearest"])


async def test_search_by_session_names_the_conversation_and_opens_it_at_its_best_hit(
    server: Server,
) -> None:
    async with connect(server) as client:
        found = await ok(client, "search_history", query="webhook", by="session", limit=5)
        assert found["by"] == "session"
        sessions = [hit["session"]["session_id"] for hit in found["sessions"]]
        assert sessions == [r["session_id"] for r in found["results"]]
        assert len(set(sessions)) == len(sessions) == found["total"] == 2
        crawl = found["sessions"][sessions.index(CRAWL)]
        assert crawl["matches"] > 1 and crawl["session"]["project"] == CRAWLER
        assert crawl["session"]["message_count"] >= crawl["matches"]
        result = await client.call_tool(
            "search_history",
            {"query": "webhook", "by": "session", "project": SHOP, "response_format": "markdown"},
        )
        shown = text_of(result)
        assert shown.startswith("1 of 1 conversation (hybrid: 2 full-text matches")
        assert "**the checkout webhook test is flaky**" in shown and "2 hits" in shown
        assert f'get_session(session_id="{CHECKOUT}", offset=0, limit=5)' in shown
        assert shown.count("the checkout webhook test is flaky") == 1  # best: says it no more
        best = next(line for line in shown.splitlines() if line.startswith("   best: "))
        assert re.fullmatch(r"   best: \d{4}-\d\d-\d\d \d\d:\d\d · \w+ · score \d\.\d{3}", best)
        await error(client, "search_history", {"query": "x", "by": "thread"}, "INVALID_ARGUMENT")


async def test_search_argument_rules(server: Server) -> None:
    async with connect(server) as client:
        msg = await error(client, "search_history", {"query": "x", "limt": 5}, "INVALID_ARGUMENT")
        assert "'limt'" in msg and "limit" in msg and "response_format" in msg
        await error(client, "search_history", {"query": "x", "limit": "5"}, "INVALID_ARGUMENT")
        await error(client, "search_history", {"query": "x", "limit": 5.0}, "INVALID_ARGUMENT")
        await error(client, "search_history", {"query": "x", "limit": True}, "INVALID_ARGUMENT")
        await error(client, "search_history", {"query": "x", "limit": 0}, "INVALID_ARGUMENT")
        await error(client, "search_history", {"query": "x", "limit": 51}, "INVALID_ARGUMENT")
        await error(client, "search_history", {"query": "x" * 4001}, "INVALID_ARGUMENT")
        await error(client, "search_history", {"query": ["one"]}, "INVALID_ARGUMENT")
        await error(client, "search_history", {"query": list("abcdef")}, "INVALID_ARGUMENT")
        await error(client, "search_history", {"query": "x", "mode": "fuzzy"}, "INVALID_ARGUMENT")
        relative = await error(
            client, "search_history", {"query": "x", "cwd": "relative/dir"}, "INVALID_ARGUMENT"
        )
        assert "cwd must be an absolute path" in relative and "pattern" not in relative
        await error(
            client, "search_history", {"query": "x", "after": "last week"}, "INVALID_ARGUMENT"
        )
        await error(client, "search_history", {"query": "x", "role": "system"}, "INVALID_ARGUMENT")
        await error(
            client,
            "search_history",
            {"query": "x", "alternatives": list("abcde")},
            "INVALID_ARGUMENT",
        )
        await error(client, "search_history", {}, "INVALID_ARGUMENT")
        # A list sent as JSON text is a string, not a list: types are strict.
        msg = await error(
            client, "search_history", {"query": "x", "alternatives": '["a"]'}, "INVALID_ARGUMENT"
        )
        assert "alternatives: Input should be a valid list" in msg
        await error(client, "search_history", {"Query": "x"}, "INVALID_ARGUMENT")
        assert (await ok(client, "search_history", query="4000", limit=50))["limit"] == 50


# -- sessions -----------------------------------------------------------------------------------


async def test_get_session_pages_both_ways(server: Server) -> None:
    async with connect(server) as client:
        first = await ok(client, "get_session", session_id=CHECKOUT, limit=2)
        assert first["session"]["session_id"] == CHECKOUT and first["total"] == 4
        assert first["has_more"] and [m["role"] for m in first["messages"]] == ["user", "assistant"]
        last = await ok(client, "get_session", session_id=CHECKOUT, order="desc", limit=1)
        assert "fixed the race" in last["messages"][0]["text"]
        rest = await ok(client, "get_session", session_id=CHECKOUT, offset=3)
        assert len(rest["messages"]) == 1 and not rest["has_more"]
        found = await ok(client, "get_session", session_id=CHECKOUT, search="FIXED IT")
        assert found["total"] == 1


async def test_get_session_cuts_long_messages_above_five(server: Server) -> None:
    async with connect(server) as client:
        many = await ok(client, "get_session", session_id=CHECKOUT, limit=10)
        few = await ok(client, "get_session", session_id=CHECKOUT, limit=5)
        assert len(many["messages"][1]["text"]) <= 500 < len(few["messages"][1]["text"])


async def test_session_prefixes(server: Server) -> None:
    async with connect(server) as client:
        assert (await ok(client, "get_session", session_id="aaaa1"))["session"]["session_id"] == (
            CHECKOUT
        )
        msg = await error(client, "get_session", {"session_id": "aaaa"}, "AMBIGUOUS")
        assert CHECKOUT in msg and BILLING in msg
        await error(client, "get_session", {"session_id": "ffff"}, "NOT_FOUND")
        await error(client, "read_session", {"session_id": "aaaa"}, "AMBIGUOUS")
        await error(client, "get_session", {"session_id": ""}, "INVALID_ARGUMENT")
        await error(
            client, "get_session", {"session_id": CHECKOUT, "limit": 51}, "INVALID_ARGUMENT"
        )
        await error(
            client, "get_session", {"session_id": CHECKOUT, "order": "up"}, "INVALID_ARGUMENT"
        )
        await error(
            client, "get_session", {"session_id": CHECKOUT, "offset": -1}, "INVALID_ARGUMENT"
        )


async def test_read_session_by_prefix_and_line_range(server: Server) -> None:
    async with connect(server) as client:
        whole = await ok(client, "read_session", session_id="aaaa2")
        assert whole["session_id"] == BILLING
        lines = whole["markdown"].split("\n")
        assert lines[0].split()[:2] == ["1", "#"] and "format_invoice_line" in whole["markdown"]
        part = await ok(client, "read_session", session_id=BILLING, start_line=2, end_line=4)
        assert [line.split()[0] for line in part["markdown"].split("\n")] == ["2", "3", "4"]
        await error(
            client,
            "read_session",
            {"session_id": BILLING, "start_line": 5, "end_line": 2},
            "INVALID_ARGUMENT",
        )
        await error(
            client, "read_session", {"session_id": BILLING, "start_line": 0}, "INVALID_ARGUMENT"
        )


LONG = "dddd4444-0000-4000-8000-000000000004"
# What a long session's lines can hold: ASCII; CJK and emoji (a token or more a character, an
# emoji two characters in Claude Code's JavaScript); escaped quotes and Windows paths
# (two characters each once the answer is JSON).
WRITING = {
    "ascii": "step {n}: the retry loop waits a little longer",
    "cjk-emoji": "第{n}步 重试循环等待更久 🚀🔥✅❌🐛 数据库迁移重试循环等待 🚀🔥✅❌🐛",
    "escaped": '{{\\"path\\": \\"C:\\\\Users\\\\dev\\\\api\\\\{n}.py\\", \\"ok\\": true}}',
}


async def read_parts(client: Client, session_id: str) -> list[dict[str, Any]]:
    """Every part of a session, read on from each part's next_start_line."""
    parts: list[dict[str, Any]] = []
    start: int | None = 1
    while start is not None:
        result = await client.call_tool(
            "read_session", {"session_id": session_id, "start_line": start}
        )
        part = result.structured_content
        assert not result.is_error and part is not None, text_of(result)
        if part["next_start_line"] is not None:
            assert text_of(result).endswith(
                f'read_session(session_id="{part["session_id"]}", '
                f"start_line={part['next_start_line']}))"
            )
        parts.append(part)
        start = part["next_start_line"]
    return parts


@pytest.mark.parametrize("writing", list(WRITING))
async def test_a_long_session_is_read_in_parts_that_join_up(
    server: Server, archive: Memory, claude_dir: Path, writing: str
) -> None:
    """Past READ_BYTES an answer stops at a whole line and says where to read on; a single
    line longer than an answer comes cut, and the parts join into the whole session. Each
    part stays under what Claude Code sets aside (50,000 characters of JavaScript, the
    structured answer as JSON), whatever the writing."""
    paragraph = "\n".join(WRITING[writing].format(n=n) for n in range(60))
    data = b"".join(
        user(f"l-u{n}", f"part {n} of the long migration\n{paragraph}", LONG, cwd=SHOP)
        for n in range(40)
    )
    write(claude_dir / "-home-dev-shop-api" / f"{LONG}.jsonl", data)
    big = WRITING[writing].format(n=0) * (READ_BYTES // 20)
    write(claude_dir / "-home-dev-shop-api" / f"{LONG}.jsonl", user("l-big", big, LONG, cwd=SHOP))
    archive.upkeep.ingest(claude_dir)
    async with connect(server) as client:
        parts = await read_parts(client, "dddd")
    assert len(parts) > 2
    for part in parts:
        assert len(json.dumps(part["markdown"], ensure_ascii=False).encode()) <= READ_BYTES
        as_claude_code = json.dumps(part, ensure_ascii=False, separators=(",", ":"))
        assert len(as_claude_code.encode("utf-16-le")) // 2 < 50_000
    lines = [line for part in parts for line in part["markdown"].split("\n")]
    assert [int(line.split()[0]) for line in lines] == list(range(1, parts[0]["lines"] + 1))
    whole = archive.history.session_markdown(LONG).split("\n")
    read = [line.lstrip().split("  ", 1)[1] for line in lines]
    (cut,) = [n for n, line in enumerate(whole) if line == big]
    assert read[:cut] + read[cut + 1 :] == whole[:cut] + whole[cut + 1 :]
    start, mark = read[cut].split("… [")
    assert big.startswith(start) and mark == f"{len(big)} characters]"


async def test_a_line_of_read_bytes_is_cut_and_told_its_own_length(
    server: Server, archive: Memory, claude_dir: Path
) -> None:
    write(
        claude_dir / "-home-dev-shop-api" / f"{LONG}.jsonl",
        user("l-big", "y" * READ_BYTES, LONG, cwd=SHOP),
    )
    archive.upkeep.ingest(claude_dir)
    async with connect(server) as client:
        parts = await read_parts(client, LONG)
        past = await client.call_tool(
            "read_session", {"session_id": LONG, "start_line": parts[0]["lines"] + 5}
        )
    read = [
        line.lstrip().split("  ", 1)[1] for part in parts for line in part["markdown"].split("\n")
    ]
    (line,) = [line for line in read if line.startswith("y")]
    assert line.endswith(f"y… [{READ_BYTES} characters]")
    answer = past.structured_content
    assert answer is not None and not answer["markdown"]
    assert (answer["end_line"], answer["next_start_line"]) == (answer["lines"], None)


async def test_read_session_never_takes_a_path(server: Server, claude_dir: Path) -> None:
    async with connect(server) as client:
        path = str(claude_dir / "-home-dev-shop-api" / f"{BILLING}.jsonl")
        await error(client, "read_session", {"session_id": path}, "INVALID_ARGUMENT")  # > 64 chars
        await error(client, "read_session", {"session_id": "/etc/passwd"}, "NOT_FOUND")
        await error(
            client, "read_session", {"session_id": BILLING, "path": path}, "INVALID_ARGUMENT"
        )


async def test_recent_sessions_and_projects(server: Server) -> None:
    async with connect(server) as client:
        recent = await ok(client, "get_recent_sessions")
        assert [s["session_id"] for s in recent["sessions"]] == [CRAWL, BILLING, CHECKOUT]
        here = await ok(client, "get_recent_sessions", cwd=SHOP, limit=1)
        assert [s["session_id"] for s in here["sessions"]] == [BILLING]
        nowhere = await ok(client, "get_recent_sessions", cwd="/nowhere")
        assert nowhere["sessions"] == []
        assert nowhere["note"] == (
            "no conversation from /nowhere is archived: leave out cwd for every project's"
        )
        assert here["note"] is None
        # In a project's subfolder: its project's (it was none); above projects: theirs.
        inside = await ok(client, "get_recent_sessions", cwd=f"{SHOP}/src/api")
        assert [s["session_id"] for s in inside["sessions"]] == [BILLING, CHECKOUT]
        above = await ok(client, "get_recent_sessions", cwd="/home/dev")
        assert [s["session_id"] for s in above["sessions"]] == [CRAWL, BILLING, CHECKOUT]
        await error(client, "get_recent_sessions", {"cwd": "shop-api"}, "INVALID_ARGUMENT")
        projects = await ok(client, "list_projects")
        counts = {p["project"]: p["sessions"] for p in projects["projects"]}
        assert counts == {SHOP: 2, CRAWLER: 1}
        await error(client, "list_projects", {"cwd": SHOP}, "INVALID_ARGUMENT")


async def test_memory_stats(server: Server) -> None:
    async with connect(server) as client:
        stats = await ok(client, "memory_stats")
        assert stats["sessions"] == 3 and stats["projects"] == 2 and stats["messages"] == 18
        assert stats["index"]["fts_docs"] > 0


async def test_unknown_tool_is_a_coded_error(server: Server) -> None:
    async with connect(server) as client:
        msg = await error(client, "no_such_tool", {}, "NOT_FOUND")
        assert "search_history" in msg and "search_notes" in msg


# -- resources and prompts ----------------------------------------------------------------------


async def test_resources(server: Server) -> None:
    async with connect(server) as client:
        listed = {str(r.uri) for r in (await client.list_resources()).resources}
        assert listed == {"memtui://projects", "memtui://stats", "memtui://rules"}
        templates = (await client.list_resource_templates()).resource_templates
        assert {t.uri_template for t in templates} == {
            "memtui://sessions/{session_id}",
            "memtui://notes/{note_id}",
        }

        async def read(uri: str) -> str:
            contents = (await client.read_resource(uri)).contents[0]
            assert hasattr(contents, "text")
            return contents.text

        assert SHOP in await read("memtui://projects")
        assert '"sessions": 3' in await read("memtui://stats")
        session = await read(f"memtui://sessions/{CHECKOUT[:6]}1")
        assert "fixed the race" in session and CHECKOUT in session
        with pytest.raises(MCPError, match="AMBIGUOUS"):
            await client.read_resource("memtui://sessions/aaaa")
        with pytest.raises(MCPError, match="NOT_FOUND"):
            await client.read_resource("memtui://sessions/ffff")


async def test_recall_prompt(server: Server) -> None:
    async with connect(server) as client:
        prompts = (await client.list_prompts()).prompts
        assert [p.name for p in prompts] == ["recall", "save-session", "hallucination-check"]
        got = await client.get_prompt("recall", {"question": "why was checkout flaky?"})
        message = got.messages[0]
        assert message.role == "user" and isinstance(message.content, TextContent)
        assert "search_history" in message.content.text
        assert "why was checkout flaky?" in message.content.text


# -- bounded time ---------------------------------------------------------------------------------


async def test_a_call_that_runs_too_long_answers_busy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mcp_tools, "TOOL_SECONDS", 0.2)
    started = time.monotonic()
    with pytest.raises(Busy, match="took longer"):
        await run_bounded(lambda: time.sleep(2), "slow")
    assert time.monotonic() - started < 1.5


# -- issue 18, item 10 ----------------------------------------------------------------------------


async def test_a_mistyped_query_says_what_it_must_be(server: Server) -> None:
    async with connect(server) as client:
        for query in (5, None, {"a": 1}, ["only one"], ["a"] * 6, "x" * 4001, ["", "b"]):
            message = await error(client, "search_history", {"query": query}, "INVALID_ARGUMENT")
            assert message == (
                "INVALID_ARGUMENT: search_history: query must be a string (1-4,000 characters), "
                "or a list of 2-5 such strings"
            ), query


async def test_read_session_past_the_end_says_how_long_the_session_is(server: Server) -> None:
    async with connect(server) as client:
        whole = await ok(client, "read_session", session_id=BILLING)
        length = whole["lines"]
        assert length == len(whole["markdown"].split("\n"))
        part = await ok(client, "read_session", session_id=BILLING, start_line=2, end_line=3)
        assert part["lines"] == length
        result = await client.call_tool(
            "read_session", {"session_id": BILLING, "start_line": length + 10}
        )
        assert not result.is_error and result.structured_content is not None
        assert result.structured_content["markdown"] == ""
        assert result.structured_content["lines"] == length
        assert text_of(result) == (
            f"start_line {length + 10} is past the end: this session has {length} lines"
        )


async def test_a_100_kb_resource_uri_is_not_echoed_back(server: Server) -> None:
    async with connect(server) as client:
        uri = "memtui://sessions/" + "a" * 100_000
        with pytest.raises(MCPError) as refused:
            await client.read_resource(uri)
        error = refused.value.error
        assert error.message.startswith("INVALID_ARGUMENT: the resource URI is 100,018 characters")
        assert len(error.message) < 300 and not error.data


async def test_search_nothing_to_search_for_and_counts_that_say_which(server: Server) -> None:
    async with connect(server) as client:
        for query in ("   ", "\u0000", "🔥🚀", "*"):
            msg = await error(client, "search_history", {"query": query}, "INVALID_ARGUMENT")
            assert "nothing to search for" in msg
        fts = await ok(client, "search_history", query="snake_case_helper", mode="fts")
        assert (fts["total"], fts["fts_total"], fts["vector_total"]) == (1, 1, None)
        hybrid = await ok(client, "search_history", query="snake_case_helper", limit=50)
        assert hybrid["fts_total"] == 1 and hybrid["vector_total"] is not None
        assert hybrid["total"] == len(hybrid["results"])
        prefix = await ok(client, "search_history", query="invoic*", mode="fts")
        assert {r["session_id"] for r in prefix["results"]} == {BILLING}
