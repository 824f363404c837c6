"""Hand-labelled sessions for the work index: what each did is known line by line.

Session A (shop-api, Nov 1) reads jwt.py, runs the auth tests (they fail with
ExpiredSignatureError), edits jwt.py, runs them again from `cd … &&` (they pass: the fix),
then writes CHANGELOG.md and reads /etc/hosts in one message (results out of order) and
has an edit of app.py rejected; a subagent of it reads jwt.py. Session B (shop-api, Nov 9)
hits the same error again (A's fix came back), fixes it with a MultiEdit and a run piped
through tail. Session C (other project, Nov 5) fails `npm test` without an exit code (as
Claude Code 1.x wrote), fixes it with an install, and runs `make build` beside a Read whose
result comes first: only the tool ids pair the failure with make.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

SHOP, OTHER = "/home/dev/shop-api", "/home/dev/other"
A = "aaaaaaaa-0000-4000-8000-00000000000a"
B = "bbbbbbbb-0000-4000-8000-00000000000b"
C = "cccccccc-0000-4000-8000-00000000000c"
AGENT = "a1b2c3d"
EXPIRED = "ExpiredSignatureError: Signature has expired"
PYTEST_FAIL = (
    "Exit code 1\n"
    "============================= test session starts ==============================\n"
    "collected 12 items\n\ntests/test_auth.py ....F\n\n"
    "    def test_refresh():\n>       assert refresh(token)\n"
    "E       jwt.exceptions.ExpiredSignatureError: Signature has expired\n\n"
    "FAILED tests/test_auth.py::test_refresh - jwt.exceptions.ExpiredSignatureError: "
    "Signature has expired\n1 failed, 11 passed in 0.41s"
)
REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
    "it was a file edit, the new_string was NOT written to the file). STOP what you are "
    "doing and wait for the user to tell you how to proceed."
)


def _record(
    kind: str, uuid: str, session: str, ts: str, cwd: str, message: dict, agent: str | None
) -> dict:
    record = {
        "type": kind,
        "uuid": uuid,
        "parentUuid": None,
        "sessionId": session,
        "cwd": cwd,
        "timestamp": ts,
        "isSidechain": agent is not None,
        "message": message,
        "version": "2.1.39",
    }
    if agent is not None:
        record["agentId"] = agent
    return record


class Session:
    """Builds one transcript's lines; times tick a second a line from `start`."""

    def __init__(self, session: str, cwd: str, day: str, agent: str | None = None) -> None:
        self.session, self.cwd, self.day, self.agent = session, cwd, day, agent
        self.lines: list[dict] = []
        self.tick = 0

    def _ts(self) -> str:
        self.tick += 1
        return f"{self.day}T10:{self.tick // 60:02d}:{self.tick % 60:02d}.000Z"

    def _uuid(self) -> str:
        return f"{self.session[:8]}-{self.agent or 'm'}-{len(self.lines):03d}"

    def prompt(self, text: str) -> Session:
        message = {"role": "user", "content": text}
        self.lines.append(
            _record("user", self._uuid(), self.session, self._ts(), self.cwd, message, self.agent)
        )
        return self

    def call(self, api_id: str, tool_id: str, name: str, **tool_input: object) -> Session:
        block = {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}
        message = {"id": api_id, "role": "assistant", "content": [block]}
        self.lines.append(
            _record(
                "assistant", self._uuid(), self.session, self._ts(), self.cwd, message, self.agent
            )
        )
        return self

    def result(self, tool_id: str, content: str, is_error: bool | None = None) -> Session:
        block: dict = {"type": "tool_result", "tool_use_id": tool_id, "content": content}
        if is_error is not None:
            block["is_error"] = is_error
        message = {"role": "user", "content": [block]}
        record = _record("user", self._uuid(), self.session, self._ts(), self.cwd, message, None)
        record["isSidechain"] = self.agent is not None
        if self.agent is not None:
            record["agentId"] = self.agent
        self.lines.append(record)
        return self

    def text(self, api_id: str, words: str) -> Session:
        message = {"id": api_id, "role": "assistant", "content": [{"type": "text", "text": words}]}
        self.lines.append(
            _record(
                "assistant", self._uuid(), self.session, self._ts(), self.cwd, message, self.agent
            )
        )
        return self

    def jsonl(self, start: int = 0, end: int | None = None) -> bytes:
        return b"".join(json.dumps(r).encode() + b"\n" for r in self.lines[start:end])


