"""The real `memtui` in a real terminal (tmux) on the real transcripts in ../shared: start it,
wait for the first index, search, open a hit, go back, quit. Reads the screen as a person
would, with capture-pane."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Terminal:
    def __init__(self, name: str, port: int) -> None:
        self.name = name
        self.port = port

    def screen(self) -> str:
        return subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", self.name],
            capture_output=True,
            text=True,
            check=False,
        ).stdout

    def keys(self, *keys: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)

    def alive(self) -> bool:
        return subprocess.run(["tmux", "has-session", "-t", self.name], check=False).returncode == 0

    def wait(self, check: Callable[[str], bool], what: str, timeout: float = 120.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.screen()
            if check(shown):
                return shown
            time.sleep(0.2)
        raise AssertionError(f"waited {timeout}s for {what}; the screen:\n{self.screen()}")


@pytest.fixture
def terminal(shared: Path, tmp_path: Path) -> Iterator[Terminal]:
    name = f"memtui-test-{uuid.uuid4().hex[:8]}"
    env = {
        "MEMTUI_DATA_DIR": str(tmp_path / "data"),
        "MEMTUI_CLAUDE_DIR": str(shared / "projects"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "PYTHONPATH": str(ROOT),
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
    }
    exports = " ".join(f"{k}={v!s}" for k, v in env.items())
    with socket.socket() as probe:  # a free port for the TUI's MCP server
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = f"env {exports} {sys.executable} -m memtui --port {port}"
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", name, "-x", "140", "-y", "40", command],
        check=True,
        env={**os.environ, "TMUX": ""},
    )
    term = Terminal(name, port)
    try:
        yield term
    finally:
        if term.alive():
            subprocess.run(["tmux", "kill-session", "-t", name], check=False)


def test_the_real_tui_on_real_transcripts(terminal: Terminal) -> None:
    shown = terminal.wait(
        lambda s: "sessions ·" in s and "indexing" not in s and " 0 sessions" not in s,
        "the first index to finish",
    )
    assert "Projects" in shown and "Last active" in shown
    terminal.wait(lambda s: f"MCP http://127.0.0.1:{terminal.port}/mcp" in s, "the MCP address")
    terminal.keys("/")
    terminal.wait(lambda s: "search every conversation" in s, "the search screen")
    terminal.keys("test")
    shown = terminal.wait(lambda s: " found · " in s, "search results")
    terminal.keys("Enter")  # from the box to the results
    time.sleep(0.3)
    terminal.keys("Enter")  # open the highlighted hit
    shown = terminal.wait(lambda s: "msgs" in s and "Find" in s, "the session at the hit")
    assert "you" in shown or "claude" in shown
    terminal.keys("Escape")
    terminal.wait(lambda s: " found · " in s and "Find" not in s, "back to the search")
    terminal.keys("Escape")
    terminal.wait(lambda s: "Last active" in s, "back to browsing")
    terminal.keys("q")
    deadline = time.monotonic() + 15
    while terminal.alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not terminal.alive(), "q quits"
