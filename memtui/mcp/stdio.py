"""`memtui mcp`: the server Claude Code starts, one per window, over stdin and stdout.

The first moments matter: Claude Code's first turn goes out without memtui's tools unless the
handshake and the tool list are answered by then, and importing the mcp package takes most of a
second. So the process answers from the start, without the SDK: signal handlers first, then a
reader thread on stdin while another thread imports the SDK and builds the server. Until that is
ready, the handshake, the lists and whatever the SDK refuses unread are answered from
handshake.py (the SDK's own answers, recorded), a line that is not a message it can take gets
its JSON-RPC error, and everything else waits.
A search asked for in that time is answered from the engine (first.py), and the SDK's import
waits for it. Then the server (relay.py) is handed every line read so far but those searches,
its answers to what was already answered are left out, and it serves on.

Every line gets an answer; a closed stdout ends the process quietly; at EOF whatever was asked
before it is answered first. A second after start the archive is opened and its indexes and
model loaded (in the background: a first search then finds them ready), and one server of a
data dir at a time follows the transcripts (`follow.lock`), the others only read and take over
when that one exits.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import queue
import signal
import threading
import time
from collections.abc import Callable, Sequence
from types import FrameType
from typing import TYPE_CHECKING, Any, NoReturn

from memtui.engine import Config, MemtuiError
from memtui.engine.hookline import HookServer
from memtui.mcp.engine import Engine
from memtui.mcp.first import First
from memtui.mcp.handshake import (
    Early,
    given_key,
    instructions,
    malformed,
    problem,
    surrogate_at,
)

if TYPE_CHECKING:
    from memtui.engine import Memory

log = logging.getLogger(__name__)

FOLLOW_AFTER = 1.0  # seconds: let initialize and the first calls go first
TAKE_OVER_EVERY = 5.0  # seconds between tries to become the one that follows
STOP_WAIT = 10.0  # seconds a stopping follower gets to finish its batch
LINE_WAIT = 2.0  # seconds a line being written gets to end when the process stops
POLL = 0.01  # seconds between looks at the signal flag while the SDK loads
MAX_LINE = 64 << 20  # bytes: a longer line is refused, not kept in memory
QUIET = 0.05  # seconds without a line after which the SDK starts loading
SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class Signalled:
    """Installed first thing: a signal before the server runs ends the process cleanly."""

    def __init__(self) -> None:
        self.number: int | None = None
        self.waker: Callable[[], object] | None = None  # the relay's: wakes its event loop
        for number in SIGNALS:
            signal.signal(number, self._got)

    def _got(self, number: int, frame: FrameType | None) -> None:
        del frame
        self.number = number
        if self.waker is not None:
            with contextlib.suppress(RuntimeError):  # its loop has just closed
                self.waker()


class Wire:
    """stdin and stdout, taken for the protocol: fd 0 then reads /dev/null and fd 1 goes to
    stderr, so nothing else this process (or a child) prints can reach the wire."""

    def __init__(self) -> None:
        self.closed = False
        self.read_fd = self._take(0, os.O_RDONLY)
        self.write_fd = self._take(1, os.O_WRONLY)
        os.dup2(2 if is_open(2) else self.write_fd, 1)
        self._lock = threading.Lock()

    def _take(self, fd: int, mode: int) -> int:
        """A private copy of `fd`, which then reads or writes /dev/null (a descriptor closed
        from the start reads as EOF and writes as a closed stdout)."""
        devnull = os.open(os.devnull, mode)
        if is_open(fd):
            private = os.dup(fd)
        else:
            private = os.dup(devnull)
            self.closed = self.closed or fd == 1
        os.dup2(devnull, fd)
        os.close(devnull)
        return private

    def write(self, message: dict[str, Any] | bytes) -> bool:
        """One message as one line; False once the reader has gone (stdout closed)."""
        data = message if isinstance(message, bytes) else json.dumps(message).encode()
        out = memoryview(data + b"\n")
        with self._lock:
            if self.closed:
                return False
            try:
                while out:
                    out = out[os.write(self.write_fd, out) :]
            except OSError as exc:  # EPIPE: the client closed our stdout
                log.info("stdout closed (%s): stopping", exc.strerror)
                self.closed = True
                return False
        return True

    def shut(self) -> None:
        """No line starts after this; one being written is given LINE_WAIT to end, so a
        process that exits now leaves no half line on the wire."""
        if self._lock.acquire(timeout=LINE_WAIT):
            self.closed = True
            self._lock.release()

    def start_reading(self) -> queue.Queue[bytes | None]:
        """Lines from stdin on a thread, as they come; None at EOF."""
        lines: queue.Queue[bytes | None] = queue.Queue()
        threading.Thread(
            target=read_lines, args=(self.read_fd, lines), name="memtui-stdin", daemon=True
        ).start()
        return lines


def is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def read_lines(fd: int, lines: queue.Queue[bytes | None]) -> None:
    """Split stdin into lines; a line longer than MAX_LINE is passed on as its first bytes
    (which do not parse, so it is answered with a parse error) and the rest skipped."""
    buffer = bytearray()
    skipping = False
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            break
        start = len(buffer)
        buffer += chunk
        end = buffer.find(b"\n", start)
        while end != -1:
            line = bytes(buffer[:end])
            del buffer[: end + 1]
            if line.strip() and not skipping:
                lines.put(line)
            skipping = False
            end = buffer.find(b"\n")
        if len(buffer) > MAX_LINE:
            if not skipping:
                lines.put(bytes(buffer[:1024]))
            skipping = True
            buffer.clear()
    if buffer.strip() and not skipping:
        lines.put(bytes(buffer))  # a last line without its newline is still a line
    lines.put(None)


def serve_stdio(
    config: Config, families: Sequence[str], signalled: Signalled, wire: Wire
) -> NoReturn:
    """Serve until stdin ends, stdout closes or a signal comes; then exit 0."""
    lines = wire.start_reading()
    told = instructions(config, families)
    early = Early(told, families)
    engine = Engine(config)
    first = First(engine, wire.write, families)
    loaded: dict[str, Any] = {}
    ready = threading.Event()

    def load() -> None:
        from memtui.mcp import relay  # the SDK: most of a second

        loaded["relay"] = relay
        loaded["server"] = relay.build_server(engine, families=families, told=told)
        ready.set()

    loader = threading.Thread(target=load, name="memtui-load", daemon=True)
    loading = False
    backlog: list[bytes] = []
    given: set[str] = set()  # what was answered or acknowledged before the SDK was ready
    ended = False
    owed = False  # the SDK owes an earlier line its answer: no early one may overtake it
    quiet_since = time.monotonic()
    while not ready.is_set():
        if reason := why(signalled, wire):
            leave(reason, wire)
        # The import holds the interpreter for long stretches: it starts once the handshake
        # and the tool list are answered and a first search is, a request needs it, or stdin
        # is quiet for a moment.
        if not loading and time.monotonic() - quiet_since > QUIET and not first.busy:
            loader.start()
            loading = True
        try:
            line = lines.get(timeout=POLL)
        except queue.Empty:
            continue
        if line is None:
            ended = True
            if not loading:
                loader.start()
            ready.wait()
            break
        quiet_since = time.monotonic()
        if not answer_early(line, None if owed else early, wire, backlog, given, first):
            owed = True
            if not loading:
                loader.start()
                loading = True
    hooks = serve_hooks(config)
    stop = threading.Event()
    follower = threading.Thread(
        target=keep_fresh, args=(engine, stop), name="memtui-follow", daemon=True
    )
    follower.start()
    try:
        loaded["relay"].run(
            loaded["server"], wire, lines, backlog, given, ended=ended, signalled=signalled
        )
    finally:
        first.wait()
        if hooks is not None:
            hooks.close()
        stop.set()  # the follower stops between batches, its reader process with it
        follower.join(STOP_WAIT)
        if follower.is_alive():
            log.warning("the follower did not stop within %.0f s", STOP_WAIT)
        else:
            engine.close()
    leave(why(signalled, wire) or "stdin closed", wire)


def serve_hooks(config: Config) -> HookServer | None:
    """Answer the hooks of this data dir's sessions from here (engine/hookline.py). A data dir
    that takes no socket (a path too long for one, a read-only disk) leaves each hook to do
    its work itself."""
    try:
        return HookServer(config.data_dir)
    except OSError as exc:
        log.warning("hooks are not answered from here: %s", exc)
        return None


def answer_early(
    line: bytes,
    early: Early | None,
    wire: Wire,
    backlog: list[bytes],
    given: set[str],
    first: First,
) -> bool:
    """Before the SDK is ready: a line that is no message it can take gets its error, a
    request `early` knows the SDK's answer to gets that answer (None: not now, the SDK owes
    an earlier line one), a search `first` takes is answered by it; every other message is
    kept for the SDK. False: a line only it answers."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return wire.write(problem(line))
    if not isinstance(message, dict) or surrogate_at(message) is not None or malformed(message):
        return wire.write(problem(line))
    if early is not None and early.initialized and "id" in message and first.take(message):
        return True
    backlog.append(line)
    if "method" in message and "id" not in message:
        return True  # a notification
    response = early.respond(message) if early is not None and "id" in message else None
    if response is None:
        return False
    wire.write(response)
    given.add(given_key(response))
    return True


