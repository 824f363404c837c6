"""Hooks answered by a memtui already running for the data dir.

A hook is a new process before every prompt and tool call, and most of its time went on
Python loading memtui (bench/README.md, "Recall"). `memtui mcp` runs in every Claude Code
window with all of that loaded, so each listens on a Unix socket of its own in the data dir's
`hooks/` folder. A hook that finds one sends its event, its input and its environment, and
prints the answer; one that finds none, or no answer within WAIT, does the work itself. The
answer is the same either way: the server runs the hook's own code on the hook's settings.

This module's top is all a hook loads before it asks: the server's part imports on use.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from contextlib import suppress

from memtui import __version__

TYPE_CHECKING = False  # as typing's, to mypy; importing typing costs a hook 10 ms of its start

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path

    from memtui.config import Config

    Say = Callable[[Config, Mapping[str, object]], str]

EVENTS = ("session-start", "prompt", "tool")
FOLDER = "hooks"
# An answer's first line, with the length of the text that follows; a server that differs
# is not asked.
PROTOCOL = b"memtui-hook-2"
MAX_INPUT = 1_000_000  # characters of a hook's stdin read: Claude Code sends a few hundred
MAX_REQUEST = 8 * MAX_INPUT  # bytes a server reads: the input, escaped, and the environment
WAIT = 2.0  # seconds a hook waits for an answer before it does the work itself
TRIES = 3  # servers asked, newest first, before the hook does the work itself
ACCEPT_POLL = 0.5  # seconds between a server's checks that it is to stop


def said_by(event: str) -> Say:
    """The engine's text for a hook `event` (one of EVENTS)."""
    if event == "session-start":
        from memtui.engine import hook

        return hook.session_start
    from memtui.engine import recall

    return recall.prompt if event == "prompt" else recall.tool


# -- the hook's side -----------------------------------------------------------------------


def ask(data_dir: str, event: str, raw: str, environ: Mapping[str, str]) -> str | None:
    """The answer of a memtui serving `data_dir`, or None: none runs, or none answered."""
    folder = os.path.join(data_dir, FOLDER)
    try:
        found = [e for e in os.scandir(folder) if e.name.endswith(".sock")]
        found.sort(key=_started, reverse=True)
    except OSError:
        return None
    asked = {"event": event, "input": raw, "environ": dict(environ), "version": __version__}
    for entry in found[:TRIES]:
        answer = _ask_one(entry.path, asked)
        if answer is not None:
            return answer
    return None


def _started(entry: os.DirEntry[str]) -> float:
    try:
        return entry.stat(follow_symlinks=False).st_mtime
    except OSError:
        return 0.0


def _ask_one(path: str, asked: Mapping[str, object]) -> str | None:
    # Until when the hook waits: a server that takes the request up later leaves it be.
    request = json.dumps({**asked, "until": time.time() + WAIT}).encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(WAIT)
        try:
            sock.connect(path)
        except ConnectionRefusedError:
            if _gone(path):  # its server died: the socket file stayed behind
                _remove_stale(path)
            return None
        except OSError:
            return None
        try:
            sock.sendall(request)
            sock.shutdown(socket.SHUT_WR)
            answer = _read(sock, MAX_REQUEST)
        except OSError:  # a timeout included
            return None
    head, newline, text = answer.partition(b"\n")
    if head != b"%s %d" % (PROTOCOL, len(text)) or not newline:
        return None  # another's, or cut short: its server died while it answered
    return text.decode("utf-8", "replace")


def _gone(path: str) -> bool:
    """Whether `path` is a server's `<pid>.sock` and that process is gone. A live server
    refuses too when its backlog is full (macOS), and a name that is no pid is not ours."""
    pid = os.path.basename(path).removesuffix(".sock")
    if not pid.isdecimal() or int(pid) == 0:
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):  # another user's process, or no pid there can be
        return False
    return False


def _remove_stale(path: str) -> None:
    """Remove a socket file left behind (a dead server's, a half-made binding, our own at
    close) if it is there. A server binds under another name and renames into place once it
    listens, so a socket refused here never belonged to one starting."""
    with suppress(OSError):
        os.unlink(path)


def _read(sock: socket.socket, limit: int) -> bytes:
    """What `sock` sends until it closes, within WAIT: a peer sending a byte now and then
    would otherwise be read for ever, each read waiting WAIT anew."""
    until = time.monotonic() + WAIT
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        if (left := until - time.monotonic()) <= 0:
            raise TimeoutError("no end within the wait")
        sock.settimeout(left)
        chunk = sock.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


# -- the server's side ---------------------------------------------------------------------


class HookServer:
    """Answers hooks for one data dir on a socket of this process's, until closed."""

    def __init__(self, data_dir: Path) -> None:
        from memtui.config import private_dir

        folder = private_dir(data_dir / FOLDER)
        self.path = str(folder / f"{os.getpid()}.sock")
        self.data_dir = data_dir
        self._stop = threading.Event()
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        binding = str(folder / f".{os.getpid()}.new")  # no longer than the socket's name
        try:
            for name in (binding, self.path):  # left by a process of this pid that died
                _remove_stale(name)
            self._sock.bind(binding)
            os.chmod(binding, 0o600)
            self._sock.listen(16)
            os.replace(binding, self.path)
        except OSError:
            self._sock.close()
            _remove_stale(binding)
            raise
        self._sock.settimeout(ACCEPT_POLL)
        self._thread = threading.Thread(target=self._serve, name="memtui-hooks", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self._sock.close()
        _remove_stale(self.path)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(
                target=_answer, args=(conn, self.data_dir), name="memtui-hook", daemon=True
            ).start()


def _answer(conn: socket.socket, data_dir: Path) -> None:
    import logging

    from memtui import dirs

    log = logging.getLogger(__name__)
    with conn:
        conn.settimeout(WAIT)
        try:
            request = json.loads(_read(conn, MAX_REQUEST))
            if request["event"] not in EVENTS:
                raise ValueError(f"no hook {request['event']!r:.40}")
            if request["version"] != __version__:  # this server runs the code of another
                raise ValueError(f"a hook of memtui {request['version']!r:.40}, not {__version__}")
            if time.time() > request["until"]:  # it works alone now: the answer would be twice
                raise ValueError("the hook waits no longer")
            # The hook found this socket where its settings put the data dir, but a default
            # one is worked out here from this process's environment (platformdirs reads no
            # other): answer only for the store this server holds.
            if not os.path.samefile(dirs.data_dir(request["environ"]), data_dir):
                raise ValueError("asked for another data dir")
            text = said(request["event"], request["input"], request["environ"])
            body = text.encode("utf-8", "replace")
            conn.sendall(b"%s %d\n%s" % (PROTOCOL, len(body), body))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            # The hook gets no answer and does the work itself.
            log.warning("a hook's request was not answered: %s", exc)


def said(event: str, raw: str, environ: Mapping[str, str]) -> str:
    """What the hook for `event` says to `raw` input under `environ`'s settings: nothing
    when anything goes wrong, the reason logged (a hook must never fail a session)."""
    import logging

    from memtui import config
    from memtui.engine import recall

    try:
        return said_by(event)(config.load(environ), recall.payload(raw[:MAX_INPUT]))
    except Exception:
        logging.getLogger("memtui.hook").exception("%s hook printed nothing", event)
        return ""
