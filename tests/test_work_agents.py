"""The work index sees every agent's file and command tools (issue 28 on issue 27's index):
Codex's shell and apply_patch, Gemini CLI's run_shell_command and replace, Copilot CLI's view
and bash, each with its own way of giving a command's exit code. One archive of the three,
written from each format's fixture helpers and read through the real pipeline."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from memtui.config import Config
from memtui.engine.memory import Memory
from memtui.store import db
from tests.agents import codex_files as cx
from tests.agents import copilot_files as cp
from tests.agents import gemini_files as gm
from tests.agents import opencode_files as oc
from tests.fake_agent import only

MISSING = "ModuleNotFoundError: No module named 'redis'"
CODEX = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
OPENCODE = "ses_checkout"


def codex_rollout(home: Path) -> None:
    """A shell run that fails (Codex's text form: `Exit code: 1` and its header), a patch,
    the same run passing."""
    clock = cx.Clock()
    test = {"command": ["bash", "-lc", "pytest -q tests/test_cache.py"]}
    patch = "*** Begin Patch\n*** Update File: requirements.txt\n@@\n+redis\n*** End Patch"
    lines = [
        *cx.opening(clock, CODEX),
        *cx.prompt(clock, "the cache tests fail on import"),
        cx.function_call(clock, "shell", test, "c1"),
        cx.function_output(
            clock, "c1", f"Exit code: 1\nWall time: 0.4 seconds\nOutput:\nE   {MISSING}\n"
        ),
        cx.line(
            clock,
            "response_item",
            {"type": "custom_tool_call", "call_id": "c2", "name": "apply_patch", "input": patch},
        ),
        cx.line(
            clock,
            "response_item",
            {"type": "custom_tool_call_output", "call_id": "c2", "output": "Success."},
        ),
        cx.function_call(clock, "shell", test, "c3"),
        cx.function_output(clock, "c3", "Exit code: 0\nWall time: 1.1 seconds\nOutput:\n3 passed"),
        *cx.answer(clock, "redis was missing from requirements.txt"),
    ]
    cx.write(cx.rollout_path(home, CODEX), lines)


def gemini_session(home: Path) -> None:
    """run_shell_command reports success with `Exit Code: 1` among its labelled lines; a
    replace; the run again, passing."""
    run = {"command": "python -m app"}
    failing = (
        f"Command: python -m app\nDirectory: (root)\nOutput: {MISSING}\nError: (none)\n"
        "Exit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 4242"
    )
    passing = "Command: python -m app\nDirectory: (root)\nOutput: ok\nError: (none)"
    calls = [
        gm.tool_call("g-run-1", "run_shell_command", run, failing),
        gm.tool_call(
            "g-edit", "replace", {"file_path": f"{gm.PROJECT}/src/app.py"}, "Successfully modified"
        ),
        gm.tool_call("g-run-2", "run_shell_command", run, passing),
    ]
    messages = [
        gm.user("g-u1", "the app does not start", 1),
        gm.gemini("g-g1", "", 5, calls=calls),
        gm.gemini("g-g2", "It imports redis, which is not installed.", 45),
    ]
    chats = home / "tmp" / gm.SLUG / "chats"
    gm.append(chats / "session-2026-11-02T09-00-dddd4444.jsonl", gm.jsonl("dddd4444-s", messages))
    (home / "projects.json").write_text(f'{{"projects": {{"{gm.PROJECT}": "{gm.SLUG}"}}}}')
    (home / "tmp" / gm.SLUG / ".project_root").write_text(gm.PROJECT)


def copilot_session(home: Path) -> None:
    folder = home / "session-state" / cp.SESSION
    cp.workspace(folder)
    cp.append(folder / "events.jsonl", cp.lines(cp.conversation("p")))


def opencode_session(home: Path) -> None:
    """An edit, and a bash run that printed `1 failed` (OpenCode keeps its exit code where the
    reader does not look: the run has no outcome)."""
    ids = oc.Ids()
    s = oc.Session(OPENCODE, "/work/shop", "Checkout rounding", updated=oc.T0 + 60_000)
    asked = oc.user(ids, s, oc.T0 + 1000, oc.text("round the checkout total"))
    edit = oc.tool("edit", "t1", {"filePath": "/work/shop/checkout.py"}, "completed", oc.T0 + 2000)
    run = {"command": "pytest tests/test_checkout.py"}
    test = oc.tool("bash", "t2", run, "completed", oc.T0 + 3000, "1 failed")
    oc.assistant(ids, s, oc.T0 + 2000, asked, edit, test)
    conn = oc.open_db(home)
    oc.write_db(conn, s)
    conn.close()


@pytest.fixture(scope="module")
def agents(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    root = tmp_path_factory.mktemp("work-agents")
    codex_rollout(root / "codex")
    gemini_session(root / "gemini")
    copilot_session(root / "copilot")
    opencode_session(root / "opencode")
    environ = only(
        CLAUDE="off",
        CODEX=str(root / "codex"),
        GEMINI=str(root / "gemini"),
        COPILOT=str(root / "copilot"),
        OPENCODE=str(root / "opencode"),
    )
    with Memory(Config(root / "data", root / "projects", root / "logs", environ=environ)) as memory:
        memory.upkeep.ingest(index=False)
        yield memory


def sessions(found: list) -> list[str]:
    return [f.session_id for f in found]


def test_files_finds_what_each_agent_read_or_changed(agents: Memory) -> None:
    patched = agents.work.files("requirements.txt", cwd=cx.PROJECT).conversations
    assert [(c.session_id, c.did) for c in patched] == [(CODEX, ["edit"])]
    replaced = agents.work.files("src/app.py", cwd=gm.PROJECT).conversations
    assert [(c.session_id, c.did) for c in replaced] == [("dddd4444-s", ["edit"])]
    viewed = agents.work.files("ledger/total.py", cwd=cp.PROJECT).conversations
    assert [(c.session_id, c.did) for c in viewed] == [(cp.SESSION, ["read"])]
    edited = agents.work.files("checkout.py", cwd="/work/shop").conversations
    assert [(c.session_id, c.did) for c in edited] == [(OPENCODE, ["edit"])]


def test_fixes_finds_each_agents_failed_command_and_what_fixed_it(agents: Memory) -> None:
    found = agents.work.fixes(MISSING).fixes
    by_session = {f.session_id: f for f in found}
    assert set(by_session) == {CODEX, "dddd4444-s"}
    codex, gemini = by_session[CODEX], by_session["dddd4444-s"]
    assert (codex.exit_code, codex.fixed, codex.command) == (
        1,
        True,
        "pytest -q tests/test_cache.py",
    )
    assert MISSING in codex.error_line and "Exit code" not in codex.error_line
    assert (gemini.exit_code, gemini.fixed, gemini.command) == (1, True, "python -m app")
    assert gemini.error_line == MISSING
    failed = agents.work.fixes("AssertionError: 10.01 != 10.0").fixes
    assert [(f.session_id, f.command) for f in failed] == [
        (cp.SESSION, "pytest -q tests/test_total.py")
    ]


def test_an_archive_from_before_derives_the_other_agents_work_again(tmp_path: Path) -> None:
    """Stored with the index that knew Claude Code's tools alone: no rows for Codex's calls,
    and the mark past them. The migration reads every message again."""
    codex_rollout(tmp_path / "codex")
    environ = only(CLAUDE="off", CODEX=str(tmp_path / "codex"))
    cfg = Config(tmp_path / "data", tmp_path / "projects", tmp_path / "logs", environ=environ)
    with Memory(cfg) as memory:
        memory.upkeep.ingest(index=False)
    conn = sqlite3.connect(cfg.db_path)
    conn.execute("DELETE FROM work")
    conn.execute(
        "UPDATE meta SET value = (SELECT value FROM meta WHERE key = 'seq') WHERE key = 'work_seq'"
    )
    conn.execute("ALTER TABLE signals DROP COLUMN pattern")  # a later migration's
    again = next(i for i, m in enumerate(db.MIGRATIONS) if "DELETE FROM work" in m)
    conn.execute(f"PRAGMA user_version = {again}")
    conn.commit()
    conn.close()
    with Memory(cfg, upgrade=False) as memory:
        assert memory.unfinished()
        memory.finish_interrupted()
        found = memory.work.files("requirements.txt", cwd=cx.PROJECT).conversations
        assert [c.session_id for c in found] == [CODEX]
