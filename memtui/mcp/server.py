"""The MCP server as served: the tool families of `--tools` registered on one Server.

A tool family is a module with `register(server)` that adds its tools, resources and prompts
(history, notes, signals; then `forget`, for the data they reach); each takes what it is made
with from tools.py and its shared argument types from args.py, and none imports this module.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings

from memtui.mcp import forget, history, notes, signals
from memtui.mcp.engine import Engine
from memtui.mcp.handshake import FAMILIES, instructions
from memtui.mcp.tools import Server

GROUPS = {"history": history, "notes": notes, "signals": signals}


def build_server(
    engine: Engine,
    token_verifier: TokenVerifier | None = None,
    auth: AuthSettings | None = None,
    *,
    families: Sequence[str] = FAMILIES,
    told: str | None = None,
) -> Server:
    """The server with the tool groups of `families` registered, then `forget` for the data
    they reach; HTTP passes its token check and auth. `told`: the instructions, fixed (stdio
    answered the handshake with them before the SDK was loaded); else they are read again
    for every new connection, so a rule the person approves is in the next one's."""
    server = Server(engine, told or instructions(engine.config, families), token_verifier, auth)
    if told is None:
        server.read_instructions_per_connection(families)
    for family in FAMILIES:
        if family in families:
            GROUPS[family].register(server)
    forget.register(server, families)
    return server
