"""A snippet of a message: a window around the first word a query matched, the matched words
marked. Plain Python (no numpy, no index), so a hook can quote what it found."""

from __future__ import annotations

import re

SNIPPET = 240


def snippet(text: str, terms: list[str], fallback: str = "", size: int = SNIPPET) -> str:
    """A window of `size` characters of `text` around the first matched word (with a `…` at
    a side cut), matched words marked **like this** (the marks are not counted in `size`)."""
    pattern = _pattern(terms)
    source = text
    match = pattern.search(text) if pattern else None
    if match is None and fallback and pattern:
        fb_match = pattern.search(fallback)
        if fb_match:
            source, match = fallback, fb_match
    start = 0 if match is None else max(0, match.start() - size // 3)
    window = " ".join(source[start : start + size + 200].split())[:size]
    if start > 0:
        window = "…" + window
    if start + size < len(source):
        window += "…"
    return pattern.sub(lambda m: f"**{m.group(0)}**", window) if pattern else window


# Words too common to be worth marking in a snippet (they still count in the ranking).
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "he",
        "her",
        "his",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "she",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "too",
        "us",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
    ]
)


def _pattern(terms: list[str]) -> re.Pattern[str] | None:
    words = sorted({t for t in terms if t and t not in _STOP}, key=len, reverse=True)
    if not words:
        return None
    # A stem marks the whole word it starts ("migrat" marks "migrations"); a short word only
    # itself, or "in" would mark "ink".
    alternatives = "|".join(re.escape(w) + (r"\w*" if len(w) > 3 else r"\b") for w in words)
    return re.compile(rf"(?<!\w)(?:{alternatives})", re.IGNORECASE)
