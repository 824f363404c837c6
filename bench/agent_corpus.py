"""The conversations of a `corpus.py` tree written again in each other agent's own format, so
that every reader is measured on the same content (issue 28).

    python bench/agent_corpus.py PROJECTS OUT [--agent codex|gemini|opencode|copilot|all]

A Claude Code file becomes one conversation: its prompts, its assistant API messages (the
lines that share a `message.id` joined: text, thinking, tool calls) and each call's result
(text, is_error). Meta lines, compaction summaries, progress and system lines and broken lines
are left out; a subagent's file is a session of its own. Each writer follows the shapes of the
fixtures in tests/agents/*_files.py (which cite the agents' sources) without importing them:

- Codex: `sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`, session_meta and the injected
  context first, each prompt and answer a response_item and again an event_msg, reasoning,
  function_call with its JSON arguments, function_call_output;
- Gemini CLI: `tmp/<slug>/chats/session-<time>-<id8>.jsonl` (`projects.json` and
  `.project_root` name the project), a metadata line, an answer with tool calls written first
  without them and again by id with them and their results, the results again as a user turn,
  a `$set` after each message;
- OpenCode: one `opencode.db`: session, message and part rows (step-start, reasoning, text,
  tool parts completed or failed with their output, step-finish);
- Copilot CLI: `session-state/<id>/events.jsonl` and `workspace.yaml`: session.start,
  user.message (content and transformedContent), assistant.message with its tool requests,
  tool.execution_start / tool.execution_complete, session.shutdown.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sqlite3
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from common import text_of

AGENTS = ("codex", "gemini", "opencode", "copilot")


@dataclass(slots=True)
class Call:
    id: str
    name: str
    input: dict[str, Any]
    output: str | None = None
    is_error: bool = False


@dataclass(slots=True)
class Turn:
    role: str  # user (a typed prompt) or assistant (one API message)
    id: str
    ts: str
    text: str = ""
    thinking: str = ""
    calls: list[Call] = field(default_factory=list)


@dataclass(slots=True)
class Conversation:
    session_id: str
    claude_session: str  # the sessionId in the Claude Code file (a subagent's: its parent's)
    cwd: str
    branch: str
    turns: list[Turn]

    @property
    def messages(self) -> int:
        return len(self.turns)


def read_claude(path: Path) -> Conversation | None:
    """One Claude Code file as a conversation; None when it holds no message."""
    turns: list[Turn] = []
    calls: dict[str, Call] = {}
    cwd = branch = session = ""
    for raw in path.open("rb"):
        try:
            rec = json.loads(raw)
        except ValueError:
            continue
        kind = rec.get("type") if isinstance(rec, dict) else None
        if kind not in ("user", "assistant") or not isinstance(rec.get("message"), dict):
            continue
        cwd = cwd or rec.get("cwd") or ""
        branch = branch or rec.get("gitBranch") or ""
        session = session or rec.get("sessionId") or ""
        content = rec["message"].get("content")
        if kind == "user":
            if rec.get("isMeta") or rec.get("isCompactSummary"):
                continue
            blocks = content if isinstance(content, list) else []
            results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
            for block in results:
                call = calls.get(block.get("tool_use_id", ""))
                if call is not None:
                    call.output = text_of(block.get("content"))
                    call.is_error = bool(block.get("is_error"))
            if not results:
                turns.append(Turn("user", rec.get("uuid", ""), rec["timestamp"], text_of(content)))
            continue
        msg_id = rec["message"].get("id", rec.get("uuid", ""))
        if not (turns and turns[-1].role == "assistant" and turns[-1].id == msg_id):
            turns.append(Turn("assistant", msg_id, rec["timestamp"]))
        turn = turns[-1]
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "text":
                turn.text = f"{turn.text}\n\n{block['text']}" if turn.text else block["text"]
            elif block.get("type") == "thinking":
                turn.thinking += block.get("thinking", "")
            elif block.get("type") == "tool_use":
                call = Call(block["id"], block["name"], block.get("input") or {})
                calls[call.id] = call
                turn.calls.append(call)
    if not turns:
        return None
    # A subagent's file shares its parent's sessionId: another agent would give it its own.
    own = session
    if path.stem != session:
        own = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{session}/{path.stem}"))
    return Conversation(own, session, cwd, branch, turns)


def conversations(projects: Path) -> Iterator[tuple[Path, Conversation]]:
    """Every file of a corpus tree (sorted, so that every run splits it alike) with its
    conversation."""
    for path in sorted(projects.rglob("*.jsonl")):
        conv = read_claude(path)
        if conv is not None:
            yield path, conv


def _ms(ts: str) -> int:
    return int(datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() * 1000)


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


# -- Codex -------------------------------------------------------------------------------------


def _codex_args(call: Call) -> tuple[str, dict[str, Any]]:
    if call.name == "Bash":
        return "shell", {"command": ["bash", "-lc", call.input.get("command", "")]}
    return call.name, call.input


def write_codex(root: Path, conv: Conversation) -> None:
    start = conv.turns[0].ts
    when = datetime.fromisoformat(start.replace("Z", "+00:00"))
    folder = root / "sessions" / when.strftime("%Y/%m/%d")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"rollout-{when.strftime('%Y-%m-%dT%H-%M-%S')}-{conv.session_id}.jsonl"
    out: list[str] = []

    def line(ts: str, kind: str, payload: dict[str, Any]) -> None:
        out.append(_dumps({"timestamp": ts, "type": kind, "payload": payload}))

    def message(ts: str, role: str, text: str) -> None:
        part = "output_text" if role == "assistant" else "input_text"
        body = {"type": "message", "role": role, "content": [{"type": part, "text": text}]}
        line(ts, "response_item", body)

    meta = {
        "id": conv.session_id,
        "timestamp": start,
        "cwd": conv.cwd,
        "originator": "codex_cli_rs",
        "cli_version": "0.171.0",
        "source": "cli",
        "model_provider": "openai",
        "git": {"branch": conv.branch, "commit_hash": "3f2a9c1d0e8b7a6f5e4d3c2b1a09f8e7d6c5b4a3"},
    }
    line(start, "session_meta", meta)
    message(start, "developer", "<permissions instructions>workspace-write</permissions>")
    message(
        start, "user", f"<environment_context>\n  <cwd>{conv.cwd}</cwd>\n</environment_context>"
    )
    for turn in conv.turns:
        if turn.role == "user":
            line(turn.ts, "turn_context", {"cwd": conv.cwd, "model": "gpt-5-codex"})
            message(turn.ts, "user", turn.text)
            line(turn.ts, "event_msg", {"type": "user_message", "message": turn.text})
            continue
        if turn.thinking:
            summary = [{"type": "summary_text", "text": turn.thinking}]
            line(turn.ts, "response_item", {"type": "reasoning", "summary": summary})
            line(turn.ts, "event_msg", {"type": "agent_reasoning", "text": turn.thinking})
        if turn.text:
            message(turn.ts, "assistant", turn.text)
            line(turn.ts, "event_msg", {"type": "agent_message", "message": turn.text})
        for call in turn.calls:
            name, args = _codex_args(call)
            body = {"type": "function_call", "name": name, "arguments": _dumps(args)}
            line(turn.ts, "response_item", {**body, "call_id": call.id})
        for call in turn.calls:
            if call.output is not None:
                output = f"Exit code: {int(call.is_error)}\nOutput:\n{call.output}"
                body = {"type": "function_call_output", "call_id": call.id, "output": output}
                line(turn.ts, "response_item", body)
    path.write_text("\n".join(out) + "\n")


# -- Gemini CLI --------------------------------------------------------------------------------


def _slug(cwd: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", cwd.lower()).strip("-")


def write_gemini(root: Path, conv: Conversation) -> None:
    slug = _slug(conv.cwd)
    project = root / "tmp" / slug
    chats = project / "chats"
    if not chats.is_dir():
        chats.mkdir(parents=True)
        (project / ".project_root").write_text(conv.cwd)
    start = conv.turns[0].ts
    stamp = start[:16].replace(":", "-")
    path = chats / f"session-{stamp}-{conv.session_id[:8]}.jsonl"
    first = {
        "sessionId": conv.session_id,
        "projectHash": hashlib.sha256(conv.cwd.encode()).hexdigest(),
        "startTime": start,
        "lastUpdated": conv.turns[-1].ts,
    }
    out = [_dumps(first)]
    for turn in conv.turns:
        if turn.role == "user":
            msg: dict[str, Any] = {"id": turn.id, "timestamp": turn.ts, "type": "user"}
            msg["content"] = [{"text": turn.text}]
            out.append(_dumps(msg))
        else:
            msg = {"id": turn.id, "timestamp": turn.ts, "type": "gemini", "content": turn.text}
            if turn.thinking:
                thought = {"subject": "", "description": turn.thinking, "timestamp": turn.ts}
                msg["thoughts"] = [thought]
            msg["tokens"] = {"input": 812, "output": 64, "cached": 0, "total": 876}
            msg["model"] = "gemini-2.5-pro"
            out.append(_dumps(msg))
            if turn.calls:
                calls = [_gemini_call(call, turn.ts) for call in turn.calls]
                out.append(_dumps({**msg, "toolCalls": calls}))
                parts = [part for call in calls for part in call.get("result", [])]
                back = {"id": f"{turn.id}-r", "timestamp": turn.ts, "type": "user"}
                out.append(_dumps({**back, "content": parts}))
        out.append(_dumps({"$set": {"lastUpdated": turn.ts}}))
    path.write_text("\n".join(out) + "\n")


def _gemini_call(call: Call, ts: str) -> dict[str, Any]:
    status = "error" if call.is_error else "success"
    body: dict[str, Any] = {"id": call.id, "name": call.name, "args": call.input}
    body.update(status=status, timestamp=ts, displayName=call.name)
    if call.output is not None:
        key = "error" if call.is_error else "output"
        reply = {"id": call.id, "name": call.name, "response": {key: call.output}}
        body["result"] = [{"functionResponse": reply}]
        body["resultDisplay"] = call.output
    return body


def finish_gemini(root: Path) -> None:
    """projects.json, written once every project folder exists."""
    mapping = {
        marker.read_text(): marker.parent.name for marker in root.glob("tmp/*/.project_root")
    }
    (root / "projects.json").write_text(json.dumps({"projects": mapping}, indent=2))


# -- OpenCode ----------------------------------------------------------------------------------

OPENCODE_SCHEMA = """
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, workspace_id TEXT,
  parent_id TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL, path TEXT, title TEXT NOT NULL,
  version TEXT NOT NULL, share_url TEXT, cost REAL NOT NULL DEFAULT 0,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, time_compacting INTEGER,
  time_archived INTEGER);
