"""Markdown with YAML front matter, for the few field shapes a note has: written and read by
small code instead of a YAML library.

Written: `key: value` lines between two `---` lines, a value plain when YAML would read it
back as the same string, else double-quoted with JSON's escapes (which YAML's double-quoted
style accepts); a list as `key:` and one `  - item` line an item (as Obsidian writes its
properties). Read: that, plus what a person or Obsidian writes by hand in those shapes:
single quotes, flow lists (`[a, b]`), `#` comments, blank lines. Anything else (nested maps,
block scalars, anchors) is an error that names its line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

from memtui.errors import InvalidArgument

FENCE = "---"
Value = str | int | list[str] | None
Read = str | list[str] | None  # a value as read back: a number is its string

# A name as Obsidian lets a person type one ("due date" too), then `:` and the value.
_KEY = re.compile(r"^([^\s#'\"\-?:][^:]*?):(?:\s+(.*?))?\s*$")
_ITEM = re.compile(r"^\s*-(?:\s+(.*?))?\s*$")  # indented, or not: YAML takes both
# Plain (unquoted) only where no YAML reader can take it for anything but this string: it
# starts with a letter, is not a word YAML 1.1 reads as a bool or null, holds no `: ` or ` #`,
# has no surrounding spaces. A time as memtui writes it stays plain too: YAML's timestamp.
_WORDS = re.compile(r"^(?:y|n|yes|no|on|off|true|false|null)$", re.IGNORECASE)
_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?\+00:00$")


def scalar(value: str | int) -> str:
    """One value as YAML that reads back as the same string (or whole number)."""
    if isinstance(value, int):
        return str(value)
    plain = _TIME.match(value) or (
        value[:1].isalpha()
        and value == value.strip()
        and ": " not in value
        and " #" not in value
        and not value.endswith(":")
        and value.isprintable()
        and not _WORDS.match(value)
    )
    if plain:
        return value
    # JSON escapes the C0 controls; YAML also wants the others unprintable in the BMP
    # (U+2028 would fold into a space) escaped.
    quoted = json.dumps(value, ensure_ascii=False)
    return "".join(c if c.isprintable() or ord(c) > 0xFFFF else f"\\u{ord(c):04x}" for c in quoted)


def dump(fields: Mapping[str, Value], body: str, comments: Sequence[str] = ()) -> str:
    """`fields` as front matter above `body` (written as is, byte for byte). None is left out;
    `comments` are `# ...` lines at the end of the front matter."""
    lines = [FENCE]
    for key, value in fields.items():
        if value is None:
            continue
        if isinstance(value, list):
            lines.append(f"{key}:" if value else f"{key}: []")
            lines += [f"  - {scalar(item)}" for item in value]
        else:
            lines.append(f"{key}: {scalar(value)}")
    lines += [f"# {comment}" for comment in comments]
    lines.append(FENCE)
    return "\n".join(lines) + "\n" + body


def split(text: str) -> tuple[dict[str, Read], str] | None:
    """The fields and the body of `text`; None when it has no front matter at all."""
    if text.startswith("\ufeff"):
        text = text[1:]
    first, sep, rest = text.partition("\n")
    if first.rstrip("\r ") != FENCE or not sep:
        return None
    lines = rest.split("\n")
    for end, line in enumerate(lines):
        if line.rstrip("\r ") in (FENCE, "..."):
            return parse(lines[:end], first_line=2), "\n".join(lines[end + 1 :])
    raise InvalidArgument(
        "the front matter has no closing `---` line", "end the fields with a line of `---`"
    )


def parse(lines: Sequence[str], first_line: int = 1) -> dict[str, Read]:
    """The `key: value` lines of a front matter (without its fences)."""
    fields: dict[str, Read] = {}
    current: str | None = None  # the key whose `  - item` lines may follow
    for number, raw in enumerate(lines, first_line):
        line = raw.rstrip("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        item = _ITEM.match(line)
        if item and current is not None:
            listed = fields[current]
            if listed is None:
                listed = fields[current] = []
            assert isinstance(listed, list)
            listed.append(_string(_value(item.group(1) or "", number), number))
            continue
        key = _KEY.match(line)
        if key is None:
            raise InvalidArgument(
                f"front matter line {number} is not `name: value`: {line.strip()[:60]!r}"
            )
        name, text = key.group(1), key.group(2) or ""
        if name in fields:
            raise InvalidArgument(f"front matter line {number}: {name!r} is given twice")
        value = _value(text, number)
        fields[name] = value
        current = name if value is None else None
    return fields


def _string(value: Read, number: int) -> str:
    if isinstance(value, list):
        raise InvalidArgument(f"front matter line {number}: a list inside a list")
    return "" if value is None else str(value)


def _value(text: str, number: int) -> Read:
    """One value as written after `key:` or `-`: None when nothing is."""
    text = _uncomment(text).strip()
    if not text or text in ("~", "null"):
        return None
    if text.startswith("["):
        if not text.endswith("]"):
            raise InvalidArgument(f"front matter line {number}: a list `[` without its `]`")
        inner = text[1:-1].strip()
        return [_string(_quoted(part.strip(), number), number) for part in _items(inner)]
    if text[0] in "{|>&*!":
        raise InvalidArgument(
            f"front matter line {number}: {text[:30]!r} is YAML this reader does not take",
            "write plain `name: value` lines and `  - item` lists",
        )
    return _quoted(text, number)


def _quoted(text: str, number: int) -> str:
    if text.startswith('"'):
        try:
            value = json.loads(text)
        except ValueError:
            raise InvalidArgument(f"front matter line {number}: a broken quoted string") from None
        if not isinstance(value, str):
            raise InvalidArgument(f"front matter line {number}: a broken quoted string")
        return value
    if text.startswith("'"):
        if len(text) < 2 or not text.endswith("'"):
            raise InvalidArgument(f"front matter line {number}: a broken quoted string")
        return text[1:-1].replace("''", "'")
    return text


def _uncomment(text: str) -> str:
    """`text` without a trailing ` # comment` outside quotes."""
    quote = ""
    for i, char in enumerate(text):
        if quote:
            if char == quote and not (quote == '"' and text[i - 1] == "\\"):
                quote = ""
        elif char in "\"'" and (i == 0 or text[i - 1] in " [,"):
            quote = char
        elif char == "#" and (i == 0 or text[i - 1] in " \t"):
            return text[:i]
    return text


def _items(inner: str) -> list[str]:
    """The comma-separated items of a flow list, commas inside quotes kept."""
    if not inner:
        return []
    items: list[str] = []
    quote, start = "", 0
    for i, char in enumerate(inner):
        if quote:
            if char == quote and not (quote == '"' and inner[i - 1] == "\\"):
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == ",":
            items.append(inner[start:i])
            start = i + 1
    items.append(inner[start:])
    return items
