"""The bundled demo archive: transcripts of a few made-up projects, unpacked per run into a
throw-away directory so the real data dir is never touched."""

from __future__ import annotations

import tarfile
import tempfile
from dataclasses import replace
from importlib import resources
from pathlib import Path

from memtui.config import Config
from memtui.errors import NotFound

ARCHIVE = "transcripts.tar.gz"


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
        tar.extractall(root / "projects", filter="data")
    # The demo's transcripts only: not the other agents' files this machine has.
    demo = replace(config, data_dir=root / "data", claude_dir=root / "projects", environ=None)
    return demo, root
