"""One JSONL line of a Claude Code transcript to one record. Stateless and never raises."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime
from typing import Any

import orjson

from memtui.ingest.titles import prompt_title
from memtui.store.markers import REACH
from memtui.store.records import Bad, Kind, Message, Other, Record, Title, ToolCall

# Which input field names what a tool call is about, most telling first. `pattern` comes
# before `path` so Grep/Glob calls show what was searched for, not where.
_KEY_ARGS = (
    "command",
    "file_path",
    "filePath",  # OpenCode's name for it
    "notebook_path",
    "absolute_path",
    "pattern",
    "path",
    "dir_path",
    "url",
    "query",
    "skill",
    "subject",
    "description",
    "prompt",
)
ARG_LIMIT = 200  # what is kept of a tool call's key argument, cut once masked
ARG_READ = ARG_LIMIT + REACH  # what a reader takes of one: enough to mask what is kept
# User lines that Claude Code writes on the person's behalf: command output, interruptions.
_META_PREFIXES = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "[Request interrupted by user",
)
_TITLE_FIELDS = {"summary": "summary", "custom-title": "customTitle", "ai-title": "aiTitle"}


def parse_line(line: bytes, fallback_session: str | None = None) -> Record:
    """Parse one transcript line; `fallback_session` names lines that carry no sessionId."""
    obj = loads_object(line)
    if isinstance(obj, Bad):
        return obj
    kind = obj.get("type")
    if not isinstance(kind, str):
        return Other("")
    if kind in ("user", "assistant") and isinstance(obj.get("message"), dict):
        return _message(obj, line, fallback_session)
    if kind in _TITLE_FIELDS:
        return _title(obj, kind)
    return Other(kind)


def loads_object(line: bytes) -> dict[str, Any] | Bad:
    """One JSONL line as the object it must be, or why not. Every JSONL reader's first step."""
    try:
        # orjson reads bytes as strict UTF-8 and is ~3x faster than json: parsing is most of
        # an ingest's time.
        obj = orjson.loads(line)
    except orjson.JSONDecodeError:
        obj = slow_loads(line)
        if isinstance(obj, Bad):
            return obj
    if not isinstance(obj, dict):
        return Bad("not an object")
    return obj


def object_or_none(data: bytes) -> dict[str, Any] | None:
    """`loads_object` where the reason does not matter: the object, or None."""
    obj = loads_object(data)
    return None if isinstance(obj, Bad) else obj


