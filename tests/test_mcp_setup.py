"""The README's "Use with Claude Code" commands and `memtui mcp --print-config` start a server
that answers."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from memtui.config import Config
from memtui.mcp.handshake import FAMILIES
from memtui.mcp.http import http_token, reach
from memtui.mcp.setup import hook_settings, print_config
from tests.test_mcp_stdio import ROOT, Wire


def readme_section() -> str:
    text = (ROOT / "README.md").read_text()
    return text.split("## Use with Claude Code", 1)[1].split("\n## ", 1)[0]


def blocks(section: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", section, re.S)


def runnable(argv: list[str]) -> list[str]:
    """`memtui ...` as this checkout's interpreter runs it."""
    assert argv[0] == "memtui", argv
    return [sys.executable, "-m", "memtui", *argv[1:]]


def test_readme_commands_start_a_server_that_answers(cfg: Config) -> None:
    section = readme_section()
    add = next(
        shlex.split(line)
        for block in blocks(section, "sh")
        for line in block.splitlines()
        if line.startswith("claude mcp add")
    )
    server = add[add.index("--") + 1 :]
    entry = json.loads(blocks(section, "json")[0])["mcpServers"]["memtui"]
    assert [entry["command"], *entry["args"]] == server and entry["type"] == "stdio"
    wire = Wire(cfg, runnable(server))
    assert wire.initialize()["result"]["serverInfo"]["name"] == "memtui"
    assert len(wire.request("tools/list", {})["result"]["tools"]) == 24
    assert wire.finish() == 0
    wire.only_json_rpc()


def test_print_config_gives_commands_and_the_real_token(cfg: Config) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memtui", "mcp", "--print-config", "--port", "10099"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "MEMTUI_DATA_DIR": str(cfg.data_dir)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    out = done.stdout
    lines = out.splitlines()
    add = shlex.split(next(line for line in lines if line.startswith("claude mcp add --scope")))
    # the memtui that ran (this python with -m here), not the first `memtui` on PATH
    assert add[add.index("--") + 1 :] == [sys.executable, "-m", "memtui", "mcp"]
    assert f"--env=MEMTUI_DATA_DIR={cfg.data_dir}" in add
    token = http_token(cfg)
    assert f"Authorization: Bearer {token}" in out
    assert "http://127.0.0.1:10099/mcp" in out
    documents = re.findall(r"^\{.*?^\}", out, re.S | re.M)
    stdio, http = (json.loads(d)["mcpServers"]["memtui"] for d in documents[:2])
    hooks = json.loads(documents[2])["hooks"]
    (hook,) = hooks["SessionStart"][0]["hooks"]
    (prompt,) = hooks["UserPromptSubmit"][0]["hooks"]
    assert prompt["command"] == hook["command"].replace("session-start", "prompt")
    assert hooks["PreToolUse"][0]["matcher"] == "Edit|Write|MultiEdit|Bash"
    assert hooks["PreToolUse"][0]["hooks"][0]["command"].endswith(" hook tool")
    # The hook runs as Claude Code runs it: the command through a shell, the event on stdin,
    # on the data dir it was printed for.
    assert f"MEMTUI_DATA_DIR={cfg.data_dir}" in hook["command"]
    ran = subprocess.run(
        hook["command"],
        shell=True,
        input=json.dumps({"session_id": "s", "cwd": "/w", "source": "startup"}),
        env={**os.environ, "PYTHONPATH": str(ROOT), "MEMTUI_DATA_DIR": "/nonexistent"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (hook["type"], ran.returncode, ran.stderr) == ("command", 0, "")
    assert stdio["env"]["MEMTUI_DATA_DIR"] == str(cfg.data_dir)
    assert http["headers"]["Authorization"] == f"Bearer {token}"
    # The stdio entry starts a server that answers.
    wire = Wire(cfg, [stdio["command"], *stdio["args"]])
    assert wire.initialize()["result"]["serverInfo"]["name"] == "memtui"
    assert wire.finish() == 0


def test_print_config_names_the_running_memtui_and_its_tool_families(
    cfg: Config, tmp_path: Path
) -> None:
    """Issue 18, item 6: not the first `memtui` on PATH, but the one that printed it."""
    decoy = tmp_path / "bin" / "memtui"
    decoy.parent.mkdir()
    decoy.write_text("#!/bin/sh\nexit 3\n")
    decoy.chmod(0o755)
    running = Path(sys.executable).parent / "memtui"
    assert running.is_file(), "the venv's memtui script"
    done = subprocess.run(
        [str(running), "mcp", "--print-config", "--tools", "notes"],
        cwd=ROOT,
        env={
            **os.environ,
            "PATH": f"{decoy.parent}:{os.environ['PATH']}",
            "PYTHONPATH": str(ROOT),
            "MEMTUI_DATA_DIR": str(cfg.data_dir),
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    add = shlex.split(next(ln for ln in done.stdout.splitlines() if ln.startswith("claude mcp")))
    assert add[add.index("--") + 1 :] == [str(running.resolve()), "mcp", "--tools", "notes"]
    stdio = json.loads(re.findall(r"^\{.*?^\}", done.stdout, re.S | re.M)[0])
    assert stdio["mcpServers"]["memtui"]["args"] == ["mcp", "--tools", "notes"]
    wire = Wire(cfg, [sys.executable, "-m", "memtui", "mcp", "--tools", "notes"])
    wire.initialize()
    names = {t["name"] for t in wire.request("tools/list", {})["result"]["tools"]}
    assert "save_note" in names and "search_history" not in names
    assert wire.finish() == 0


def test_print_config_carries_every_setting_set_now(
    cfg: Config, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An agent left out with `off`, or read from elsewhere, stays so in the server and hooks
    each agent starts from the printed lines: before, only the data dir, Claude Code's folder
    and the model were passed on, and such a server archived Copilot CLI all the same."""
    settings = {
        "MEMTUI_DATA_DIR": str(cfg.data_dir),
        "MEMTUI_COPILOT_DIR": "off",
        "MEMTUI_CODEX_DIR": "/home/dev/codex home",
        "MEMTUI_MASK_SECRETS": "1",
    }
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    print_config(cfg, reach("127.0.0.1", 8765), FAMILIES)
    said = capsys.readouterr().out
    entry = json.loads(re.findall(r"^\{.*?^\}", said, re.S | re.M)[0])["mcpServers"]["memtui"]
    assert settings.items() <= entry["env"].items()
    for name, value in settings.items():
        assert f"--env={name}={value}" in said  # `claude mcp add` and `codex mcp add`
        assert f"{name} = {json.dumps(value)}" in said  # Codex's config.toml
        # Claude Code's .mcp.json, Gemini CLI's, OpenCode's and Copilot CLI's
        assert said.count(f'"{name}": {json.dumps(value)}') >= 4
    hooks = hook_settings()["hooks"]
    assert all(
        f"MEMTUI_CODEX_DIR={shlex.quote('/home/dev/codex home')} MEMTUI_COPILOT_DIR=off"
        in h["hooks"][0]["command"]
        for h in (hooks["SessionStart"][0], hooks["UserPromptSubmit"][0], hooks["PreToolUse"][0])
    )
