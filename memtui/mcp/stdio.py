"""`memtui mcp`: the server Claude Code starts, one per window, over stdin and stdout.

It answers `initialize` before it imports the mcp package (handshake.py) and opens nothing
until a call needs it (the store, the model, the indexes). It keeps the archive fresh for a
user who only ever runs Claude Code: one server of a data dir at a time follows the transcripts
(`follow.lock`), the others only read and take over when that one exits.
"""

from __future__ import annotations

import fcntl
import logging
import os
import signal
import threading
from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.stdio import stdio_server
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCResponse, jsonrpc_message_adapter

from memtui.engine import Config, MemtuiError
from memtui.mcp.engine import Engine
from memtui.mcp.server import Server, build_server

log = logging.getLogger(__name__)

FOLLOW_AFTER = 1.0  # seconds: let initialize and the first calls go first
TAKE_OVER_EVERY = 5.0  # seconds between tries to become the one that follows
STOP_WAIT = 10.0  # seconds a stopping follower gets to finish its batch


def serve_stdio(config: Config, read: list[bytes] | None = None, answered: Any = None) -> None:
    """Serve until stdin closes or a signal comes. `read`: lines already taken from stdin;
    `answered`: the id of an `initialize` among them that was already answered."""
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
        anyio.run(_serve, server, shut_down, read or [], answered)
    finally:
        shut_down()


async def _serve(
    server: Server, shut_down: Callable[[], None], read: list[bytes], answered: Any
) -> None:
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
        await _run_stdio(server, read, answered)  # returns when stdin closes
        tasks.cancel_scope.cancel()


async def _run_stdio(server: Server, read: list[bytes], answered: Any) -> None:
    """The SDK's stdio transport and server loop, with the lines already read fed first and
    the SDK's answer to an `initialize` that was already answered left out."""
    lowlevel = server._lowlevel_server  # as the SDK's own run_stdio_async and Client use it
    inbound, to_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    from_server, outbound = anyio.create_memory_object_stream[SessionMessage](0)

    async def feed(wire: ReadStream[SessionMessage | Exception]) -> None:
        async with inbound:
            for line in read:
                if line.strip():
                    await inbound.send(parse_line(line))
            async for item in wire:
                await inbound.send(item)

    async def answer(wire: WriteStream[SessionMessage]) -> None:
        waiting = answered is not None
        async with wire, outbound:
            async for item in outbound:
                reply = item.message
                if (
                    waiting
                    and isinstance(reply, JSONRPCResponse | JSONRPCError)
                    and reply.id == answered
                ):
                    waiting = False
                    continue
                await wire.send(item)

    async with stdio_server() as (wire_in, wire_out), anyio.create_task_group() as tasks:
        tasks.start_soon(feed, wire_in)
        tasks.start_soon(answer, wire_out)
        async with from_server:
            await lowlevel.run(to_server, from_server, lowlevel.create_initialization_options())


def parse_line(line: bytes) -> SessionMessage | Exception:
    """A line as the SDK's stdio reader takes it (an unparsable one is passed on as the
    exception it raised, for the server to answer)."""
    try:
        return SessionMessage(jsonrpc_message_adapter.validate_json(line, by_name=False))
    except Exception as exc:
        return exc


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
