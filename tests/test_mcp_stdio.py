"""`memtui mcp` as Claude Code runs it: a real subprocess on stdin/stdout."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import corpus
import psutil
from mcp import Client, StdioServerParameters
from mcp.types import TextContent
from mcp_types.version import LATEST_HANDSHAKE_VERSION

from memtui.config import Config
from memtui.mcp.stdio import FOLLOW_AFTER
from tests.lines import user, write
from tests.mcp_data import BILLING, CHECKOUT, SHOP, build

ROOT = Path(__file__).resolve().parents[1]


def server_env(cfg: Config) -> dict[str, str]:
    return {
        **os.environ,
        "MEMTUI_DATA_DIR": str(cfg.data_dir),
        "MEMTUI_CLAUDE_DIR": str(cfg.claude_dir),
        "PYTHONPATH": str(ROOT),
    }


class Wire:
    """JSON-RPC over a `memtui mcp` child's pipes, byte for byte, keeping all it writes."""

    def __init__(self, cfg: Config, argv: list[str] | None = None) -> None:
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            argv or [sys.executable, "-m", "memtui", "mcp"],
            cwd=ROOT,
            env=server_env(cfg),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.stdout = b""
        self.next_id = 0

    def send(self, message: dict[str, Any] | bytes) -> None:
        assert self.proc.stdin is not None
        raw = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.proc.stdin.write(raw + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any], timeout: float = 30) -> dict[str, Any]:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.answer(self.next_id, timeout)

    def answer(self, wanted: Any, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            for line in self.stdout.split(b"\n")[:-1]:  # whole lines only
                if line.strip() and json.loads(line).get("id") == wanted:
                    return json.loads(line)
            left = deadline - time.monotonic()
            assert left > 0, f"no answer to request {wanted}: {self.stdout!r}"
            self.read(left)

    def read(self, timeout: float) -> None:
        """What the server wrote within `timeout` seconds, added to `stdout`."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        if select.select([fd], [], [], max(timeout, 0))[0]:
            chunk = os.read(fd, 65536)
            assert chunk, "the server closed stdout"
            self.stdout += chunk

    def initialize(self) -> dict[str, Any]:
        answer = self.request(
            "initialize",
            {
                "protocolVersion": LATEST_HANDSHAKE_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.request("tools/call", {"name": tool, "arguments": arguments})["result"]

    def finish(self, timeout: float = 20) -> int:
        """Close stdin, read the rest, return the exit code."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.stdout += self.proc.stdout.read()
        return self.proc.wait(timeout)

    def only_json_rpc(self) -> None:
        lines = [line for line in self.stdout.split(b"\n") if line.strip()]
        assert lines
        for line in lines:
            assert json.loads(line)["jsonrpc"] == "2.0", line


def test_stdio_session_through_the_mcp_client(cfg: Config) -> None:
    build(cfg.claude_dir)  # the server archives it in the background, unasked
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memtui", "mcp"], cwd=ROOT, env=server_env(cfg)
    )

    async def session() -> None:
        async with Client(params, mode="legacy") as client:
            assert {t.name for t in (await client.list_tools()).tools} >= {"search_history"}
            deadline = time.monotonic() + 30
            found: dict[str, Any] = {}
            while not found.get("results") and time.monotonic() < deadline:
                result = await client.call_tool("search_history", {"query": "invoice"})
                assert not result.is_error and result.structured_content is not None
                found = result.structured_content
                time.sleep(0.3)
            assert found["results"][0]["session_id"] == BILLING
            read = await client.call_tool("read_session", {"session_id": BILLING[:5]})
            block = read.content[0]
            assert isinstance(block, TextContent) and "format_invoice_line" in block.text

    anyio.run(session)


