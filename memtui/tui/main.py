"""`memtui` with no command: open the TUI on the user's archive, or on the demo archive."""

from __future__ import annotations

import shutil
import sys

from memtui import config
from memtui.engine import Memory
from memtui.tui import demo as demo_archive
from memtui.tui.app import MCP_PORT, STOP_WAIT, MemtuiApp

SAY_STOPPING_AFTER = 0.3  # seconds of waiting for the index before the terminal says so


def run(*, demo: bool = False, mcp_port: int | None = MCP_PORT) -> None:
    """`mcp_port` None: no MCP server in the TUI."""
    cfg = config.load()
    config.setup_logging(cfg.log_dir)
    while True:
        run_cfg, scratch = demo_archive.prepare(cfg) if demo else (cfg, None)
        try:
            result = _run_once(run_cfg, demo, mcp_port)
        finally:
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)
        if result == "demo" and not demo:  # the empty screen offered the demo, and was taken
            demo = True
            continue
        if result == "leave-demo" and demo:  # back to the person's own archive
            demo = False
            continue
        return


def _run_once(cfg: config.Config, demo: bool, mcp_port: int | None) -> str | None:
    with Memory(cfg) as memory:
        app = MemtuiApp(memory, demo=demo, mcp_port=mcp_port)
        try:
            return app.run()
        finally:
            # However the app ended, the writer stops between batches before the store closes.
            app.stop.set()
            if not app.upkeep_done.wait(SAY_STOPPING_AFTER):
                print("memtui: stopping the index at its next batch…", file=sys.stderr)
                app.upkeep_done.wait(STOP_WAIT)
