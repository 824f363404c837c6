"""GitHub Copilot CLI: sessions under `$COPILOT_HOME` (default `~/.copilot`), three layouts
(read from @github/copilot's bundle and its schemas/session-events.schema.json):

- `session-state/<id>/events.jsonl` (today), with `workspace.yaml` beside it (cwd, branch,
  the session's name), and before it the flat `session-state/<id>.jsonl`: one event a line,
  `{type, data, id, parentId, timestamp, agentId?}`, appended in place and followed by byte
  offset like a Claude Code transcript. A rewind truncates the file: the follower sees it
  and reads it again from the start, storing only what it lacks.
- `history-session-state/session_<id>_<ms>.json` (releases before 0.0.39x): one object
  rewritten whole, `{sessionId, startTime, chatMessages, timeline, selectedModel}`. The
  `timeline` is what the person saw (typed prompts, answers, tool calls and results, each
  with an id and time); `chatMessages` repeats it with injected context, so only its system
  prompt is read, for the directory its <environment_context> names.
  Resuming one in a newer release copies its timeline into a `session.import_legacy` event:
  both copies take the same uuids from the timeline ids, so they are stored once.

Event ids are uuids: a re-read or a second copy stores nothing twice. A `user.message`
keeps the prompt twice, as typed (`content`) and as sent (`transformedContent`, with
injected context): only the first is stored.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, BinaryIO

from memtui.ingest import follower
from memtui.ingest.parser import epoch, key_arg, object_or_none, safe_id, slow_loads
from memtui.ingest.reader import BATCH, Unreadable, guarded, masked, mtime, unstorable
from memtui.ingest.sources import Source
from memtui.ingest.titles import prompt_title
from memtui.store.archive import FileBatch, FileState
from memtui.store.mask import Masker
from memtui.store.records import Bad, Kind, Message, Title, ToolCall

log = logging.getLogger(__name__)

AGENT = "copilot"
# A whole-file checkpoint's tail: this marker, then the file's size and mtime (8 bytes each).
_WHOLE = b"\x00c"
_LEGACY_NAME = re.compile(r"session_(.+)_\d+")
# The legacy system prompt's <environment_context> names the directory the session ran in.
_LEGACY_CWD = re.compile(r"^\* Current working directory: (.+)$", re.MULTILINE)
_WORKSPACE_KEYS = frozenset({"cwd", "branch", "name", "summary"})
# The CLI's file tool takes a sub-command and a path: the path is what a call is about.
_EDITOR_COMMANDS = frozenset({"view", "create", "str_replace", "insert", "undo_edit"})

Records = list[tuple[int, Message | Title]]


def _default_root(environ: Mapping[str, str]) -> Path:
    # The CLI keeps its state in COPILOT_HOME, else ~/.copilot. Releases before 0.0.421 put
    # it under $XDG_STATE_HOME/.copilot; later ones move it from there on their first start.
    home = environ.get("COPILOT_HOME", "").strip()
    if home:
        return Path(home).expanduser()
    default = Path.home() / ".copilot"
    state = environ.get("XDG_STATE_HOME", "").strip()
    if state:
        old = Path(state).expanduser() / ".copilot"
        if _has_sessions(old) and not _has_sessions(default):
            return old
    return default


def _has_sessions(root: Path) -> bool:
    return (root / "session-state").is_dir() or (root / "history-session-state").is_dir()


def _resume(session_id: str) -> list[str]:
    return ["copilot", "--resume", session_id]


def discover(root: Path) -> tuple[list[Path], list[str]]:
    """Sessions oldest first: every layout. The other files of a session's folder
    (workspace.yaml, checkpoints/, plan.md) are not conversations."""
    found = [
        *root.glob("session-state/*/events.jsonl"),
        *root.glob("session-state/*.jsonl"),
        *root.glob("history-session-state/*.json"),
    ]
    ok: list[Path] = []
    bad: list[str] = []
    for path in found:
        if why := unstorable(path):
            bad.append(why)
        else:
            ok.append(path)
    return sorted(ok, key=mtime), bad


def read_file(
    root: Path, path: Path, previous: FileState | None, masker: Masker | None = None
) -> Iterator[FileBatch | Unreadable]:
    """The new records of one session file, in batches, each with the checkpoint after it."""
    if path.suffix == ".json":
        return guarded(path, lambda f: _read_legacy(f, root, path, previous, masker))
    return guarded(path, lambda f: _read_events(f, path, previous, masker))


@dataclass(slots=True)
class _Session:
    id: str
    cwd: str | None = None
    branch: str | None = None
    title: str | None = None

    def project(self) -> str:
        # A session whose directory is recorded nowhere is filed under home.
        return self.cwd or str(Path.home())


# -- events.jsonl: appended ------------------------------------------------------------------


def _read_events(
    f: BinaryIO, path: Path, previous: FileState | None, masker: Masker | None
) -> Iterator[FileBatch]:
    name = str(path)
    state, fresh = follower.start_state(f, name, previous)
    if fresh:
        log.info("reading %s from the start", name)
    flat = path.name != "events.jsonl"
    folder = path.with_suffix("") if flat else path.parent
    session = _Session(safe_id(folder.name, folder.name))
    _start(_first_event(f), session)
    _fill(session, _workspace(folder))
    batch: Records = []
    end, skipped_before = state.offset, state.skipped
    for line in follower.read_lines(f, state):
        state.line = line.number
        end = line.end
        records = _event(line.data, session) if line.data is not None else None
        if records is None:
            state.skipped += 1
            log.warning("%s:%d skipped: not a Copilot CLI event", name, line.number)
            continue
        batch.extend((line.number, masked(masker, r)) for r in records)
        if len(batch) >= BATCH:
            yield _checkpoint(f, state, end, batch, session, state.skipped - skipped_before)
            batch, skipped_before = [], state.skipped
    if session.title and (batch or fresh):
        title = Title(title=session.title, session_id=session.id)
        batch.append((state.line, masked(masker, title)))
    if batch or end != state.offset or fresh:
        yield _checkpoint(f, state, end, batch, session, state.skipped - skipped_before)


def _checkpoint(
    f: BinaryIO, state: FileState, end: int, batch: Records, session: _Session, skipped: int
) -> FileBatch:
    state.offset = end
    state.tail = follower.tail_before(f, end)
    return FileBatch(replace(state), batch, session.project(), skipped, agent=AGENT)


def _first_event(f: BinaryIO) -> dict[str, Any]:
    """The file's first event when it is whole: `session.start`, with the session's id and
    directory, which a read resumed past it still needs."""
    f.seek(0)
    line = f.readline(follower.MAX_LINE + 1)
    if not line.endswith(b"\n"):
        return {}
    obj = object_or_none(line)
    return obj if isinstance(obj, dict) else {}


def _start(event: dict[str, Any], session: _Session) -> None:
    """What `session.start` and `session.resume` say of the session."""
    if event.get("type") not in ("session.start", "session.resume"):
        return
    data = _dict(event.get("data"))
    session.id = safe_id(data.get("sessionId"), session.id)
    context = _dict(data.get("context"))
    session.cwd = _str(context.get("cwd")) or session.cwd
    session.branch = _str(context.get("branch")) or session.branch


def _fill(session: _Session, workspace: dict[str, str]) -> None:
    session.cwd = session.cwd or workspace.get("cwd")
    session.branch = session.branch or workspace.get("branch")
    # `summary` is the older releases' name for `name`.
    session.title = workspace.get("name") or workspace.get("summary")


def _event(data: bytes, session: _Session) -> list[Message] | None:
    """One event line's messages; None when the line is not an event."""
    if not data.strip(b"\x00 \t\r\n"):
        return []  # the CLI pads with NULs after a crash and skips such lines itself
    obj = object_or_none(data)
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        return None
    kind = obj["type"]
    payload = obj.get("data")
    if not isinstance(payload, dict):
        return None
    if kind in ("session.start", "session.resume"):
        _start(obj, session)
        return []
    if kind == "session.import_legacy":
        timeline = _dict(payload.get("legacySession")).get("timeline")
        return _timeline(timeline, session)[0] if isinstance(timeline, list) else None
    fill = _EVENTS.get(kind)
    if fill is None:
        return []  # model changes, shutdown, tool starts, turns, hooks: no message
    msg = Message(
        uuid=_str(obj.get("id")) or _synthetic_uuid(data),
        session_id=session.id,
        role="assistant",
        kind=Kind.ASSISTANT,
        timestamp=_str(obj.get("timestamp")),
        cwd=session.cwd,
        git_branch=session.branch,
        agent_id=_str(obj.get("agentId")),
    )
    msg.epoch = epoch(msg.timestamp)
    msg.is_sidechain = msg.agent_id is not None or "parentToolCallId" in payload
    return [msg] if fill(msg, payload) else []


