"""Answer `initialize` before the mcp package is imported.

Importing the SDK takes most of a second on an idle core (it loads its client and the schemas
of every protocol version), and Claude Code waits for `initialize` when a window opens. So
`memtui mcp` reads the first line itself and, when it is a well-formed `initialize`, answers it
at once with what the SDK would answer (tests/test_mcp_stdio.py compares the two), then hands
the same request to the SDK and drops the SDK's own answer. Nothing here imports the SDK.
"""

from __future__ import annotations

import json
import os
from typing import Any

from memtui import __version__

INSTRUCTIONS = """\
memtui is the user's archive of every past Claude Code conversation, including ones Claude Code
has deleted. Before answering anything about past work (what was decided, tried, fixed, or said
before), call search_history first rather than guessing.
- search_history: use the words the answer would contain; pass other phrasings as
  `alternatives`; filter by cwd/project, dates or role when you know them.
- Open a hit with get_session (order "desc" shows how a session ended) or read_session with a
  line range for long sessions. get_recent_sessions shows what happened lately in a project.
- Cite the session id and date of what you use."""

# The SDK's handshake versions (mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS, pinned by a test).
VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
CAPABILITIES = {
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": False},
}


def initialize_result(requested: str) -> dict[str, Any]:
    return {
        "capabilities": CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "protocolVersion": requested if requested in VERSIONS else VERSIONS[-1],
        "serverInfo": {"name": "memtui", "version": __version__},
    }


def read_lines(data: bytes = b"", fd: int = 0, *, whole: bool = False) -> bytes:
    """`data` and what `fd` gives until it holds a line, or with `whole` until it ends with
    one (whatever there is at EOF)."""
    while not data.endswith(b"\n") if whole else b"\n" not in data:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
    return data


def answer_initialize(line: bytes, fd: int = 1) -> Any:
    """Write the answer to `line` if it is an `initialize` request; return its id, else None."""
    try:
        message = json.loads(line)
        params = message["params"]
        valid = (
            message.get("jsonrpc") == "2.0"
            and message.get("method") == "initialize"
            and isinstance(message.get("id"), int | str)
            and isinstance(params.get("protocolVersion"), str)
            and isinstance(params.get("capabilities"), dict)
            and isinstance(params.get("clientInfo"), dict)
            and isinstance(params["clientInfo"].get("name"), str)
            and isinstance(params["clientInfo"].get("version"), str)
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    if not valid:
        return None
    answer = {
        "jsonrpc": "2.0",
        "id": message["id"],
        "result": initialize_result(params["protocolVersion"]),
    }
    out = memoryview(json.dumps(answer, separators=(",", ":")).encode() + b"\n")
    while out:
        out = out[os.write(fd, out) :]
    return message["id"]
