"""GitHub Copilot CLI session files, written from the format's public description: no real
session is copied. Checked against the @github/copilot npm package:

- 1.0.60: schemas/session-events.schema.json and copilot-sdk/generated/session-events.d.ts
  (every event's fields: `session.start` data.context.cwd/branch, `user.message`
  content/transformedContent/source, `assistant.message` content/reasoningText/toolRequests,
  `tool.execution_complete` success/result.content/error, `session.compaction_complete`
  summaryContent, which events are ephemeral and never written); app.js (the workspace.yaml
  keys and its `stringify(..., {lineWidth: 0})`, `session-state/<id>/events.jsonl`, NUL-only
  lines skipped, COPILOT_HOME, the XDG_STATE_HOME migration, `--resume`, `copilot mcp add`).
- 0.0.400: index.js (the flat `session-state/<id>.jsonl` layout, `session.import_legacy`).
- 0.0.340: index.js (`history-session-state/session_<id>_<ms>.json`: sessionId, startTime,
  chatMessages, timeline entries user/copilot/info/error/tool_call_requested/
  tool_call_completed with id and timestamp).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SESSION = "5f0c2a4e-1b7d-4c3a-9e21-7a9d3c1b0e11"
PROJECT = "/home/dev/work/ledger"
BRANCH = "fix/rounding"
NAME = "Fix rounding in ledger totals"
VERSION = "1.0.60"
# Context the CLI wraps around a prompt before sending it: stored never, as the prompt is.
INJECTED = "<current_datetime>2026-11-20T10:00:00Z</current_datetime>"
MESSAGES = 10  # the messages of one conversation()


def ts(second: int) -> str:
    return f"2026-11-20T10:{second // 60:02d}:{second % 60:02d}.000Z"


class Events:
    """Builds one session's events, chained by parentId as the CLI writes them."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.count = 0
        self.last: str | None = None
        self.events: list[dict[str, Any]] = []

    def add(self, kind: str, data: dict[str, Any], **extra: Any) -> dict[str, Any]:
        self.count += 1
        event_id = f"{self.prefix}-{self.count:04d}-4000-8000-000000000000"
        event = {
            "type": kind,
            "data": data,
            "id": event_id,
            "timestamp": ts(self.count),
            "parentId": self.last,
            **extra,
        }
        self.last = event_id
        self.events.append(event)
        return event


def start(ev: Events, session: str = SESSION, cwd: str = PROJECT) -> None:
    ev.add(
        "session.start",
        {
            "sessionId": session,
            "version": 1,
            "producer": "copilot-agent",
            "copilotVersion": VERSION,
            "startTime": ts(0),
            "selectedModel": "claude-sonnet-4.5",
            "context": {"cwd": cwd, "gitRoot": cwd, "branch": BRANCH, "repository": "dev/ledger"},
        },
    )


def prompt(ev: Events, text: str) -> None:
    ev.add(
        "user.message",
        {
            "content": text,
            "transformedContent": f"{INJECTED}\n\n{text}\n\n<reminder>Stay in {PROJECT}</reminder>",
            "attachments": [],
            "interactionId": f"{ev.prefix}-interaction-{ev.count}",
        },
    )


