"""One watcher of the store for the whole app: every screen that shows what is stored
follows it through the `StoreChanged` the app posts, instead of polling on a timer of its own.

It looks at one number (`Memory.changes`, SQLite's data_version) a few times a second on
a thread of its own: a read of shared memory, no query. Whatever commits (this process's
ingest or editor, Claude's MCP server, a `memtui note edit` in another terminal) moves it."""

from __future__ import annotations

import threading
from collections.abc import Callable

from memtui.errors import MemtuiError

EVERY = 0.5  # seconds between looks


class StoreWatcher(threading.Thread):
    """Calls `changed` (from this thread) whenever `changes` moves, until `stop` is set."""

    def __init__(
        self, changes: Callable[[], int], changed: Callable[[], None], stop: threading.Event
    ) -> None:
        super().__init__(name="memtui-store-watcher", daemon=True)
        self._changes = changes
        self._changed = changed
        self._quit = stop

    def _look(self) -> int | None:
        try:
            return self._changes()
        except MemtuiError:  # the store is busy or gone for now: look again next time
            return None

    def run(self) -> None:
        seen = self._look()
        while not self._quit.wait(EVERY):
            now = self._look()
            if now is None:
                continue
            if seen is not None and now != seen:
                self._changed()
            seen = now
