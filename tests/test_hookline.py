"""A hook answered by a memtui already running for the data dir (engine/hookline.py): the same
text as the hook works out alone, far sooner, and the hook still works alone when no server
runs, one died, or one does not answer."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memtui import __version__
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
    return probe({**os.environ, "MEMTUI_DATA_DIR": str(cfg.data_dir), **env})


def probe(env: dict[str, str]) -> tuple[str, str]:
    argv = [sys.executable, "-c", PROBE]
    done = subprocess.run(argv, input=EVENT, capture_output=True, text=True, timeout=60, env=env)
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
    said, how = probe({**os.environ, "XDG_DATA_HOME": str(xdg)})
    assert "Refund plan" in said and how == "WORKED"


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


def test_a_refused_socket_whose_server_lives_or_no_server_named_is_left_in_place(
    archive: Config,
) -> None:
    """macOS refuses a connection when a live server's backlog is full (many hooks at once):
    its socket must stay. Only a `<pid>.sock` whose process is gone is a dead server's."""
    folder = archive.data_dir / FOLDER
    folder.mkdir(mode=0o700)
    (folder / "notes.sock").write_text("not memtui's")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as busy:
        busy.bind(str(folder / f"{os.getpid()}.sock"))  # refuses, as a full backlog does
        said, how = hook(archive)
        assert how == "WORKED" and "Refund plan" in said
        assert (folder / f"{os.getpid()}.sock").exists()
    assert (folder / "notes.sock").read_text() == "not memtui's"


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


def test_a_data_dir_whose_socket_path_is_the_longest_a_socket_takes_is_served(
    archive: Config,
) -> None:
    """The server binds under a temporary name first: one longer than its socket's left a
    data dir that just fits unserved."""
    longest = 103 if sys.platform == "darwin" else 107  # sun_path, less its final NUL
    base = Path(tempfile.mkdtemp(prefix="memtui-", dir="/tmp"))
    try:
        sock = f"/{FOLDER}/{os.getpid()}.sock"
        data_dir = base / ("d" * (longest - len(str(base)) - 1 - len(sock)))
        shutil.copytree(archive.data_dir, data_dir)
        served = HookServer(data_dir)
        try:
            assert len(served.path) == longest
            assert hook(archive, MEMTUI_DATA_DIR=str(data_dir))[1] == "ASKED"
        finally:
            served.close()
    finally:
        shutil.rmtree(base)


def test_an_answer_cut_short_is_not_printed_and_the_hook_works_alone(archive: Config) -> None:
    """A server killed while it answers leaves the hook part of the text (macOS sends one of
    more than 8 kB in parts): the hook must not print half a rule."""
    served = HookServer(archive.data_dir)
    try:
        asked: dict[str, object] = {"event": "session-start", "input": EVENT}
        asked |= {"environ": dict(os.environ), "version": __version__, "until": time.time() + 60}
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(served.path)
            sock.sendall(json.dumps(asked).encode())
            sock.shutdown(socket.SHUT_WR)
            whole = b"".join(iter(lambda: sock.recv(65536), b""))
    finally:
        served.close()
    assert b"Refund plan" in whole
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as dying:
        dying.bind(served.path)
        dying.listen(1)
        given, write = os.pipe()  # the hook's input, written whole before the hook asks
        os.write(write, EVENT.encode())
        os.close(write)
        running = subprocess.Popen(
            [sys.executable, "-c", PROBE],
            stdin=given,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "MEMTUI_DATA_DIR": str(archive.data_dir)},
        )
        os.close(given)
        conn, _ = dying.accept()
        with conn:
            while conn.recv(65536):
                pass
            conn.sendall(whole[: len(whole) // 2])
        said, how = running.communicate(timeout=60)
    assert how.strip().splitlines()[-1] == "WORKED"
    assert "Refund plan" in said and "Use uv" in said


def test_a_request_it_cannot_read_gets_no_answer_and_the_server_goes_on(
    archive: Config, server: HookServer
) -> None:
    for request in (
        b"not json",
        b'{"event": "rm", "input": "", "environ": {}}',
        b"[1]",
        json.dumps(
            {"event": "prompt", "input": "", "environ": [], "version": __version__, "until": 9e9}
        ).encode(),
    ):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(server.path)
            sock.sendall(request)
            sock.shutdown(socket.SHUT_WR)
            assert sock.recv(100) == b""
    assert hook(archive)[1] == "ASKED"


def test_a_request_that_never_ends_is_let_go(server: HookServer) -> None:
    """A client that sends a byte now and then held one of the server's threads for ever
    (each read waited WAIT anew); by WAIT the hook that sent it has given up."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(server.path)
        sock.settimeout(WAIT / 4)
        for _ in range(200):  # 100 s: far past WAIT, however loaded the machine
            try:
                sock.send(b" ")
                if sock.recv(1) == b"":
                    break  # the server let go
            except TimeoutError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                break  # let go with our bytes unread: the kernel resets the connection
        else:
            pytest.fail("the server still reads a request that never ends")


def test_a_request_its_hook_no_longer_waits_for_is_not_worked_on(
    archive: Config, server: HookServer
) -> None:
    """A server paused past the hook's wait (stopped, a laptop asleep) took the request up
    later: the hook had printed its own text by then, and the recall log held it twice."""
    asked = {"event": "session-start", "input": EVENT, "version": __version__}
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(server.path)
        sock.sendall(json.dumps({**asked, "environ": dict(os.environ), "until": 0}).encode())
        sock.shutdown(socket.SHUT_WR)
        assert sock.recv(100) == b""
    assert hook(archive)[1] == "ASKED"


def test_a_server_of_another_memtui_version_leaves_the_hook_to_work_alone(
    archive: Config, server: HookServer
) -> None:
    """A window's server runs the code it started with: after an upgrade its answer is not
    what the hook would print alone."""
    request = {"event": "session-start", "input": EVENT, "environ": dict(os.environ)}
    for version in ({"version": "0.0.1"}, {}):  # another release's hook; one sending none
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(server.path)
            sock.sendall(json.dumps({**request, **version}).encode())
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
