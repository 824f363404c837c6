"""`memtui mcp [--http ...] [--print-config]`: which server to run, from the parsed arguments."""

from __future__ import annotations

import argparse

from memtui.engine import Config


def cmd_mcp(config: Config, args: argparse.Namespace) -> None:
    if args.print_config:
        from memtui.mcp.setup import print_config

        print_config(config, args.host, args.port)
    elif args.http:
        from memtui.mcp.http import run_http

        run_http(config, args.host, args.port, allow_remote=args.allow_remote)
    else:
        from memtui.mcp.stdio import serve_stdio

        serve_stdio(config)
