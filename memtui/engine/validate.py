"""Argument checks every front end gets the same way: one InvalidArgument that says what to fix."""

from __future__ import annotations

from memtui.errors import InvalidArgument

MAX_QUERY = 4_000  # SPEC: a query of at most 4,000 characters
MAX_ID = 2**63 - 1  # SQLite's largest integer: an id past it is no id
REACH = 1_000  # results paging reaches in any search mode: nobody reads further down
DEPTH = 100  # candidates each ranking of a search contributes to its fusion


def text(name: str, value: object, max_chars: int = MAX_QUERY) -> str:
    """A string argument that SQLite and Tantivy can take: valid Unicode, not too long."""
    if not isinstance(value, str):
        raise InvalidArgument(f"{name} must be a string, not {type(value).__name__}")
    try:
        value.encode()
    except UnicodeEncodeError:
        raise InvalidArgument(
            f"{name} is not valid UTF-8 text", "type it again without the stray bytes"
        ) from None
    if len(value) > max_chars:
        raise InvalidArgument(
            f"{name} has {len(value):,} characters; at most {max_chars:,} are taken"
        )
    return value


def optional_text(name: str, value: object, max_chars: int = MAX_QUERY) -> str | None:
    return None if value is None else text(name, value, max_chars)


def page(limit: int, offset: int, max_limit: int = 1000, reach: int | None = None) -> None:
    """A page's bounds; with `reach`, the page must start before it (it ends there at most:
    the caller cuts it)."""
    if not 1 <= limit <= max_limit:
        raise InvalidArgument(f"limit must be from 1 to {max_limit:,}, not {limit}")
    if not 0 <= offset < 2**31:
        raise InvalidArgument(f"offset must be a whole number from 0, not {offset}")
    if reach is not None and offset >= reach:
        raise InvalidArgument(
            f"offset must be below {reach:,}, not {offset:,}",
            f"results are ranked {reach:,} deep at most",
        )


def choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    """One of a fixed set of words (a type, a status)."""
    if not isinstance(value, str) or value not in allowed:
        raise InvalidArgument(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
    return value


def positive(name: str, value: object) -> int:
    """An id: a whole number from 1 (a bool is not one)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ID:
        raise InvalidArgument(f"{name} must be a whole number from 1 to {MAX_ID:,}, not {value!r}")
    return value
