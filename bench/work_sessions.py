"""Sessions made to test the work index where it is hard: files changed again and again across
sessions and projects, commands that fail and get fixed, in the shapes real transcripts take.

    python bench/work_sessions.py OUT --sessions 300 [--seed 0]

What makes it hard (each on purpose, each at a known rate):
- the same relative files in every project (a past in one is no past in another);
- commands run again as `cd DIR && cmd`, `cmd 2>&1 | tail -30`, with stray spaces;
- failures with an exit code (Claude Code 2.x) and without (1.x wrote only the output);
- parallel calls whose results come back out of order (a Bash beside a Read);
- edits the person refused, edits that failed ("String to replace not found");
- calls with no result (interrupted), subagents doing work of their own, paths with `..`;
- errors of many kinds: tracebacks, pytest's FAILED, rustc's error[E…], npm ERR!, make's
  `Error 2`, `fatal:` lines, a command not found.

Seed 0 is what the index was tuned on; others are held back.
"""

from __future__ import annotations

import argparse
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

PROJECTS = ("/home/dev/shop-api", "/home/dev/crawler", "/srv/infra", "/home/dev/web")
MODULES = ("auth", "orders", "billing", "search", "users", "admin", "reports", "mail")
# Files and commands are many, so a past is the exception it is in a real project's life.
FILES = (
    *(f"src/{m}/models.py" for m in MODULES),
    *(f"src/{m}/views.py" for m in MODULES),
    *(f"tests/{m}/test_api.py" for m in MODULES),
    *("README.md", "pyproject.toml", "web/src/App.tsx", "Makefile", "scripts/deploy.sh"),
)
FAILURES = {
    "pytest tests/{m}/test_api.py -x": (
        "FAILED tests/{m}/test_api.py::test_create - KeyError: '{m}_{n}'\n1 failed",
        "E       sqlalchemy.exc.OperationalError: no such table: {m}\n1 failed",
    ),
    "pytest -q": ("ModuleNotFoundError: No module named 'pydantic_settings'",),
    "npm test": ("npm ERR! code ELIFECYCLE\nnpm ERR! errno 1",),
    "npm run build": ("src/App.tsx(12,5): error TS2322: Type 'string' is not assignable",),
    "cargo test -p {m}": ("error[E0502]: cannot borrow `v` as mutable\nerror: could not compile",),
    "make build": ("cc -o app app.c\nmake: *** [build] Error {n}",),
    "git push": ("fatal: The current branch feature-{n} has no upstream branch.",),
    "alembic upgrade head": ("FAILED: Can't locate revision identified by 'a1b2c{n}'",),
    "kubectl apply -f k8s/{m}.yaml": ('error: error validating "k8s/{m}.yaml": missing field',),
    "deploy-tool --prod": ("bash: deploy-tool: command not found",),
    "ruff check src/{m}": ("src/{m}/views.py:{n}:1: F401 `os` imported but unused",),
    "mypy src/{m}": ("src/{m}/models.py:{n}: error: Incompatible return value type",),
}
START = datetime(2025, 6, 1, tzinfo=UTC)
NOT_FOUND = "<tool_use_error>String to replace not found in file.</tool_use_error>"
PASSES = ("ok", "All checks passed!", "12 passed in 0.4{n}s", "Build succeeded", "done")
REFUSED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
    "it was a file edit, the new_string was NOT written to the file). STOP what you are doing "
    "and wait for the user to tell you how to proceed."
)


class _Writer:
    """One session's lines (and a subagent's), with ids and times that only go forward."""

    def __init__(self, rng: random.Random, session: str, cwd: str, day: int, old: bool) -> None:
        self.rng, self.session, self.cwd, self.old = rng, session, cwd, old
        self.clock = day * 86_400 + rng.randrange(30_000)
        self.lines: dict[str | None, list[dict]] = {None: []}
        self.count = 0

    def _record(self, kind: str, message: dict, agent: str | None) -> dict:
        self.clock += self.rng.randrange(1, 40)
        self.count += 1
        when = START + timedelta(seconds=self.clock)
        record = {
            "type": kind,
            "uuid": f"{self.session[:8]}-{self.count:05d}",
            "sessionId": self.session,
            "cwd": self.cwd,
            "timestamp": when.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "isSidechain": agent is not None,
            "version": "1.0.61" if self.old else "2.1.39",
            "message": message,
        }
        if agent is not None:
            record["agentId"] = agent
        self.lines.setdefault(agent, []).append(record)
        return record

    def prompt(self, text: str, agent: str | None = None) -> None:
        self._record("user", {"role": "user", "content": text}, agent)

    def calls(self, calls: list[tuple[str, dict]], agent: str | None = None) -> list[str]:
        """One API message of tool calls, a line each; returns their ids."""
        api, ids = f"msg_{self.session[:6]}_{self.count}", []
        for name, tool_input in calls:
            ids.append(f"toolu_{self.session[:6]}_{self.count}")
            block = {"type": "tool_use", "id": ids[-1], "name": name, "input": tool_input}
            self._record("assistant", {"id": api, "role": "assistant", "content": [block]}, agent)
        return ids

    def result(self, tool_id: str, text: str, error: bool, agent: str | None = None) -> None:
        block = {"type": "tool_result", "tool_use_id": tool_id, "content": text}
        if error or self.rng.random() < 0.5:
            block["is_error"] = error
        self._record("user", {"role": "user", "content": [block]}, agent)

    def write(self, root: Path) -> None:
        folder = root / "".join(c if c.isalnum() else "-" for c in self.cwd)
        for agent, lines in self.lines.items():
            if not lines:
                continue
            path = folder / (
                f"{self.session}.jsonl"
                if agent is None
                else f"{self.session}/subagents/agent-{agent}.jsonl"
            )
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(json.dumps(r) + "\n" for r in lines))


