"""`memtui mcp`: the MCP server, over stdio for Claude Code or over HTTP."""

from __future__ import annotations

import argparse

from memtui.cli.base import Family, arg, whole
from memtui.mcp.cli import cmd_mcp, host_name, tool_families

family = Family()


@family.command(
    "mcp",
    "serve MCP over stdio (what Claude Code starts)",
    arg("--http", action="store_true", help="serve streamable HTTP at /mcp instead"),
    arg(
        "--host",
        default="127.0.0.1",
        help="HTTP address (default 127.0.0.1); one other machines reach needs --allow-remote",
    ),
    arg("--port", type=whole(1, 65535), default=10013, help="HTTP port"),
    arg(
        "--allow-remote",
        action="store_true",
        help="serve a --host that is not loopback (plain HTTP: the token and history in clear)",
    ),
    arg(
        "--allow-host",
        action="append",
        type=host_name,
        default=[],
        metavar="NAME",
        help="with --allow-remote: another name clients reach this machine by (repeatable)",
    ),
    arg("--print-config", action="store_true", help="print the config that connects Claude Code"),
    arg(
        "--tools",
        type=tool_families,
        default=None,
        metavar="FAMILIES",
        help="serve only these tool families: history,notes,signals (default: all)",
    ),
    store=False,  # signal handlers first; the server opens the engine lazily, itself
)
def mcp(args: argparse.Namespace) -> None:
    cmd_mcp(args)
