"""Gemini CLI sessions for the demo archive, in the same made-up projects as the Claude Code
transcripts and the Codex rollouts.

Written as a newer gemini-cli records them (`tmp/<slug>/chats/session-<time>-<id8>.jsonl`,
the slug mapped to its path by projects.json and the folder's `.project_root`): a metadata
line, the context gemini-cli sends, the prompt, the answer with its thoughts recorded first
without its tool calls and then again by id with them and their results, `$set` lines.
Same input, same bytes.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

MODEL = "gemini-2.5-pro"


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    args: dict[str, str]
    output: str


@dataclass(frozen=True, slots=True)
class Chat:
    session_id: str
    cwd: str
    start: datetime
    prompt: str
    thought: tuple[str, str]  # subject, description
    tools: tuple[Tool, ...]
    answer: str


CHATS = (
    Chat(
        "7c1e4b2a-93d0-4f6e-8a15-2b9d0c6e1f01",
        "/home/dev/work/payments-api",
        datetime(2026, 4, 28, 11, 20, 5, tzinfo=UTC),
        "users get logged out after exactly 15 minutes even while active: is the refresh "
        "token rotation broken?",
        (
            "Checking the token lifetimes",
            "Compare the access token TTL with when the client calls refreshAccessToken.",
        ),
        (
            Tool(
                "run_shell_command",
                {"command": "rg -n 'TOKEN_TTL_SECONDS|REFRESH_BEFORE' app/ config/"},
                "app/auth/tokens.py:9:TOKEN_TTL_SECONDS = 900\n"
                "config/client.toml:4:REFRESH_BEFORE = 0\n",
            ),
        ),
        "The rotation itself works; the client refreshes too late. `REFRESH_BEFORE = 0` in "
        "config/client.toml makes it call refreshAccessToken only once the 900-second access "
        "token has already expired, and that request fails with 401, which logs the user out. "
        "Set `REFRESH_BEFORE = 60` so the refresh token rotation runs a minute before expiry.",
    ),
    Chat(
        "3f8a0d6c-51b7-4e29-9c44-7a2e6b1d8f02",
        "/home/dev/work/web-dashboard",
        datetime(2026, 4, 25, 15, 2, 41, tzinfo=UTC),
        "the e2e test for the revenue chart is flaky on CI, passes locally",
        (
            "Looking at the flaky test",
            "Read the test and find what it waits for before it checks the chart.",
        ),
        (
            Tool(
                "read_file",
                {"absolute_path": "/home/dev/work/web-dashboard/e2e/revenue.spec.ts"},
                "await page.goto('/dashboard');\n"
                "await page.waitForTimeout(500);\n"
                "await expect(page.locator('.revenue-chart path')).toHaveCount(12);\n",
            ),
        ),
        "The test sleeps 500 ms and then counts the chart's paths; on the slower CI runners the "
        "orders request takes longer, so the chart is still empty. Wait for the data instead: "
        "`await page.waitForResponse('**/api/orders*')` before the assertion, and drop the "
        "waitForTimeout. The flaky run goes away.",
    ),
)


def _slug(cwd: str) -> str:
    return Path(cwd).name.replace(".", "-")


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _id(chat: Chat, n: int) -> str:
    """A message id as gemini-cli makes them (a UUID), derived so the bytes stay the same."""
    digest = hashlib.md5(f"{chat.session_id}/{n}".encode(), usedforsecurity=False)
    return str(uuid.UUID(digest.hexdigest()))


def _lines(chat: Chat) -> list[dict[str, Any]]:
    at = [chat.start + timedelta(seconds=s) for s in (0, 1, 9, 14, 22)]
    context = (
        "<session_context>\nThis is the Gemini CLI. We are setting up the context for our "
        f"chat.\nToday's date is {at[0]:%A, %B} {at[0].day}, {at[0].year}.\n"
        "My operating system is: linux\n"
        f"I'm currently working in the directory: {chat.cwd}\n</session_context>"
    )
    calls = [
        {
            "id": f"{tool.name}-{_id(chat, 10 + n)[:12]}",
            "name": tool.name,
            "args": tool.args,
            "status": "success",
            "timestamp": _stamp(at[3]),
            "result": [
                {
                    "functionResponse": {
                        "id": f"{tool.name}-{_id(chat, 10 + n)[:12]}",
                        "name": tool.name,
                        "response": {"output": tool.output},
                    }
                }
            ],
            "resultDisplay": tool.output,
            "displayName": tool.name,
            "description": "",
            "renderOutputAsMarkdown": False,
        }
        for n, tool in enumerate(chat.tools)
    ]
    subject, description = chat.thought
    working: dict[str, Any] = {
        "id": _id(chat, 3),
        "timestamp": _stamp(at[2]),
        "type": "gemini",
        "content": "",
        "thoughts": [{"subject": subject, "description": description, "timestamp": _stamp(at[2])}],
        "tokens": {"input": 2310, "output": 48, "cached": 0, "thoughts": 96, "tool": 0},
        "model": MODEL,
    }
    answer = {
        "id": _id(chat, 4),
        "timestamp": _stamp(at[4]),
        "type": "gemini",
        "content": chat.answer,
        "thoughts": [],
        "tokens": {"input": 2604, "output": 131, "cached": 1980, "thoughts": 0, "tool": 0},
        "model": MODEL,
    }
    meta = {
        "sessionId": chat.session_id,
        "projectHash": hashlib.sha256(chat.cwd.encode()).hexdigest(),
        "startTime": _stamp(at[0]),
        "lastUpdated": _stamp(at[0]),
        "kind": "main",
    }
    return [
        meta,
        {
            "id": _id(chat, 1),
            "timestamp": _stamp(at[0]),
            "type": "user",
            "content": [{"text": context}],
        },
        {
            "id": _id(chat, 2),
            "timestamp": _stamp(at[1]),
            "type": "user",
            "content": [{"text": chat.prompt}],
        },
        {"$set": {"lastUpdated": _stamp(at[1])}},
        working,
        {**working, "toolCalls": calls},  # the same message again, now with its tool calls
        {"$set": {"lastUpdated": _stamp(at[3])}},
        answer,
        {"$set": {"lastUpdated": _stamp(at[4])}},
    ]


def write(root: Path) -> int:
    """Every session under `root` (a ~/.gemini), with projects.json; how many."""
    projects = {}
    for chat in CHATS:
        slug = _slug(chat.cwd)
        projects[chat.cwd] = slug
        folder = root / "tmp" / slug
        (folder / "chats").mkdir(parents=True, exist_ok=True)
        (folder / ".project_root").write_text(chat.cwd)
        name = f"session-{chat.start:%Y-%m-%dT%H-%M}-{chat.session_id[:8]}.jsonl"
        text = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in _lines(chat))
        (folder / "chats" / name).write_text(text)
    (root / "projects.json").write_text(json.dumps({"projects": projects}, indent=2))
    return len(CHATS)
