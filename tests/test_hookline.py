"""A hook answered by a memtui already running for the data dir (engine/hookline.py): the same
text as the hook works out alone, far sooner, and the hook still works alone when no server
runs, one died, or one does not answer."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memtui.config import Config
from memtui.engine import Memory
from memtui.engine.hookline import FOLDER, WAIT, HookServer
from tests import lines

EVENT = json.dumps(
    {
        "session_id": "5f3a1c2e-0000-4000-8000-000000000002",
        "transcript_path": "/home/dev/.claude/projects/-shop/5f3a.jsonl",
        "cwd": lines.CWD,
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
)
# Run as Claude Code runs the hook, then say whether this process did the work itself.
PROBE = (
    "import sys\n"
    "from memtui.cli import main\n"
    "sys.argv = ['memtui', 'hook', 'session-start']\n"
    "main()\n"
    "worked = [m for m in ('sqlite3', 'memtui.config', 'memtui.engine.hook') if m in sys.modules]\n"
    "print('WORKED' if worked else 'ASKED', file=sys.stderr)\n"
)


def hook(cfg: Config, **env: str) -> tuple[str, str]:
    """What the hook printed, and whether it was ASKED or WORKED it out itself."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        input=EVENT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "MEMTUI_DATA_DIR": str(cfg.data_dir), **env},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr.strip().splitlines()[-1]


@pytest.fixture
def archive(claude_dir: Path, cfg: Config) -> Config:
    lines.write(
        claude_dir / "-shop" / "h-1.jsonl", lines.user("h-1-u", "fix the refund webhook", "h-1")
    )
    with Memory(cfg) as memory:
        memory.upkeep.ingest()
        memory.notes.save("Use uv", "Install with uv, never pip.", "rule", by="person")
        memory.notes.save(
            "Refund plan", "Idempotency keys next.", "state", by="person", source_session_id="h-1"
        )
    return cfg


@pytest.fixture
def server(archive: Config) -> Iterator[HookServer]:
    served = HookServer(archive.data_dir)
    yield served
    served.close()


def test_a_running_memtui_answers_the_hook_with_what_it_would_say_alone(
    archive: Config,
) -> None:
    alone, how = hook(archive)
    assert how == "WORKED" and "Refund plan" in alone and "Use uv" in alone
    served = HookServer(archive.data_dir)
    try:
        assert Path(served.path).parent == archive.data_dir / FOLDER
        assert hook(archive) == (alone, "ASKED")
    finally:
        served.close()
    assert not Path(served.path).exists()  # a server that stops takes its socket with it
    assert hook(archive) == (alone, "WORKED")


def test_a_hook_finds_the_server_of_the_default_data_dir_without_loading_platformdirs(
    archive: Config, server: HookServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With MEMTUI_DATA_DIR unset, as most people run it, finding the data dir imported
    platformdirs (pathlib, tempfile, shutil, random): a fifth of a hook's start."""
    xdg = tmp_path / "xdg"
    xdg.mkdir()
    (xdg / "memtui").symlink_to(archive.data_dir)  # the default data dir under XDG_DATA_HOME
    monkeypatch.setenv("XDG_DATA_HOME", str(xdg))
    monkeypatch.delenv("MEMTUI_DATA_DIR")
    probe = PROBE + "print('platformdirs' in sys.modules, file=sys.stderr)\n"
    done = subprocess.run(
        [sys.executable, "-c", probe], input=EVENT, capture_output=True, text=True, timeout=60
    )
    assert done.stderr.split()[-2:] == ["ASKED", "False"], done.stderr
    assert "Refund plan" in done.stdout


def test_a_server_asked_for_another_data_dir_leaves_the_hook_to_work_alone(
    archive: Config, server: HookServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hook's socket was found where its settings put the data dir, but the server works
    the default one out from its own environment (platformdirs reads no other): a server
    started with MEMTUI_DATA_DIR set, asked by a hook that gets there through XDG_DATA_HOME,
    answered from a store that was not the hook's."""
    xdg = tmp_path / "xdg"
    xdg.mkdir()
    (xdg / "memtui").symlink_to(archive.data_dir)
    monkeypatch.setenv("HOME", str(tmp_path / "server-home"))  # the server's default data dir
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("MEMTUI_DATA_DIR")
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        input=EVENT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "XDG_DATA_HOME": str(xdg)},
    )
    assert "Refund plan" in done.stdout, done.stderr
    assert done.stderr.split()[-1] == "WORKED"


