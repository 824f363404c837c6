"""Codex CLI rollouts written from the format's public description, never copied from a real
session. Checked against openai/codex: codex-rs/rollout/src/recorder.rs (the
`sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl` path, `{timestamp, type, payload}` lines,
`session_meta` first), policy.rs (which items are persisted, session_meta among them, so a
fork's copy carries its parent's), compression.rs (`.jsonl.zst`, the plain file preferred),
codex-rs/protocol/src/models.rs (ResponseItem: message with input_text/output_text parts,
reasoning with summary_text, function_call with arguments as a JSON string and call_id,
function_call_output, custom_tool_call) and protocol.rs (SessionMeta, TurnContextItem,
CompactedItem, EventMsg user_message/agent_message/agent_reasoning/token_count);
codex-rs/core's record_initial_history (a fork persists its parent's items as they are).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import zstandard

PROJECT = "/home/dev/weather"
BRANCH = "fix/cache-ttl"
PARENT = "0199a1b2-3c4d-7e5f-8a9b-000000000001"
FORK = "0199a1b2-3c4d-7e5f-8a9b-000000000002"
START = datetime(2026, 11, 2, 9, 0, 0, tzinfo=UTC)
ENV_CONTEXT = (
    "<environment_context>\n  <cwd>/home/dev/weather</cwd>\n  <approval_policy>on-request"
    "</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n</environment_context>"
)
USER_INSTRUCTIONS = "<user_instructions>\n\nAlways run the tests.\n\n</user_instructions>"
Line = dict[str, Any] | bytes  # bytes: written as they are (a damaged line)


class Clock:
    """Timestamps as Codex writes them (UTC, milliseconds, Z), a second apart."""

    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> str:
        self.now += timedelta(seconds=1)
        return self.now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.now.microsecond // 1000:03d}Z"


def rollout_path(home: Path, session: str, when: datetime = START, archived: bool = False) -> Path:
    name = f"rollout-{when.strftime('%Y-%m-%dT%H-%M-%S')}-{session}.jsonl"
    if archived:
        return home / "archived_sessions" / name
    return home / "sessions" / when.strftime("%Y/%m/%d") / name


def line(clock: Clock, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": clock(), "type": kind, "payload": payload}


def session_meta(clock: Clock, session: str, forked_from: str | None = None) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "id": session,
        "timestamp": clock.now.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        "cwd": PROJECT,
        "originator": "codex_cli_rs",
        "cli_version": "0.171.0",
        "source": "cli",
        "model_provider": "openai",
        "base_instructions": {"text": "You are Codex, a coding agent."},
    }
    if forked_from:
        payload["forked_from_id"] = forked_from
    meta = {
        **payload,
        "git": {
            "commit_hash": "3f2a9c1d0e8b7a6f5e4d3c2b1a09f8e7d6c5b4a3",
            "branch": BRANCH,
            "repository_url": "git@github.com:dev/weather.git",
        },
    }
    return line(clock, "session_meta", meta)


def turn_context(clock: Clock, model: str = "gpt-5-codex") -> dict[str, Any]:
    return line(
        clock,
        "turn_context",
        {
            "cwd": PROJECT,
            "approval_policy": "on-request",
            "sandbox_policy": {"type": "workspace-write"},
            "model": model,
            "effort": "medium",
            "summary": "auto",
        },
    )


def message(clock: Clock, role: str, text: str) -> dict[str, Any]:
    part = "output_text" if role == "assistant" else "input_text"
    content = [{"type": part, "text": text}]
    return line(clock, "response_item", {"type": "message", "role": role, "content": content})


def reasoning(clock: Clock, summary: str) -> dict[str, Any]:
    return line(
        clock,
        "response_item",
        {
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": summary}],
            "content": None,
            "encrypted_content": "gAAAAB" + "x" * 40,
        },
    )


def function_call(clock: Clock, name: str, arguments: dict[str, Any], call_id: str) -> dict:
    payload = {
        "type": "function_call",
        "name": name,
        "arguments": orjson.dumps(arguments).decode(),
        "call_id": call_id,
    }
    return line(clock, "response_item", payload)


def function_output(clock: Clock, call_id: str, output: object) -> dict[str, Any]:
    payload = {"type": "function_call_output", "call_id": call_id, "output": output}
    return line(clock, "response_item", payload)


def event(clock: Clock, kind: str, **fields: Any) -> dict[str, Any]:
    return line(clock, "event_msg", {"type": kind, **fields})


def prompt(clock: Clock, text: str) -> list[dict[str, Any]]:
    """A typed prompt as Codex records it: the turn's context, the response item, its event."""
    return [
        turn_context(clock),
        message(clock, "user", text),
        event(clock, "user_message", message=text, images=[]),
    ]


