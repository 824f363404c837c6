"""What the TUI remembers between runs, in the config dir: the theme and the user's keymap.

`keymap.toml` maps binding ids to keys, one per line (`"session.resume" = "ctrl+r"`); the ids
are listed by `?` and in the README. `tui.json` is written by the app (the chosen theme).
"""

from __future__ import annotations

import json
import logging
import tomllib
from dataclasses import dataclass
from pathlib import Path

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
