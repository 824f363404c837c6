"""The Memory a server answers from, opened on first use so `initialize` never waits for it;
the time a tool's call on it is given, and what its answer is made of (shared by the SDK's
tools and first.py's searches)."""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any

from memtui.engine import Busy, Config

if TYPE_CHECKING:
    from memtui.engine import Memory

TOOL_SECONDS = 30.0  # the first call may load the model and open the indexes: a few seconds


def overdue(what: str) -> Busy:
    """What a caller is told when `what` is not done within TOOL_SECONDS (its thread is left
    to finish on its own: a thread cannot be stopped, and reads hold no lock)."""
    return Busy(
        f"{what} took longer than {TOOL_SECONDS:.0f} s",
        "try again in a moment, or narrow it: fewer words, a filter, mode fts",
    )


def content(result: Any, text: str | None = None) -> tuple[Any, str]:
    """An engine result as a tool's structured content, and the text beside it: the same
    JSON, or `text`."""
    import pydantic_core  # not before a first answer needs it: `initialize` does not wait

    data = pydantic_core.to_jsonable_python(result)
    return data, text if text is not None else json.dumps(data, ensure_ascii=False)


def failed_unexpectedly(tool: str) -> str:
    return f"INTERNAL_ERROR: {tool} failed unexpectedly (the log says why)"


class Engine:
    """Holds one Memory: handed in (the TUI shares its own) or opened from `config` on the
    first call that needs it, from whichever thread gets there first."""

    def __init__(self, config: Config | None = None, memory: Memory | None = None) -> None:
        if (config is None) == (memory is None):
            raise ValueError("give a config or a memory, not both")
        self._config = config
        self._memory = memory
        self._owned = memory is None  # a Memory handed in is closed by whoever opened it
        self._lock = threading.Lock()

    @property
    def config(self) -> Config:
        if self._memory is not None:
            return self._memory.config
        assert self._config is not None
        return self._config

    def __call__(self) -> Memory:
        memory = self._memory
        if memory is not None:
            return memory
        with self._lock:
            if self._memory is None:
                from memtui.engine import Memory  # numpy, Tantivy: after initialize

                self._memory = Memory(self.config)
            return self._memory

    def close(self) -> None:
        with self._lock:
            if self._owned and self._memory is not None:
                self._memory.close()
                self._memory = None
