"""Hand-made transcript lines for tests that need exact control over bytes."""

from __future__ import annotations

import json
from pathlib import Path

CWD = "/home/dev/shop-api"


def _line(kind: str, uuid: str, session: str, ts: str, cwd: str, message: dict) -> bytes:
    record = {
        "type": kind,
        "uuid": uuid,
        "parentUuid": None,
        "sessionId": session,
        "cwd": cwd,
        "timestamp": ts,
        "isSidechain": False,
        "message": message,
    }
    return json.dumps(record).encode() + b"\n"


def user(
    uuid: str,
    text: str,
    session: str = "s-1",
    ts: str = "2026-11-01T10:00:00.000Z",
    cwd: str = CWD,
) -> bytes:
    return _line("user", uuid, session, ts, cwd, {"role": "user", "content": text})


def assistant(
    uuid: str,
    api_id: str,
    block: dict,
    session: str = "s-1",
    ts: str = "2026-11-01T10:00:05.000Z",
    cwd: str = CWD,
) -> bytes:
    message = {"id": api_id, "role": "assistant", "content": [block]}
    return _line("assistant", uuid, session, ts, cwd, message)


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def exchange(n: int, session: str = "s-1") -> bytes:
    """A prompt and a two-line assistant answer (thinking, then text): two messages."""
    return (
        user(f"{session}-u{n}", f"question number {n} about the checkout test", session)
        + assistant(
            f"{session}-a{n}a",
            f"msg_{session}_{n}",
            {"type": "thinking", "thinking": "hm"},
            session,
        )
        + assistant(f"{session}-a{n}b", f"msg_{session}_{n}", text(f"answer number {n}"), session)
    )


def write(path: Path, data: bytes, mode: str = "ab") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, mode) as f:
        f.write(data)
