"""Gemini CLI session files, written the way gemini-cli writes them; no real transcript.

Checked against google-gemini/gemini-cli: packages/core/src/services/chatRecordingService.ts
and chatRecordingTypes.ts (the `.json` record, the `.jsonl` lines: metadata, messages
re-appended by id, `$set`, `$rewindTo`; subagents under `chats/<parent id>/`; a resumed `.json`
written again as `.jsonl`), core/src/core/geminiChat.ts (tool calls with their results, tool
responses recorded as a user turn), core/src/utils/sessionUtils.ts and environmentContext.ts
(`<session_context>`), core/src/config/projectRegistry.ts and storage.ts (projects.json, the
`.project_root` marker, the hash folder copied into the slug folder), core/src/utils/paths.ts
(the project hash: SHA-256 of the root path).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

PROJECT = "/home/dev/weather-app"
SLUG = "weather-app"
MODEL = "gemini-2.5-pro"


def project_hash(root: str) -> str:
    return hashlib.sha256(root.encode()).hexdigest()


def ts(second: int) -> str:
    return f"2026-11-02T09:{second // 60:02d}:{second % 60:02d}.000Z"


# -- messages -------------------------------------------------------------------------------


def user(msg_id: str, text: str, second: int = 0, display: str | None = None) -> dict[str, Any]:
    msg: dict[str, Any] = {"id": msg_id, "timestamp": ts(second), "type": "user"}
    msg["content"] = [{"text": text}]
    if display is not None:
        msg["displayContent"] = [{"text": display}]
    return msg


def context(msg_id: str, second: int = 0) -> dict[str, Any]:
    """The environment gemini-cli sends as the first user turn."""
    text = (
        "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n"
        f"Today's date is Monday, November 2, 2026.\nMy operating system is: linux\n"
        f"I'm currently working in the directory: {PROJECT}\n</session_context>"
    )
    return {"id": msg_id, "timestamp": ts(second), "type": "user", "content": [{"text": text}]}


def tool_call(
    call_id: str, name: str, args: dict[str, Any], output: str | None, status: str = "success"
) -> dict[str, Any]:
    call: dict[str, Any] = {
        "id": call_id,
        "name": name,
        "args": args,
        "status": status,
        "timestamp": ts(30),
        "displayName": name,
        "description": "",
        "renderOutputAsMarkdown": False,
    }
    if output is not None:
        key = "error" if status == "error" else "output"
        call["result"] = [
            {"functionResponse": {"id": call_id, "name": name, "response": {key: output}}}
        ]
        call["resultDisplay"] = output
    return call


def gemini(
    msg_id: str,
    text: str,
    second: int = 5,
    thoughts: tuple[tuple[str, str], ...] = (),
    calls: list[dict[str, Any]] | None = None,
    tokens: bool = True,
) -> dict[str, Any]:
    msg: dict[str, Any] = {
        "id": msg_id,
        "timestamp": ts(second),
        "type": "gemini",
        "content": text,
        "thoughts": [
            {"subject": s, "description": d, "timestamp": ts(second)} for s, d in thoughts
        ],
        "tokens": {"input": 812, "output": 64, "cached": 0, "thoughts": 20, "tool": 0, "total": 896}
        if tokens
        else None,
        "model": MODEL,
    }
    if calls is not None:
        msg["toolCalls"] = calls
    return msg


def responses(msg_id: str, calls: list[dict[str, Any]], second: int = 31) -> dict[str, Any]:
    """Newer releases record the results sent back to the model as a user turn too."""
    parts = [part for call in calls for part in call["result"]]
    return {"id": msg_id, "timestamp": ts(second), "type": "user", "content": parts}


def info(msg_id: str, text: str, kind: str = "info", second: int = 40) -> dict[str, Any]:
    return {"id": msg_id, "timestamp": ts(second), "type": kind, "content": text}


def snapshot(msg_id: str, second: int = 50) -> dict[str, Any]:
    text = "<state_snapshot>\n<overall_goal>Cache the forecast</overall_goal>\n</state_snapshot>"
    return {"id": msg_id, "timestamp": ts(second), "type": "user", "content": [{"text": text}]}


def conversation(prefix: str) -> list[dict[str, Any]]:
    """Every message type: injected context, a prompt typed with an @file (content expanded,
    displayContent as typed), an answer with thoughts and two tool calls (one failed), the
    results again as a user turn, an info and an error line, a plain answer."""
    calls = [
        tool_call(
            f"{prefix}-read-1",
            "read_file",
            {"absolute_path": f"{PROJECT}/src/forecast.py"},
            "def forecast(city):\n    return fetch(city)\n",
        ),
        tool_call(
            f"{prefix}-shell-1",
            "run_shell_command",
            {"command": "pytest -q tests/test_forecast.py"},
            "1 failed: test_cache_expiry",
            status="error",
        ),
    ]
    return [
        context(f"{prefix}-ctx", 0),
        user(
            f"{prefix}-u1",
            "why does the forecast cache never expire? Content of @src/forecast.py: ...",
            1,
            display="why does the forecast cache never expire? @src/forecast.py",
        ),
        gemini(
            f"{prefix}-g1",
            "",
            5,
            thoughts=[("Reading the cache", "I should look at forecast.py first.")],
            calls=calls,
        ),
        responses(f"{prefix}-r1", calls),
        info(f"{prefix}-i1", "Switched to fallback model gemini-2.5-flash"),
        info(f"{prefix}-e1", "API Error: quota exceeded, retrying", kind="error"),
        gemini(f"{prefix}-g2", "The TTL is read from an unset setting, so it is None.", 45),
    ]


# -- files ----------------------------------------------------------------------------------


def meta(session_id: str, root: str = PROJECT, **extra: Any) -> dict[str, Any]:
    return {
        "sessionId": session_id,
        "projectHash": project_hash(root),
        "startTime": ts(0),
        "lastUpdated": ts(59),
        **extra,
    }


def write_json(path: Path, session_id: str, messages: list[dict[str, Any]], **extra: Any) -> Path:
    """An older release's session: one object, rewritten whole (pretty-printed, as it did)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {**meta(session_id, **extra), "messages": messages}
    path.write_text(json.dumps(record, indent=2))
    return path