def conversation(prefix: str, session: str = SESSION) -> list[dict[str, Any]]:
    """Every persisted event type a session holds, in the CLI's order."""
    ev = Events(prefix)
    start(ev, session)
    ev.add("session.model_change", {"previousModel": "claude-sonnet-4.5", "newModel": "gpt-5"})
    prompt(ev, "Why is the ledger total off by a cent?")
    ev.add("assistant.turn_start", {"turnId": "0"})
    ev.add(
        "assistant.message",
        {
            "messageId": f"{prefix}-msg-1",
            "content": "Let me look at how totals are summed.",
            "reasoningText": "Floats summed in a loop drift; check the sum.",
            "toolRequests": [
                {
                    "toolCallId": f"{prefix}-call-view",
                    "name": "view",
                    "arguments": {"path": f"{PROJECT}/ledger/total.py"},
                    "type": "function",
                },
                {
                    "toolCallId": f"{prefix}-call-bash",
                    "name": "bash",
                    "arguments": {"command": "pytest -q tests/test_total.py", "description": "t"},
                    "type": "function",
                },
            ],
        },
    )
    ev.add(
        "tool.execution_start",
        {
            "toolCallId": f"{prefix}-call-view",
            "toolName": "view",
            "arguments": {"path": f"{PROJECT}/ledger/total.py"},
        },
    )
    ev.add(
        "tool.execution_complete",
        {
            "toolCallId": f"{prefix}-call-view",
            "success": True,
            "result": {
                "content": "1. def total(rows):\n2.     return sum(r.amount for r in rows)",
                "detailedContent": "1. def total(rows):\n2.     return sum(r.amount for r in rows)",
            },
        },
    )
    ev.add(
        "tool.execution_start",
        {
            "toolCallId": f"{prefix}-call-bash",
            "toolName": "bash",
            "arguments": {"command": "pytest -q tests/test_total.py"},
        },
    )
    ev.add(
        "tool.execution_complete",
        {
            "toolCallId": f"{prefix}-call-bash",
            "success": False,
            "result": {
                "content": "",
                "contents": [{"type": "terminal", "text": "AssertionError: 10.01 != 10.0"}],
            },
            "error": {"message": "exit code 1", "code": "failure"},
        },
    )
    ev.add(
        "subagent.started",
        {
            "toolCallId": f"{prefix}-call-task",
            "agentName": "explore",
            "agentDisplayName": "Explore",
            "agentDescription": "Finds code",
        },
    )
    ev.add(
        "assistant.message",
        {"messageId": f"{prefix}-msg-sub", "content": "total.py sums floats.", "toolRequests": []},
        agentId=f"{prefix}-agent-explore",
    )
    ev.add(
        "assistant.message",
        {
            "messageId": f"{prefix}-msg-2",
            "content": "Sum Decimal amounts instead of floats.",
            "toolRequests": [],
        },
    )
    ev.add("assistant.turn_end", {"turnId": "0"})
    ev.add(
        "user.message",
        {"content": "Skill: pdf reading instructions", "source": "skill-pdf"},
    )
    # The person runs a command themselves: a requested call, then its result.
    ev.add(
        "tool.user_requested",
        {"toolCallId": f"{prefix}-call-user", "toolName": "bash", "arguments": {"command": "ls"}},
    )
    ev.add(
        "tool.execution_complete",
        {
            "toolCallId": f"{prefix}-call-user",
            "success": True,
            "isUserRequested": True,
            "result": {"content": "ledger\ntests"},
        },
    )
    ev.add(
        "session.compaction_complete",
        {"success": True, "summaryContent": "The ledger summed floats; now Decimal."},
    )
    ev.add(
        "session.shutdown",
        {
            "shutdownType": "routine",
            "totalApiDurationMs": 1200,
            "sessionStartTime": 1_795_000_000_000,
            "codeChanges": {"linesAdded": 2, "linesRemoved": 1, "filesModified": ["total.py"]},
            "modelMetrics": {},
        },
    )
    return ev.events


def lines(events: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(e).encode() + b"\n" for e in events)