CREATE INDEX session_parent_idx ON session (parent_id);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL
  REFERENCES session(id) ON DELETE CASCADE, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL
  REFERENCES message(id) ON DELETE CASCADE, session_id TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
"""


class OpenCodeDb:
    """opencode.db as OpenCode writes it (WAL; ids a prefix and hex that grows with time)."""

    def __init__(self, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(root / "opencode.db", isolation_level=None)
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.executescript(OPENCODE_SCHEMA)
        self.conn.execute("BEGIN")
        self.conn.execute("INSERT INTO project VALUES ('global', '/', 0, 0)")
        self.n = 0

    def id(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}_{self.n:012x}" + "Zq" * 7

    def write(self, conv: Conversation) -> None:
        sid = self.id("ses")
        first, last = _ms(conv.turns[0].ts), _ms(conv.turns[-1].ts)
        title = conv.turns[0].text[:60] if conv.turns[0].role == "user" else "New session"
        self.conn.execute(
            "INSERT INTO session (id, project_id, slug, directory, title, version, time_created,"
            " time_updated) VALUES (?, 'global', 'slug', ?, ?, '1.0.0', ?, ?)",
            (sid, conv.cwd, title, first, last),
        )
        parent = ""
        for turn in conv.turns:
            at = _ms(turn.ts)
            mid = self.id("msg")
            parts: list[dict[str, Any]]
            if turn.role == "user":
                parent = mid
                info: dict[str, Any] = {"role": "user", "time": {"created": at}, "agent": "build"}
                parts = [{"type": "text", "text": turn.text}]
            else:
                info = {
                    "role": "assistant",
                    "time": {"created": at, "completed": at + 900},
                    "parentID": parent,
                    "modelID": "claude-sonnet-4",
                    "providerID": "anthropic",
                    "mode": "build",
                    "path": {"cwd": conv.cwd, "root": conv.cwd},
                    "cost": 0.01,
                    "tokens": {"input": 10, "output": 20, "reasoning": 0},
                    "finish": "stop",
                }
                parts = [{"type": "step-start"}]
                if turn.thinking:
                    parts.append({"type": "reasoning", "text": turn.thinking})
                if turn.text:
                    parts.append({"type": "text", "text": turn.text, "time": {"start": at}})
                parts += [_opencode_tool(call, at) for call in turn.calls]
                parts.append({"type": "step-finish", "reason": "stop", "cost": 0.01})
            self.conn.execute(
                "INSERT INTO message VALUES (?, ?, ?, ?, ?)", (mid, sid, at, at, _dumps(info))
            )
            self.conn.executemany(
                "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                [(self.id("prt"), mid, sid, at, at, _dumps(p)) for p in parts],
            )

    def close(self) -> None:
        self.conn.execute("COMMIT")
        self.conn.close()


def _opencode_tool(call: Call, at: int) -> dict[str, Any]:
    name = call.name.lower()
    times = {"start": at, "end": at + 300}
    if call.is_error:
        state = {"status": "error", "input": call.input, "error": call.output, "time": times}
    else:
        state = {
            "status": "completed",
            "input": call.input,
            "output": call.output or "",
            "title": name,
            "metadata": {},
            "time": times,
        }
    return {"type": "tool", "callID": call.id, "tool": name, "state": state}


# -- Copilot CLI -------------------------------------------------------------------------------


def write_copilot(root: Path, conv: Conversation) -> None:
    folder = root / "session-state" / conv.session_id
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "workspace.yaml").write_text(
        f"id: {conv.session_id}\ncwd: {conv.cwd}\ngit_root: {conv.cwd}\n"
        f"branch: {conv.branch}\nsummary_count: 0\n"
        f'created_at: "{conv.turns[0].ts}"\nupdated_at: "{conv.turns[-1].ts}"\n'
    )
    out: list[str] = []
    last: list[str | None] = [None]

    def event(kind: str, ts: str, data: dict[str, Any]) -> None:
        event_id = str(uuid.uuid5(uuid.NAMESPACE_OID, f"{conv.session_id}/{len(out)}"))
        out.append(
            _dumps({"type": kind, "data": data, "id": event_id, "timestamp": ts,
                    "parentId": last[0]})
        )  # fmt: skip
        last[0] = event_id

    start = conv.turns[0].ts
    context = {"cwd": conv.cwd, "gitRoot": conv.cwd, "branch": conv.branch}
    event(
        "session.start",
        start,
        {
            "sessionId": conv.session_id,
            "version": 1,
            "producer": "copilot-agent",
            "copilotVersion": "1.0.60",
            "startTime": start,
            "context": context,
        },
    )
    for n, turn in enumerate(conv.turns):
        if turn.role == "user":
            wrapped = f"<current_datetime>{turn.ts}</current_datetime>\n\n{turn.text}"
            data = {"content": turn.text, "transformedContent": wrapped, "attachments": []}
            event("user.message", turn.ts, {**data, "interactionId": f"i-{n}"})
            continue
        requests = [
            {"toolCallId": c.id, "name": c.name.lower(), "arguments": c.input, "type": "function"}
            for c in turn.calls
        ]
        data = {"messageId": turn.id, "content": turn.text, "toolRequests": requests}
        if turn.thinking:
            data["reasoningText"] = turn.thinking
        event("assistant.message", turn.ts, data)
        for c in turn.calls:
            started = {"toolCallId": c.id, "toolName": c.name.lower(), "arguments": c.input}
            event("tool.execution_start", turn.ts, started)
            if c.output is None:
                continue
            done: dict[str, Any] = {"toolCallId": c.id, "success": not c.is_error}
            done["result"] = {"content": c.output}
            if c.is_error:
                done["error"] = {"message": c.output[:200], "code": "failure"}
            event("tool.execution_complete", turn.ts, done)
    event("session.shutdown", conv.turns[-1].ts, {"shutdownType": "routine"})
    (folder / "events.jsonl").write_text("\n".join(out) + "\n")


# -- a whole tree ------------------------------------------------------------------------------


class Writers:
    """Each agent's writer under OUT/<agent>/, and what each was given."""

    def __init__(self, out: Path, agents: Iterable[str]) -> None:
        self.out = out
        self.messages = dict.fromkeys(agents, 0)
        self.sessions = dict.fromkeys(agents, 0)
        self.db = OpenCodeDb(out / "opencode") if "opencode" in self.messages else None
        plain: dict[str, Callable[[Path, Conversation], None]] = {
            "codex": write_codex,
            "gemini": write_gemini,
            "copilot": write_copilot,
        }
        self.plain = plain

    def write(self, agent: str, conv: Conversation) -> None:
        if agent == "opencode":
            assert self.db is not None
            self.db.write(conv)
        else:
            self.plain[agent](self.out / agent, conv)
        self.messages[agent] += conv.messages
        self.sessions[agent] += 1

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
        if "gemini" in self.messages:
            finish_gemini(self.out / "gemini")


