"""The MCP server inside the TUI: an MCP client connects while the app runs."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from memtui.engine import Memory
from memtui.mcp.http import http_token
from memtui.tui.app import MemtuiApp
from tests.mcp_data import ACCEPT, INIT
from tests.tui_support import small_archive, until


@pytest.fixture(autouse=True)
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_an_mcp_client_searches_through_the_running_tui(
    memory: Memory, claude_dir: Path
) -> None:
    small_archive(claude_dir)
    memory.upkeep.ingest(wait=True)
    port = free_port()
    app = MemtuiApp(memory, upkeep=False, mcp_port=port)
    async with app.run_test(size=(140, 40)) as pilot:
        await until(pilot, lambda: app.mcp_address.startswith("MCP http"))
        url = app.mcp_address.removeprefix("MCP ")
        assert url == f"http://127.0.0.1:{port}/mcp"
        assert url in str(app.screen.query_one("#status-mcp").render())
        headers = {"Authorization": f"Bearer {http_token(memory.config)}"}
        async with httpx2.AsyncClient(headers=headers) as http:
            transport = streamable_http_client(url, http_client=http)
            async with Client(transport, mode="legacy") as client:
                found = await client.call_tool("search_history", {"query": "refresh token"})
                assert found.structured_content is not None
                assert found.structured_content["results"], "search results over MCP"
        async with httpx2.AsyncClient() as http:
            refused = await http.post(url, content=json.dumps(INIT), headers=ACCEPT)
            assert refused.status_code == 401, "no token, no answer"
        await pilot.press("slash")  # the app is still responsive after serving
        assert app.screen.__class__.__name__ == "SearchScreen"


async def test_a_taken_port_is_a_notice_not_a_crash(memory: Memory) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        app = MemtuiApp(memory, upkeep=False, mcp_port=port)
        async with app.run_test(size=(140, 40)) as pilot:
            await until(pilot, lambda: app.mcp_address == "MCP off")
            notes = [n.message for n in app._notifications]
            assert any(f"port {port} is taken" in n for n in notes)
            assert app.is_running


async def test_no_mcp_says_so(memory: Memory) -> None:
    app = MemtuiApp(memory, upkeep=False, mcp_port=None)
    async with app.run_test(size=(140, 40)) as pilot:

        def said() -> list[str]:  # the browse screen may not be up yet: no match, no error
            return [str(w.render()) for w in app.screen.query("#status-mcp")]

        await until(pilot, lambda: said() == ["MCP off"])