def _user(msg: Message, data: dict[str, Any]) -> bool:
    msg.role = "user"
    msg.text = _str(data.get("content")) or ""
    # `source` marks a message a skill injected; an autopilot continuation is not typed.
    if data.get("source") or data.get("isAutopilotContinuation") is True:
        msg.kind = Kind.META
    else:
        msg.kind = Kind.PROMPT
        msg.title = prompt_title(msg.text)
    return True


def _assistant(msg: Message, data: dict[str, Any]) -> bool:
    msg.text = _str(data.get("content")) or ""
    msg.thinking = _str(data.get("reasoningText")) or ""
    for request in _list(data.get("toolRequests")):
        if isinstance(request, dict):
            name = _str(request.get("name")) or ""
            call_id = _str(request.get("toolCallId")) or ""
            msg.tool_calls.append(ToolCall(name, _key_arg(request.get("arguments")), call_id))
    return True


def _user_tool(msg: Message, data: dict[str, Any]) -> bool:
    """A tool the person ran themselves (`!command`): its call, for the result to answer."""
    msg.role = "user"
    msg.kind = Kind.META
    name = _str(data.get("toolName")) or ""
    call_id = _str(data.get("toolCallId")) or ""
    msg.tool_calls = [ToolCall(name, _key_arg(data.get("arguments")), call_id)]
    return True


