"""Live following: watchfiles reports changed files, the pipeline reads what is new."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

from watchfiles import watch

# Short debounce: a change should be in the store well within a second.
DEBOUNCE_MS = 50


def follow(
    transcripts: list[Path],
    others: list[Path],
    on_change: Callable[[list[Path] | None], None],
    stop: threading.Event | None = None,
) -> None:
    """Call `on_change` with the changed files (None: rescan all) until `stop` is set:
    the .jsonl files under `transcripts` (Claude Code's folder, made if missing), any file
    under `others` (the other agents' folders that exist: their formats differ).

    The first call is a rescan, made once the watches are in place: whatever changed while
    they were being set up (seconds, on a big tree) is read then rather than missed.
    """
    for root in transcripts:
        root.mkdir(parents=True, exist_ok=True)
    others = [root for root in others if root.is_dir()]
    if not transcripts and not others:  # every agent turned off: nothing to follow
        on_change(None)
        if stop is not None:
            stop.wait()
        return
    mine = [os.path.join(root, "") for root in transcripts]

    def wanted(_change: object, path: str) -> bool:
        return path.endswith(".jsonl") or not any(path.startswith(root) for root in mine)

    ready = False
    for changes in watch(
        *transcripts,
        *others,
        debounce=DEBOUNCE_MS,
        step=25,
        stop_event=stop,
        watch_filter=wanted,
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
