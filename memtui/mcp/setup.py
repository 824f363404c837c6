"""`memtui mcp --print-config`: what to paste so Claude Code, Codex CLI, Gemini CLI, OpenCode,
Copilot CLI (or another client) finds memtui."""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memtui.engine import Config
from memtui.mcp.handshake import FAMILIES
from memtui.mcp.http import Reach, http_token, remote_warning


def memtui() -> list[str]:
    """How to start this very memtui, the one running now: its script by absolute path
    (Claude Code's PATH may not hold this venv, and another memtui may come first on it),
    else this interpreter with -m."""
    script = Path(sys.argv[0])
    if script.name == "memtui" and script.is_file():
        return [str(script.resolve())]
    return [sys.executable, "-m", "memtui"]


def passed_on() -> dict[str, str]:
    """Every memtui setting set now (the data dir, the model, each agent's folder or `off`,
    masking…): the server or hook an agent starts must read and leave out what this one does."""
    return {k: v for k, v in sorted(os.environ.items()) if k.startswith("MEMTUI_") and v}


def command(families: Sequence[str] = FAMILIES) -> list[str]:
    start = [*memtui(), "mcp"]
    if tuple(families) != FAMILIES:
        start += ["--tools", ",".join(families)]
    return start


def hook_settings() -> dict[str, Any]:
    """The `settings.json` part that runs memtui's hooks (a session's start, each prompt,
    each Edit, Write, MultiEdit and Bash call), with the settings set now (a hook's command
    runs in a shell)."""
    env = [f"{k}={shlex.quote(v)}" for k, v in passed_on().items()]

    def run(event: str, **matcher: str) -> dict[str, Any]:
        start = shlex.join([*memtui(), "hook", event])
        return {**matcher, "hooks": [{"type": "command", "command": " ".join([*env, start])}]}

    return {
        "hooks": {
            "SessionStart": [run("session-start")],
            "UserPromptSubmit": [run("prompt")],
            "PreToolUse": [run("tool", matcher="Edit|Write|MultiEdit|Bash")],
        }
    }


def stdio_entry(families: Sequence[str] = FAMILIES) -> dict[str, Any]:
    start = command(families)
    entry: dict[str, Any] = {"type": "stdio", "command": start[0], "args": start[1:]}
    env = passed_on()
    if env:
        entry["env"] = env
    return entry


def print_config(config: Config, where: Reach, families: Sequence[str]) -> None:
    """`where` was refused as `--http` refuses it, so every URL printed is one it serves."""
    entry = stdio_entry(families)
    env_flags = [f"--env={k}={v}" for k, v in entry.get("env", {}).items()]
    add = ["claude", "mcp", "add", "--scope", "user", *env_flags, "memtui", "--"]
    add += command(families)
    url = where.url
    header = f"Authorization: Bearer {http_token(config)}"
    http_add = ["claude", "mcp", "add", "--transport", "http", "memtui", url, "--header", header]
    http_entry = {"type": "http", "url": url, "headers": {"Authorization": header.split(": ")[1]}}
    serve = ["memtui", "mcp", "--http", "--host", where.host, "--port", str(where.port)]
    if where.remote:
        serve.append("--allow-remote")
        serve += [f"--allow-host={name}" for name in where.allowed]
        print(f"memtui: warning: {remote_warning(where)}", file=sys.stderr)
    if tuple(families) != FAMILIES:
        serve += ["--tools", ",".join(families)]
    print("# Claude Code, every project (stdio; Claude Code starts the server):")
    print(shlex.join(add))
    print()
    print("# or in .mcp.json (one project) or ~/.claude.json:")
    print(json.dumps({"mcpServers": {"memtui": entry}}, indent=2))
    print()
    print(f"# over HTTP, while `memtui` or `{shlex.join(serve)}` serves {url}:")
    print(shlex.join(http_add))
    print(json.dumps({"mcpServers": {"memtui": http_entry}}, indent=2))
    print()
    print(
        "# the hooks (the project at a session's start, the past before a prompt or a tool"
        " call), however the server runs: in ~/.claude/settings.json"
    )
    print(json.dumps(hook_settings(), indent=2))
    print()
    print(other_agents(families))


def other_agents(families: Sequence[str] = FAMILIES) -> str:
    """The same stdio server for the other coding agents that speak MCP, each in its own
    words: Codex CLI (`codex mcp add`, or `~/.codex/config.toml`), Gemini CLI
    (`~/.gemini/settings.json`), OpenCode (`opencode.json`) and Copilot CLI
    (`~/.copilot/mcp-config.json`)."""
    start = command(families)
    env = passed_on()
    codex_add = ["codex", "mcp", "add", *[f"--env={k}={v}" for k, v in env.items()]]
    toml = [
        "[mcp_servers.memtui]",
        f"command = {json.dumps(start[0])}",
        f"args = {json.dumps(start[1:])}",
    ]
    if env:
        toml += [
            "[mcp_servers.memtui.env]",
            *(f"{k} = {json.dumps(v)}" for k, v in env.items()),
        ]
    plain = {"command": start[0], "args": start[1:], **({"env": env} if env else {})}
    opencode = {"type": "local", "command": start, "enabled": True}
    if env:
        opencode["environment"] = env
    copilot = {"type": "local", **plain, "tools": ["*"]}
    return "\n".join(
        [
            "# Codex CLI (stdio; Codex starts the server):",
            shlex.join([*codex_add, "memtui", "--", *start]),
            "# or in ~/.codex/config.toml:",
            *toml,
            "",
            "# Gemini CLI: in ~/.gemini/settings.json",
            json.dumps({"mcpServers": {"memtui": plain}}, indent=2),
            "",
            "# OpenCode: in opencode.json (one project) or ~/.config/opencode/opencode.json",
            json.dumps(
                {"$schema": "https://opencode.ai/config.json", "mcp": {"memtui": opencode}},
                indent=2,
            ),
            "",
            "# Copilot CLI: in ~/.copilot/mcp-config.json",
            json.dumps({"mcpServers": {"memtui": copilot}}, indent=2),
        ]
    )
