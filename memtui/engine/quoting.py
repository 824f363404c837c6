"""Quoting what agents and transcripts wrote, for Claude to read, and counting its tokens.

Everything quoted is fenced by a fence longer than any run of backticks inside, its wrapper
tags disarmed, so no heading, fence or tag in it can pass for ours. Tokens are counted without
a tokenizer (nothing to load: the hooks import this): `count_tokens` estimates from the text's
pieces the way a BPE vocabulary splits them, within 10 % of Claude's legacy tokenizer on code,
prose and non-English text (tests/test_context.py measures it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from memtui.store.markers import cut

TITLE_CUT = 200  # characters of a title; a longer one ends in an ellipsis
HIT_TITLE_CUT = 80  # a title beside a search hit or a flashback: one line of a list
_FENCE = re.compile(r"```[\w+-]*")

# The pieces a BPE vocabulary sees: words, runs of digits, of punctuation, of white space.
_PIECES = re.compile(r"[^\W\d_]+|\d+|[^\w\s]+|\s+|_+")
_ACCENTED = re.compile(r"[\u00c0-\u024f]")


def count_tokens(text: str) -> int:
    """About how many tokens `text` is for Claude (see the module's note). A vocabulary
    learnt mostly on English and code keeps English words of up to 8 letters whole; words
    of other languages split every 3 letters or so (Cyrillic every 2), CJK nearly per
    character. A text with accented letters in it is taken as not English throughout."""
    if not text:
        return 0
    pieces = _PIECES.findall(text)
    words = [p for p in pieces if p[0].isalpha()]
    foreign = sum(1 for w in words if _ACCENTED.search(w)) * 30 >= len(words) > 0
    total = 0.0
    for piece in pieces:
        c = piece[0]
        if c.isalpha():
            total += _word(piece, foreign)
        elif c.isdigit():
            total += (len(piece) + 2) // 3
        elif c.isspace():
            # A space rides on the next word; newlines and indentation cost their own.
            total += 0 if piece == " " else 0.5 + piece.count("\n") * 0.5 + len(piece) / 8
        else:
            total += (len(piece) + 1) // 2
    return max(1, round(total))


def _cjk(c: str) -> bool:
    """Kana, CJK ideographs, Hangul: compared, not a regex class (its compile took 4-9 ms of
    every hook's start)."""
    return "\u3040" <= c <= "\u30ff" or "\u3400" <= c <= "\u9fff" or "\uac00" <= c <= "\ud7af"


def _word(word: str, foreign: bool) -> float:
    cjk = 0 if word.isascii() else sum(map(_cjk, word))
    if cjk:
        return cjk * 1.15 + (len(word) - cjk) * 0.5
    if word.isascii() and not foreign:
        return 1.0 if len(word) <= 8 else 1 + (len(word) - 8) / 4
    if "\u0400" <= word[0] <= "\u04ff":
        return max(1.0, len(word) * 0.55)
    return 1.0 if len(word) <= 4 else len(word) * 0.34


_TICKS = re.compile(r"`+")


def fence(texts: Iterable[str]) -> str:
    """A fence none of `texts` can close: longer than any run of backticks in them."""
    longest = max((len(run) for text in texts for run in _TICKS.findall(text)), default=0)
    return "`" * max(3, longest + 1)


# The tags Claude Code wraps what a hook prints in: quoted text must not close or open one.
_WRAPPER = re.compile(r"<(/?)(system-reminder|[a-z][a-z-]*-hook)\b", re.IGNORECASE)


def disarmed(text: str) -> str:
    """`text` with the `<` of Claude Code's wrapper tags made a look-alike (U+2039)."""
    return _WRAPPER.sub(lambda m: f"\u2039{m[1]}{m[2]}", text)


def fenced(text: str) -> str:
    text = disarmed(text)
    mark = fence([text])
    return f"{mark}text\n{text}\n{mark}"


def label(text: str) -> str:
    """A title or a project's path, from an agent or a transcript, shown outside a fence: one
    quoted line (a newline cannot start a heading there), its wrapper tags disarmed."""
    return disarmed(json.dumps(text, ensure_ascii=False))


def short_title(title: str, limit: int = TITLE_CUT) -> str:
    """A title on one line, without a code fence's marks (a prompt that opens with pasted
    code), cut at a word with an ellipsis when longer than `limit`."""
    flat = " ".join(_FENCE.sub(" ", title).split())
    if len(flat) <= limit:
        return flat
    head = cut(flat, limit - 1)  # a marker the cut would split is left out whole
    space = head.rfind(" ")
    return (head[:space] if space > limit // 2 else head).rstrip(" ,;:.-") + "…"
