"""What the TUI remembers between runs, in the config dir: the theme and the user's keymap.

`keymap.toml` maps binding ids to keys, one per line (`"session.resume" = "ctrl+r"`); the ids
are listed by `?` and in the README. `tui.json` is written by the app (the chosen theme).
"""

from __future__ import annotations

import json
import logging
import string
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from textual.binding import Binding
from textual.keys import Keys, _character_to_key

from memtui.config import private_dir

log = logging.getLogger(__name__)

KEYMAP_FILE = "keymap.toml"
STATE_FILE = "tui.json"


@dataclass(slots=True)
class Keymap:
    keys: dict[str, str]
    problem: str | None = None  # shown as a notice: a broken keymap never stops the app


def load_keymap(config_dir: Path) -> Keymap:
    path = config_dir / KEYMAP_FILE
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Keymap({})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return Keymap({}, f"{path} was not read: {exc}")
    keys = {k: v for k, v in raw.items() if isinstance(v, str)}
    wrong = sorted(set(raw) - set(keys))
    problem = f"{path}: not a key string, ignored: {', '.join(wrong)}" if wrong else None
    return Keymap(keys, problem)


MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})


@cache
def key_names() -> frozenset[str]:
    """Every key a binding can name: printable characters and their names
    (`question_mark`), and the named keys (`enter`, `pagedown`, `f5`)."""
    printable = [c for c in string.printable if not c.isspace()]
    named = {k.value.rsplit("+", 1)[-1] for k in Keys if k.value}
    extra = {"enter", "space", "tab", "escape", "backspace", "delete", "insert"}
    return frozenset({*printable, *(_character_to_key(c) for c in printable), *named, *extra})


def valid_key(keys: str) -> bool:
    """Whether `keys` (one key or several, comma-separated) names keys Textual knows:
    `ctrl+r`, `f5`, `question_mark`, `y,Y`; not `notakey+++`."""
    for key in keys.split(","):
        *mods, base = key.strip().split("+")
        if not base or base not in key_names() or not set(mods) <= MODIFIERS:
            return False
    return True


def checked_keymap(
    keymap: dict[str, str], scopes: Sequence[Iterable[Binding]]
) -> tuple[dict[str, str], list[str]]:
    """The keymap without what would break the keys, and why each was left out: a key
    Textual does not know, or a key another action of the same screen has. The defaults
    stay for those."""
    problems = []
    kept = {}
    for bid, keys in keymap.items():
        if valid_key(keys):
            kept[bid] = keys
        else:
            problems.append(f"{bid} = {keys!r} is not a key; it keeps its default")
    for scope in scopes:
        owners: dict[str, dict[str, str]] = {}  # key: binding id: its description
        for b in scope:
            if b.id is None:
                continue
            for key in kept.get(b.id, b.key).split(","):
                owners.setdefault(key.strip(), {})[b.id] = b.description or b.action
        for key, ids in owners.items():
            moved = [i for i in ids if i in kept]
            if len(ids) < 2 or not moved:
                continue
            for bid in moved:
                if kept.pop(bid, None) is None:
                    continue
                others = ", ".join(f"{d} ({i})" for i, d in ids.items() if i != bid)
                problems.append(f"{bid} = {key!r} clashes with {others}; it keeps its default")
    return kept, problems


def load_theme(config_dir: Path) -> str | None:
    try:
        state = json.loads((config_dir / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    theme = state.get("theme") if isinstance(state, dict) else None
    return theme if isinstance(theme, str) else None


def save_theme(config_dir: Path, theme: str) -> None:
    try:
        path = private_dir(config_dir) / STATE_FILE
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"theme": theme}), encoding="utf-8")
        tmp.replace(path)  # a crash mid-write leaves the old choice, never half a file
    except OSError:
        log.warning("could not remember the theme in %s", config_dir, exc_info=True)
