"""Every setting memtui reads, from one place: the environment (names fixed by SPEC.md).

Front ends call `load()` once and hand the Config down; nothing below them reads os.environ.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import platformdirs

from memtui.errors import InvalidArgument

APP = "memtui"
LOG_BYTES = 2 * 1024 * 1024  # per log file; two old ones are kept
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Config:
    data_dir: Path
    claude_dir: Path
    log_dir: Path
    model: str | None = None  # MEMTUI_MODEL: a model2vec folder; None is the bundled one
    inject_rules: bool = True
    rules_max_chars: int = 8000
    flashback_days: int = 90
    flashback_dist: float = 0.4
    flashback_limit: int = 3
    similar_dist: float = 0.5
    stale_days: int = 30
    mask_secrets: bool = True  # MEMTUI_MASK_SECRETS=0: store text as written, secrets included

    @property
    def db_path(self) -> Path:
        return self.data_dir / "memtui.db"

    @property
    def index_dir(self) -> Path:
        return self.data_dir / "index"

    @property
    def config_dir(self) -> Path:
        return Path(platformdirs.user_config_dir(APP))


def log_dir() -> Path:
    return Path(platformdirs.user_log_dir(APP))


def claude_projects_dir() -> Path:
    if explicit := os.environ.get("MEMTUI_CLAUDE_DIR"):
        return Path(explicit).expanduser()
    if config_dir := os.environ.get("CLAUDE_CONFIG_DIR"):
        return Path(config_dir).expanduser() / "projects"
    return Path.home() / ".claude" / "projects"


def _env(name: str, parse: Callable[[str], _T], default: _T) -> _T:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return parse(raw.strip())
    except ValueError:
        raise InvalidArgument(
            f"${name} is {raw!r}, not a {type(default).__name__}",
            f"unset it or give a value like {default!r}",
        ) from None


def _flag(raw: str) -> bool:
    if raw.lower() in ("1", "true", "yes", "on"):
        return True
    if raw.lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError(raw)


def load() -> Config:
    data_dir = Path(os.environ.get("MEMTUI_DATA_DIR") or platformdirs.user_data_dir(APP))
    return Config(
        data_dir=data_dir.expanduser(),
        claude_dir=claude_projects_dir(),
        log_dir=log_dir(),
        model=os.environ.get("MEMTUI_MODEL") or None,
        inject_rules=_env("MEMTUI_INJECT_RULES", _flag, True),
        rules_max_chars=_env("MEMTUI_RULES_MAX_CHARS", int, 8000),
        flashback_days=_env("MEMTUI_FLASHBACK_DAYS", int, 90),
        flashback_dist=_env("MEMTUI_FLASHBACK_DIST", float, 0.4),
        flashback_limit=_env("MEMTUI_FLASHBACK_LIMIT", int, 3),
        similar_dist=_env("MEMTUI_SIMILAR_DIST", float, 0.5),
        stale_days=_env("MEMTUI_STALE_DAYS", int, 30),
        mask_secrets=_env("MEMTUI_MASK_SECRETS", _flag, True),
    )


def private_dir(path: Path) -> Path:
    """A directory only its owner can read (it holds someone's conversations), made so even
    when it already existed."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    if path.stat().st_mode & 0o077:
        path.chmod(0o700)
    return path


def setup_logging(log_dir: Path) -> None:
    """Log to a rotating file, never to the terminal: the TUI owns it and stdio MCP owns
    stdout. Front ends call this before anything else; the engine never does."""
    root = logging.getLogger()
    if any(isinstance(h, logging.FileHandler) for h in root.handlers):
        return
    try:
        handler: logging.Handler = logging.handlers.RotatingFileHandler(
            private_dir(log_dir) / "memtui.log", maxBytes=LOG_BYTES, backupCount=2
        )
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s")
    )
    root.addHandler(handler)
    root.setLevel(logging.INFO)