def _tool_result(msg: Message, data: dict[str, Any]) -> bool:
    msg.role = "user"
    msg.kind = Kind.TOOL_RESULT
    result = _dict(data.get("result"))
    output = _str(result.get("content")) or "\n".join(
        text
        for part in _list(result.get("contents"))
        if isinstance(part, dict) and (text := _str(part.get("text")))
    )
    error = _str(_dict(data.get("error")).get("message"))
    msg.tool_output = "\n".join(part for part in (output, error) if part)
    msg.is_error = data.get("success") is not True
    call_id = _str(data.get("toolCallId"))
    msg.answers = [call_id] if call_id else []
    return True


def _compaction(msg: Message, data: dict[str, Any]) -> bool:
    msg.role = "user"
    msg.kind = Kind.COMPACT_SUMMARY
    msg.text = _str(data.get("summaryContent")) or ""
    return bool(msg.text)


_EVENTS = {
    "user.message": _user,
    "assistant.message": _assistant,
    "tool.user_requested": _user_tool,
    "tool.execution_complete": _tool_result,
    "session.compaction_complete": _compaction,
}


def _key_arg(arguments: object) -> str:
    if isinstance(arguments, dict):
        # The editor tool's `command` is its action; in a damaged event it may be anything.
        command, path = arguments.get("command"), arguments.get("path")
        if isinstance(command, str) and command in _EDITOR_COMMANDS and isinstance(path, str):
            return path or key_arg(arguments)
    return key_arg(arguments)


# -- history-session-state/*.json: rewritten whole --------------------------------------------


def _read_legacy(
    f: BinaryIO, root: Path, path: Path, previous: FileState | None, masker: Masker | None
) -> Iterator[FileBatch]:
    """Read the whole file again when its size or mtime changed; the store keeps only the
    uuids it lacks. A file that is not a session (or caught half-written) counts as one
    skipped entry until it changes."""
    st = os.fstat(f.fileno())
    mark = _WHOLE + st.st_size.to_bytes(8, "little") + st.st_mtime_ns.to_bytes(8, "little")
    if previous is not None and (previous.dev, previous.ino, previous.tail) == (
        st.st_dev,
        st.st_ino,
        mark,
    ):
        return
    log.info("reading %s whole", path)
    obj = object_or_none(f.read())
    named = _LEGACY_NAME.fullmatch(path.stem)
    session = _Session(named.group(1) if named else path.stem)
    timeline = obj.get("timeline") if isinstance(obj, dict) else None
    if isinstance(obj, dict):
        session.id = safe_id(obj.get("sessionId"), session.id)
    # The same session resumed by a newer release has a workspace.yaml with its directory.
    _fill(session, _workspace(root / "session-state" / session.id))
    if session.cwd is None and isinstance(obj, dict):
        session.cwd = _legacy_cwd(obj.get("chatMessages"))
    records, skipped = _timeline(timeline, session) if isinstance(timeline, list) else ([], 1)
    if skipped:
        log.warning("%s: %d entries skipped", path, skipped)
    state = FileState(str(path), st.st_dev, st.st_ino, st.st_size, len(records), mark, skipped)
    batch: Records = [(n, masked(masker, r)) for n, r in enumerate(records, 1)]
    if session.title:
        title = Title(title=session.title, session_id=session.id)
        batch.append((len(records), masked(masker, title)))
    # Only the last batch carries the new mark: a crash before it reads the file again.
    unfinished = replace(state, tail=b"", skipped=0)
    for start in range(0, len(batch), BATCH):
        last = start + BATCH >= len(batch)
        chunk = batch[start : start + BATCH]
        yield FileBatch(
            state if last else unfinished, chunk, session.project(), skipped if last else 0, AGENT
        )
    if not batch:
        yield FileBatch(state, [], session.project(), skipped, AGENT)