def answer(clock: Clock, text: str) -> list[dict[str, Any]]:
    return [message(clock, "assistant", text), event(clock, "agent_message", message=text)]


def opening(clock: Clock, session: str) -> list[dict[str, Any]]:
    """What starts every rollout: its session_meta, then the injected context."""
    return [
        session_meta(clock, session),
        message(clock, "developer", "<permissions instructions>workspace-write</permissions>"),
        message(clock, "user", USER_INSTRUCTIONS),
        message(clock, "user", ENV_CONTEXT),
    ]


def first_turn(clock: Clock) -> list[dict[str, Any]]:
    """Every record type of one turn: prompt, reasoning, a shell call that fails, a patch,
    their outputs, the answer, and the events that repeat them."""
    return [
        *prompt(clock, "why does the forecast cache never expire?"),
        reasoning(clock, "**Reading the cache**\n\nLook at forecast.py first."),
        event(clock, "agent_reasoning", text="**Reading the cache**"),
        function_call(
            clock, "shell", {"command": ["bash", "-lc", "pytest -q tests/test_cache.py"]}, "c1"
        ),
        function_output(
            clock,
            "c1",
            '{"output":"1 failed: test_cache_expiry\\n","metadata":{"exit_code":1,'
            '"duration_seconds":0.8}}',
        ),
        line(
            clock,
            "response_item",
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": "c2",
                "name": "apply_patch",
                "input": "*** Begin Patch\n*** Update File: src/cache.py\n@@\n-TTL = None\n"
                "+TTL = 300\n*** End Patch",
            },
        ),
        line(
            clock,
            "response_item",
            {"type": "custom_tool_call_output", "call_id": "c2", "output": "Success."},
        ),
        event(clock, "token_count", info=None, rate_limits=None),
        *answer(clock, "The TTL was never set: it is 300 seconds now."),
    ]


def second_turn(clock: Clock) -> list[dict[str, Any]]:
    return [
        *prompt(clock, "run the tests again"),
        function_call(clock, "shell", {"command": ["bash", "-lc", "pytest -q"]}, "c3"),
        function_output(clock, "c3", "Exit code: 0\nWall time: 1.2 seconds\nOutput:\n3 passed"),
        *answer(clock, "All 3 tests pass."),
    ]


def compacted(clock: Clock, summary: str) -> dict[str, Any]:
    return line(clock, "compacted", {"message": summary})


def parent_rollout(clock: Clock) -> list[Line]:
    return [*opening(clock, PARENT), *first_turn(clock), *second_turn(clock)]


def fork_rollout(parent: list[Line], clock: Clock, turns: int = 1) -> list[Line]:
    """A fork of `parent` before its turn `turns` + 1: its own session_meta, then the parent's
    lines as they were (its session_meta too) with new timestamps, then its own turn."""
    copied: list[Line] = []
    seen = 0
    for item in parent:
        assert isinstance(item, dict)
        payload = item["payload"]
        if payload.get("type") == "message" and payload.get("role") == "user":
            text = payload["content"][0]["text"]
            seen += not text.startswith("<")
            if seen > turns:
                break
        copied.append({**item, "timestamp": clock()})
    own = [*prompt(clock, "try a TTL of 60 instead"), *answer(clock, "TTL = 60 now.")]
    return [session_meta(clock, FORK, forked_from=PARENT), *copied, *own]