def line(record: dict[str, Any]) -> bytes:
    return json.dumps(record, separators=(",", ":")).encode() + b"\n"


def jsonl(session_id: str, messages: list[dict[str, Any]], **extra: Any) -> bytes:
    """A newer release's session: the metadata line, then each message as it was recorded
    (an answer first without its tool calls, then again by id with them), `$set` lines."""
    out = [line(meta(session_id, **extra))]
    for msg in messages:
        if msg.get("toolCalls"):
            first = {k: v for k, v in msg.items() if k != "toolCalls"}
            out.append(line(first))
        out.append(line(msg))
        out.append(line({"$set": {"lastUpdated": msg["timestamp"]}}))
    return b"".join(out)


def append(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as f:
        f.write(data)
    return path


def gemini_home(home: Path) -> dict[str, Path]:
    """A ~/.gemini after the move to slug folders: projects.json, the slug folder with its
    `.project_root`, the old hash folder kept with its legacy session, the migrated copy of that
    session, the same session resumed (written again as `.jsonl`), a newer session with a
    subagent, logs.json and a leftover temp file. Returns the files by name."""
    old = home / "tmp" / project_hash(PROJECT) / "chats"
    new = home / "tmp" / SLUG / "chats"
    new.mkdir(parents=True)
    old.mkdir(parents=True)
    (home / "projects.json").write_text(json.dumps({"projects": {PROJECT: SLUG}}, indent=2))
    (home / "tmp" / SLUG / ".project_root").write_text(PROJECT)
    legacy = conversation("a")
    files = {
        "legacy": write_json(old / "session-2026-11-02T09-00-aaaa1111.json", "aaaa1111-s", legacy),
        "migrated": write_json(
            new / "session-2026-11-02T09-00-aaaa1111.json", "aaaa1111-s", legacy
        ),
        "resumed": append(
            new / "session-2026-11-02T09-00-aaaa1111.jsonl",
            jsonl("aaaa1111-s", [*legacy, user("a-u2", "and the humidity cache?", 55)]),
        ),
        "current": append(
            new / "session-2026-11-03T10-00-bbbb2222.jsonl",
            jsonl("bbbb2222-s", conversation("b"), summary="Forecast cache never expires"),
        ),
        "subagent": append(
            new / "bbbb2222-s" / "cccc3333-sub.jsonl",
            jsonl(
                "cccc3333-sub",
                [user("c-u1", "Investigate the cache layer"), gemini("c-g1", "Found it in ttl.py")],
                kind="subagent",
                directories=[PROJECT],
            ),
        ),
    }
    (home / "tmp" / SLUG / "logs.json").write_text(
        json.dumps([{"sessionId": "bbbb2222-s", "messageId": 0, "type": "user", "message": "hi"}])
    )
    (new / "session-2026-11-03T10-00-bbbb2222.jsonl.tmp-4242").write_text("{")
    return files
