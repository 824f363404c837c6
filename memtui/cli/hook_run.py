"""Running one of Claude Code's hooks. A session waits for them, so `main` runs one before it
builds the parser, and this module loads no more than the hook needs. First it asks a memtui
already running for the data dir (engine/hookline.py: sockets, JSON, nothing of memtui's
own); only when none answers does it load the hook's code (SQLite and Tantivy, never
argparse, numpy, the vectors, the model, MCP or Textual) and do the work itself."""

from __future__ import annotations

import os
import sys


def run(event: str) -> bool:
    """Run the hook for `event` (`memtui hook EVENT`); False when there is none (the parser
    then says so). A hook must never fail the session: whatever goes wrong (a bad setting, a
    broken or locked data dir) prints nothing, exits 0 and leaves the reason in the log."""
    from memtui import dirs
    from memtui.engine import hookline

    if event not in hookline.EVENTS:
        return False
    raw = sys.stdin.read(hookline.MAX_INPUT)
    try:
        text = hookline.ask(dirs.asked_data_dir(os.environ), event, raw, os.environ)
    except Exception:  # a data dir that cannot be found, say: the work below logs why
        text = None
    if text is None:
        text = _here(event, raw)
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # no one reads: nothing to say, and no traceback at exit
        from memtui.cli import drop_stdout

        drop_stdout()
    return True


def _here(event: str, raw: str) -> str:
    """The hook's text, worked out in this process."""
    from memtui import config
    from memtui.engine import hookline

    config.setup_logging(config.log_dir())
    return hookline.said(event, raw, os.environ)
