"""What each entry point loads: `memtui mcp` must answer initialize before the heavy parts."""

from __future__ import annotations

import json
import subprocess
import sys


def loaded(code: str, names: tuple[str, ...]) -> list[str]:
    probe = (
        f"import json, sys; {code}; print(json.dumps([m for m in {names!r} if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


HEAVY = ("numpy", "tantivy", "hnswlib", "model2vec", "memtui.engine.memory")


def test_the_mcp_server_loads_the_engine_only_when_a_tool_needs_it() -> None:
    code = "import memtui.mcp.stdio, memtui.mcp.http, memtui.mcp.history"
    assert loaded(code, HEAVY) == []


def test_the_engines_data_types_are_light() -> None:
    assert loaded("from memtui.engine import SearchResponse, Stats, MemtuiError", HEAVY) == []
    assert loaded("from memtui.engine import Memory", HEAVY) != []
