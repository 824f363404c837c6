"""The bundled demo archive: transcripts of a few made-up projects, unpacked per run into a
throw-away directory so the real data dir is never touched. It holds one folder per agent
(projects/ for Claude Code, codex/ for Codex CLI, gemini/ for Gemini CLI), in the same
projects."""

from __future__ import annotations

import tarfile
import tempfile
from dataclasses import replace
from importlib import resources
from pathlib import Path

from memtui.config import Config
from memtui.engine import AGENTS
from memtui.errors import NotFound

ARCHIVE = "transcripts.tar.gz"
# Each agent's folder in the archive; every other agent is turned off.
FOLDERS = {"claude-code": "projects", "codex": "codex", "gemini": "gemini"}


def archive_path() -> Path:
    """The archive, installed (memtui.assets) or in a source checkout (assets/ beside memtui)."""
    checkout = Path(__file__).resolve().parents[2] / "assets" / "demo" / ARCHIVE
    try:
        installed = Path(str(resources.files("memtui.assets") / "demo" / ARCHIVE))
    except ModuleNotFoundError:
        return checkout
    return installed if installed.is_file() else checkout


def prepare(config: Config) -> tuple[Config, Path]:
    """A config whose transcripts are the demo's and whose data dir is new; and the temp dir
    to delete afterwards."""
    source = archive_path()
    if not source.is_file():
        raise NotFound(f"the demo archive is missing ({source})", "reinstall memtui")
    root = Path(tempfile.mkdtemp(prefix="memtui-demo-"))
    with tarfile.open(source) as tar:
        tar.extractall(root, filter="data")
    claude_dir = root / FOLDERS["claude-code"]
    demo = replace(config, data_dir=root / "data", claude_dir=claude_dir, environ=_only(root))
    return demo, root


def _only(root: Path) -> dict[str, str]:
    """The demo's folders only: never the agents' files this machine has (MEMTUI_<AGENT>_DIR,
    SPEC's names, set for every agent)."""
    return {
        f"MEMTUI_{agent.split('-')[0].upper()}_DIR": str(root / FOLDERS[agent])
        if agent in FOLDERS
        else "off"
        for agent in AGENTS
    }