def write_all(projects: Path, out: Path, agents: Iterable[str]) -> dict[str, dict[str, int]]:
    """Every conversation of the tree in each agent's format: OUT/<agent>/."""
    writers = Writers(out, agents)
    for _, conv in conversations(projects):
        for agent in writers.messages:
            writers.write(agent, conv)
    writers.close()
    return {a: {"messages": writers.messages[a], "sessions": writers.sessions[a]} for a in agents}


def split(projects: Path, out: Path) -> dict[str, dict[str, int]]:
    """The tree's sessions dealt round the five agents, one each in turn (a session's
    subagent files with it): Claude Code's share linked as they are under OUT/claude-code/,
    the others' written in their format."""
    writers = Writers(out, AGENTS)
    claude = {"messages": 0, "sessions": 0}
    dealt: dict[str, str] = {}
    for path, conv in conversations(projects):
        agent = dealt.setdefault(conv.claude_session, ("claude-code", *AGENTS)[len(dealt) % 5])
        if agent == "claude-code":
            target = out / agent / path.relative_to(projects)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.link(path, target)
            claude["messages"] += conv.messages
            claude["sessions"] += 1
        else:
            writers.write(agent, conv)
    writers.close()
    counts = {a: {"messages": writers.messages[a], "sessions": writers.sessions[a]} for a in AGENTS}
    return {"claude-code": claude, **counts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("projects", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--agent", choices=(*AGENTS, "all"), default="all")
    args = parser.parse_args()
    agents = AGENTS if args.agent == "all" else (args.agent,)
    print(json.dumps(write_all(args.projects, args.out, agents)))


if __name__ == "__main__":
    main()
