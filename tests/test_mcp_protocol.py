"""JSON-RPC 2.0 and the MCP lifecycle on a real `memtui mcp`: whatever comes first is answered
before the SDK is imported, a request whose id is not a string or an integer gets its error
with id null, a prompt's missing argument is invalid params, and a second `initialize` on one
connection is refused. Raw JSON lines on stdio; HTTP where its transport reads the message
itself."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from memtui.config import Config
from memtui.engine import Memory
from memtui.mcp.handshake import FAMILIES, VERSIONS
from memtui.mcp.http import http_token
from tests.mcp_data import ACCEPT, INIT
from tests.test_mcp_http import free_port, serving
from tests.test_mcp_stdio import ROOT, Wire, server_env
from tests.test_mcp_wire import RECORDED, recorded, sdk_and_early

MODERN_PROBE = json.loads(recorded(RECORDED)[0])  # Claude Code's server/discover

# A first message of every kind a client may open with, and the answer it gets.
FIRSTS: list[tuple[dict[str, Any] | bytes, Callable[[dict[str, Any]], bool]]] = [
    (INIT, lambda a: a["result"]["protocolVersion"] == "2025-11-25"),
    (MODERN_PROBE, lambda a: a["result"]["supportedVersions"] == ["2026-07-28"]),
    (
        {"jsonrpc": "2.0", "id": 1, "method": "server/discover"},
        lambda a: (
            a["error"] == {"code": -32601, "message": "Method not found", "data": "server/discover"}
        ),
    ),
    (
        {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}},
        lambda a: a["error"]["code"] == -32601,
    ),
    (
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "server/discover",
            "params": {
                "_meta": {
                    **MODERN_PROBE["params"]["_meta"],
                    "io.modelcontextprotocol/protocolVersion": "2026-06-30",
                }
            },
        },
        lambda a: (
            a["error"]["code"] == -32022
            and a["error"]["data"] == {"supported": ["2026-07-28"], "requested": "2026-06-30"}
        ),
    ),
    (
        {"jsonrpc": "2.0", "id": "x", "method": "memtui/unknown", "params": {"a": 1}},
        lambda a: a["id"] == "x" and a["error"]["code"] == -32601,
    ),
    ({"jsonrpc": "2.0", "id": 1, "method": "ping"}, lambda a: a["result"] == {}),
    (
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},  # before initialize
        lambda a: a["error"]["code"] == -32602,
    ),
    (
        {"jsonrpc": "2.0", "id": None, "method": "ping"},
        lambda a: a["id"] is None and a["error"]["code"] == -32600,
    ),
    (
        {"jsonrpc": "2.0", "id": {"a": 1}, "method": "initialize", "params": INIT["params"]},
        lambda a: a["id"] is None and a["error"]["code"] == -32600,
    ),
    (b"not json", lambda a: a["id"] is None and a["error"]["code"] == -32700),
]

# What the SDK brings: none of it may be imported before the first answer is written.
SDK = ("mcp", "pydantic", "pydantic_core", "starlette", "anyio", "httpx")


def line_of(message: dict[str, Any] | bytes) -> bytes:
    return message if isinstance(message, bytes) else json.dumps(message).encode()


def imports_before_answer(
    argv: list[str], env: dict[str, str], message: dict[str, Any] | bytes
) -> tuple[list[str], bytes]:
    """The modules a `python -X importtime` process imported before it wrote its first answer,
    and that answer. Its stderr and stdout are one pipe, so the order of the two is exact; the
    process is killed then (nothing of it is wanted after)."""
    with subprocess.Popen(
        [argv[0], "-X", "importtime", *argv[1:]],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(line_of(message) + b"\n")
            proc.stdin.flush()
            got = b"\n"
            while True:
                assert select.select([proc.stdout], [], [], 30)[0], f"no answer to {message!r}"
                chunk = os.read(proc.stdout.fileno(), 65536)
                assert chunk, "stdout closed before an answer"
                got += chunk
                log, brace, answer = got.partition(b"\n{")
                if brace and b"\n" in answer:
                    modules = [
                        line.rsplit(b"|", 1)[1].strip().decode()
                        for line in log.splitlines()
                        if line.startswith(b"import time:") and b"|" in line
                    ]
                    return modules[1:], b"{" + answer.split(b"\n", 1)[0]
        finally:
            proc.kill()


def test_every_first_message_is_answered_before_the_sdk_is_imported(cfg: Config) -> None:
    """Claude Code opens with `server/discover` and gives up on a server that has not answered
    it by its probe timeout; any client may open with anything. The SDK's import is most of a
    second, so every first message is answered before it starts (the time from process start
    is bench/bench_mcp.py's to measure, on a quiet machine)."""
    for message, expected in FIRSTS:
        modules, line = imports_before_answer(
            [sys.executable, "-m", "memtui", "mcp"], server_env(cfg), message
        )
        assert expected(json.loads(line)), (message, line)
        assert "memtui.mcp.handshake" in modules, modules  # the log is the real one
        early = sorted({m for m in modules if m.split(".")[0] in SDK})
        assert not early, (message, early)


def as_lines(*messages: dict[str, Any]) -> list[bytes]:
    return [json.dumps(m).encode() for m in messages]


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
AGAIN = {**INIT, "id": 2, "params": {**INIT["params"], "protocolVersion": "1999-01-01"}}


@pytest.mark.parametrize(
    "opening",
    [
        *[[m] for m, _ in FIRSTS if isinstance(m, dict) and type(m.get("id")) in (int, str)],
        [{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": 5}}],
        [{"jsonrpc": "2.0", "id": 1, "method": "initialize"}],
        [{"jsonrpc": "2.0", "id": 1, "method": "server/discover"}, {**INIT, "id": 2}],
        [INIT, INITIALIZED, AGAIN],
        [INIT, INITIALIZED, {"jsonrpc": "2.0", "id": 2, "method": "memtui/unknown"}],
    ],
    ids=lambda m: " ".join(str(x.get("method")) for x in m),
)
def test_the_early_answers_to_an_opening_are_the_sdks(
    cfg: Config, opening: list[dict[str, Any]]
) -> None:
    sdk, early = sdk_and_early(cfg, FAMILIES, as_lines(*opening))
    asked = [m for m in opening if "id" in m]
    assert len(early) == len(asked), early  # each one answered before the SDK
    for key, answer in early.items():
        assert answer == sdk[key], key


# -- JSON-RPC: an invalid request gets an error with id null --------------------------------------

BAD_IDS = [{"a": 1}, None, [1], True, 1.5, 1.0]


@pytest.mark.parametrize("when", ["before the SDK is ready", "after"])
def test_a_request_whose_id_is_not_a_string_or_an_integer_gets_an_error_with_id_null(
    cfg: Config, when: str
) -> None:
    wire = Wire(cfg)
    wire.initialize()
    if when == "after":
        wire.request("prompts/get", {"name": "recall", "arguments": {"question": "q"}})
    for n, bad in enumerate(BAD_IDS):
        wire.send({"jsonrpc": "2.0", "id": bad, "method": "ping"})
        wire.send({"jsonrpc": "2.0", "id": f"probe-{n}", "method": "ping"})
        wire.answer(f"probe-{n}", 20)
        got = [json.loads(line) for line in wire.stdout.splitlines() if line.strip()]
        refused = [a for a in got if a.get("id") is None]
        assert len(refused) == n + 1, (bad, got[-3:])
        assert refused[-1]["error"]["code"] == -32600, refused[-1]
        assert "id" in refused[-1]["error"]["message"]
    assert wire.finish() == 0


async def test_over_http_a_bad_id_is_refused_and_a_second_initialize_too(memory: Memory) -> None:
    token = http_token(memory.config)
    headers = {**ACCEPT, "Authorization": f"Bearer {token}"}
    async with serving(memory, free_port()) as url, httpx2.AsyncClient(headers=headers) as http:
        opened = await http.post(url, content=json.dumps(INIT))
        assert opened.status_code == 200
        session = {
            "Mcp-Session-Id": opened.headers["mcp-session-id"],
            "MCP-Protocol-Version": "2025-11-25",
        }
        await http.post(url, content=json.dumps(INITIALIZED), headers=session)
        for bad in BAD_IDS:
            sent = {"jsonrpc": "2.0", "id": bad, "method": "ping"}
            answer = await http.post(url, content=json.dumps(sent), headers=session)
            assert answer.status_code == 400, (bad, answer.status_code, answer.text)
            error = answer.json()
            assert error["id"] is None and error["error"]["code"] == -32600, error
        again = await http.post(url, content=json.dumps(AGAIN), headers=session)
        refused = sse_message(again.text)
        assert refused["id"] == 2 and refused["error"]["code"] == -32600, refused
        assert "already initialized" in refused["error"]["message"]
        ping = {"jsonrpc": "2.0", "id": 3, "method": "ping"}
        alive = await http.post(url, content=json.dumps(ping), headers=session)
        assert sse_message(alive.text)["result"] == {}


def sse_message(text: str) -> dict[str, Any]:
    data = [line[len("data: ") :] for line in text.splitlines() if line.startswith("data: ")]
    return json.loads(data[-1])


# -- MCP: prompts and the lifecycle ---------------------------------------------------------------


def test_a_prompt_without_its_required_argument_is_invalid_params(cfg: Config) -> None:
    wire = Wire(cfg)
    wire.initialize()
    for name, arguments, said in [
        ("recall", None, "'question'"),
        ("recall", {}, "'question'"),
        ("hallucination-check", {"text": "x"}, "'draft'"),
        ("recall", {"question": "q", "topic": "x"}, "'topic'"),
        ("recal", {"question": "q"}, "'recal'"),
    ]:
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        error = wire.request("prompts/get", params)["error"]
        assert error["code"] == -32602, (name, arguments, error)
        code = "NOT_FOUND: " if name == "recal" else "INVALID_ARGUMENT: "
        assert error["message"].startswith(code) and said in error["message"], error
    fine = wire.request("prompts/get", {"name": "recall", "arguments": {"question": "why?"}})
    assert "why?" in fine["result"]["messages"][0]["content"]["text"]
    assert wire.finish() == 0


@pytest.mark.parametrize("when", ["before the SDK is ready", "after"])
def test_a_second_initialize_on_a_connection_is_refused(cfg: Config, when: str) -> None:
    """MCP's lifecycle has one initialization per connection; an unsupported version in the
    first one is answered with a version the server speaks (the client then decides)."""
    wire = Wire(cfg)
    first = wire.request("initialize", AGAIN["params"])
    assert first["result"]["protocolVersion"] == VERSIONS[-1]
    wire.send(INITIALIZED)
    if when == "after":
        wire.request("prompts/get", {"name": "recall", "arguments": {"question": "q"}})
    for version in ("1999-01-01", VERSIONS[-1]):
        params = {**INIT["params"], "protocolVersion": version}
        error = wire.request("initialize", params)["error"]
        assert error["code"] == -32600 and "already initialized" in error["message"], error
    assert wire.request("ping", {})["result"] == {}
    assert wire.finish() == 0
