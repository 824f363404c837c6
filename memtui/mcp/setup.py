"""`memtui mcp --print-config`: what to paste so Claude Code (or another client) finds memtui."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from typing import Any

from memtui.engine import Config
from memtui.mcp.http import http_token, url_of

PASSED_ON = ("MEMTUI_DATA_DIR", "MEMTUI_CLAUDE_DIR", "MEMTUI_MODEL")  # set now: keep them


def command() -> list[str]:
    """How to start this very memtui: its script by absolute path (Claude Code's PATH may not
    hold this venv), else this interpreter with -m."""
    script = shutil.which("memtui")
    return [script, "mcp"] if script else [sys.executable, "-m", "memtui", "mcp"]


def stdio_entry() -> dict[str, Any]:
    start = command()
    entry: dict[str, Any] = {"type": "stdio", "command": start[0], "args": start[1:]}
    env = {name: os.environ[name] for name in PASSED_ON if os.environ.get(name)}
    if env:
        entry["env"] = env
    return entry


def print_config(config: Config, host: str, port: int) -> None:
    entry = stdio_entry()
    env_flags = [f"--env={k}={v}" for k, v in entry.get("env", {}).items()]
    add = ["claude", "mcp", "add", "--scope", "user", *env_flags, "memtui", "--", *command()]
    url = url_of(host, port)
    header = f"Authorization: Bearer {http_token(config)}"
    http_add = ["claude", "mcp", "add", "--transport", "http", "memtui", url, "--header", header]
    http_entry = {"type": "http", "url": url, "headers": {"Authorization": header.split(": ")[1]}}
    print("# Claude Code, every project (stdio; Claude Code starts the server):")
    print(shlex.join(add))
    print()
    print("# or in .mcp.json (one project) or ~/.claude.json:")
    print(json.dumps({"mcpServers": {"memtui": entry}}, indent=2))
    print()
    print(f"# over HTTP, while `memtui` or `memtui mcp --http` serves {url}:")
    print(shlex.join(http_add))
    print(json.dumps({"mcpServers": {"memtui": http_entry}}, indent=2))
