"""`memtui hook tool` as Claude Code runs it before an Edit, Write, MultiEdit or Bash call:
a process, the PreToolUse JSON on stdin, its context as hookSpecificOutput on stdout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memtui.config import Config
from memtui.engine import Memory
from memtui.engine.quoting import count_tokens
from tests.work_data import EXPIRED, OTHER, PYTEST, SHOP, A, B, C, write_all

JWT = f"{SHOP}/src/auth/jwt.py"


def event(tool: str, session: str = "now-1", cwd: str = SHOP, **given: object) -> dict:
    return {
        "session_id": session,
        "transcript_path": f"/home/dev/.claude/projects/-home-dev-shop-api/{session}.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": given,
        "tool_use_id": "toolu_01ABC",
    }


def told(cfg: Config, data: dict, **env: str) -> str:
    """What the hook added to Claude's context ("" when it said nothing)."""
    done = subprocess.run(
        [sys.executable, "-m", "memtui", "hook", "tool"],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "MEMTUI_DATA_DIR": str(cfg.data_dir), **env},
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    if not done.stdout:
        return ""
    out = json.loads(done.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse"
    return out["additionalContext"]


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Config:
    """tests/work_data.py's hand-labelled sessions, stored (the hook reads SQLite alone)."""
    root = tmp_path_factory.mktemp("tool")
    write_all(root / "claude")
    cfg = Config(data_dir=root / "data", claude_dir=root / "claude", log_dir=root / "logs")
    with Memory(cfg) as memory:
        memory.upkeep.ingest(cfg.claude_dir, index=False)
    return cfg


def test_before_an_edit_the_conversations_that_changed_the_file(archive: Config) -> None:
    said = told(archive, event("Edit", "s-edit", file_path=JWT, old_string="a", new_string="b"))
    assert said.startswith("memtui: earlier conversations changed src/auth/jwt.py"), said
    assert "(a record, not instructions)" in said and "```" in said
    assert said.index(B[:8]) < said.index(A[:8])  # newest first
    assert "Auth tests fail again after the merge" in said
    # Once per file a session, whichever tool changes it.
    assert told(archive, event("MultiEdit", "s-edit", file_path=JWT, edits=[])) == ""
    assert told(archive, event("Write", "s-edit2", file_path=JWT, content="x"))
    # Never the session's own work: B asks, A alone is named.
    own = told(archive, event("Edit", B, file_path=JWT))
    assert A[:8] in own and B[:8] not in own


def test_before_a_command_that_failed_its_error_and_what_passed(archive: Config) -> None:
    said = told(archive, event("Bash", "s-run", command=f"cd {SHOP} && {PYTEST} 2>&1 | tail -5"))
    assert "failed in earlier conversations" in said and EXPIRED in said
    assert f"`{PYTEST}` failed (exit 1)" in said and "passed" in said
    assert told(archive, event("Bash", "s-run", command=PYTEST)) == ""  # once a session
    # Another project's failure is not this project's past.
    assert told(archive, event("Bash", "s-npm", command="npm test")) == ""
    assert "Cannot find module" in told(archive, event("Bash", "s-npm", OTHER, command="npm test"))
    assert C[:8] in told(archive, event("Bash", "s-make", OTHER, command="make build"))


@pytest.mark.parametrize(
    "data",
    [
        event("Edit", "s-new", file_path=f"{SHOP}/src/new.py"),
        event("Write", "s-new", file_path=f"{SHOP}/src/app.py"),  # its edit was rejected
        event("Bash", "s-new", command="ls -la"),
        event("Bash", "s-new", command="pytest tests/test_auth.py -x", cwd="/home/dev/elsewhere"),
        event("Read", "s-new", file_path=JWT),
        event("Edit", "s-new", file_path=""),
        {**event("Bash", "s-new"), "tool_input": "pytest"},
    ],
)
def test_silent_without_a_past(archive: Config, data: dict) -> None:
    assert told(archive, data) == ""


def test_memtui_recall_and_a_broken_data_dir_keep_it_quiet(archive: Config, tmp_path: Path) -> None:
    # One that speaks, logged: the module's archive is shared, and this test may run alone.
    assert told(archive, event("Edit", "s-logged", file_path=JWT))
    data = event("Edit", "s-quiet", file_path=JWT)
    assert told(archive, data, MEMTUI_RECALL="session,prompt") == ""
    broken = Config(tmp_path / "broken", archive.claude_dir, tmp_path / "logs")
    broken.data_dir.mkdir()
    broken.db_path.write_bytes(b"this is not a database" * 100)
    assert told(broken, data) == ""
    logged = json.loads(
        subprocess.run(
            [sys.executable, "-m", "memtui", "recalls", "--json"],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "MEMTUI_DATA_DIR": str(archive.data_dir)},
            check=True,
        ).stdout
    )
    assert {r["hook"] for r in logged} == {"tool"} and "s-quiet" not in str(logged)


def test_the_hook_loads_sqlite_alone(archive: Config) -> None:
    probe = (
        "import sys\n"
        "from memtui.cli import main\n"
        "sys.argv = ['memtui', 'hook', 'tool']\n"
        "main()\n"
        "heavy = ('numpy', 'tantivy', 'hnswlib', 'model2vec', 'memtui.engine.memory',\n"
        "         'memtui.mcp', 'memtui.engine.detect',\n"
        "         'memtui.ingest.parser', 'memtui.engine.notes_types', 'logging.handlers',\n"
        "         'argparse', 'memtui.engine.context', 'memtui.engine.types',\n"
        "         'memtui.engine.signal_types')\n"
        "print('LOADED', [m for m in heavy if m in sys.modules], file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        input=json.dumps(event("Edit", "s-lean", file_path=JWT)),
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "MEMTUI_DATA_DIR": str(archive.data_dir)},
    )
    assert B[:8] in done.stdout
    assert "LOADED []" in done.stderr, done.stderr


def test_after_a_compaction_the_session_start_gives_back_its_own_work(archive: Config) -> None:
    """SessionStart with source "compact": the files this session changed (a rejected edit
    is no change) and the commands it ran with their outcome, within the budget."""
    start = {**event("Edit", A), "hook_event_name": "SessionStart", "source": "compact"}
    del start["tool_name"], start["tool_input"], start["tool_use_id"]
    done = subprocess.run(
        [sys.executable, "-m", "memtui", "hook", "session-start"],
        input=json.dumps(start),
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "MEMTUI_DATA_DIR": str(archive.data_dir)},
    )
    out = done.stdout
    own = out.split("## This session's work before the compaction")[1].split("```")[1]
    assert own.splitlines()[1:] == [
        f"ran {PYTEST} (failed, exit 1)",
        "edited src/auth/jwt.py",
        f"ran cd {SHOP} && {PYTEST}",
        "wrote CHANGELOG.md",
    ], out
    assert count_tokens(out) <= 1_500
    startup = subprocess.run(
        [sys.executable, "-m", "memtui", "hook", "session-start"],
        input=json.dumps({**start, "source": "startup"}),
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "MEMTUI_DATA_DIR": str(archive.data_dir)},
    ).stdout
    assert "This session's work" not in startup
