"""`[[Title]]` and `[[Title|shown text]]` in a note's Markdown: found, and turned into links
a screen can move between and open.

Each link becomes a Markdown link to `memtui:N` (N its place in the note's list of
targets); rich renders it with that URL on its style, so the drawn lines still say which
link each run of text belongs to, and the view restyles the current one (see `restyle`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rich.segment import Segment
from rich.style import Style

LINK = re.compile(r"\[\[([^\[\]\n|]+?)(?:\|([^\[\]\n]+?))?\]\]")
FENCE = re.compile(r"^\s*(```|~~~)")
SCHEME = "memtui:"
_ESCAPE = re.compile(r"([\\\[\]*_`<>])")


def as_markdown(body: str, places: dict[str, int]) -> str:
    """The body with each `[[link]]` (outside code blocks) written as a Markdown link to its
    target's place (`places`: a title, casefolded, to its place), so a renderer keeps it
    apart from the text around it."""
    out = []
    fenced = False
    for line in body.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            line = LINK.sub(lambda m: _link(m, places), line)
        out.append(line)
    return "\n".join(out)


def _link(match: re.Match[str], places: dict[str, int]) -> str:
    title = match.group(1).strip()
    place = places.get(title.casefold())
    shown = (match.group(2) or title).strip()
    if place is None:
        return match.group(0)
    escaped = _ESCAPE.sub(r"\\\1", shown)
    return f"[{escaped}]({SCHEME}{place})"


def target_of(style: Style | None) -> int | None:
    """The target a run of drawn text belongs to, if any."""
    link = style.link if style is not None else None
    if link and link.startswith(SCHEME):
        tail = link[len(SCHEME) :]
        return int(tail) if tail.isdigit() else None
    return None


def restyle(
    segments: Iterable[Segment],
    current: int | None,
    link: Style,
    cursor: Style,
    missing: frozenset[int] = frozenset(),
) -> list[Segment]:
    """Drawn segments with every target's text in the link style (dim and italic for a
    link to a note that does not exist yet, in `missing`), the current one in the cursor
    style, a click on any of them opening it; no terminal hyperlink is left (a `memtui:`
    URL means nothing outside the app)."""
    out = []
    for seg in segments:
        place = target_of(seg.style)
        if place is None:
            out.append(seg)
            continue
        base = seg.style.clear_meta_and_links() if seg.style else Style()
        look = cursor if place == current else link
        if place in missing:
            look += Style(dim=True, italic=True)
        click = Style.from_meta({"@click": f"open_target({place})"})
        out.append(Segment(seg.text, base + look + click, seg.control))
    return out


def target_style(place: int) -> Style:
    """The style that marks drawn text as target `place`."""
    return Style(link=f"{SCHEME}{place}")