def _legacy_cwd(chat: object) -> str | None:
    for message in chat if isinstance(chat, list) else ():
        if isinstance(message, dict) and message.get("role") == "system":
            found = _LEGACY_CWD.search(_str(message.get("content")) or "")
            if found:
                return found.group(1).strip()
    return None


def _timeline(entries: list[Any], session: _Session) -> tuple[list[Message], int]:
    """The messages of a legacy timeline, and how many of its entries were not readable."""
    messages: list[Message] = []
    skipped = 0
    for entry in entries:
        msg = _entry(entry, session) if isinstance(entry, dict) else None
        if msg is None:
            skipped += 1
        else:
            messages.append(msg)
    return messages, skipped


def _entry(entry: dict[str, Any], session: _Session) -> Message | None:
    entry_id = _str(entry.get("id"))
    kind = entry.get("type")
    if not entry_id or not isinstance(kind, str):
        return None
    timestamp = _str(entry.get("timestamp"))
    msg = Message(
        # The timeline id within its session: the legacy file and its import are one message.
        uuid=f"copilot:{session.id}:{entry_id}",
        session_id=session.id,
        role="assistant",
        kind=Kind.ASSISTANT,
        timestamp=timestamp,
        epoch=epoch(timestamp),
        cwd=session.cwd,
        git_branch=session.branch,
    )
    text = _str(entry.get("text"))
    call_id = _str(entry.get("callId")) or ""
    if kind == "user" and text is not None:
        msg.role, msg.kind, msg.text = "user", Kind.PROMPT, text
        msg.title = prompt_title(text)
    elif kind == "copilot" and text is not None:
        msg.text = text
    elif kind in ("info", "error") and text is not None:
        msg.kind, msg.text = Kind.META, text
    elif kind == "tool_call_requested":
        name = _str(entry.get("name")) or ""
        msg.tool_calls = [ToolCall(name, _key_arg(entry.get("arguments")), call_id)]
    elif kind == "tool_call_completed":
        result = _dict(entry.get("result"))
        outcome = _str(result.get("type")) or ""
        msg.role, msg.kind = "user", Kind.TOOL_RESULT
        msg.tool_output = _str(result.get("log")) or outcome
        msg.is_error = outcome != "success"
        msg.answers = [call_id] if call_id else []
    else:
        return None
    return msg


# -- workspace.yaml ---------------------------------------------------------------------------


def _workspace(folder: Path) -> dict[str, str]:
    """The few top-level keys of a session's workspace.yaml that matter here. The CLI writes
    it with the `yaml` package (no line folding): `key: value` lines, a value plain or quoted,
    a multi-line one as a `|` block. Read by hand: PyYAML for four keys is not worth a
    dependency."""
    try:
        lines = (folder / "workspace.yaml").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    found: dict[str, str] = {}
    rows = lines.splitlines()
    for number, line in enumerate(rows):
        key, sep, value = line.partition(":")
        if not sep or key not in _WORKSPACE_KEYS:
            continue
        value = value.strip()
        if value[:1] in ("|", ">"):
            block = []
            for more in rows[number + 1 :]:
                if more and not more[:1].isspace():
                    break
                block.append(more.strip())
            joined = ("\n" if value[0] == "|" else " ").join(block).strip()
            if joined:
                found[key] = joined
        elif (scalar := _scalar(value)) is not None:
            found[key] = scalar
    return found


def _scalar(value: str) -> str | None:
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    if len(value) >= 2 and value[0] == value[-1] == '"':
        # As JSON reads it, a lone surrogate escape (half an emoji cut off) made U+FFFD.
        loaded = slow_loads(value.encode())
        if isinstance(loaded, Bad):
            return value[1:-1]
        return loaded if isinstance(loaded, str) else None
    plain = value.split(" #", 1)[0].strip()
    return None if plain in ("", "~", "null") else plain


# -- small helpers ----------------------------------------------------------------------------


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _synthetic_uuid(line: bytes) -> str:
    # An event always has an id; one without is still stored once, by its content.
    return "copilot-line-" + hashlib.sha1(line.rstrip(b"\r\n")).hexdigest()


SOURCE = Source(
    agent=AGENT,
    env="MEMTUI_COPILOT_DIR",
    holds="`session-state/` (as ~/.copilot)",
    default_root=_default_root,
    discover=discover,
    read_file=read_file,
    resume=_resume,
)
