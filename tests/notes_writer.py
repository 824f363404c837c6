"""Saves notes in a loop, in a process of its own: `python -m tests.notes_writer PREFIX COUNT`
(MEMTUI_DATA_DIR set). Prints each note's id once its save has returned (acknowledged)."""

from __future__ import annotations

import random
import sys

from memtui.config import load
from memtui.engine import Memory

WORDS = """
apple river cloud engine garden window silver rocket planet forest candle bridge mirror
violin harbor desert jungle castle tunnel meadow glacier canyon island volcano compass
lantern anchor feather marble copper velvet thunder breeze shadow crystal ember falcon
dolphin tiger panda koala zebra walrus otter beaver badger ferret parrot pelican
database server network kernel compiler browser terminal keyboard monitor printer
""".split()  # noqa: SIM905 - a word list reads best as words


def body(prefix: str, i: int) -> str:
    rng = random.Random(f"{prefix}-{i}")
    return " ".join(rng.sample(WORDS, 12)) + f" mark{prefix}{i}x"


def title(prefix: str, i: int) -> str:
    return f"{prefix} note {i}"


def main() -> None:
    prefix, count = sys.argv[1], int(sys.argv[2])
    with Memory(load()) as memory:
        for i in range(count):
            saved = memory.notes.save(title(prefix, i), body(prefix, i), "state", by="agent")
            print(saved.note.id, i, flush=True)


if __name__ == "__main__":
    main()
