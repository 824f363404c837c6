"""`memtui hook EVENT`: Claude Code's hooks. A session waits for them, so `main` runs one
before it builds the parser (`run_early`), and this module loads no more than they need:
SQLite and the engine's data types, never numpy, an index, the model, MCP or Textual."""

from __future__ import annotations

import argparse
import sys

from memtui import config
from memtui.cli.base import Family

family = Family()
family.group("hook", "Claude Code hooks (see `memtui mcp --print-config`)", actions="EVENT")


@family.command("hook session-start", "print the project's context", store=False)
def session_start(args: argparse.Namespace) -> None:
    """A Claude Code hook must never fail the session: whatever goes wrong (a bad setting,
    a broken or locked data dir) prints nothing, exits 0 and leaves the reason in the log."""
    import logging

    from memtui.engine import hook

    config.setup_logging(config.log_dir())
    try:
        text = hook.session_start(config.load(), hook.payload(sys.stdin.read(hook.MAX_INPUT)))
    except Exception:
        logging.getLogger("memtui.hook").exception("session-start hook printed nothing")
        return
    sys.stdout.write(text)


def run_early(event: str) -> bool:
    """Run the hook for `event` (`memtui hook EVENT`, nothing more given); False when there
    is none (the parser then says so)."""
    for command in family.commands:
        if command.name == f"hook {event}" and command.run is not None:
            command.run(argparse.Namespace())
            return True
    return False
