"""A note's fields checked, each failure one InvalidArgument that names the field, and its
`[[links]]` read from the body."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from datetime import UTC, datetime

from memtui.engine import validate
from memtui.engine.notes_types import AUTHORS, LAYERS, MAX_BODY_BYTES, MAX_TITLE_CHARS, Author
from memtui.errors import InvalidArgument
from memtui.store.notes import Link

# [[target]] or [[target|shown]]; a target holds no brackets and no bar.
LINK = re.compile(r"\[\[([^\[\]|\n]+?)(?:\|([^\[\]\n]*?))?\]\]")
_BODY_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _controls(value: str) -> bool:
    return any(unicodedata.category(c) == "Cc" for c in value)


def title(value: object, name: str = "title") -> str:
    text = validate.text(name, value, 100_000).strip()
    if not text:
        raise InvalidArgument(f"{name} is empty", "give the note a title")
    if len(text) > MAX_TITLE_CHARS:
        raise InvalidArgument(f"{name} has {len(text):,} characters; at most {MAX_TITLE_CHARS}")
    if _controls(text):
        raise InvalidArgument(f"{name} holds a control character (a newline, a tab…)")
    if "[[" in text or "]]" in text or "|" in text:
        raise InvalidArgument(
            f"{name} may not contain '[[', ']]' or '|'", "links are written in the body"
        )
    return text


def body(value: object, name: str = "body") -> str:
    text = validate.text(name, value, 4 * MAX_BODY_BYTES)
    size = len(text.encode())
    if size > MAX_BODY_BYTES:
        raise InvalidArgument(f"{name} is {size:,} bytes; at most {MAX_BODY_BYTES:,} (100 KB)")
    if _BODY_CONTROLS.search(text):
        raise InvalidArgument(f"{name} holds a control character other than newline and tab")
    return text


def rule_text(layer: str, text: str, name: str = "body") -> None:
    """A rule with no text is nothing to follow: its body holds more than whitespace."""
    if layer == "rule" and not text.strip():
        raise InvalidArgument(
            f"{name} is empty: a rule needs its text", "write the rule in the body"
        )


def layer(value: object, name: str = "layer") -> str:
    if value not in LAYERS:
        raise InvalidArgument(f"{name} must be one of {', '.join(LAYERS)}, not {value!r}")
    return str(value)


def author(value: object, name: str = "by") -> Author:
    for known in AUTHORS:
        if value == known:
            return known
    raise InvalidArgument(f"{name} must be one of {', '.join(AUTHORS)}, not {value!r}")


def folder(value: object, name: str = "folder") -> str:
    if value is None:
        return ""
    text = validate.text(name, value, 500).strip().strip("/").strip()
    if not text:
        return ""
    if _controls(text) or "\\" in text:
        raise InvalidArgument(f"{name} holds a control character or a backslash")
    parts = [p.strip() for p in text.split("/")]
    if any(p in ("..", ".") for p in parts):
        raise InvalidArgument(f"{name} may not contain '..' or '.'", "write a path like a/b")
    if any(not p for p in parts):
        raise InvalidArgument(f"{name} has an empty part ('//')", "write a path like a/b")
    return "/".join(parts)


def tags(value: object, name: str = "tags") -> list[str]:
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise InvalidArgument(f"{name} must be a list of strings")
    out: dict[str, str] = {}
    for i, raw in enumerate(value):
        tag = validate.text(f"{name}[{i}]", raw, 100).strip().removeprefix("#")
        if not tag:
            raise InvalidArgument(f"{name}[{i}] is empty")
        if any(c.isspace() for c in tag) or "," in tag or _controls(tag):
            raise InvalidArgument(
                f"{name}[{i}] {tag!r} holds a space, a comma or a control character",
                "one word a tag, e.g. project-x",
            )
        out.setdefault(tag.casefold(), tag)
    return list(out.values())


def one_tag(value: object, name: str = "tag") -> str | None:
    if value is None or value == "":
        return None
    return tags([value], name)[0]


def note_id(value: object, name: str = "note_id") -> int:
    return validate.positive(name, value)


def when(value: str | None, name: str) -> str | None:
    """An ISO 8601 timestamp as the store writes them (UTC)."""
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(validate.text(name, value, 64))
    except ValueError:
        raise InvalidArgument(f"{name} is not an ISO 8601 date-time: {value!r}") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC).isoformat(timespec="microseconds")


def links(text: str) -> list[Link]:
    out = []
    for m in LINK.finditer(text):
        target = m.group(1).strip()
        if target:
            shown = m.group(2)
            out.append(Link(target, shown.strip() if shown is not None else None))
    return out


def renamed(text: str, old_key: str, new_title: str) -> str:
    """`text` with its links to the title `old_key` (casefolded) pointing at `new_title`."""

    def swap(m: re.Match[str]) -> str:
        if m.group(1).strip().casefold() != old_key:
            return m.group(0)
        shown = m.group(2)
        return f"[[{new_title}|{shown}]]" if shown is not None else f"[[{new_title}]]"

    return LINK.sub(swap, text)
