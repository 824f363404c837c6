"""The searches a new `memtui mcp` is asked for before the mcp SDK is imported.

A client that searches as soon as it has connected would otherwise wait for the SDK's import
and the server's build, about a second of CPU that holds the interpreter, before the engine
even opens. So until the SDK is ready, a `search_history` call on a connection opened by the
`initialize` handshake, its arguments plainly valid, is answered here: the tool's engine call
and the tool's result (tests/test_mcp_first.py asks the SDK the same and compares), on a thread
of its own, within the same time bound. The SDK's import waits while such a search runs: both
would only share one interpreter. Any other call, an argument this does not take or a value
in another form, and the 2026-07-28 protocol wait for the SDK, which answers them as always.
Nothing here imports the SDK.
"""

from __future__ import annotations

import functools
import itertools
import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any, get_args

from memtui.engine import MemtuiError
from memtui.mcp.engine import TOOL_SECONDS, Engine, content, failed_unexpectedly, overdue
from memtui.mcp.handshake import FAMILIES

log = logging.getLogger(__name__)

TOOL = "search_history"


@functools.cache
def checks() -> dict[str, Callable[[Any], bool]]:
    """What each argument taken here must be: what the tool's signature asks, in its plainest
    form (made on the first call: the bounds' module imports pydantic, which `initialize`
    does not wait for)."""
    from memtui.engine.types import By, Mode, ModeAlias
    from memtui.mcp.args import MAX_LIMIT, MAX_QUERY, MAX_TEXT

    modes = (*get_args(Mode), *get_args(ModeAlias))
    return {
        "query": lambda v: isinstance(v, str) and 1 <= len(v) <= MAX_QUERY,
        "mode": lambda v: v in modes,
        "by": lambda v: v in get_args(By),
        "limit": lambda v: type(v) is int and 1 <= v <= MAX_LIMIT,
        "project": lambda v: isinstance(v, str) and len(v) <= MAX_TEXT,
        "cwd": lambda v: isinstance(v, str) and v.startswith("/") and len(v) <= MAX_TEXT,
        "response_format": lambda v: v == "json",
    }


def arguments(message: dict[str, Any]) -> dict[str, Any] | None:
    """A request's `search_history` arguments when this answers it as the SDK would, else
    None."""
    params = message.get("params")
    if message.get("method") != "tools/call" or not isinstance(params, dict):
        return None
    given = params.get("arguments")
    if set(params) != {"name", "arguments"} or params["name"] != TOOL:
        return None
    if not isinstance(given, dict) or "query" not in given:
        return None
    taken = checks()
    if all(name in taken and taken[name](value) for name, value in given.items()):
        return given
    return None


class First:
    """Runs the searches taken before the SDK is ready and writes their answers, each once:
    the result, or BUSY when it is not found within TOOL_SECONDS."""

    def __init__(
        self,
        engine: Engine,
        write: Callable[[dict[str, Any]], bool],
        families: Sequence[str] = FAMILIES,
    ) -> None:
        self.engine = engine
        self.write = write
        self.served = "history" in families  # else the SDK answers that there is no such tool
        self._tokens = itertools.count()
        self._pending: dict[int, threading.Timer] = {}  # unanswered, by token: each one's bound
        self._writing = 0  # answers being written
        self._done = threading.Condition()

    def take(self, message: dict[str, Any]) -> bool:
        """Start answering `message` (a request on an initialized handshake connection):
        False when the SDK must."""
        given = arguments(message) if self.served else None
        if given is None:
            return False
        key = next(self._tokens)
        timer = threading.Timer(TOOL_SECONDS, self._late, args=(key, message["id"]))
        timer.daemon = True
        with self._done:
            self._pending[key] = timer
        threading.Thread(
            target=self._search, args=(key, message["id"], given), name="memtui-first", daemon=True
        ).start()
        timer.start()
        return True

    @property
    def busy(self) -> bool:
        with self._done:
            return bool(self._pending or self._writing)

    def wait(self) -> None:
        """Until every search taken is answered (at most TOOL_SECONDS)."""
        with self._done:
            self._done.wait_for(lambda: not (self._pending or self._writing), TOOL_SECONDS + 1.0)

    def _search(self, key: int, request_id: Any, given: dict[str, Any]) -> None:
        given = {k: v for k, v in given.items() if k != "response_format"}
        query, mode = given.pop("query"), given.pop("mode", "hybrid")
        try:
            data, text = content(self.engine().history.search(query, mode, **given))
            result = {"content": [text_part(text)], "structuredContent": data, "isError": False}
            log.info("%s answered before the SDK was ready", TOOL)
        except MemtuiError as exc:
            result = failure(exc.line())
        except Exception:
            log.exception("tool %s failed", TOOL)
            result = failure(failed_unexpectedly(TOOL))
        self._answer(key, request_id, result)

    def _late(self, key: int, request_id: Any) -> None:
        log.warning("%s took longer than %.0f s", TOOL, TOOL_SECONDS)
        self._answer(key, request_id, failure(overdue(TOOL).line()))

    def _answer(self, key: int, request_id: Any, result: dict[str, Any]) -> None:
        """The first of a search's result and its bound's BUSY is written; the other is not.
        The write is made outside the lock: a client slow to read must not hold up `busy`."""
        with self._done:
            timer = self._pending.pop(key, None)
            if timer is None:
                return
            timer.cancel()
            self._writing += 1
        try:
            self.write({"jsonrpc": "2.0", "id": request_id, "result": result})
        finally:
            with self._done:
                self._writing -= 1
                self._done.notify_all()


def text_part(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def failure(text: str) -> dict[str, Any]:
    return {"content": [text_part(text)], "isError": True}