def why(signalled: Signalled, wire: Wire) -> str | None:
    if signalled.number is not None:
        return f"signal {signalled.number}"
    return "stdout closed" if wire.closed else None


def leave(reason: str, wire: Wire) -> NoReturn:
    """Exit 0 now: threads blocked on stdin or on an import cannot be joined, and nothing of
    ours is left running (the follower was stopped); a line being written is ended first."""
    wire.shut()
    log.info("mcp server stopped: %s", reason)
    logging.shutdown()
    os._exit(0)


def warm_up(memory: Memory) -> None:
    """Load the indexes and the model before the first search needs them. Whatever goes
    wrong is logged and left for that search to meet: following goes on regardless."""
    started = time.monotonic()
    try:
        memory.warm()
    except Exception:
        log.exception("loading the indexes and model failed")
        return
    log.info("indexes and model loaded in %.1f s", time.monotonic() - started)


def keep_fresh(engine: Engine, stop: threading.Event) -> None:
    """Warm the engine up, then follow the transcripts while this process holds
    `follow.lock`; until then, retry."""
    if stop.wait(FOLLOW_AFTER):
        return
    try:
        memory = engine()  # makes the data dir, where the lock lives
        warm_up(memory)
        fd = os.open(
            memory.config.data_dir / "follow.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600
        )
    except (MemtuiError, OSError) as exc:
        log.warning("not following transcripts: %s", exc)
        return
    try:
        while not stop.is_set():
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                stop.wait(TAKE_OVER_EVERY)
                continue
            log.info("following %s", engine.config.claude_dir)
            memory.upkeep.follow(stop=stop)  # catches up first, then follows
            return
    except MemtuiError as exc:
        log.warning("stopped following transcripts: %s", exc.line())
    except Exception:
        log.exception("stopped following transcripts")
    finally:
        os.close(fd)  # releases the lock for the next server