def test_stdout_holds_only_json_rpc_and_stdin_close_ends_it(cfg: Config) -> None:
    build(cfg.claude_dir)
    wire = Wire(cfg)
    init = wire.initialize()
    assert init["result"]["serverInfo"]["name"] == "memtui"
    tools = wire.request("tools/list", {})["result"]["tools"]
    assert len(tools) == 24  # history, notes, signals and forget
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = wire.call("search_history", {"query": "refresh token", "mode": "fts"})
        if found["structuredContent"]["results"]:
            break
        time.sleep(0.3)
    assert found["structuredContent"]["results"][0]["session_id"] == CHECKOUT
    read = wire.call("read_session", {"session_id": CHECKOUT[:5]})
    assert "fixed the race" in read["content"][0]["text"]
    # A lone surrogate is valid JSON text but not Unicode: an INVALID_ARGUMENT result for that id
    wire.send(
        b'{"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {"name": '
        b'"search_history", "arguments": {"query": "\\ud800"}}}'
    )
    refused = wire.answer(99, 10)["result"]
    assert refused["isError"] and refused["content"][0]["text"].startswith("INVALID_ARGUMENT: ")
    assert not wire.call("list_projects", {}).get("isError")
    assert wire.finish() == 0
    wire.only_json_rpc()


def test_initialize_is_answered_before_the_engine_opens(cfg: Config) -> None:
    wire = Wire(cfg)
    wire.initialize()
    took = time.monotonic() - wire.started
    if took < FOLLOW_AFTER:  # before then nothing has opened the engine: not even the data dir
        assert not cfg.data_dir.exists()
    assert took < 5.0  # imports only; the bench measures it on a quiet machine
    assert wire.finish() == 0


def test_a_server_loads_its_indexes_and_model_before_a_search_asks(cfg: Config) -> None:
    build(cfg.claude_dir)
    wire = Wire(cfg)
    wire.initialize()
    log = Path(os.environ["XDG_STATE_HOME"]) / "memtui" / "log" / "memtui.log"
    deadline = time.monotonic() + 30
    while "indexes and model loaded" not in (log.read_text() if log.exists() else ""):
        assert time.monotonic() < deadline, "the server never loaded its indexes"
        time.sleep(0.1)
    assert wire.finish() == 0


def test_sigterm_while_following_leaves_no_process(cfg: Config) -> None:
    build(cfg.claude_dir)
    wire = Wire(cfg)
    wire.initialize()
    server = psutil.Process(wire.proc.pid)
    wire.call("get_recent_sessions", {})
    new = cfg.claude_dir / "-home-dev-shop-api" / "eeee5555-0000-4000-8000-000000000005.jsonl"
    write(new, user("e-u1", "zanzibar deployment notes", "eeee5555", cwd=SHOP))
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if wire.call("search_history", {"query": "zanzibar", "mode": "fts"})["structuredContent"][
            "results"
        ]:
            break
        time.sleep(0.3)
    else:
        raise AssertionError("the new transcript line never became searchable")
    family = server.children(recursive=True)
    wire.proc.send_signal(signal.SIGTERM)
    assert wire.proc.wait(20) == 0
    _gone, alive = psutil.wait_procs(family, timeout=5)
    assert not alive


def test_sigterm_during_a_first_index_stops_its_reader_process(cfg: Config) -> None:
    """A first catch-up of over 32 MB is parsed by a reader process: SIGTERM ends it too."""
    corpus.generate(cfg.claude_dir, messages=12_000, seed=21)
    wire = Wire(cfg)
    wire.initialize()
    server = psutil.Process(wire.proc.pid)
    deadline = time.monotonic() + 30
    while not server.children(recursive=True) and time.monotonic() < deadline:
        time.sleep(0.05)
    family = server.children(recursive=True)
    assert family, "the catch-up never started a reader process"
    wire.proc.send_signal(signal.SIGTERM)
    assert wire.proc.wait(30) == 0
    _gone, alive = psutil.wait_procs(family, timeout=10)
    assert not alive


def test_the_mcp_command_imports_no_textual(cfg: Config) -> None:
    code = (
        "import sys\n"
        "from memtui import cli\n"
        "from memtui.mcp import http, setup, stdio\n"
        "from memtui.mcp.engine import Engine\n"
        "from memtui.mcp.server import build_server\n"
        "from memtui.config import load\n"
        "build_server(Engine(load()))\n"
        "assert not [m for m in sys.modules if m.split('.')[0] == 'textual'], 'textual'\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=server_env(cfg), check=True)