def session_a() -> Session:
    jwt = f"{SHOP}/src/auth/jwt.py"
    return (
        Session(A, SHOP, "2026-11-01")
        .prompt("The refresh token test fails, please fix it")
        .call("msg_a1", "toolu_a1", "Read", file_path=jwt)
        .result("toolu_a1", "     1\u2192import jwt\n     2\u2192\n     3\u2192def refresh(t):")
        .call("msg_a2", "toolu_a2", "Bash", command="pytest tests/test_auth.py -x")
        .result("toolu_a2", PYTEST_FAIL, is_error=True)
        .call("msg_a3", "toolu_a3", "Edit", file_path=jwt, old_string="a", new_string="b")
        .result("toolu_a3", f"The file {jwt} has been updated.", is_error=False)
        .call("msg_a4", "toolu_a4", "Bash", command=f"cd {SHOP} && pytest tests/test_auth.py -x")
        .result("toolu_a4", "12 passed in 0.40s", is_error=False)
        .text("msg_a4b", "The auth tests pass now.")
        .prompt("Now note it in the changelog")
        # One API message, two lines; the results come back in the other order.
        .call("msg_a5", "toolu_a5", "Write", file_path=f"{SHOP}/CHANGELOG.md", content="x")
        .call("msg_a5", "toolu_a6", "Read", file_path="/etc/hosts")
        .result("toolu_a6", "     1\u2192127.0.0.1 localhost\n     2\u2192::1 localhost")
        .result("toolu_a5", f"File created successfully at: {SHOP}/CHANGELOG.md")
        .call("msg_a7", "toolu_a7", "Edit", file_path=f"{SHOP}/src/app.py", old_string="x")
        .result("toolu_a7", REJECTED, is_error=True)
    )


def subagent_a() -> Session:
    return (
        Session(A, SHOP, "2026-11-01", agent=AGENT)
        .prompt("Find where the refresh token is decoded")
        .call("msg_s1", "toolu_s1", "Read", file_path=f"{SHOP}/src/auth/jwt.py")
        .result("toolu_s1", "     1\u2192import jwt")
        .text("msg_s2", "It is decoded in jwt.py.")
    )


def session_b() -> Session:
    return (
        Session(B, SHOP, "2026-11-09")
        .prompt("Auth tests fail again after the merge")
        .call("msg_b1", "toolu_b1", "Bash", command="pytest tests/test_auth.py -x")
        .result("toolu_b1", PYTEST_FAIL, is_error=True)
        .call("msg_b2", "toolu_b2", "MultiEdit", file_path=f"{SHOP}/src/auth/jwt.py", edits=[])
        .result("toolu_b2", "Applied 2 edits to src/auth/jwt.py", is_error=False)
        .call("msg_b3", "toolu_b3", "Bash", command="pytest tests/test_auth.py -x 2>&1 | tail -20")
        .result("toolu_b3", "12 passed in 0.38s", is_error=False)
        .text("msg_b4", "Fixed again.")
    )


def session_c() -> Session:
    return (
        Session(C, OTHER, "2026-11-05")
        .prompt("run the tests")
        .call("msg_c1", "toolu_c1", "Bash", command="npm test")
        .result("toolu_c1", "Error: Cannot find module 'left-pad'\nRequire stack:", is_error=True)
        .call("msg_c2", "toolu_c2", "Bash", command="npm install left-pad")
        .result("toolu_c2", "added 1 package in 2s", is_error=False)
        .call("msg_c3", "toolu_c3", "Bash", command="npm test")
        .result("toolu_c3", "Tests: 4 passed", is_error=False)
        .prompt("and build it")
        .call("msg_c4", "toolu_c4", "Bash", command="make build")
        .call("msg_c4", "toolu_c5", "Read", file_path=f"{OTHER}/Makefile")
        .result("toolu_c5", "     1\u2192build:\n     2\u2192\tcc -o app app.c")
        .result("toolu_c4", "Exit code 2\nmake: *** [build] Error 2", is_error=True)
    )


D = "dddddddd-0000-4000-8000-00000000000d"
ASKED_D = "the app does not start"
NOT_FOUND = "<tool_use_error>String to replace not found in file.</tool_use_error>"


def session_d() -> Session:
    """An edit interrupted before it ran (no result), then a refused one and a command."""
    app = f"{OTHER}/app.py"
    return (
        Session(D, OTHER, "2026-11-06")
        .prompt(ASKED_D)
        .call("msg_d1", "toolu_d1", "Edit", file_path=app, old_string="a", new_string="b")
        .call("msg_d2", "toolu_d2", "Edit", file_path=app, old_string="c", new_string="d")
        .result("toolu_d2", NOT_FOUND, is_error=True)
        .call("msg_d3", "toolu_d3", "Bash", command="pip install pyyaml")
        .result("toolu_d3", "Successfully installed pyyaml-6.0.2", is_error=False)
    )


EXPECTED_D = [
    (None, "edit", "app.py", None, None, None, None, ASKED_D, None),
    (None, "edit", "app.py", None, 1, None, None, ASKED_D, None),
    (None, "run", "pip install pyyaml", "pip install pyyaml", 0, None, None, ASKED_D, None),
]


