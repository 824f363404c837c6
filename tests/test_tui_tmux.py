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

from memtui.tui.notes.editor import FIELD_HINTS
from tests import first_minute

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def tmux(name: str) -> list[str]:
    """tmux on a server of the terminal's own: sessions that tests start at once on one server
    take each other's window size (a 140-column test drew at 80)."""
    return ["tmux", "-L", name]


class Terminal:
    def __init__(self, name: str, port: int) -> None:
        self.name = name
        self.port = port

    def screen(self) -> str:
        return subprocess.run(
            [*tmux(self.name), "capture-pane", "-p", "-t", self.name],
            capture_output=True,
            text=True,
            check=False,
        ).stdout

    def keys(self, *keys: str) -> None:
        subprocess.run([*tmux(self.name), "send-keys", "-t", self.name, *keys], check=True)

    def alive(self) -> bool:
        has = subprocess.run([*tmux(self.name), "has-session", "-t", self.name], check=False)
        return has.returncode == 0

    def wait(self, check: Callable[[str], bool], what: str, timeout: float = 120.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.screen()
            if check(shown):
                return shown
            time.sleep(0.2)
        raise AssertionError(f"waited {timeout}s for {what}; the screen:\n{self.screen()}")


def launch(
    tmp_path: Path, claude_dir: Path, path: str | None = None, size: tuple[int, int] = (140, 40)
) -> Terminal:
    """`memtui` in a new tmux session (140x40 unless told), on its own data and config dirs."""
    name = f"memtui-test-{uuid.uuid4().hex[:8]}"
    env = {
        "MEMTUI_DATA_DIR": str(tmp_path / "data"),
        "MEMTUI_CLAUDE_DIR": str(claude_dir),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "PYTHONPATH": str(ROOT),
        "PATH": path or os.environ["PATH"],
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
    }
    exports = " ".join(f"{k}={v!s}" for k, v in env.items())
    with socket.socket() as probe:  # a free port for the TUI's MCP server
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # no COLUMNS or LINES from the test runner: they would size the app instead of tmux
    command = f"env -u COLUMNS -u LINES {exports} {sys.executable} -m memtui --port {port}"
    cols, rows = map(str, size)
    subprocess.run(
        [*tmux(name), "new-session", "-d", "-s", name, "-x", cols, "-y", rows, command],
        check=True,
        env={**os.environ, "TMUX": ""},
    )
    return Terminal(name, port)


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    started: list[Terminal] = []
    yield started
    for term in started:
        if term.alive():
            subprocess.run([*tmux(term.name), "kill-server"], check=False)


@pytest.fixture
def terminal(shared: Path, tmp_path: Path, terminals: list[Terminal]) -> Terminal:
    terminals.append(launch(tmp_path, shared / "projects"))
    return terminals[0]


def test_the_real_tui_on_real_transcripts(terminal: Terminal) -> None:
    shown = terminal.wait(
        lambda s: "sessions ·" in s and indexed(s) and " 0 sessions" not in s,
        "the first index to finish",
    )
    assert "Projects" in shown and "Last active" in shown
    terminal.wait(lambda s: f"MCP http://127.0.0.1:{terminal.port}/mcp" in s, "the MCP address")
    terminal.keys("/")
    terminal.wait(lambda s: "search every conversation" in s, "the search screen")
    terminal.keys("test")
    shown = terminal.wait(lambda s: "full-text match" in s, "search results")
    terminal.keys("Enter")  # from the box to the results
    time.sleep(0.3)
    terminal.keys("Enter")  # open the highlighted hit
    # its header comes before its messages: wait for both
    terminal.wait(
        lambda s: "msgs" in s and "Find" in s and ("you" in s or "claude" in s),
        "the session at the hit, its messages shown",
    )
    terminal.keys("Escape")
    terminal.wait(lambda s: "full-text match" in s and "Find" not in s, "back to the search")
    terminal.keys("C-g")  # issue 26: the conversations, each opening at its best hit
    shown = terminal.wait(lambda s: " conversations · " in s and " hit" in s, "conversations")
    assert "Group" in shown.rstrip().splitlines()[-1], "the key is in the footer"
    terminal.keys("Enter")
    terminal.wait(lambda s: "msgs" in s and "Find" in s, "the conversation at its best hit")
    terminal.keys("Escape")
    terminal.wait(lambda s: " hit" in s and "Find" not in s, "back to the conversations")
    terminal.keys("Escape")
    terminal.wait(lambda s: "Last active" in s, "back to browsing")
    terminal.keys("q")
    deadline = time.monotonic() + 15
    while terminal.alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not terminal.alive(), "q quits"


def indexed(screen: str) -> bool:
    """The status line says nothing is being built any more."""
    status = screen.splitlines()[0] if screen else ""
    return not any(word in status for word in ("%", "…", "next"))


def test_the_first_minute_at_80x24(tmp_path: Path, terminals: list[Terminal]) -> None:
    """Issue 17 in a real terminal at 80x24: projects of the same folder name told apart,
    titles in the person's words, the warm-up folded, a session's real end at the bottom."""
    claude_dir = tmp_path / "projects"
    first_minute.build(claude_dir)
    terminal = launch(tmp_path, claude_dir, size=(80, 24))
    terminals.append(terminal)
    names = ("client-01/app", "client-02/app", "shop-api")
    titles = ("Why does the cart total", "Investigate two issues", "Walk me through")
    # the projects and the sessions are read apart: wait for both lists
    shown = terminal.wait(
        lambda s: "/init" in s and indexed(s) and all(w in s for w in (*names, *titles)),
        "the first index, every project and title shown",
    )
    assert "<command" not in shown and "ide_selection" not in shown and "Warmup" not in shown
    assert "(untitled)" not in shown
    assert "1 warm-up hidden" in shown
    terminal.keys("Down")
    terminal.keys("Enter")  # the second session: a subagent in the middle of it
    shown = terminal.wait(lambda s: "THE END" in s and "Export" in s, "the session's end")
    assert "subagent p9p9p9p9" in shown
    assert shown.index("subagent p9p9p9p9") < shown.index("THE END"), "one timeline"
    footer = shown.rstrip().splitlines()[-1]
    assert "Export" in footer and "Quit" in footer, "the footer fits"
    terminal.keys("Escape")
    terminal.wait(lambda s: "Last active" in s, "back to the list")  # not alt+q
    terminal.keys("q")
    deadline = time.monotonic() + 30  # the screen goes at once; the index stops at its batch
    while terminal.alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not terminal.alive()


FAKE_CLAUDE = """#!/bin/sh
echo "fake claude $* in $(pwd)"
printf 'say something: '
read answer
echo "$answer" > "$0.said"
"""


def test_resume_hands_the_terminal_to_claude_and_takes_it_back(
    tmp_path: Path, terminals: list[Terminal]
) -> None:
    from tests.tui_support import live_session

    claude_dir, cwd, bin_dir = tmp_path / "claude", tmp_path / "work" / "shop", tmp_path / "bin"
    session = "5e55104e-0000-4000-8000-000000000001"
    live_session(claude_dir, cwd, session, messages=6)
    bin_dir.mkdir()
    fake = bin_dir / "claude"
    fake.write_text(FAKE_CLAUDE)
    fake.chmod(0o755)
    term = launch(tmp_path, claude_dir, path=f"{bin_dir}:{os.environ['PATH']}")
    terminals.append(term)
    term.wait(lambda s: "1 session ·" in s and indexed(s), "the first index")
    term.keys("Enter")  # the only session
    term.wait(lambda s: "msgs" in s and "Resume" in s, "the session")
    term.keys("r")
    shown = term.wait(lambda s: "say something:" in s, "claude in the terminal")
    unwrapped = shown.replace("\n", "")  # a long temp path wraps at the terminal's edge
    assert f"fake claude --resume {session} in {cwd}" in unwrapped
    assert "Resume" not in shown, "memtui is suspended, not drawn over claude"
    term.keys("goodbye", "Enter")
    term.wait(lambda s: "msgs" in s and "Resume" in s, "memtui back after claude exits")
    assert (bin_dir / "claude.said").read_text().strip() == "goodbye", "claude read the keys"
    term.keys("q")
    deadline = time.monotonic() + 15
    while term.alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not term.alive(), "q quits"


def apart(term: Terminal, *keys: str) -> None:
    for key in keys:
        term.keys(key)
        time.sleep(0.3)


def to_the_body(term: Terminal) -> None:
    """Tab through the editor's fields until its hint says the body has the focus, each Tab
    waited for: one sent before the last is read can reach the app with it as one paste."""

    def field(shown: str) -> str | None:
        return next((name for name, hint in FIELD_HINTS.items() if hint in shown), None)

    now = field(term.wait(lambda s: field(s) is not None, "the editor's hint"))
    for _ in FIELD_HINTS:
        if now == "note-body":
            return
        term.keys("Tab")
        now = field(term.wait(lambda s, was=now: field(s) not in (None, was), f"past {now}"))
    raise AssertionError(f"tab never reached the body; the screen:\n{term.screen()}")


def test_a_note_with_a_link_survives_a_restart(tmp_path: Path, terminals: list[Terminal]) -> None:
    """Write a note linking to one that does not exist, open the link, write that one too,
    quit, start again: both notes are there, linked."""
    claude_dir = tmp_path / "claude"
    claude_dir.mkdir()
    term = launch(tmp_path, claude_dir)
    terminals.append(term)
    term.wait(lambda s: "All notes" in s and "indexing" not in s, "the notes in the sidebar")
    term.keys("n")
    term.wait(lambda s: "No notes here yet" in s, "the empty notes list")
    term.keys("n")
    term.wait(lambda s: "new note" in s and "ctrl+s save" in s, "the editor")
    term.keys("-l", "Alpha decision")
    term.wait(lambda s: "Alpha decision" in s, "the title typed")
    to_the_body(term)
    term.keys("-l", "We chose alpha; the plan is in [[Beta plan]].")
    term.keys("C-s")
    shown = term.wait(lambda s: "Referenced by (0)" in s, "the new note's view")
    assert "Alpha decision" in shown and "[[" not in shown
    apart(term, "Tab", "Enter")  # the first link: Beta plan, not written yet
    term.wait(lambda s: "write it now" in s or "new note" in s, "the editor for the link")
    to_the_body(term)  # there already: its title is the link's
    term.keys("-l", "Ship alpha in three steps.")
    term.keys("C-s")
    shown = term.wait(
        lambda s: "Referenced by (1)" in s or "Similar notes exist" in s, "the linked note saved"
    )
    if "Similar notes exist" in shown:
        term.keys("k")
        shown = term.wait(lambda s: "Referenced by (1)" in s, "the linked note")
    assert "Beta plan" in shown and "Alpha decision" in shown
    term.keys("q")
    deadline = time.monotonic() + 15
    while term.alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not term.alive(), "q quits"

    again = launch(tmp_path, claude_dir)
    terminals.append(again)
    again.wait(lambda s: "All notes  2" in s, "both notes counted after the restart")
    again.keys("n")
    shown = again.wait(lambda s: "Alpha decision" in s and "Beta plan" in s, "both notes listed")
    again.keys("Enter")  # the newest: Beta plan
    shown = again.wait(lambda s: "Referenced by (1)" in s, "Beta plan's backlink")
    assert "Alpha decision" in shown
    again.keys("q")