def _variant(rng: random.Random, cwd: str, command: str) -> str:
    r = rng.random()
    if r < 0.2:
        return f"cd {cwd} && {command}"
    if r < 0.35:
        return f"{command} 2>&1 | tail -30"
    if r < 0.45:
        return command.replace(" ", "  ", 1)
    return command


def _path(rng: random.Random, cwd: str, name: str) -> str:
    if rng.random() < 0.05:
        return f"{cwd}/src/../{name}"
    return f"{cwd}/{name}"


def _command(rng: random.Random) -> tuple[str, str]:
    """A command (its template filled with a module) and the module."""
    m = rng.choice(MODULES)
    return rng.choice(list(FAILURES)).format(m=m), m


def _failure(rng: random.Random, command: str, m: str) -> str:
    template = next(t for t in FAILURES if t.format(m=m) == command)
    return rng.choice(FAILURES[template]).format(m=m, n=rng.randrange(2, 9))


def _run(w: _Writer, command: str, m: str, fails: bool, agent: str | None = None) -> None:
    """A Bash call and its result (alone in its message)."""
    (tool_id,) = w.calls([("Bash", {"command": _variant(w.rng, w.cwd, command)})], agent)
    if not fails:
        w.result(tool_id, w.rng.choice(PASSES).format(n=w.rng.randrange(9)), False, agent)
        return
    text = _failure(w.rng, command, m)
    w.result(tool_id, text if w.old else f"Exit code {w.rng.choice((1, 2))}\n{text}", True, agent)


def _edit(w: _Writer, name: str, agent: str | None = None) -> None:
    tool = w.rng.choice(("Edit", "Edit", "MultiEdit", "Write"))
    (tool_id,) = w.calls([(tool, {"file_path": _path(w.rng, w.cwd, name)})], agent)
    r = w.rng.random()
    if r < 0.05:
        w.result(tool_id, REFUSED, True, agent)
    elif r < 0.1:
        w.result(tool_id, NOT_FOUND, True, agent)
    elif r < 0.13:
        return  # interrupted: no result ever written
    else:
        w.result(tool_id, f"The file {w.cwd}/{name} has been updated.", False, agent)


def _session(w: _Writer) -> None:
    rng = w.rng
    for _ in range(rng.randint(1, 3)):
        w.prompt(rng.choice(("fix the failing tests", "add the endpoint", "tidy the build")))
        for _ in range(rng.randint(2, 7)):
            r = rng.random()
            command, m = _command(rng)
            if r < 0.25:  # fail, change something, run again
                _run(w, command, m, True)
                _edit(w, rng.choice(FILES))
                _run(w, command, m, rng.random() < 0.25)
            elif r < 0.45:
                _edit(w, rng.choice(FILES))
            elif r < 0.6:
                _run(w, command, m, rng.random() < 0.15)
            elif r < 0.75:  # a Bash beside a Read, its result maybe second
                read = ("Read", {"file_path": f"{w.cwd}/{rng.choice(FILES)}"})
                bash = ("Bash", {"command": _variant(rng, w.cwd, command)})
                run_id, read_id = w.calls([bash, read])
                fails = rng.random() < 0.3
                text = _failure(rng, command, m) if fails else "ok"
                text = text if w.old or not fails else f"Exit code 1\n{text}"
                order = [(read_id, "     1\u2192x", False), (run_id, text, fails)]
                for tool_id, out, error in order if rng.random() < 0.5 else order[::-1]:
                    w.result(tool_id, out, error)
            elif r < 0.85:  # a subagent's own work
                agent = f"{rng.getrandbits(28):07x}"
                w.prompt("look into it and fix what you find", agent)
                _edit(w, rng.choice(FILES), agent)
                _run(w, command, m, rng.random() < 0.3, agent)
            else:
                (tool_id,) = w.calls([("Read", {"file_path": f"{w.cwd}/{rng.choice(FILES)}"})])
                w.result(tool_id, "     1\u2192x", False)


def write_sessions(root: Path, sessions: int, seed: int) -> None:
    rng = random.Random(seed)
    for n in range(sessions):
        session = f"{rng.getrandbits(32):08x}-0000-4000-8000-{seed:04d}{n:08d}"
        w = _Writer(rng, session, rng.choice(PROJECTS), n, old=rng.random() < 0.2)
        _session(w)
        w.write(root)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--sessions", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    write_sessions(args.out, args.sessions, args.seed)


if __name__ == "__main__":
    main()
