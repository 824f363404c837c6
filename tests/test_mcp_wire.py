"""`memtui mcp`'s stdio wire, byte for byte: the answers it gives before the SDK is ready are
the SDK's, every line gets an answer, and it ends cleanly however the client goes away."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from memtui.config import Config
from memtui.mcp.engine import Engine
from memtui.mcp.handshake import (
    ACKNOWLEDGED,
    FAMILIES,
    MODERN,
    VERSIONS,
    Early,
    given_key,
    instructions,
)
from memtui.mcp.server import build_server
from memtui.mcp.snapshot import build, handshake_requests, modern_requests, replies
from tests.test_mcp_stdio import ROOT, Wire

# What Claude Code 2.1.331 (npm @anthropic-ai/claude-code) wrote to an MCP server's stdin when it
# started: `claude -p hello --mcp-config ...` with CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1,
# DISABLE_TELEMETRY=1 and ANTHROPIC_BASE_URL on a fake model at 127.0.0.1, the server a relay
# to `memtui mcp` that logged every line. Recorded once, not written by hand.
RECORDED = ROOT / "tests" / "fixtures" / "claude_code_2.1.331_handshake.jsonl"
# The same, recorded on a machine under load 20: the probe's answer came after Claude Code's
# probe timeout (2.3 s), so it sent `initialize`, was refused, and discovered again.
TIMED_OUT = ROOT / "tests" / "fixtures" / "claude_code_2.1.331_probe_timed_out.jsonl"


def recorded(path: Path = RECORDED) -> list[bytes]:
    return [line.encode() for line in path.read_text().splitlines()]


# -- the answers before the SDK are the SDK's ---------------------------------------------------


def test_wire_json_is_what_the_sdk_answers_today() -> None:
    """`python -m memtui.mcp.snapshot` writes wire.json; run it after changing a tool."""
    assert HANDSHAKE_PROTOCOL_VERSIONS == VERSIONS
    assert MODERN_PROTOCOL_VERSIONS == (MODERN,)
    stored = json.loads((ROOT / "memtui" / "mcp" / "wire.json").read_text())
    assert stored == json.loads(json.dumps(build())), "wire.json is stale: rerun the snapshot"


def sdk_and_early(
    cfg: Config, families: tuple[str, ...], requests: list[bytes]
) -> tuple[dict[str, Any], dict[str, Any]]:
    told = instructions(cfg, families)
    server = build_server(Engine(cfg), families=families, told=told)
    sdk = {
        given_key(w): w.get("result", w.get("error", w.get("params")))
        for w in anyio.run(replies, server, requests)
        if "id" in w or w.get("method") == ACKNOWLEDGED
    }
    early = Early(told, families)
    known = {}
    for line in requests:
        message = json.loads(line)
        if "id" in message and (response := early.respond(message)) is not None:
            shown = response.get("result", response.get("error", response.get("params")))
            known[given_key(response)] = shown
    return sdk, known


@pytest.mark.parametrize(
    "families", [f for n in (1, 2) for f in itertools.combinations(FAMILIES, n)]
)
def test_early_answers_are_the_sdks_for_every_version(
    cfg: Config, families: tuple[str, ...]
) -> None:
    for version in (*VERSIONS, "1999-01-01"):
        requests = [json.dumps(r).encode() for r in handshake_requests(version)]
        sdk, early = sdk_and_early(cfg, families, requests)
        assert len(early) == 5, version  # initialize and the four lists
        for key, answer in early.items():
            assert answer == sdk[key], (version, key)
    requests = [json.dumps(r).encode() for r in modern_requests()]
    sdk, early = sdk_and_early(cfg, families, requests)
    assert len(early) == 6  # server/discover, the four lists and a late initialize's refusal
    for key, answer in early.items():
        assert answer == sdk[key], key


@pytest.mark.parametrize("path", [RECORDED, TIMED_OUT], ids=["handshake", "probe timed out"])
def test_early_answers_to_claude_codes_own_handshake_are_the_sdks(cfg: Config, path: Path) -> None:
    lines = recorded(path)
    sdk, early = sdk_and_early(cfg, FAMILIES, lines)
    requests = [m for m in map(json.loads, lines) if "id" in m]
    assert len(early) == len(requests)  # every one, the listen stream's acknowledgement too
    for key, answer in early.items():
        assert answer == sdk[key], key


def test_requests_that_are_not_plain_handshakes_wait_for_the_sdk(cfg: Config) -> None:
    envelope = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    for message in (
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},  # before initialize
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
        {"jsonrpc": "2.0", "id": 1.5, "method": "initialize"},
        {"jsonrpc": "2.0", "id": True, "method": "server/discover", "params": {"_meta": envelope}},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"_meta": envelope}},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/list",
            "params": {"_meta": {**envelope, "io.modelcontextprotocol/protocolVersion": "2099"}},
        },
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": envelope, "x": 1}},
    ):
        assert Early("", FAMILIES).answer(message) is None, message


# -- in time --------------------------------------------------------------------------------------


def test_claude_codes_handshake_is_answered(cfg: Config) -> None:
    """The recorded lines, sent as Claude Code sends them: the probe, then the rest once it is
    answered. How soon is bench/bench_mcp.py's to measure (timed tests flake on shared cores);
    that the early answers wait for no SDK, index or model is held by a test above."""
    lines = recorded()
    wire = Wire(cfg)
    wire.send(lines[0])
    first = json.loads(lines[0])
    wire.answer(first["id"], 10)
    assert json.loads(lines[1])["method"] == "subscriptions/listen"
    wire.send(lines[1])  # Claude Code waits for its acknowledgement before going on
    deadline = time.monotonic() + 10
    while ACKNOWLEDGED.encode() not in wire.stdout:
        assert time.monotonic() < deadline, "no acknowledgement of subscriptions/listen"
        wire.read(deadline - time.monotonic())
    for line in lines[2:]:
        wire.send(line)
    wanted = [m["id"] for m in map(json.loads, lines[1:]) if m["method"] == "tools/list"]
    tools = wire.answer(wanted[0], 10)["result"]["tools"]
    assert {t["name"] for t in tools} >= {"search_history", "save_note"}
    assert wire.finish() == 0


def test_initialize_and_tools_list_are_answered_on_every_version(cfg: Config) -> None:
    for version in VERSIONS:
        wire = Wire(cfg)
        for request in handshake_requests(version):
            wire.send(request)
        assert wire.answer(0, 10)["result"]["protocolVersion"] == version
        assert wire.answer(1, 10)["result"]["tools"]  # tools/list is the first list asked
        assert wire.finish() == 0


# -- every line gets an answer -------------------------------------------------------------------

SURROGATE = b"\\ud800"


def call(n: int, tool: str, arguments: bytes) -> bytes:
    return (
        b'{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "%s", '
        b'"arguments": %s}}' % (n, tool.encode(), arguments)
    )


# (line, the id answered, the error code; None: a tool result refusing it as INVALID_ARGUMENT)
BAD_LINES: list[tuple[bytes, Any, int | None]] = [
    (call(11, "search_history", b'{"query": "caf' + SURROGATE + b'"}'), 11, None),
    (call(12, "search_history", b'{"query": ["a", "' + SURROGATE + b'"]}'), 12, None),
    (call(13, "get_session", b'{"session_id": "x", "search": "' + SURROGATE + b'"}'), 13, None),
    (call(14, "search_" + SURROGATE.decode(), b"{}"), 14, -32602),
    (call(15, "list_projects", b'{"' + SURROGATE + b'": 1}'), 15, None),
    (
        b'{"jsonrpc": "2.0", "id": 16, "method": "resources/read", "params": {"uri": '
        b'"memtui://sessions/' + SURROGATE + b'"}}',
        16,
        -32602,
    ),
    (b'{"jsonrpc": "2.0", "id": 17, "method": "tools/' + SURROGATE + b'"}', 17, -32600),
    (b'"' + SURROGATE + b'"', None, -32600),
    (b"this is not json", None, -32700),
    (b'{"jsonrpc": "2.0", "id": 18, "method": "tools/ca', None, -32700),
    (b"[1, 2, 3]", None, -32600),
    (b'[{"jsonrpc": "2.0", "id": 19, "method": "ping"}]', None, -32600),
    (b"[" * 100_000 + b"]" * 100_000, None, -32700),
    (b'{"a": ' * 100_000 + b"1" + b"}" * 100_000, None, -32700),
    (b'{"jsonrpc": "2.0", "id": 20, "method": "ping", "params": "x"}', 20, -32600),
    (b"\xff\xfe\x00garbage", None, -32700),
    (b'{"jsonrpc": "2.0", "id": 21, "method": "ping", "x": "\xff"}', 21, -32700),
]


def answers(wire: Wire) -> list[dict[str, Any]]:
    return [json.loads(line) for line in wire.stdout.split(b"\n") if line.strip()]


@pytest.mark.parametrize("when", ["before the SDK is ready", "after"])
def test_every_bad_line_gets_its_error_and_the_server_lives(cfg: Config, when: str) -> None:
    wire = Wire(cfg)
    wire.initialize()
    if when == "after":
        recall = {"name": "recall", "arguments": {"question": "q"}}
        assert "result" in wire.request("prompts/get", recall)  # only the SDK answers it
    for n, (line, request_id, code) in enumerate(BAD_LINES):
        before = len(answers(wire))
        wire.send(line)
        wire.send({"jsonrpc": "2.0", "id": f"probe-{n}", "method": "ping"})
        wire.answer(f"probe-{n}", 20)
        got = [a for a in answers(wire)[before:] if a.get("id") != f"probe-{n}"]
        assert len(got) == 1, (line[:80], got)
        assert got[0]["id"] == request_id, (line[:80], got)
        if code is None:
            result = got[0]["result"]
            assert result["isError"] and result["content"][0]["text"].startswith(
                "INVALID_ARGUMENT: "
            )
        else:
            assert got[0]["error"]["code"] == code, (line[:80], got)
        assert len(json.dumps(got[0])) < 1_000  # never the line echoed back
    assert not wire.call("list_projects", {}).get("isError")
    assert wire.finish() == 0
    wire.only_json_rpc()


SEARCH_ID = 424242  # a request among the random lines: its answer may come after the probe's

lines = st.one_of(
    st.binary(min_size=1, max_size=200),
    st.text(
        alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF) | st.characters(),
        min_size=1,
        max_size=30,
    ).map(lambda text: call(SEARCH_ID, "search_history", json.dumps({"query": text}).encode())),
    st.integers(min_value=1, max_value=200_000).map(lambda d: b"[" * d + b"]" * d),
    st.integers(min_value=1, max_value=200_000).map(lambda d: b'{"x":' * d + b"0" + b"}" * d),
    st.lists(st.integers(), max_size=5).map(lambda v: json.dumps(v).encode()),
).filter(lambda line: b"\n" not in line and bool(line.strip()))


def test_hypothesis_every_raw_line_gets_an_answer(cfg: Config) -> None:
    """Random bytes, searches holding surrogates, deep nesting, arrays: each line gets exactly
    one answer (a line that is a notification, none), and the server lives."""
    wire = Wire(cfg)
    wire.initialize()
    probes = itertools.count()

    @settings(
        max_examples=120,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(lines)
    def answered(line: bytes) -> None:
        before = len(answers(wire))
        n = next(probes)
        probe = f"probe-{n}"
        search = SEARCH_ID + n  # a search of this example's own, answered whenever it is
        line = line.replace(b'"id": %d,' % SEARCH_ID, b'"id": %d,' % search, 1)
        wire.send(line)
        wire.send({"jsonrpc": "2.0", "id": probe, "method": "ping"})
        wire.answer(probe, 20)
        message = parsed(line)
        if message.get("id") == search:
            wire.answer(search, 30)
        got = [a for a in answers(wire)[before:] if a.get("id") != probe]
        notification = "method" in message and "id" not in message
        assert len(got) == 1 or (notification and not got), (line, got)
        assert all(a["id"] in (search, None) for a in got), got

    answered()
    assert wire.proc.poll() is None
    assert not wire.call("list_projects", {}).get("isError")
    assert wire.finish() == 0


def parsed(line: bytes) -> dict[str, Any]:
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return {}
    return message if isinstance(message, dict) else {}


# -- ends cleanly --------------------------------------------------------------------------------


def start(cfg: Config) -> subprocess.Popen[bytes]:
    from tests.test_mcp_stdio import server_env

    return subprocess.Popen(
        [sys.executable, "-m", "memtui", "mcp"],
        cwd=ROOT,
        env=server_env(cfg),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def initialize_line(n: int = 1) -> bytes:
    return json.dumps(handshake_requests("2025-11-25")[0] | {"id": n}).encode()


def test_every_request_read_before_eof_is_answered(cfg: Config) -> None:
    """`printf 'init\\ncall\\n' | memtui mcp`: both answers, then exit 0."""
    listed = call(2, "list_projects", b"{}")
    stats = call(3, "memory_stats", b"{}")
    proc = start(cfg)
    out, err = proc.communicate(initialize_line() + b"\n" + listed + b"\n" + stats, timeout=60)
    got = {m["id"]: m for m in map(json.loads, out.splitlines())}
    assert set(got) == {1, 2, 3}
    assert got[2]["result"]["isError"] is False and got[3]["result"]["isError"] is False
    assert proc.returncode == 0
    assert b"Traceback" not in err


def test_a_closed_stdout_ends_the_server_quietly(cfg: Config) -> None:
    proc = start(cfg)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdout.close()  # the client went away: every write now fails with EPIPE
    proc.stdin.write(initialize_line() + b"\n")
    proc.stdin.write(b'{"jsonrpc": "2.0", "id": 2, "method": "ping"}\n')
    proc.stdin.flush()
    assert proc.wait(30) == 0
    assert proc.stderr is not None and proc.stderr.read() == b""


def test_a_stdout_closed_from_the_start_ends_the_server_quietly(cfg: Config) -> None:
    from tests.test_mcp_stdio import server_env

    proc = subprocess.run(
        [sys.executable, "-m", "memtui", "mcp"],
        cwd=ROOT,
        env=server_env(cfg),
        input=initialize_line() + b"\n",
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        timeout=30,
        preexec_fn=lambda: os.close(1),
    )
    assert proc.returncode == 0 and proc.stderr == b""


def handles_sigterm(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status").read_text()
    caught = int(next(ln for ln in status.splitlines() if ln.startswith("SigCgt:")).split()[1], 16)
    return bool(caught & (1 << (signal.SIGTERM - 1)))


@pytest.mark.parametrize("wait", [0.0, 0.3, 0.8])
def test_sigterm_in_the_first_second_exits_0(cfg: Config, wait: float) -> None:
    """The handler is installed first thing (before the SDK, the config, the log): from then on
    SIGTERM ends the server with 0, while it loads the SDK or serves."""
    proc = start(cfg)
    assert proc.stdin is not None
    proc.stdin.write(initialize_line() + b"\n")
    proc.stdin.flush()
    started = time.monotonic()
    while not handles_sigterm(proc.pid):
        assert proc.poll() is None and time.monotonic() - started < 10
        time.sleep(0.002)
    time.sleep(wait)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 0
    assert proc.stderr is not None and b"Traceback" not in proc.stderr.read()
