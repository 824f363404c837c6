"""Typed messages the background workers post to the app (thread-safe via post_message)."""

from __future__ import annotations

from textual.message import Message

from memtui.engine import ProgressEvent, ProjectInfo


class Progress(Message):
    """An indexing step; a flood of them folds into the newest (toolong's trick)."""

    def __init__(self, event: ProgressEvent | None) -> None:
        super().__init__()
        self.event = event  # None: the run ended

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, Progress)


class ArchiveChanged(Message, bubble=False):
    """New transcripts or messages are in the store: open screens refresh what they show.
    The app hands it to each screen, so it must not bubble back up to the app."""

    def __init__(self, projects: list[ProjectInfo]) -> None:
        super().__init__()
        self.projects = projects

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ArchiveChanged)


class StoreChanged(Message, bubble=False):
    """Something was committed to the store (tui/watcher.py): the app hands it to the screen
    on top, which reads again what it shows (those under it read when they come back). A
    flood folds into one."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, StoreChanged)