def legacy_rollout(session: str) -> list[Line]:
    """A rollout as Codex wrote them before mid-2025: a first line with the session's id,
    timestamp and git (no cwd), then bare response items between `record_type` lines; no line
    has a timestamp, and a failed tool's output is a `{content, success}` object."""
    items: list[dict[str, Any]] = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": t}]}
        for t in (ENV_CONTEXT.replace(PROJECT, "/home/dev/old"), "explain the cache")
    ]
    shell = {"command": ["bash", "-lc", "cat cache.py"]}
    items += [
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Look"}]},
        {
            "type": "function_call",
            "name": "shell",
            "arguments": orjson.dumps(shell).decode(),
            "call_id": "call_1",
        },
        {
            "type": "function_call_output",
            "call_id": "call_1",
            "output": {"content": "cat: cache.py: No such file", "success": False},
        },
        {"record_type": "state"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "It caches."}],
        },
    ]
    meta = {
        "id": session,
        "timestamp": "2025-05-07T17:24:21.123Z",
        "instructions": None,
        "git": {"commit_hash": "ab12", "branch": "main", "repository_url": "git@x:y.git"},
    }
    return [meta, {"record_type": "state"}, *items]


def encode(lines: list[Line]) -> bytes:
    return b"".join(
        (item if isinstance(item, bytes) else orjson.dumps(item)) + b"\n" for item in lines
    )


def write(path: Path, lines: list[Line]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(encode(lines))
    return path


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as f:
        f.write(data)


def compress(path: Path) -> Path:
    """What Codex does to an old rollout: `.jsonl.zst` in its place."""
    packed = path.with_name(path.name + ".zst")
    packed.write_bytes(zstandard.ZstdCompressor().compress(path.read_bytes()))
    path.unlink()
    return packed


def history(home: Path) -> Path:
    """~/.codex/history.jsonl: every typed prompt, not a conversation."""
    path = home / "history.jsonl"
    entry = {"session_id": PARENT, "ts": 1793610001, "text": "why does the cache never expire?"}
    path.write_bytes(orjson.dumps(entry) + b"\n")
    return path


def name(home: Path, session: str, thread_name: str) -> Path:
    """What /rename appends to ~/.codex/session_index.jsonl."""
    path = home / "session_index.jsonl"
    entry = {"id": session, "thread_name": thread_name, "updated_at": "2026-11-02T10:00:00Z"}
    append(path, orjson.dumps(entry) + b"\n")
    return path


def many(home: Path, sessions: int, turns: int) -> Iterator[Path]:
    """Rollouts of `turns` turns each, for a measure of speed: outputs and answers about as
    long as a Claude Code corpus's (bench/corpus.py)."""
    clock = Clock()
    listing = "".join(f"src/weather/module_{i}.py  {i * 37} bytes\n" for i in range(80))
    for n in range(sessions):
        session = f"0199a1b2-3c4d-7e5f-8a9b-{n:012d}"
        lines: list[Line] = [*opening(clock, session)]
        for t in range(turns):
            lines += [
                *prompt(clock, f"step {t} of session {n}: check the cache"),
                reasoning(clock, f"Thinking about step {t}"),
                function_call(clock, "shell", {"command": ["bash", "-lc", f"ls {t}"]}, f"c{t}"),
                function_output(clock, f"c{t}", f"Exit code: 0\nOutput:\n{listing}"),
                *answer(clock, f"Step {t} done: the cache holds {t} entries. " * 12),
            ]
        yield write(rollout_path(home, session, START + timedelta(minutes=n)), lines)