def slow_loads(line: bytes) -> Any:
    """What orjson refuses but the json module reads (deep nesting, lone surrogate escapes:
    each made U+FFFD), or why the line is unreadable."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return Bad("not utf-8")
    try:
        # From str, not bytes: json.loads would guess UTF-16/32 from NUL bytes on its own.
        return json.loads(_ESCAPES.sub(_whole_characters, text))
    except (ValueError, RecursionError):
        return Bad("not json")


# A JSON escape that could give a surrogate: an escaped backslash (matched whole, so that the
# "u" after it is text), a surrogate pair (one character), or half of one alone (a tool output
# cut mid-emoji writes `\ud83d`). Strict UTF-8 has no surrogates, so these escapes are the only
# way one gets in, and SQLite and Tantivy refuse text holding one.
_ESCAPES = re.compile(
    r"\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[dD][89a-fA-F][0-9a-fA-F]{2}"
)


def _whole_characters(m: re.Match[str]) -> str:
    return "\\ufffd" if len(m.group()) == 6 else m.group()


def _message(obj: dict[str, Any], line: bytes, fallback_session: str | None) -> Message:
    timestamp = _str(obj.get("timestamp"))
    msg = Message(
        uuid=_str(obj.get("uuid")) or _synthetic_uuid(line),
        session_id=safe_id(obj.get("sessionId"), fallback_session or ""),
        role=obj["type"],
        kind=Kind.ASSISTANT,
        timestamp=timestamp,
        epoch=epoch(timestamp),
        cwd=_str(obj.get("cwd")),
        git_branch=_str(obj.get("gitBranch")),
        is_sidechain=obj.get("isSidechain") is True,
        agent_id=_str(obj.get("agentId")),
    )
    if msg.role == "assistant":
        _fill_assistant(msg, obj["message"])
    else:
        _fill_user(msg, obj)
    return msg


def _fill_assistant(msg: Message, message: dict[str, Any]) -> None:
    msg.api_id = _str(message.get("id"))
    content = message.get("content")
    if isinstance(content, str):
        msg.text = content
        return
    texts: list[str] = []
    thoughts: list[str] = []
    for block in _blocks(content):
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            thoughts.append(block["thinking"])
        elif kind == "tool_use":
            name = _str(block.get("name")) or ""
            call_id = _str(block.get("id")) or ""
            msg.tool_calls.append(ToolCall(name, key_arg(block.get("input")), call_id))
    msg.text = "\n\n".join(texts)
    msg.thinking = "\n\n".join(thoughts)


def _fill_user(msg: Message, obj: dict[str, Any]) -> None:
    content = obj["message"].get("content")
    msg.text = _user_text(content)
    results = [b for b in _blocks(content) if b.get("type") == "tool_result"]
    if obj.get("isCompactSummary") is True:
        msg.kind = Kind.COMPACT_SUMMARY
    elif obj.get("isMeta") is True:
        msg.kind = Kind.META
    elif results:
        msg.kind = Kind.TOOL_RESULT
        msg.tool_output = "\n".join(part for r in results for part in _result_parts(r))
        msg.answers = [i for r in results if (i := _str(r.get("tool_use_id")))]
        msg.is_error = any(r.get("is_error") is True for r in results)
    elif msg.text.startswith(_META_PREFIXES):
        msg.kind = Kind.META
    else:
        msg.kind = Kind.PROMPT
        msg.title = prompt_title(msg.text)


def _user_text(content: object) -> str:
    if isinstance(content, str):
        return content
    return "\n\n".join(_text_parts(_blocks(content)))


def _result_parts(result: dict[str, Any]) -> list[str]:
    content = result.get("content")
    if isinstance(content, str):
        return [content]
    return _text_parts(_blocks(content))


def _text_parts(blocks: list[dict[str, Any]]) -> list[str]:
    parts: list[str] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif kind == "image":
            parts.append("[image]")
    return parts


def _blocks(content: object) -> list[dict[str, Any]]:
    """The dict blocks of a content list; anything else has no blocks."""
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict)]


def key_arg(tool_input: object) -> str:
    if isinstance(tool_input, dict):
        for key in _KEY_ARGS:
            value = tool_input.get(key)
            if isinstance(value, str) and value:
                return value[:ARG_READ]
    try:
        dumped = json.dumps(tool_input, ensure_ascii=False, separators=(",", ":"))
    except (ValueError, RecursionError):
        # Nesting that json.loads just managed can still overflow the encoder.
        return ""
    return dumped[:ARG_READ]


def _title(obj: dict[str, Any], kind: str) -> Record:
    title = obj.get(_TITLE_FIELDS[kind])
    if not isinstance(title, str) or not title:
        return Other(kind)
    if kind == "summary":
        return Title(title=title, leaf_uuid=_str(obj.get("leafUuid")))
    return Title(title=title, session_id=_str(obj.get("sessionId")))


def epoch(timestamp: str | None) -> int:
    if not timestamp:
        return 0
    try:
        return int(datetime.fromisoformat(timestamp).timestamp())
    except ValueError:
        return 0


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def safe_id(value: object, fallback: str) -> str:
    """A session id read from an agent's file as memtui stores it: `value` when it can be
    one, else the reader's `fallback` (what names a session whose file gives no id), made
    one. An id that starts with `-` would be an option of the agent's command on resume
    (`codex resume --yolo`); whitespace or a control character is in no agent's ids."""
    if isinstance(value, str) and _plain_id(value):
        return value
    if _plain_id(fallback):
        return fallback
    made = "".join(c if c.isprintable() and c != " " else "_" for c in fallback)
    return "_" + made if made.startswith("-") else made


def _plain_id(value: str) -> bool:
    # isprintable() is false for every whitespace character but the space.
    return value[:1] not in ("", "-") and value.isprintable() and " " not in value


def _synthetic_uuid(line: bytes) -> str:
    # Hash without the line ending so the id does not depend on how the caller split lines.
    return "line-" + hashlib.sha1(line.rstrip(b"\r\n")).hexdigest()
