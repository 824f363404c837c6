"""The work index: what each session read, changed and ran, the errors it hit and what made
them go away, derived from the stored messages; its lookups for the tool hook; recall_work."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.types import TextContent

from memtui.config import Config
from memtui.engine import InvalidArgument, Memory
from memtui.engine import work as work_lookup
from memtui.mcp.engine import Engine
from memtui.mcp.server import build_server
from memtui.store import db
from tests.cli_run import memtui, one_line_error
from tests.work_data import (
    AGENT,
    ASKED_A1,
    ASKED_B,
    EXPECTED,
    EXPECTED_D,
    EXPECTED_E,
    EXPIRED,
    OTHER,
    PYTEST,
    SHOP,
    A,
    B,
    C,
    D,
    E,
    before_work,
    path_of,
    session_a,
    session_d,
    session_e,
    write_all,
)

ROWS = """
    SELECT w.agent_id, w.kind, w.target, w.command, w.failed, w.exit_code, w.error, p.text,
           f.target
    FROM work w LEFT JOIN messages p ON p.id = w.prompt_id
    LEFT JOIN work f ON f.session_id = w.session_id AND f.idx = w.fixed_idx AND f.n = w.fixed_n
    WHERE w.session_id = ? ORDER BY w.agent_id IS NOT NULL, w.idx, w.n"""


def rows(cfg: Config, session: str) -> list[tuple]:
    conn = sqlite3.connect(cfg.db_path)
    try:
        return [tuple(r) for r in conn.execute(ROWS, (session,))]
    finally:
        conn.close()


@pytest.fixture
def labelled(memory: Memory, claude_dir: Path) -> Memory:
    write_all(claude_dir)
    memory.upkeep.ingest(claude_dir, index=False)
    return memory


def test_the_work_index_holds_what_each_labelled_session_did(labelled: Memory, cfg: Config):
    for session, expected in EXPECTED.items():
        assert rows(cfg, session) == expected, session


def test_files_lists_the_conversations_newest_first_with_their_request(labelled: Memory):
    found = labelled.work.files("src/auth/jwt.py", cwd=SHOP)
    assert found.path == "src/auth/jwt.py"
    assert [(c.session_id, c.did, c.request) for c in found.conversations] == [
        (B, ["edit"], ASKED_B),
        (A, ["read", "edit"], ASKED_A1),
    ]
    b, a = found.conversations
    assert b.date.startswith("2026-11-09") and a.date.startswith("2026-11-01")
    assert a.project == SHOP and a.title == ASKED_A1
    # An absolute path finds its project; a file's name alone finds it anywhere.
    for path, cwd in ((f"{SHOP}/src/auth/jwt.py", None), ("jwt.py", None), ("jwt.py", SHOP)):
        assert [c.session_id for c in labelled.work.files(path, cwd=cwd).conversations] == [B, A]
    assert [
        c.session_id for c in labelled.work.files("src/auth/jwt.py", limit=1).conversations
    ] == [B]
    # A rejected edit neither read nor changed the file.
    assert labelled.work.files("src/app.py", cwd=SHOP).conversations == []
    assert [c.did for c in labelled.work.files("/etc/hosts").conversations] == [["read"]]
    assert labelled.work.files("src/auth/jwt.py", cwd=OTHER).conversations == []
    assert labelled.work.files("nowhere.py").conversations == []
    # Claude Code started in a folder of the project: its project's (it found nothing).
    for path, cwd in (("auth/jwt.py", f"{SHOP}/src"), ("src/auth/jwt.py", f"{SHOP}/src/..")):
        assert [c.session_id for c in labelled.work.files(path, cwd=cwd).conversations] == [B, A]


def test_fixes_say_what_ran_after_an_error_and_whether_it_came_back(labelled: Memory):
    pasted = f"Traceback (most recent call last):\n  File 'x.py'\njwt.exceptions.{EXPIRED}"
    found = labelled.work.fixes(pasted)
    assert found.error == EXPIRED
    assert [(f.session_id, f.fixed, f.came_back) for f in found.fixes] == [
        (B, True, False),
        (A, True, True),
    ]
    b, a = found.fixes
    assert a.command == PYTEST and a.exit_code == 1
    assert EXPIRED in a.error_line
    assert a.steps == ["edit src/auth/jwt.py"]
    assert a.passed == f"cd {SHOP} && {PYTEST}"
    assert b.steps == ["edit src/auth/jwt.py"] and b.passed == f"{PYTEST} 2>&1 | tail -20"
    assert "came back" in a.line() and "came back" not in b.line()
    assert [f.session_id for f in labelled.work.fixes(EXPIRED, cwd=SHOP).fixes] == [B, A]
    assert labelled.work.fixes(EXPIRED, cwd=OTHER).fixes == []
    assert [f.session_id for f in labelled.work.fixes(EXPIRED, cwd=f"{SHOP}/src").fixes] == [B, A]
    npm = labelled.work.fixes("Error: Cannot find module 'lodash'").fixes
    assert [(f.session_id, f.steps, f.passed) for f in npm] == [
        (C, ["run npm install left-pad"], "npm test")
    ]
    make = labelled.work.fixes("make: *** [build] Error 2").fixes
    assert [(f.session_id, f.fixed, f.exit_code) for f in make] == [(C, False, 2)]
    assert labelled.work.fixes("ZeroDivisionError: division by zero").fixes == []
    # Only the message, as a person copies it from a log line: the same fixes.
    message = EXPIRED.split(": ", 1)[1]
    assert [f.session_id for f in labelled.work.fixes(message).fixes] == [B, A]
    assert labelled.work.fixes("has expired").fixes == []  # a fragment is not the message


def test_the_hook_lookups_name_the_past_and_are_silent_without_one(labelled: Memory, cfg):
    conn = db.read_only(cfg.db_path, 50)
    try:
        jwt = f"{SHOP}/src/auth/jwt.py"
        changed = work_lookup.changed_before(conn, SHOP, jwt)
        assert [c.session_id for c in changed] == [B, A]
        assert ASKED_B in changed[0].line() and B[:8] in changed[0].line()
        assert [c.session_id for c in work_lookup.changed_before(conn, SHOP, jwt, B)] == [A]
        assert [c.session_id for c in work_lookup.changed_before(conn, SHOP, "CHANGELOG.md")] == [A]
        for silent in (f"{SHOP}/src/new.py", f"{SHOP}/src/app.py", "/etc/hosts"):
            assert work_lookup.changed_before(conn, SHOP, silent) == [], silent
        assert work_lookup.changed_before(conn, OTHER, jwt) == []
        assert work_lookup.changed_before(conn, "/nowhere", jwt) == []

        failed = work_lookup.failed_before(
            conn, SHOP, f"cd {SHOP} &&  pytest  tests/test_auth.py -x"
        )
        assert [f.session_id for f in failed] == [B, A]
        line = failed[1].line()
        assert EXPIRED in line and "jwt.py" in line and "came back" in line
        assert [f.session_id for f in work_lookup.failed_before(conn, SHOP, PYTEST, B)] == [A]
        for silent in ("git status", "npm test", "pytest"):
            assert work_lookup.failed_before(conn, SHOP, silent) == [], silent
        assert [f.session_id for f in work_lookup.failed_before(conn, OTHER, "npm test")] == [C]
    finally:
        conn.close()


def test_the_hook_lookups_load_no_heavy_part(labelled: Memory, cfg: Config) -> None:
    code = (
        "import sys\n"
        "from memtui.store import db\n"
        "from memtui.engine import work\n"
        f"conn = db.read_only(__import__('pathlib').Path({str(cfg.db_path)!r}), 50)\n"
        f"assert work.changed_before(conn, {SHOP!r}, 'src/auth/jwt.py')\n"
        f"assert work.failed_before(conn, {SHOP!r}, {PYTEST!r})\n"
        "heavy = {'numpy', 'tantivy', 'hnswlib', 'model2vec', 'mcp', 'textual'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stderr


def test_the_hook_lookups_are_single_indexed_queries(labelled: Memory, cfg: Config) -> None:
    conn = sqlite3.connect(cfg.db_path)
    said: list[str] = []
    conn.set_trace_callback(said.append)
    try:
        assert work_lookup.changed_before(conn, SHOP, "src/auth/jwt.py")
        assert work_lookup.failed_before(conn, SHOP, PYTEST)
        conn.set_trace_callback(None)
        assert len(said) == 2  # one statement each
        for sql in said:
            plan = " / ".join(r[3] for r in conn.execute(f"EXPLAIN QUERY PLAN {sql}"))
            assert "SCAN w " not in plan and "SCAN work" not in plan, plan
            assert "INDEX work_files" in plan or "INDEX work_failures" in plan, plan
    finally:
        conn.close()


def test_a_growing_session_extends_its_work(memory: Memory, claude_dir: Path, cfg: Config):
    a = session_a()
    path = path_of(claude_dir, a)
    path.parent.mkdir(parents=True)
    main = [r for r in EXPECTED[A] if r[0] != AGENT]
    # The first part ends on a call whose result is not written yet; the second inside one
    # API message (its second line, and both results, come later).
    path.write_bytes(a.jsonl(0, 4))
    memory.upkeep.ingest(claude_dir, index=False)
    assert rows(cfg, A) == [
        main[0],
        (None, "run", PYTEST, PYTEST, None, None, None, ASKED_A1, None),
    ]
    with path.open("ab") as f:
        f.write(a.jsonl(4, 12))
    memory.upkeep.ingest(claude_dir, index=False)
    assert rows(cfg, A)[:4] == main[:4]
    assert rows(cfg, A)[4] == (
        None,
        "write",
        "CHANGELOG.md",
        None,
        None,
        None,
        None,
        main[4][7],
        None,
    )
    with path.open("ab") as f:
        f.write(a.jsonl(12))
    memory.upkeep.ingest(claude_dir, index=False)
    assert rows(cfg, A) == main


def test_an_archive_from_before_the_work_index_gets_one_without_its_transcripts(
    cfg: Config, claude_dir: Path
) -> None:
    """Schema 7 kept neither the tool ids nor is_error: the work is read from the text, once,
    on the first start, with the transcripts long gone."""
    write_all(claude_dir)
    with Memory(cfg) as memory:
        memory.upkeep.ingest(claude_dir, index=False)
    conn = sqlite3.connect(cfg.db_path)
    before_work(conn)
    conn.execute("PRAGMA user_version = 7")
    conn.commit()
    conn.close()
    shutil.rmtree(claude_dir)
    with Memory(cfg, upgrade=False) as memory:
        assert memory.unfinished()
        memory.finish_interrupted()
        assert not memory.unfinished()
        assert [c.session_id for c in memory.work.files("src/auth/jwt.py", SHOP).conversations] == [
            B,
            A,
        ]
    # Paired by order and judged by the text ("Exit code 1", a refusal): the same as with the
    # ids and is_error where results come in order (C's do not, and its npm failure was
    # written without an exit code: it is only known where is_error was stored).
    assert rows(cfg, A) == EXPECTED[A]
    assert rows(cfg, B) == EXPECTED[B]


def test_an_archive_from_before_pairs_past_unanswered_calls_and_keeps_shown_errors_apart(
    cfg: Config, claude_dir: Path
) -> None:
    """Paired by order, an edit that was interrupted (no result) no longer takes the next
    call's result, and so on down the session; a command that shows an error (a log's
    traceback) without an exit code passed. Read from the text, the work is what the ids and
    is_error say it is."""
    for session in (session_d(), session_e()):
        path = path_of(claude_dir, session)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(session.jsonl())
    with Memory(cfg) as memory:
        memory.upkeep.ingest(claude_dir, index=False)
    assert (rows(cfg, D), rows(cfg, E)) == (EXPECTED_D, EXPECTED_E)
    conn = sqlite3.connect(cfg.db_path)
    before_work(conn)
    conn.execute("PRAGMA user_version = 7")
    conn.commit()
    conn.close()
    with Memory(cfg, upgrade=False) as memory:
        memory.finish_interrupted()
    assert (rows(cfg, D), rows(cfg, E)) == (EXPECTED_D, EXPECTED_E)


def test_forget_takes_the_sessions_work_with_it(labelled: Memory, cfg: Config) -> None:
    labelled.forget(session_id=A, confirmed=True)
    assert rows(cfg, A) == []
    assert rows(cfg, B) == EXPECTED[B]
    assert [c.session_id for c in labelled.work.files("src/auth/jwt.py", SHOP).conversations] == [B]
    assert [(f.session_id, f.came_back) for f in labelled.work.fixes(EXPIRED).fixes] == [(B, False)]
    labelled.forget(project=OTHER, confirmed=True)
    assert rows(cfg, C) == []


def test_reindex_and_doctor_rebuild_the_work_index(labelled: Memory, cfg: Config) -> None:
    conn = sqlite3.connect(cfg.db_path)
    conn.execute("DELETE FROM work WHERE session_id = ?", (B,))
    conn.execute(
        "INSERT INTO work (session_id, idx, n, message_id, project_id, epoch, kind, target) "
        "VALUES ('gone', 1, 0, 999999, 1, 0, 'read', 'x.py')"
    )
    conn.commit()
    conn.close()
    report = labelled.upkeep.doctor()
    missing, extra = report.differences["work"]
    assert missing and extra == {999999} and not report.ok
    assert labelled.upkeep.doctor(repair=True).ok
    assert rows(cfg, B) == EXPECTED[B] and rows(cfg, "gone") == []
    conn = sqlite3.connect(cfg.db_path)
    conn.execute("DELETE FROM work")
    conn.commit()
    conn.close()
    assert labelled.upkeep.reindex()
    for session, expected in EXPECTED.items():
        assert rows(cfg, session) == expected, session


@pytest.mark.parametrize(
    ("call", "args"),
    [
        ("files", {"path": ""}),
        ("files", {"path": "x" * 1_001}),
        ("files", {"path": "a.py", "cwd": "relative/dir"}),
        ("files", {"path": "a.py", "limit": 0}),
        ("fixes", {"error": " "}),
        ("fixes", {"error": "x" * 50_001}),
        ("fixes", {"error": "KeyError: 'a'", "limit": 51}),
    ],
)
def test_bad_arguments_are_refused(labelled: Memory, call: str, args: dict) -> None:
    with pytest.raises(InvalidArgument):
        getattr(labelled.work, call)(**args)


# -- the CLI: memtui files, memtui fixes ------------------------------------------------------


def test_files_and_fixes_from_the_shell(labelled: Memory, cfg: Config) -> None:
    """The one end-to-end run of both commands (a process each: kept to a few)."""
    args = ("files", "jwt.py", "--project", "shop-api", "--limit", "1", "--json")
    found = json.loads(memtui(cfg, *args).stdout)
    assert found == {
        "path": "jwt.py",
        "conversations": [
            {
                "session_id": B,
                "title": ASKED_B,
                "project": SHOP,
                "date": "2026-11-09T10:00:04+00:00",
                "did": ["edit"],
                "request": ASKED_B,
            }
        ],
    }
    fixes = memtui(cfg, "fixes", *EXPIRED.split(), "--project", SHOP).stdout  # words unquoted
    lines = fixes.splitlines()
    assert lines[:3] == [
        f"2026-11-09 10:00  {B}  {SHOP}",
        f"    {ASKED_B}",
        f"    `{PYTEST}` failed (exit 1): E jwt.exceptions.{EXPIRED}",
    ]
    assert lines[-2:] == [f"    `cd {SHOP} && {PYTEST}` passed", "    the error came back later"]
    none = memtui(cfg, "fixes", "ZeroDivisionError: division by zero", "--json")
    assert json.loads(none.stdout) == {"error": "ZeroDivisionError: division by zero", "fixes": []}
    said = memtui(cfg, "fixes", "ZeroDivisionError: division by zero").stderr
    assert said.startswith("no command failed with 'ZeroDivisionError: division by zero' before")
    assert "memtui search may find it" in said
    nowhere = memtui(cfg, "files", "nowhere.py")
    assert nowhere.returncode == 0 and nowhere.stdout == ""
    assert nowhere.stderr == "no conversation read or changed nowhere.py\n"
    unknown = memtui(cfg, "files", "a.py", "--project", "no-such-project")
    assert one_line_error(unknown) and unknown.stderr.startswith("memtui: NOT_FOUND: ")


# -- recall_work over MCP, through the real client ---------------------------------------------


def _text(result) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def test_recall_work_over_mcp(labelled: Memory) -> None:
    server = build_server(Engine(memory=labelled))
    async with Client(server, mode="legacy") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert list(tools["recall_work"].input_schema["properties"]) == [
            "path",
            "error",
            "cwd",
            "limit",
        ]
        assert tools["recall_work"].annotations.read_only_hint is True
        found = await client.call_tool("recall_work", {"path": "src/auth/jwt.py", "cwd": SHOP})
        assert not found.is_error, _text(found)
        data = found.structured_content
        assert [c["session_id"] for c in data["conversations"]] == [B, A]
        assert data["conversations"][1]["request"] == ASKED_A1 and data["fixes"] == []
        found = await client.call_tool("recall_work", {"error": EXPIRED, "limit": 1})
        data = found.structured_content
        assert data["error"] == EXPIRED and [f["session_id"] for f in data["fixes"]] == [B]
        assert data["fixes"][0]["steps"] == ["edit src/auth/jwt.py"]
        for bad in ({}, {"path": "a.py", "error": "KeyError"}, {"path": "a.py", "cwd": "rel"}):
            result = await client.call_tool("recall_work", bad)
            assert result.is_error and _text(result).startswith("INVALID_ARGUMENT: "), bad
