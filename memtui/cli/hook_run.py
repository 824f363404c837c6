"""Running one of Claude Code's hooks. A session waits for them, so `main` runs one before it
builds the parser, and this module loads no more than the hook needs: SQLite and Tantivy,
never argparse, numpy, the vectors, the model, MCP or Textual. engine/recall.py and
engine/hook.py decide what a hook says; this only reads stdin and prints."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping

from memtui import config

Say = Callable[[config.Config, Mapping[str, object]], str]


def _said_by(event: str) -> Say | None:
    if event == "session-start":
        from memtui.engine import hook

        return hook.session_start
    if event in ("prompt", "tool"):
        from memtui.engine import recall

        return recall.prompt if event == "prompt" else recall.tool
    return None


def run(event: str) -> bool:
    """Run the hook for `event` (`memtui hook EVENT`); False when there is none (the parser
    then says so). A hook must never fail the session: whatever goes wrong (a bad setting, a
    broken or locked data dir) prints nothing, exits 0 and leaves the reason in the log."""
    say = _said_by(event)
    if say is None:
        return False
    import logging

    from memtui.engine import recall

    config.setup_logging(config.log_dir())
    try:
        text = say(config.load(), recall.payload(sys.stdin.read(recall.MAX_INPUT)))
    except Exception:
        logging.getLogger("memtui.hook").exception("%s hook printed nothing", event)
        return True
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # no one reads: nothing to say, and no traceback at exit
        from memtui.cli import drop_stdout

        drop_stdout()
    return True
