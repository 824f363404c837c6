"""Live following: watchfiles reports changed transcripts, the pipeline reads what is new."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from watchfiles import watch

# Short debounce: a change should be in the store well within a second.
DEBOUNCE_MS = 50


def follow(
    root: Path,
    on_change: Callable[[list[Path] | None], None],
    stop: threading.Event | None = None,
) -> None:
    """Call `on_change` with changed .jsonl files (None: rescan all) until `stop` is set.

    The first call is a rescan, made once the watches are in place: whatever changed while
    they were being set up (seconds, on a big tree) is read then rather than missed.
    """
    root.mkdir(parents=True, exist_ok=True)
    ready = False
    for changes in watch(
        root,
        debounce=DEBOUNCE_MS,
        step=25,
        stop_event=stop,
        watch_filter=lambda _change, path: path.endswith(".jsonl"),
        raise_interrupt=False,
        rust_timeout=1_000,
        yield_on_timeout=True,
    ):
        if not ready:
            ready = True
            on_change(None)
        if changes:
            paths = sorted({Path(path) for _, path in changes})
            on_change(paths if all(p.exists() for p in paths) else None)
