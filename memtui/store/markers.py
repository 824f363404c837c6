"""A masked secret's marker, and cutting a text short without splitting one.

Apart from mask.py: a prompt is cut to a title where the masker's patterns (~40 ms to load,
too long for a hook) are not needed.
"""

from __future__ import annotations

import re

OPEN, CLOSE = "\u2039", "\u203a"
MARKER = re.compile(OPEN + r"secret:([a-z0-9-]+):([0-9a-f]{8})" + CLOSE)
# How far past a cut the masker must see to know a secret the cut would split: the longest
# value a rule takes (a provider's token 255 characters, a key's value 300, base64 600),
# with room. A text is masked this much longer than it is kept, then cut.
REACH = 1000


def cut(text: str, limit: int) -> str:
    """`text` in at most `limit` characters; a marker the cut would split is left out whole
    (with the spaces before it), so a shortened text never holds part of one."""
    if len(text) <= limit:
        return text
    start = text.rfind(OPEN, 0, limit)
    if start != -1 and (m := MARKER.match(text, start)) and m.end() > limit:
        return text[:start].rstrip()
    return text[:limit]
