"""Where the data dir is, without config's imports: a hook asks a memtui already running there
(engine/hookline.py) before it loads anything else."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # as typing's, to mypy; importing typing costs a hook 10 ms of its start

if TYPE_CHECKING:
    from collections.abc import Mapping

APP = "memtui"


def data_dir(environ: Mapping[str, str]) -> str:
    """MEMTUI_DATA_DIR, else the platform's data folder for memtui."""
    if given := environ.get("MEMTUI_DATA_DIR"):
        return os.path.expanduser(given)
    import platformdirs  # milliseconds of a hook's start: only when the setting is not given

    return platformdirs.user_data_dir(APP)
