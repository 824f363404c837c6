"""MCP over streamable HTTP on a free loopback port: the token, the Origin and Host checks, and
the TUI's entry point (serve_http) as an asyncio task."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import stat
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from memtui.config import Config
from memtui.engine import InvalidArgument, Memory
from memtui.mcp.http import TOKEN_FILE, http_token, serve_http
from tests.mcp_data import ACCEPT, CHECKOUT, INIT, build

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@asynccontextmanager
async def serving(memory: Memory, port: int) -> AsyncIterator[str]:
    ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(serve_http(memory, port=port, on_ready=ready.set_result))
    try:
        yield await asyncio.wait_for(ready, 20)
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


def test_token_is_made_once_and_private(cfg: Config) -> None:
    token = http_token(cfg)
    assert len(token) >= 32 and http_token(cfg) == token
    mode = stat.S_IMODE((cfg.data_dir / TOKEN_FILE).stat().st_mode)
    assert mode == 0o600


async def test_http_with_the_token_answers_tools(memory: Memory, claude_dir: Path) -> None:
    build(claude_dir)
    memory.upkeep.ingest(claude_dir)
    token = http_token(memory.config)
    async with serving(memory, free_port()) as url:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx2.AsyncClient(headers=headers) as http:
            transport = streamable_http_client(url, http_client=http)
            async with Client(transport, mode="legacy") as client:
                tools = {t.name for t in (await client.list_tools()).tools}
                assert "search_history" in tools
                found = await client.call_tool("search_history", {"query": "refresh token"})
                assert found.structured_content is not None
                assert found.structured_content["results"][0]["session_id"] == CHECKOUT


async def test_http_refuses_no_token_wrong_token_and_foreign_origin_or_host(
    memory: Memory,
) -> None:
    token = http_token(memory.config)
    async with serving(memory, free_port()) as url, httpx2.AsyncClient() as http:
        body = json.dumps(INIT)
        missing = await http.post(url, content=body, headers=ACCEPT)
        assert missing.status_code == 401
        wrong = await http.post(
            url, content=body, headers={**ACCEPT, "Authorization": "Bearer not-the-token"}
        )
        assert wrong.status_code == 401
        good = {**ACCEPT, "Authorization": f"Bearer {token}"}
        evil = await http.post(url, content=body, headers={**good, "Origin": "http://evil.test"})
        assert evil.status_code == 403
        rebound = await http.post(url, content=body, headers={**good, "Host": "evil.test:80"})
        assert rebound.status_code == 403
        local = await http.post(url, content=body, headers={**good, "Origin": "http://localhost"})
        assert local.status_code == 200


async def test_serve_http_refuses_a_taken_port_and_a_remote_host(memory: Memory) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(OSError):
            await serve_http(memory, port=taken.getsockname()[1])
    with pytest.raises(InvalidArgument, match="ssh -L"):
        await serve_http(memory, host="0.0.0.0", port=free_port())


def test_cli_serves_loopback_only_and_has_no_remote_mode(cfg: Config) -> None:
    """Issue 18, item 5: --allow-remote could not serve another machine; it is gone, and the
    refusal says how to reach memtui from elsewhere (a tunnel to its loopback)."""
    for argv in (["--http", "--host", "0.0.0.0"], ["--print-config", "--host", "0.0.0.0"]):
        done = subprocess.run(
            [sys.executable, "-m", "memtui", "mcp", *argv],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT), "MEMTUI_DATA_DIR": str(cfg.data_dir)},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 1 and done.stdout == "", argv
        assert "INVALID_ARGUMENT" in done.stderr and "ssh -L" in done.stderr
        assert "http://" not in done.stdout
    done = subprocess.run(
        [sys.executable, "-m", "memtui", "mcp", "--http", "--allow-remote"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "--allow-remote" in done.stderr


def test_an_empty_token_file_gets_a_new_token(cfg: Config) -> None:
    """Issue 18, item 7: an empty mcp-token made every request 401 for ever."""
    for empty in ("", "  \n"):
        path = cfg.data_dir / TOKEN_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(empty)
        token = http_token(cfg)
        assert len(token) >= 32 and path.read_text().strip() == token
        assert http_token(cfg) == token
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


async def test_a_server_started_on_an_empty_token_file_answers_its_token(
    memory: Memory,
) -> None:
    path = memory.config.data_dir / TOKEN_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("")
    async with serving(memory, free_port()) as url, httpx2.AsyncClient() as http:
        token = path.read_text().strip()
        headers = {**ACCEPT, "Authorization": f"Bearer {token}"}
        answer = await http.post(url, content=json.dumps(INIT), headers=headers)
        assert token and answer.status_code == 200
