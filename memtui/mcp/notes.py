"""Notes over MCP (being written)."""

from __future__ import annotations

from memtui.mcp.server import Server


def register(server: Server) -> None:
    del server
