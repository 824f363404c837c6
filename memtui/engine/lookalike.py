"""Titles that read the same: a skeleton in the spirit of Unicode TR39's confusable detection.

Two titles with one skeleton look alike on screen: `Deploy rule`, and the same title with a
Cyrillic e (U+0435) for its last letter. The skeleton is the title in NFKC (fullwidth and
styled letters become plain ones), the common Cyrillic and Greek look-alikes of Latin letters
and the digits 0 and 1 mapped to the letters they pass for, invisible format characters
dropped, case folded and spaces collapsed. A small table, not TR39's whole one: no library for
it is installed, and these are the letters a title is spoofed with in a terminal font.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

# Each look-alike (escaped, so the source shows none) above the letter it passes for.
_TABLE = str.maketrans(
    # Cyrillic capitals and small letters
    "\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0423\u0425"
    "\u0405\u0406\u0408\u04ae\u04c0\u051a\u051c\u0430\u0435\u043e\u0440\u0441"
    "\u0443\u0445\u0455\u0456\u0458\u04bb\u0501\u051b\u051d\u04cf\u04af"
    # Greek capitals and small letters
    "\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4"
    "\u03a5\u03a7\u03b1\u03b9\u03ba\u03bd\u03bf\u03c1\u03c5\u03f2\u03f3"
    # Latin look-alikes of Latin letters (dotless i, alpha, script g), capital I and digits
    "\u0131\u0251\u0261I10",
    "ABEKMHOPCTYXSlJYlQWaeopcyxsijhdqwlyABEZHlKMNOPTYXaikvopucjiagllO",
)


def skeleton(title: str) -> str:
    """What `title` looks like: equal skeletons, titles a reader cannot tell apart."""
    text = unicodedata.normalize("NFKC", title).translate(_TABLE)
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return " ".join(text.casefold().split())


def twins(titles: Iterable[tuple[int, str]]) -> dict[int, int]:
    """For each note (id, title) whose title looks like another's, that other note's id (the
    oldest of them)."""
    groups: dict[str, list[int]] = {}
    for note_id, title in titles:
        groups.setdefault(skeleton(title), []).append(note_id)
    found: dict[int, int] = {}
    for ids in groups.values():
        if len(ids) > 1:
            ids.sort()
            for note_id in ids:
                found[note_id] = ids[1] if note_id == ids[0] else ids[0]
    return found
