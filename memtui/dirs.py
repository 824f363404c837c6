"""Where the data dir is, without config's imports: a hook asks a memtui already running there
(engine/hookline.py) before it loads anything else."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # as typing's, to mypy; importing typing costs a hook 10 ms of its start

if TYPE_CHECKING:
    from collections.abc import Mapping

APP = "memtui"


def data_dir(environ: Mapping[str, str]) -> str:
    """MEMTUI_DATA_DIR, else the platform's data folder for memtui."""
    if given := environ.get("MEMTUI_DATA_DIR"):
        return os.path.expanduser(given)
    import platformdirs  # tens of milliseconds: a hook that asks finds the folder without it

    return platformdirs.user_data_dir(APP)


def asked_data_dir(environ: Mapping[str, str]) -> str:
    """The data dir whose running memtui a hook asks: `data_dir`, worked out on Linux and macOS
    as platformdirs does without importing it (pathlib, tempfile, shutil: a fifth of a hook's
    start). A guess is enough here: were a platformdirs release to place it elsewhere, the hook
    would find no server there and do the work itself, under `data_dir`."""
    if environ.get("MEMTUI_DATA_DIR") or sys.platform not in ("linux", "darwin"):
        return data_dir(environ)
    base = environ.get("XDG_DATA_HOME", "")
    if not os.path.isabs(base):
        default = "~/Library/Application Support" if sys.platform == "darwin" else "~/.local/share"
        base = os.path.expanduser(default)
    return os.path.join(base, APP)