def append(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as f:
        f.write(data)
    return path


def workspace(folder: Path, session: str = SESSION, cwd: str = PROJECT, name: str = NAME) -> None:
    """workspace.yaml as the CLI's `yaml` stringify writes it (a value quoted when needed)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "workspace.yaml").write_text(
        f"id: {session}\n"
        f"cwd: {cwd}\n"
        f"git_root: {cwd}\n"
        "repository: dev/ledger\n"
        "host_type: github\n"
        f"branch: {BRANCH}\n"
        f"name: {json.dumps(name)}\n"
        "user_named: false\n"
        "summary_count: 0\n"
        'created_at: "2026-11-20T10:00:00.000Z"\n'
        'updated_at: "2026-11-20T10:05:00.000Z"\n'
    )


# Lines a reader must skip and count, and one it skips silently (the CLI's crash padding).
DAMAGED = [
    b'{"type": "user.message", "data": {"content": "cut off',
    b"not json at all",
    b"[1, 2, 3]",
    b'{"type": "user.message", "id": "no-data"}',
    b"\xff\xfe not utf-8",
]
PADDING = b"\x00\x00\x00\x00"


def legacy(session: str = SESSION, prefix: str = "old") -> dict[str, Any]:
    """A 0.0.3xx history session: the timeline (what the person saw) and chatMessages (what
    was sent, with the injected <reminder>)."""
    typed = "Add a --dry-run flag to the import command"
    timeline = [
        {"type": "info", "text": "Connected to GitHub MCP Server", "id": f"{prefix}-1"},
        {"type": "user", "text": typed, "id": f"{prefix}-2"},
        {"type": "copilot", "text": "I'll read the command first.", "id": f"{prefix}-3"},
        {
            "type": "tool_call_requested",
            "callId": f"{prefix}-call-1",
            "name": "str_replace_editor",
            "intentionSummary": "view cli.py",
            "arguments": {"command": "view", "path": f"{PROJECT}/cli.py"},
            "id": f"{prefix}-4",
        },
        {
            "type": "tool_call_completed",
            "callId": f"{prefix}-call-1",
            "name": "str_replace_editor",
            "intentionSummary": "view cli.py",
            "result": {"type": "success", "log": "def import_cmd(path): ..."},
            "arguments": {"command": "view", "path": f"{PROJECT}/cli.py"},
            "id": f"{prefix}-5",
        },
        {
            "type": "tool_call_completed",
            "callId": f"{prefix}-call-2",
            "name": "bash",
            "intentionSummary": None,
            "result": {"type": "rejected"},
            "arguments": {"command": "rm -rf build", "description": "clean"},
            "id": f"{prefix}-6",
        },
        {"type": "error", "text": "Rate limited, retrying", "id": f"{prefix}-7"},
        {"type": "copilot", "text": "Added --dry-run.", "id": f"{prefix}-8"},
    ]
    for second, entry in enumerate(timeline):
        entry["timestamp"] = f"2025-09-30T08:00:{second:02d}.000Z"
    return {
        "sessionId": session,
        "startTime": "2025-09-30T08:00:00.000Z",
        "chatMessages": [
            {
                "role": "system",
                "content": "You are GitHub Copilot.\n\n<environment_context>\n"
                f"* Current working directory: {PROJECT}\n"
                "* Git repository root: Not a git repository\n</environment_context>",
            },
            {"role": "user", "content": f"{typed}\n\n<reminder>Today is Tuesday</reminder>"},
            {"role": "assistant", "content": "I'll read the command first.", "tool_calls": []},
        ],
        "timeline": timeline,
        "selectedModel": "claude-sonnet-4",
    }


def legacy_path(root: Path, session: str = SESSION) -> Path:
    return root / "history-session-state" / f"session_{session}_1759219200000.json"


def write_legacy(path: Path, session: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(session, indent=2))
    return path


def imported(prefix: str, old: dict[str, Any]) -> list[dict[str, Any]]:
    """What a newer release writes when it resumes a legacy session: a start, then the whole
    legacy session inside one `session.import_legacy` event, then the new turns."""
    ev = Events(prefix)
    ev.add(
        "session.start",
        {
            "sessionId": old["sessionId"],
            "version": 1,
            "producer": "copilot-agent",
            "copilotVersion": "0.0.400",
            "startTime": old["startTime"],
        },
    )
    ev.add(
        "session.import_legacy",
        {
            "legacySession": old,
            "importTime": ts(1),
            "sourceFile": f"session_{old['sessionId']}_1759219200000",
        },
    )
    prompt(ev, "Now document the flag")
    return ev.events
