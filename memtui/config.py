"""Where things live, from the environment (names fixed by SPEC.md)."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP = "memtui"


@dataclass(frozen=True, slots=True)
class Config:
    data_dir: Path
    claude_dir: Path
    log_dir: Path

    @property
    def db_path(self) -> Path:
        return self.data_dir / "memtui.db"

    @property
    def index_dir(self) -> Path:
        return self.data_dir / "index"


def claude_projects_dir() -> Path:
    if explicit := os.environ.get("MEMTUI_CLAUDE_DIR"):
        return Path(explicit).expanduser()
    if config_dir := os.environ.get("CLAUDE_CONFIG_DIR"):
        return Path(config_dir).expanduser() / "projects"
    return Path.home() / ".claude" / "projects"


def load() -> Config:
    data_dir = Path(os.environ.get("MEMTUI_DATA_DIR") or platformdirs.user_data_dir(APP))
    return Config(
        data_dir=data_dir.expanduser(),
        claude_dir=claude_projects_dir(),
        log_dir=Path(platformdirs.user_log_dir(APP)),
    )


def private_dir(path: Path) -> Path:
    """Create a directory only its owner can read: it holds someone's conversations."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def setup_logging(config: Config) -> None:
    setup_file_logging(config.log_dir)


def setup_file_logging(log_dir: Path) -> None:
    """Log to a file, never to the terminal: the TUI owns it and stdio MCP owns stdout."""
    root = logging.getLogger()
    if any(isinstance(h, logging.FileHandler) for h in root.handlers):
        return
    try:
        handler: logging.Handler = logging.FileHandler(private_dir(log_dir) / "memtui.log")
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s")
    )
    root.addHandler(handler)
    root.setLevel(logging.INFO)
