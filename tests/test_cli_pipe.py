"""A reader that goes away (`memtui search ... | head -1`): every printing command exits 141
quietly, as `cat` does (issue 18, item 10)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from memtui.config import Config
from memtui.engine import Memory
from tests.mcp_data import CHECKOUT, build
from tests.test_mcp_stdio import ROOT, server_env


@pytest.mark.parametrize(
    "argv", [["search", "token"], ["search", "token", "--json"], ["show", CHECKOUT[:8]]]
)
def test_a_closed_pipe_exits_141_without_a_traceback(
    cfg: Config, memory: Memory, argv: list[str]
) -> None:
    build(cfg.claude_dir)
    memory.upkeep.ingest(cfg.claude_dir)
    memory.close()
    proc = subprocess.Popen(
        [sys.executable, "-m", "memtui", *argv],
        cwd=ROOT,
        env=server_env(cfg),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # gone before the first line is written
    assert proc.wait(60) == 141, proc.stderr.read()
    assert proc.stderr.read() == b""