E = "eeeeeeee-0000-4000-8000-00000000000e"
ASKED_E = "why does the server crash"
SERVER_LOG = "Traceback (most recent call last):\n  File \"serve.py\", line 9\nKeyError: 'user'"


def session_e() -> Session:
    """As 2.x writes it: a failure opens with its exit code, so a command that shows an
    error (a log's traceback) without one passed."""
    return (
        Session(E, OTHER, "2026-11-07")
        .prompt(ASKED_E)
        .call("msg_e1", "toolu_e1", "Bash", command="tail -3 server.log")
        .result("toolu_e1", SERVER_LOG, is_error=False)
        .call("msg_e2", "toolu_e2", "Bash", command="make")
        .result("toolu_e2", "Exit code 2\nmake: *** [all] Error 2", is_error=True)
    )


EXPECTED_E = [
    (None, "run", "tail -3 server.log", "tail -3 server.log", 0, None, None, ASKED_E, None),
    (None, "run", "make", "make", 1, 2, "make: *** [all] Error <n>", ASKED_E, None),
]


def path_of(claude_dir: Path, session: Session) -> Path:
    folder = claude_dir / session.cwd.replace("/", "-")
    if session.agent is not None:
        return folder / session.session / "subagents" / f"agent-{session.agent}.jsonl"
    return folder / f"{session.session}.jsonl"


def write_all(claude_dir: Path) -> None:
    for session in (session_a(), subagent_a(), session_b(), session_c()):
        path = path_of(claude_dir, session)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(session.jsonl())


# What the work index must hold for each: (agent, kind, target, command, failed, exit code,
# error, the request, and for a failed run the target of the run that passed after it).
ASKED_A1 = "The refresh token test fails, please fix it"
ASKED_A2 = "Now note it in the changelog"
ASKED_SUB = "Find where the refresh token is decoded"
ASKED_B = "Auth tests fail again after the merge"
ASKED_C1, ASKED_C2 = "run the tests", "and build it"
PYTEST = "pytest tests/test_auth.py -x"
INSTALL = "npm install left-pad"
EXPECTED = {
    A: [
        (None, "read", "src/auth/jwt.py", None, 0, None, None, ASKED_A1, None),
        (None, "run", PYTEST, PYTEST, 1, 1, EXPIRED, ASKED_A1, f"cd {SHOP} && {PYTEST}"),
        (None, "edit", "src/auth/jwt.py", None, 0, None, None, ASKED_A1, None),
        (None, "run", f"cd {SHOP} && {PYTEST}", PYTEST, 0, None, None, ASKED_A1, None),
        (None, "write", "CHANGELOG.md", None, 0, None, None, ASKED_A2, None),
        (None, "read", "/etc/hosts", None, 0, None, None, ASKED_A2, None),
        (None, "edit", "src/app.py", None, 1, None, None, ASKED_A2, None),
        (AGENT, "read", "src/auth/jwt.py", None, 0, None, None, ASKED_SUB, None),
    ],
    B: [
        (None, "run", PYTEST, PYTEST, 1, 1, EXPIRED, ASKED_B, f"{PYTEST} 2>&1 | tail -20"),
        (None, "edit", "src/auth/jwt.py", None, 0, None, None, ASKED_B, None),
        (None, "run", f"{PYTEST} 2>&1 | tail -20", PYTEST, 0, None, None, ASKED_B, None),
    ],
    C: [
        (
            None,
            "run",
            "npm test",
            "npm test",
            1,
            None,
            "Error: Cannot find module <name>",
            ASKED_C1,
            "npm test",
        ),
        (
            None,
            "run",
            "npm install left-pad",
            "npm install left-pad",
            0,
            None,
            None,
            ASKED_C1,
            None,
        ),
        (None, "run", "npm test", "npm test", 0, None, None, ASKED_C1, None),
        (
            None,
            "run",
            "make build",
            "make build",
            1,
            2,
            "make: *** [build] Error <n>",
            ASKED_C2,
            None,
        ),
        (None, "read", "Makefile", None, 0, None, None, ASKED_C2, None),
    ],
}


def before_work(conn: sqlite3.Connection) -> None:
    """Take a store back to what schema 7 had: no work index, no tool ids, no is_error, no
    agent of a session, no signal patterns."""
    if "pattern" in {row[1] for row in conn.execute("PRAGMA table_info(signals)")}:
        conn.execute("ALTER TABLE signals DROP COLUMN pattern")
    conn.execute("ALTER TABLE sessions DROP COLUMN agent")
    conn.execute("DROP TABLE IF EXISTS work")
    conn.execute("ALTER TABLE messages DROP COLUMN tool_ids")
    conn.execute("ALTER TABLE messages DROP COLUMN is_error")
    conn.execute("DELETE FROM meta WHERE key = 'work_seq'")
