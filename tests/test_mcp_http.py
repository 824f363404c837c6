"""MCP over streamable HTTP on a free loopback port: the token, the Origin and Host checks, and
the TUI's entry point (serve_http) as an asyncio task; and `--allow-remote`, served on this
machine's own addresses only (no test sends a byte elsewhere)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import stat
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from memtui.config import Config, load
from memtui.engine import InvalidArgument, Memory
from memtui.mcp.http import TOKEN_FILE, http_token, reach, remote_warning, serve_http
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


def memtui_mcp(cfg: Config, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memtui", "mcp", *argv],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "MEMTUI_DATA_DIR": str(cfg.data_dir)},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_host_beyond_loopback_needs_allow_remote(cfg: Config) -> None:
    """SPEC: a non-loopback --host is refused unless the user adds --allow-remote; the
    refusal names the flag and the safer tunnel."""
    for argv in (["--http", "--host", "0.0.0.0"], ["--print-config", "--host", "0.0.0.0"]):
        done = memtui_mcp(cfg, *argv)
        assert done.returncode == 1 and done.stdout == "", argv
        assert done.stderr.startswith("memtui: INVALID_ARGUMENT: --host 0.0.0.0")
        assert "--allow-remote" in done.stderr and "ssh -L" in done.stderr
    alone = memtui_mcp(cfg, "--print-config", "--allow-host", "box.example.com")
    assert alone.returncode == 1 and "needs --allow-remote" in alone.stderr
    for name in ("http://box.example.com", "box.example.com:80", "a b"):
        done = memtui_mcp(cfg, "--print-config", "--allow-remote", "--allow-host", name)
        assert done.returncode == 2 and "--allow-host" in done.stderr, name


@asynccontextmanager
async def remote_server(cfg: Config, host: str, *more: str) -> AsyncIterator[tuple[str, str]]:
    """`memtui mcp --http --allow-remote` on `host` as a process: its URL and what it said
    on stderr once ready (the warning)."""
    port = free_port()
    server = await asyncio.create_subprocess_exec(
        *[sys.executable, "-m", "memtui", "mcp", "--http", "--allow-remote", *more],
        *["--host", host, "--port", str(port)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "MEMTUI_DATA_DIR": str(cfg.data_dir)},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    assert server.stderr is not None
    try:
        said = (await asyncio.wait_for(server.stderr.readline(), 60)).decode()
        assert said.startswith("memtui MCP at http://"), said
        warning = (await asyncio.wait_for(server.stderr.readline(), 10)).decode()
        url = said.split(" at ", 1)[1].strip()
        assert f":{port}/mcp" in url
        yield url, warning
    finally:
        server.terminate()
        assert await asyncio.wait_for(server.wait(), 30) == 0


async def answers_over(url: str, token: str, host_header: str | None = None) -> set[str]:
    """The tools a real MCP client lists at `url` (sending `host_header` as its Host)."""
    headers = {"Authorization": f"Bearer {token}"}
    if host_header is not None:
        headers["Host"] = host_header
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
    ):
        stats = await client.call_tool("memory_stats", {})
        assert not stats.is_error
        return {t.name for t in (await client.list_tools()).tools}


async def status_of(url: str, token: str | None, **headers: str) -> int:
    sent = {**ACCEPT, **headers}
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    async with httpx2.AsyncClient() as http:
        answer = await http.post(url, content=json.dumps(INIT), headers=sent)
        return answer.status_code


def warned(said: str, url: str) -> None:
    assert said.startswith(f"memtui: warning: {url} is plain HTTP"), said
    assert "clear text" in said and "ssh -L" in said


def test_allow_remote_on_one_address_takes_its_names() -> None:
    """Issue 18, item 5: --allow-remote served no other machine (the Host check took loopback
    only). Bound to one address, the URL names it and the Host and Origin checks take it and
    this machine's names, no others. (Tests send nothing beyond loopback: the 0.0.0.0 test
    below serves and is reached through 127.0.0.1.)"""
    address = "192.0.2.7"  # a documentation address: nothing is bound or sent here
    with pytest.raises(InvalidArgument, match="--allow-remote"):
        reach(address, 10099)
    where = reach(address, 10099, allow_remote=True)
    assert where.remote and where.url == f"http://{address}:10099/mcp"
    assert {address, socket.gethostname(), "127.0.0.1"} <= set(where.names)
    assert "evil.test" not in where.names and "0.0.0.0" not in where.names
    assert f"{where.url} is plain HTTP" in remote_warning(where)


async def test_allow_remote_on_every_address_prints_a_url_a_client_can_use(
    cfg: Config,
) -> None:
    """Bound to 0.0.0.0, memtui tells clients a URL with this machine's name or address
    (never 0.0.0.0), --print-config prints that same URL, and the Host check takes the
    machine's names and each --allow-host; a client reaches it here through loopback, naming
    the machine in its Host header."""
    token = http_token(cfg)
    printed = memtui_mcp(
        cfg, "--print-config", "--host", "0.0.0.0", "--allow-remote", "--port", "10099"
    )
    assert printed.returncode == 0, printed.stderr
    http_entry = json.loads(re.findall(r"^\{.*?^\}", printed.stdout, re.S | re.M)[1])
    shown = http_entry["mcpServers"]["memtui"]["url"]
    assert "//0.0.0.0" not in printed.stdout and shown.endswith(":10099/mcp")
    assert "--allow-remote" in printed.stdout
    warned(printed.stderr.strip(), shown)
    async with remote_server(cfg, "0.0.0.0", "--allow-host", "memtui.example.org") as (url, said):
        warned(said, url)
        reached = urlsplit(url)
        assert reached.hostname not in (None, "0.0.0.0", "127.0.0.1", "localhost")
        assert urlsplit(shown).hostname == reached.hostname
        here = f"http://127.0.0.1:{reached.port}/mcp"
        assert "trace" in await answers_over(here, token, host_header=reached.netloc)
        for name in (reached.netloc, f"{socket.gethostname()}:{reached.port}"):
            assert await status_of(here, token, Host=name) == 200, name
        assert await status_of(here, token, Host="memtui.example.org") == 200
        assert await status_of(here, token, Origin="https://memtui.example.org:8443") == 200
        assert await status_of(here, token, Host=f"evil.test:{reached.port}") == 403
        assert await status_of(here, token, Origin=f"http://evil.test:{reached.port}") == 403
        assert await status_of(here, None, Host=reached.netloc) == 401
    logged = (load().log_dir / "memtui.log").read_text()
    assert f"{url} is plain HTTP" in logged


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
