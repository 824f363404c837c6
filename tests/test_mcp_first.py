"""A search asked for before the SDK is ready is answered from the engine (memtui/mcp/first.py),
and that answer is the one the SDK's server gives the same call; whatever it does not take
waits for the SDK."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import anyio
import corpus
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtui.config import Config
from memtui.engine import Memory
from memtui.mcp import first as first_module
from memtui.mcp.engine import Engine
from memtui.mcp.first import First, arguments
from memtui.mcp.handshake import VERSIONS
from memtui.mcp.server import build_server
from memtui.mcp.snapshot import handshake_requests, replies
from memtui.mcp.tools import Server
from tests.mcp_data import ARGUMENTS, CHECKOUT, SHOP, build
from tests.test_mcp_stdio import Wire


@pytest.fixture
def archive(memory: Memory, claude_dir: Path) -> Memory:
    build(claude_dir)
    memory.upkeep.ingest(claude_dir)
    return memory


def call(request_id: int, args: Any, **params: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": "search_history", "arguments": args, **params},
    }


def sdk_answer(server: Server, version: str, message: dict[str, Any]) -> dict[str, Any]:
    opening = [json.dumps(m).encode() for m in handshake_requests(version)[:2]]
    written = anyio.run(replies, server, [*opening, json.dumps(message).encode()])
    return next(w for w in written if w.get("id") == message["id"])


def early_answer(archive: Memory, message: dict[str, Any]) -> dict[str, Any]:
    written: list[dict[str, Any]] = []
    first = First(Engine(memory=archive), lambda m: written.append(m) or True)
    assert first.take(message)
    first.wait()
    (answer,) = written
    return answer


TAKEN = [
    {"query": "refresh token"},
    {"query": "refresh token", "mode": "fts", "limit": 1},
    {"query": "the login kept failing", "mode": "vector", "by": "session"},
    {"query": "webhook", "mode": "text", "project": SHOP, "response_format": "json"},
    {"query": "webhook", "mode": "both", "cwd": SHOP + "/src", "limit": 50},
    {"query": "zzqx nothing here"},
    {"query": "webhook", "project": "no-such-project"},  # NOT_FOUND, as an isError result
    {"query": "webhook", "cwd": "/nowhere/at/all"},
    {"query": "x" * 4_000},
    {"query": '"exact phrase" prefix* --flag ünïcödé 日本'},
]


@pytest.mark.parametrize("version", VERSIONS)
def test_a_first_search_is_answered_as_the_sdk_answers_it(archive: Memory, version: str) -> None:
    server = build_server(Engine(memory=archive))
    for n, args in enumerate(TAKEN, 10):
        message = call(n, args)
        assert arguments(message) == args
        assert early_answer(archive, message) == sdk_answer(server, version, message), args
    errors = [early_answer(archive, call(1, a))["result"] for a in TAKEN[6:8]]
    assert errors[0]["isError"] and errors[0]["content"][0]["text"].startswith("NOT_FOUND: ")
    assert not errors[1]["isError"]


LEFT = [
    {"query": ""},
    {"query": "x" * 4_001},
    {"query": ["two", "concepts"]},
    {"query": "webhook", "limit": 0},
    {"query": "webhook", "limit": 51},
    {"query": "webhook", "limit": True},
    {"query": "webhook", "limit": "5"},
    {"query": "webhook", "limit": 5.0},
    {"query": "webhook", "mode": "semantic"},
    {"query": "webhook", "by": "conversation"},
    {"query": "webhook", "response_format": "markdown"},
    {"query": "webhook", "cwd": "relative/path"},
    {"query": "webhook", "project": None},
    {"query": "webhook", "after": "2026-01-01"},
    {"query": "webhook", "alternatives": ["hook"]},
    {"query": "webhook", "colour": "blue"},
    {"mode": "fts"},
    ["webhook"],
]


def test_what_the_first_searches_do_not_take_waits_for_the_sdk(archive: Memory) -> None:
    notes_only = First(Engine(memory=archive), lambda m: True, families=("notes",))
    assert not notes_only.take(call(1, {"query": "webhook"}))  # no search_history there
    for args in LEFT:
        assert arguments(call(1, args)) is None, args
    assert arguments(call(1, {"query": "webhook"}, _meta={"progressToken": 1})) is None
    other = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    assert arguments({**other, "params": {"name": "get_session", "arguments": {}}}) is None
    assert arguments({**other, "params": {"name": "search_history"}}) is None


values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=60),
    st.sampled_from(["webhook", "", "fts", "session", "json", SHOP, "/tmp", "text", "x" * 4_001]),
    st.text(max_size=12),
    st.lists(st.sampled_from(["webhook", "refresh"]), max_size=3),
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.sampled_from(["webhook", "refresh token", "zzqx"]),
    st.dictionaries(st.sampled_from([*ARGUMENTS["search_history"], "colour"]), values, max_size=3),
)
def test_any_call_taken_early_gets_the_sdks_answer(
    archive: Memory, query: str, extra: dict[str, Any]
) -> None:
    message = call(7, {"query": query, **extra})
    if arguments(message) is None:
        return
    server = build_server(Engine(memory=archive))
    assert early_answer(archive, message) == sdk_answer(server, VERSIONS[-1], message)


def test_a_first_search_out_of_time_answers_busy(
    archive: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(first_module, "TOOL_SECONDS", 0.0)
    result = early_answer(archive, call(3, {"query": "refresh token"}))["result"]
    assert result["isError"] and result["content"][0]["text"].startswith("BUSY: ")


def test_a_search_asked_at_once_is_answered_before_the_sdk_then_by_it(archive: Memory) -> None:
    """Over stdio: the first search is answered early (the log says so), a call only the SDK
    takes comes next, and the same search asked of the SDK gets the same answer."""
    log = Path(os.environ["XDG_STATE_HOME"]) / "memtui" / "log" / "memtui.log"
    said = "search_history answered before the SDK was ready"
    before = log.read_text().count(said) if log.exists() else 0
    wire = Wire(archive.config)
    wire.initialize()
    asked = {"query": "refresh token", "mode": "fts"}
    early = wire.call("search_history", asked)
    assert early["structuredContent"]["results"][0]["session_id"] == CHECKOUT
    assert log.read_text().count(said) == before + 1
    markdown = wire.call("search_history", {**asked, "response_format": "markdown"})
    assert f'get_session(session_id="{CHECKOUT}"' in markdown["content"][0]["text"]
    assert wire.call("search_history", asked) == early
    assert log.read_text().count(said) == before + 1
    assert wire.finish() == 0
    wire.only_json_rpc()


def test_a_stop_while_answers_wait_to_be_read_leaves_whole_lines(memory: Memory) -> None:
    """SIGTERM while a search's answer is half written (the client has not read the others):
    the line is ended before the process exits, and it still exits 0."""
    corpus.generate(memory.config.claude_dir, messages=2_000, seed=3)
    memory.upkeep.ingest(memory.config.claude_dir)
    wire = Wire(memory.config)
    wire.initialize()
    for n in range(10, 18):  # more than a pipe holds: the last answers wait
        wire.send(call(n, {"query": "error", "mode": "fts", "limit": 50}))
    time.sleep(3)
    wire.proc.send_signal(signal.SIGTERM)
    time.sleep(0.5)  # it stops on the signal, not at the end of stdin that finish() closes
    assert wire.finish() == 0
    assert wire.stdout.endswith(b"\n") and len(wire.stdout) > 65_536
    wire.only_json_rpc()


def test_a_damaged_archive_is_said_to_be_so_from_the_first_answer(cfg: Config) -> None:
    """A memtui.db that is not a database: the server still starts (it exited 1 before
    answering `initialize`), says so in its instructions and answers a search with the code."""
    cfg.data_dir.mkdir(parents=True)
    (cfg.data_dir / "memtui.db").write_bytes(b"not a database, " * 512)
    wire = Wire(cfg)
    told = wire.initialize()["result"]["instructions"]
    assert "memtui cannot read its archive now: STORE_CORRUPT: " in told
    result = wire.call("search_history", {"query": "webhook"})
    assert result["isError"] and result["content"][0]["text"].startswith("STORE_CORRUPT: ")
    assert wire.finish() == 0
    wire.only_json_rpc()
