"""One error family for every layer, each with a stable code the front ends show as is.

The CLI prints `memtui: CODE: message (hint)` and exits non-zero, MCP answers an `isError`
result whose text starts with the code, the TUI shows a notification. Codes are docs/SPEC.md's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_NAMED = re.compile(r"`([a-z_]+)`")  # an MCP tool or argument named in a message


class MemtuiError(Exception):
    """Something the caller can act on: `code` is stable, `hint` says what to do instead."""

    code = "ERROR"
    hint = ""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        if hint is not None:
            self.hint = hint

    def __str__(self) -> str:
        message = super().__str__()
        return f"{message} ({self.hint})" if self.hint else message

    def line(self, names: Mapping[str, str] | None = None) -> str:
        """The one line a front end shows: code, message and hint. Messages write a name of
        the MCP surface (a tool, an argument) in backticks, `get_signals`: `names` gives a
        front end's own words for them (the CLI's commands and options)."""
        text = f"{self.code}: {self}"
        if not names:
            return text
        return _NAMED.sub(lambda m: names.get(m.group(1), m.group(0)), text)


class InvalidArgument(MemtuiError):
    code = "INVALID_ARGUMENT"


class NotFound(MemtuiError):
    code = "NOT_FOUND"


class Ambiguous(MemtuiError):
    code = "AMBIGUOUS"

    def __init__(self, what: str, prefix: str, candidates: list[str]) -> None:
        shown = ", ".join(candidates[:10]) + (" …" if len(candidates) > 10 else "")
        super().__init__(
            f"{what} {prefix!r} matches {len(candidates)}: {shown}",
            "give more characters of the one you mean",
        )
        self.candidates = candidates


class NotConfirmed(MemtuiError):
    """A destructive call (forget, mint_inference) without `confirmed` the boolean true."""

    code = "NOT_CONFIRMED"


class Busy(MemtuiError):
    """Another process holds the lock this needs (an index run, a rebuild)."""

    code = "BUSY"


class StoreCorrupt(MemtuiError):
    code = "STORE_CORRUPT"
    hint = "restore memtui.db from a backup, or run `memtui doctor` to see what is damaged"


class StoreUnavailable(MemtuiError):
    """The data dir cannot be opened or written: permissions, a full disk, a newer schema."""

    code = "STORE_UNAVAILABLE"


class IndexDamaged(MemtuiError):
    code = "INDEX_DAMAGED"
    hint = "run `memtui index` to rebuild it from the store (nothing is lost)"


class ModelUnavailable(MemtuiError):
    code = "MODEL_UNAVAILABLE"
    hint = "point MEMTUI_MODEL at a model2vec model folder, or unset it to use the bundled model"
