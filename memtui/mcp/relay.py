"""The SDK's server on memtui's stdio wire (stdio.py owns the wire and the first moments).

Lines go in as the SDK's own stdio transport would hand them over; a line it cannot read, or
would take for a notification though it has an id, is answered here with its JSON-RPC error
instead of being dropped. Answers go out one line each, except the SDK's answers (and
acknowledgements) to what stdio.py gave before it was ready. At EOF the server is given time
to answer what was asked before it, and only then stops.
"""

from __future__ import annotations

import asyncio
import json
import logging
import queue
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
from mcp.shared.message import SessionMessage
from mcp_types import (
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    jsonrpc_message_adapter,
)

from memtui.mcp.engine import TOOL_SECONDS
from memtui.mcp.handshake import ACKNOWLEDGED, LISTEN, given_key, id_key, malformed, problem
from memtui.mcp.server import build_server
from memtui.mcp.tools import Server

if TYPE_CHECKING:
    from memtui.mcp.stdio import Signalled, Wire

__all__ = ["build_server", "run"]

log = logging.getLogger(__name__)

EOF_WAIT = TOOL_SECONDS + 5.0  # seconds the answers to the last requests get after EOF
STREAMS = (LISTEN,)  # requests answered only when the connection ends


def run(
    server: Server,
    wire: Wire,
    lines: queue.Queue[bytes | None],
    backlog: list[bytes],
    given: set[str],
    *,
    ended: bool,
    signalled: Signalled,
) -> None:
    """Serve until stdin ends (`ended`: it already has), stdout closes or a signal comes."""
    anyio.run(_run, server, wire, lines, backlog, given, ended, signalled)


async def _run(
    server: Server,
    wire: Wire,
    lines: queue.Queue[bytes | None],
    backlog: list[bytes],
    given: set[str],
    ended: bool,
    signalled: Signalled,
) -> None:
    lowlevel = server._lowlevel_server  # as the SDK's own run_stdio_async and Client use it
    send, to_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    from_server, receive = anyio.create_memory_object_stream[SessionMessage](0)
    waiting: set[str] = set()  # requests the server has not answered yet

    async def write(message: dict[str, Any] | bytes) -> bool:
        return await anyio.to_thread.run_sync(wire.write, message)

    async def deliver(line: bytes) -> None:
        try:
            message = jsonrpc_message_adapter.validate_json(line, by_name=False)
        except Exception:
            message = None
        if message is None or (
            isinstance(message, JSONRPCNotification) and malformed(json.loads(line))
        ):
            if not await write(problem(line)):
                tasks.cancel_scope.cancel()
            return
        if isinstance(message, JSONRPCRequest) and message.method not in STREAMS:
            waiting.add(id_key(message.id))
        await send.send(SessionMessage(message))

    async def feed() -> None:
        async with send:
            for line in backlog:
                await deliver(line)
            while not ended:
                got = await anyio.to_thread.run_sync(lines.get, abandon_on_cancel=True)
                if got is None:
                    break
                await deliver(got)
            with anyio.move_on_after(EOF_WAIT):
                while waiting:
                    await anyio.sleep(0.01)
            if waiting:
                log.warning("stdin closed with %d requests unanswered", len(waiting))

    async def answer() -> None:
        async with receive:
            async for item in receive:
                reply = item.message
                if isinstance(reply, JSONRPCResponse | JSONRPCError):
                    waiting.discard(id_key(reply.id))
                shown = reply.model_dump(by_alias=True, exclude_unset=True)
                if shown.get("id") is not None or shown.get("method") == ACKNOWLEDGED:
                    key = given_key(shown)
                    if key in given:  # stdio.py gave this before the SDK was ready
                        given.discard(key)
                        continue
                if not await write(
                    reply.model_dump_json(by_alias=True, exclude_unset=True).encode()
                ):
                    break
        tasks.cancel_scope.cancel()

    async def until_signalled() -> None:
        # stdio.py's handler stays and wakes this loop (anyio.run runs asyncio's): putting
        # anyio's handler in its place could lose a signal that arrives during the swap (one
        # run in many ignored its SIGTERM).
        got = anyio.Event()
        loop = asyncio.get_running_loop()
        signalled.waker = lambda: loop.call_soon_threadsafe(got.set)
        try:
            if signalled.number is None:
                await got.wait()
        finally:
            signalled.waker = None
        log.info("mcp server got signal %d", signalled.number)
        tasks.cancel_scope.cancel()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(until_signalled)
        tasks.start_soon(feed)
        tasks.start_soon(answer)
        # Returns when the feed ends; `answer` then writes the last answers and ends the rest.
        await lowlevel.run(to_server, from_server, lowlevel.create_initialization_options())
