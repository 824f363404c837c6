"""Progress of long work (ingest, index catch-up, rebuild), one event type for every front end.

The CLI's bar, the TUI's status line and MCP progress notifications all read ProgressEvent.
Cancellation is a `threading.Event` checked between batches: each batch commits on its own,
so a cancelled run loses nothing and the next one resumes where it stopped.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    phase: str  # "transcripts", "full text", "vectors"
    done: int
    total: int
    rate: float  # units of `done` per second since the phase began
    detail: str = ""  # what a person may want beside the bar: "12,034 messages"

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 0.0


OnProgress = Callable[[ProgressEvent], object]  # what it answers is not used


class Meter:
    """Turns (done, total) counts of one phase into events with a rate."""

    def __init__(self, phase: str, on_progress: OnProgress | None) -> None:
        self.phase = phase
        self.on_progress = on_progress
        self.started = time.monotonic()

    def __call__(self, done: int, total: int, detail: str = "") -> None:
        if self.on_progress is None:
            return
        elapsed = max(time.monotonic() - self.started, 1e-6)
        self.on_progress(ProgressEvent(self.phase, done, total, done / elapsed, detail))


def cancelled(cancel: threading.Event | None) -> bool:
    return cancel is not None and cancel.is_set()
