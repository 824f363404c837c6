"""`memtui mcp [--tools F] [--http ...] [--print-config]`: which server to run."""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import re

from memtui.config import load, setup_logging
from memtui.mcp.handshake import FAMILIES


def tool_families(value: str) -> tuple[str, ...]:
    """`history,notes` → the families, in registration order; an unknown one is a usage error."""
    asked = [part.strip() for part in value.split(",") if part.strip()]
    unknown = [name for name in asked if name not in FAMILIES]
    if unknown or not asked:
        raise argparse.ArgumentTypeError(
            f"unknown tool family {', '.join(unknown) or repr(value)}: "
            f"choose from {','.join(FAMILIES)}"
        )
    return tuple(f for f in FAMILIES if f in asked)


def host_name(value: str) -> str:
    """An `--allow-host` name as a Host header carries it, without a port: a DNS name or an
    IP address (IPv6 with or without brackets)."""
    with contextlib.suppress(ValueError):
        return str(ipaddress.ip_address(value.strip("[]")))
    if not re.fullmatch(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?", value):
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a host name or an IP address (no scheme, port or path)"
        )
    return value


def cmd_mcp(args: argparse.Namespace) -> None:
    if args.print_config or args.http:
        return cmd_other(args)
    from memtui.mcp.stdio import Signalled, Wire, serve_stdio

    signalled = Signalled()  # first thing: a SIGTERM from now on ends it cleanly
    wire = Wire()  # before a log file could take a closed stdout's descriptor
    cfg = load()
    setup_logging(cfg.log_dir)
    serve_stdio(cfg, args.tools or FAMILIES, signalled, wire)


def cmd_other(args: argparse.Namespace) -> None:
    from memtui.mcp.http import reach

    cfg = load()
    setup_logging(cfg.log_dir)
    families = args.tools or FAMILIES
    where = reach(args.host, args.port, allow_remote=args.allow_remote, allow_hosts=args.allow_host)
    if args.print_config:
        from memtui.mcp.setup import print_config

        print_config(cfg, where, families)
    else:
        from memtui.mcp.http import run_http

        run_http(cfg, where, families)
