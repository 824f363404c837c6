"""Counts as a person reads them, in every front end: 1 session, 2 sessions, 1 entry."""

from __future__ import annotations


def plural(n: int, word: str, many: str | None = None) -> str:
    """`word` as it goes with `n` (`many`: its plural when that is not word + s)."""
    return word if n == 1 else many or f"{word}s"


def counted(n: int, word: str, many: str | None = None) -> str:
    """`n` and its word: `1 session`, `2,048 sessions`, `3 entries`."""
    return f"{n:,} {plural(n, word, many)}"