@pytest.mark.parametrize("xdg", [None, "", "/srv/xdg data", "relative/xdg"])
def test_the_data_dir_a_hook_asks_in_is_the_platforms_default(
    xdg: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import platformdirs
    from platformdirs.macos import MacOS

    from memtui import dirs

    monkeypatch.delenv("MEMTUI_DATA_DIR", raising=False)
    if xdg is None:
        monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_DATA_HOME", xdg)
    assert dirs.asked_data_dir(os.environ) == platformdirs.user_data_dir("memtui")
    monkeypatch.setattr(sys, "platform", "darwin")
    assert dirs.asked_data_dir(os.environ) == MacOS("memtui").user_data_dir
    monkeypatch.setenv("MEMTUI_DATA_DIR", "~/memtui-data")
    assert dirs.asked_data_dir(os.environ) == os.path.expanduser("~/memtui-data")


def test_the_hooks_own_settings_rule_not_the_servers(archive: Config, server: HookServer) -> None:
    """The server runs under its own environment; the hook's MEMTUI_RECALL still decides."""
    assert hook(archive, MEMTUI_RECALL="off") == ("", "ASKED")
    assert hook(archive, MEMTUI_RECALL="prompt,tool") == ("", "ASKED")
    said, how = hook(archive, MEMTUI_RECALL="session")
    assert how == "ASKED" and "Refund plan" in said


def test_a_dead_servers_socket_is_removed_and_the_hook_works_alone(archive: Config) -> None:
    """A server killed with -9 leaves its socket: no one listens, so the hook removes it."""
    folder = archive.data_dir / FOLDER
    folder.mkdir(mode=0o700)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(folder / "999999.sock"))
    dead.close()
    said, how = hook(archive)
    assert how == "WORKED" and "Refund plan" in said
    assert not (folder / "999999.sock").exists()


def test_a_server_that_does_not_answer_is_waited_for_at_most_a_moment(archive: Config) -> None:
    folder = archive.data_dir / FOLDER
    folder.mkdir(mode=0o700)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as stuck:
        stuck.bind(str(folder / "999998.sock"))
        stuck.listen(4)  # and never accepts
        start = time.monotonic()
        said, how = hook(archive)
        took = time.monotonic() - start
    assert how == "WORKED" and "Refund plan" in said
    assert WAIT <= took < WAIT + 30


def test_a_request_it_cannot_read_gets_no_answer_and_the_server_goes_on(
    archive: Config, server: HookServer
) -> None:
    for request in (
        b"not json",
        b'{"event": "rm", "input": "", "environ": {}}',
        b"[1]",
        b'{"event": "prompt", "input": "", "environ": []}',
    ):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(server.path)
            sock.sendall(request)
            sock.shutdown(socket.SHUT_WR)
            assert sock.recv(100) == b""
    assert hook(archive)[1] == "ASKED"


def test_memtui_mcp_answers_the_hooks_of_its_data_dir_while_it_runs(archive: Config) -> None:
    """The server Claude Code starts in every window: its socket appears once it is ready,
    answers, and is gone when the window closes the server's stdin."""
    env = {**os.environ, "MEMTUI_DATA_DIR": str(archive.data_dir)}
    mcp = subprocess.Popen(
        [sys.executable, "-m", "memtui", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        env=env,
    )
    try:
        folder = archive.data_dir / FOLDER
        deadline = time.monotonic() + 60
        while not (folder / f"{mcp.pid}.sock").exists():
            assert time.monotonic() < deadline and mcp.poll() is None
            time.sleep(0.05)
        said, how = hook(archive)
        assert how == "ASKED" and "Refund plan" in said
    finally:
        assert mcp.stdin is not None
        mcp.stdin.close()
        assert mcp.wait(60) == 0
    assert not (folder / f"{mcp.pid}.sock").exists()
