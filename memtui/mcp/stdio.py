"""`memtui mcp`: the server Claude Code starts, one per window, over stdin and stdout.

It answers `initialize` before it opens anything (the store, the model and the indexes open on
the first call that needs them), and keeps the archive fresh for a user who only ever runs
Claude Code: one server of a data dir at a time follows the transcripts (`follow.lock`), the
others only read and take over when that one exits.
"""

from __future__ import annotations

import fcntl
import logging
import os
import signal
import threading
from collections.abc import Callable

import anyio
import anyio.to_thread

from memtui.engine import Config, MemtuiError
from memtui.mcp.engine import Engine
from memtui.mcp.server import Server, build_server

log = logging.getLogger(__name__)

FOLLOW_AFTER = 1.0  # seconds: let initialize and the first calls go first
TAKE_OVER_EVERY = 5.0  # seconds between tries to become the one that follows
STOP_WAIT = 10.0  # seconds a stopping follower gets to finish its batch


def serve_stdio(config: Config) -> None:
    engine = Engine(config)
    server = build_server(engine)
    stop = threading.Event()
    follower = threading.Thread(
        target=keep_fresh, args=(engine, stop), name="memtui-follow", daemon=True
    )
    follower.start()

    def shut_down() -> None:
        stop.set()  # the follower stops between batches, its reader process with it
        follower.join(STOP_WAIT)
        if follower.is_alive():
            log.warning("the follower did not stop within %.0f s", STOP_WAIT)
        else:
            engine.close()
        log.info("mcp server stopped")

    try:
        anyio.run(_serve, server, shut_down)
    finally:
        shut_down()


async def _serve(server: Server, shut_down: Callable[[], None]) -> None:
    async with anyio.create_task_group() as tasks:

        async def until_signalled() -> None:
            with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, signal.SIGHUP) as got:
                async for number in got:
                    log.info("mcp server got signal %d", number)
                    await anyio.to_thread.run_sync(shut_down)
                    logging.shutdown()
                    # The transport reads stdin on a thread that only a line or EOF wakes
                    # (not a cancellation): everything of ours is stopped, so leave now.
                    os._exit(0)

        tasks.start_soon(until_signalled)
        await server.run_stdio_async()  # returns when stdin closes
        tasks.cancel_scope.cancel()


def keep_fresh(engine: Engine, stop: threading.Event) -> None:
    """Follow the transcripts while this process holds `follow.lock`; until then, retry."""
    if stop.wait(FOLLOW_AFTER):
        return
    try:
        memory = engine()  # makes the data dir, where the lock lives
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
