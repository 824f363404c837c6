"""Running `memtui` as a user does: a real subprocess with the test's data and transcripts."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from memtui.config import Config

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def env_for(cfg: Config, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "MEMTUI_DATA_DIR": str(cfg.data_dir),
        "MEMTUI_CLAUDE_DIR": str(cfg.claude_dir),
        "PYTHONPATH": ROOT,  # this checkout's memtui, whatever is installed
        **extra,
    }


# root reads and writes whatever it likes; without these two capabilities it meets file
# modes as a user does (Linux's setpriv; tests that need it skip where it is missing).
AS_A_USER = (
    ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]
    if os.geteuid() == 0 and shutil.which("setpriv")
    else []
)


def memtui(
    cfg: Config, *args: str | bytes, as_user: bool = False, stdin: str | None = None, **extra: str
) -> subprocess.CompletedProcess[str]:
    """`memtui ARGS`, `stdin` piped in; with `as_user`, bound by file modes even when the
    tests run as root."""
    return subprocess.run(
        [*(AS_A_USER if as_user else []), sys.executable, "-m", "memtui", *args],
        env=env_for(cfg, **extra),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=180,
        cwd="/",
    )


def one_line_error(result: subprocess.CompletedProcess[str]) -> bool:
    """A failure a person can read: non-zero, one line on stderr, no traceback."""
    lines = result.stderr.strip().splitlines()
    return result.returncode != 0 and len(lines) == 1 and "Traceback" not in result.stderr
