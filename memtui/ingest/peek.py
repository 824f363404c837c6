"""A transcript's first message id, read without the parser (the prompt hook's lean path):
a resumed or forked session's file opens with copies of the session it continues."""

from __future__ import annotations

import json

PEEK_BYTES = 256 * 1024  # the first lines are short; a pasted log may make one long


def first_uuid(path: str) -> str | None:
    """The uuid of the first user or assistant line among the file's first PEEK_BYTES."""
    try:
        with open(path, "rb") as f:
            head = f.read(PEEK_BYTES)
    except OSError:
        return None
    for line in head.split(b"\n")[:-1]:  # whole lines only
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("type") in ("user", "assistant"):
            uuid = record.get("uuid")
            return uuid if isinstance(uuid, str) else None
    return None
