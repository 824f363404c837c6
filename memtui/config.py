"""Every setting memtui reads, from one place: the environment (names fixed by docs/SPEC.md).

Front ends call `load()` once and hand the Config down; nothing below them reads os.environ.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import platformdirs

from memtui.dirs import APP, data_dir
from memtui.errors import InvalidArgument

LOG_BYTES = 2 * 1024 * 1024  # per log file; two old ones are kept
LOG_FILE = "memtui.log"
LOG_KEY = "log.key"
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
    # The environment every agent's folder is found from (MEMTUI_<AGENT>_DIR, the agents' own
    # variables); None, as a Config made in code has it: Claude Code's at claude_dir only.
    environ: Mapping[str, str] | None = field(default=None, repr=False)

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


def claude_projects_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """Where Claude Code's transcripts are read: MEMTUI_CLAUDE_DIR (unless `off`), else
    where Claude Code keeps them."""
    explicit = environ.get("MEMTUI_CLAUDE_DIR", "").strip()
    if explicit and explicit.lower() != "off":
        return Path(explicit).expanduser()
    return claude_default_dir(environ)


def claude_default_dir(environ: Mapping[str, str]) -> Path:
    """Where Claude Code itself keeps its transcripts."""
    if config_dir := environ.get("CLAUDE_CONFIG_DIR"):
        return Path(config_dir).expanduser() / "projects"
    return Path.home() / ".claude" / "projects"


def _env(environ: Mapping[str, str], name: str, parse: Callable[[str], _T], default: _T) -> _T:
    raw = environ.get(name)
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


def load(environ: Mapping[str, str] = os.environ) -> Config:
    """The settings in `environ`: this process's, or a hook's that a running memtui answers."""
    return Config(
        data_dir=Path(data_dir(environ)),
        claude_dir=claude_projects_dir(environ),
        log_dir=log_dir(),
        model=environ.get("MEMTUI_MODEL") or None,
        inject_rules=_env(environ, "MEMTUI_INJECT_RULES", _flag, True),
        rules_max_chars=_env(environ, "MEMTUI_RULES_MAX_CHARS", int, 8000),
        flashback_days=_env(environ, "MEMTUI_FLASHBACK_DAYS", int, 90),
        flashback_dist=_env(environ, "MEMTUI_FLASHBACK_DIST", float, 0.4),
        flashback_limit=_env(environ, "MEMTUI_FLASHBACK_LIMIT", int, 3),
        similar_dist=_env(environ, "MEMTUI_SIMILAR_DIST", float, 0.5),
        stale_days=_env(environ, "MEMTUI_STALE_DAYS", int, 30),
        mask_secrets=_env(environ, "MEMTUI_MASK_SECRETS", _flag, True),
        environ=dict(environ),
    )


def private_dir(path: Path) -> Path:
    """A directory only its owner can read (it holds someone's conversations), made so even
    when it already existed."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    if path.stat().st_mode & 0o077:
        path.chmod(0o700)
    return path


def secret_key(path: Path) -> bytes:
    """A random key kept in `path`, made on first use, readable by its owner only."""
    import secrets  # here, as hmac below: every command and hook starts by importing this file

    try:
        key = path.read_bytes()
        if len(key) >= 32:
            return key
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
    try:
        os.write(fd, secrets.token_bytes(32))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)  # the first process to make a key wins; the others read it
    except FileExistsError:
        pass
    finally:
        tmp.unlink(missing_ok=True)
    return path.read_bytes()


# What would name a session in the log: a transcript's path, and any UUID (a session's id, a
# message's). Both are written as a hash keyed with `log.key`, so a forgotten session leaves
# no name there. The log never names them rather than a forget scrubbing it: several processes
# append to it at once and it rotates, so a scrub could never be sure to have seen every line.
_JSONL = re.compile(r"\.jsonl\b")
_UUID = re.compile(r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
_PATH_ENDS = frozenset(" \t\r\n'\"")


def unnamed(text: str, key: bytes) -> str:
    """`text` with every transcript path (up to the space or quote before it) and every UUID
    in it replaced by its keyed hash."""
    if ".jsonl" in text:
        parts: list[str] = []
        done = 0
        for m in _JSONL.finditer(text):
            start = m.start()
            while start > done and text[start - 1] not in _PATH_ENDS:
                start -= 1
            parts += (text[done:start], _hashed(key, "transcript", text[start : m.end()]))
            done = m.end()
        text = "".join(parts) + text[done:]
    return _UUID.sub(lambda m: _hashed(key, "id", m.group(0).lower()), text)


def _hashed(key: bytes, kind: str, name: str) -> str:
    import hashlib
    import hmac

    digest = hmac.new(key, name.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()
    return f"\u2039{kind}:{digest[:8]}\u203a"


class _Unnamed(logging.Formatter):
    def __init__(self, key: bytes) -> None:
        super().__init__("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s")
        self._key = key

    def format(self, record: logging.LogRecord) -> str:
        return unnamed(super().format(record), self._key)  # the traceback's text too


def setup_logging(log_dir: Path) -> None:
    """Log to a rotating file, never to the terminal: the TUI owns it and stdio MCP owns
    stdout. Front ends call this before anything else; the engine never does."""
    root = logging.getLogger()
    if any(isinstance(h, LogFile) for h in root.handlers):
        return
    root.addHandler(LogFile(log_dir))
    root.setLevel(logging.INFO)


class LogFile(logging.Handler):
    """The rotating log file, opened on its first record: a hook that logs nothing loads no
    logging.handlers and reads no log key (milliseconds of every prompt)."""

    def __init__(self, log_dir: Path) -> None:
        super().__init__()
        self.log_dir = log_dir
        self._file: logging.Handler | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if self._file is None:
            self._file = _open_log(self.log_dir)
        self._file.handle(record)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        super().close()


def _open_log(log_dir: Path) -> logging.Handler:
    import logging.handlers

    key = b""
    try:
        folder = private_dir(log_dir)
        older = not (folder / LOG_KEY).exists()
        key = secret_key(folder / LOG_KEY)
        if older:
            with suppress(OSError):  # the new lines name no session all the same
                _unname_logs(folder, key)
        handler: logging.Handler = logging.handlers.RotatingFileHandler(
            folder / LOG_FILE, maxBytes=LOG_BYTES, backupCount=2
        )
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(_Unnamed(key))
    return handler


def _unname_logs(folder: Path, key: bytes) -> None:
    """Logs written before the log named no session: written again without the names."""
    for path in folder.glob(f"{LOG_FILE}*"):
        text = path.read_text(encoding="utf-8", errors="replace")
        new = unnamed(text, key)
        if new != text:
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            fd = os.open(tmp, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(new)
            os.replace(tmp, path)
