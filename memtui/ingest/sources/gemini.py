"""Gemini CLI: sessions under `~/.gemini/tmp/<project id>/chats/` (gemini-cli's
chatRecordingService.ts).

Two layouts, both read:
- `session-<time>-<id>.json` (older releases): one object, rewritten whole on every update.
  Its checkpoint is the file's size, mtime and SHA-256: an untouched file is not even read, a
  changed one is read whole again and the store keeps only the uuids it lacks.
- `session-<time>-<id8>.jsonl` (newer): a metadata line, then appended lines: a message (a
  message re-appended with the same id replaces it: its tool calls and their results are added
  later that way), `{"$set": {...}}` (metadata; with `messages`, the whole list anew) and
  `{"$rewindTo": id}` (drops that message and every later one). Followed by byte offset like a
  Claude Code transcript; a read that meets a rewind replays the file from its start, since
  what a rewind drops depends on the whole order. Subagents write `chats/<parent id>/<id>.jsonl`
  and belong to the parent session.

Uuids come from gemini-cli's own message and tool-call ids, so a session copied by the
project-folder migration, or a `.json` session written again as `.jsonl` when resumed, is
stored once. A message's text is what was first read of it; later versions add only its new
tool calls and results. A rewound message is never stored once dropped; one stored before the
rewind stays (the store cannot delete a message).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from memtui.ingest import follower
from memtui.ingest.parser import epoch, key_arg, object_or_none, prompt_title, safe_id
from memtui.ingest.reader import BATCH, Unreadable, guarded, masked, mtime, unstorable
from memtui.ingest.sources import Source
from memtui.store.archive import FileBatch, FileState
from memtui.store.mask import Masker
from memtui.store.records import Kind, Message, Title, ToolCall

log = logging.getLogger(__name__)

AGENT = "gemini"
# Text gemini-cli sends as a user turn on the person's behalf: never a prompt or a title.
_INJECTED = ("<session_context>", "<hook_context>")
_SNAPSHOT = "<state_snapshot>"  # a /compress summary that stands for the history before it
_HASH = re.compile(r"[0-9a-f]{64}")
# A whole-file checkpoint's tail: this marker, size and mtime (8 bytes each), SHA-256.
_WHOLE = b"\x00w"


def _default_root(environ: Mapping[str, str]) -> Path:
    # gemini-cli puts `.gemini` under GEMINI_CLI_HOME when set (core/src/utils/paths.ts).
    home = environ.get("GEMINI_CLI_HOME", "").strip()
    return (Path(home).expanduser() if home else Path.home()) / ".gemini"


def _resume(session_id: str) -> list[str]:
    # Looked up among the sessions of the project it is run in.
    return ["gemini", "--resume", session_id]


def discover(root: Path) -> tuple[list[Path], list[str]]:
    """Sessions oldest first, then subagents'; `logs.json` (every typed prompt, not a
    conversation) and the `.tmp-<pid>` / `.unreadable-` files beside them are not matched."""
    tmp = root / "tmp"
    if not tmp.is_dir():
        return [], []
    mains = [*tmp.glob("*/chats/*.json"), *tmp.glob("*/chats/*.jsonl")]
    agents = list(tmp.glob("*/chats/*/*.jsonl"))
    bad: list[str] = []
    ok: list[list[Path]] = [[], []]
    for group, paths in enumerate((mains, agents)):
        for path in paths:
            if why := unstorable(path):
                bad.append(why)
            else:
                ok[group].append(path)
    return sorted(ok[0], key=mtime) + sorted(ok[1], key=mtime), bad


def read_file(
    root: Path, path: Path, previous: FileState | None, masker: Masker | None = None
) -> Iterator[FileBatch | Unreadable]:
    """The new records of one session file, in batches, each with the checkpoint after it."""
    if path.suffix == ".json":
        return guarded(path, lambda f: _read_whole(f, root, path, previous, masker))
    return guarded(path, lambda f: _read_appended(f, root, path, previous, masker))


# -- one session's state as its file says -------------------------------------------------


# The metadata fields read, and what gemini-cli writes in them.
_META_TYPES: dict[str, type] = {
    "sessionId": str,
    "projectHash": str,
    "summary": str,
    "startTime": str,
    "lastUpdated": str,
    "directories": list,
}


@dataclass(slots=True)
class _Session:
    meta: dict[str, Any] = field(default_factory=dict)
    # By id, in the order gemini-cli keeps them: a re-appended message keeps its place.
    messages: dict[str, dict[str, Any]] = field(default_factory=dict)
    summary: str | None = None  # set by a line read this time
    skipped: int = 0
    rewound: bool = False

    def apply(self, obj: object) -> bool:
        """Fold one line in; False when it is not a record gemini-cli writes."""
        if not isinstance(obj, dict):
            return False
        if isinstance(obj.get("$rewindTo"), str):
            self.rewind(obj["$rewindTo"])
        elif isinstance(obj.get("id"), str):
            self.messages[obj["id"]] = obj
        elif isinstance(obj.get("$set"), dict):
            update = obj["$set"]
            if isinstance(update.get("messages"), list):
                self.messages.clear()  # the whole list, anew
                self.add_all(update["messages"])
            self.set_meta(update)
        elif isinstance(obj.get("sessionId"), str):
            if isinstance(obj.get("messages"), list):
                self.add_all(obj["messages"])  # a whole legacy record on one line
            self.set_meta(obj)
        else:
            return False
        return True

    def set_meta(self, update: dict[str, Any]) -> None:
        # A field of the wrong type is left out: `sessionId: 5` would split the session.
        self.meta.update(
            (k, v)
            for k, v in update.items()
            if k != "messages" and isinstance(v, _META_TYPES.get(k, object))
        )
        if isinstance(update.get("summary"), str) and update["summary"]:
            self.summary = update["summary"]

    def add_all(self, messages: list[Any]) -> None:
        for msg in messages:
            if isinstance(msg, dict) and isinstance(msg.get("id"), str):
                self.messages[msg["id"]] = msg
            else:
                self.skipped += 1

    def rewind(self, target: str) -> None:
        self.rewound = True
        if target not in self.messages:
            self.messages.clear()  # as gemini-cli's loader does
            return
        ids = list(self.messages)
        for dropped in ids[ids.index(target) :]:
            del self.messages[dropped]


# -- the two layouts ------------------------------------------------------------------------


def _read_whole(
    f: BinaryIO, root: Path, path: Path, previous: FileState | None, masker: Masker | None
) -> Iterator[FileBatch]:
    st = os.fstat(f.fileno())
    stamp = _WHOLE + st.st_size.to_bytes(8, "little") + st.st_mtime_ns.to_bytes(8, "little")
    if previous is not None and previous.tail.startswith(stamp):
        return  # untouched since the last read
    data = f.read()
    digest = hashlib.sha256(data).digest()
    state = FileState(str(path), st.st_dev, st.st_ino, len(data), 1, stamp + digest)
    where = _Where.of(root, path)
    if previous is not None and previous.tail.endswith(digest):
        state.skipped = previous.skipped
        yield FileBatch(state, [], where.project, 0, AGENT)  # touched, same bytes
        return
    session = _Session()
    whole = object_or_none(data)
    if not session.apply(whole) or "sessionId" not in session.meta:
        # Damaged, or caught mid-write by a release that wrote in place: counted, and read
        # again once it changes.
        session.skipped += 1
        log.warning("%s skipped: not a Gemini CLI session", path)
    state.skipped = session.skipped
    new_skips = max(0, session.skipped - (previous.skipped if previous else 0))
    yield from _batches(session, where, path, state, previous, new_skips, masker)


def _read_appended(
    f: BinaryIO, root: Path, path: Path, previous: FileState | None, masker: Masker | None
) -> Iterator[FileBatch]:
    name = str(path)
    state, fresh = follower.start_state(f, name, previous)
    state = replace(state)  # `previous` itself when resuming: the last batch's only
    session = _Session(meta=_first_line(f))
    counted_to = state.offset  # damaged lines before it were counted by an earlier read
    lines = follower.read_lines(f, state)
    end, number = state.offset, state.line
    replaying = fresh
    while True:
        for line in lines:
            end, number = line.end, line.number
            obj = object_or_none(line.data) if line.data is not None else None
            if session.apply(obj):
                if session.rewound and not replaying:
                    break  # what it drops depends on lines read before: replay them all
                continue
            if line.end > counted_to:
                session.skipped += 1
                log.warning("%s:%d skipped: not a Gemini CLI record", name, line.number)
        else:
            break
        replaying = True
        session = _Session(meta=session.meta)  # the replay counts damaged lines anew
        lines = follower.read_lines(f, FileState(name))
    if end == state.offset and not fresh:
        return
    state.offset, state.line = end, number
    state.tail = follower.tail_before(f, end)
    state.skipped += session.skipped
    yield from _batches(
        session, _Where.of(root, path), path, state, previous, session.skipped, masker
    )


def _first_line(f: BinaryIO) -> dict[str, Any]:
    """The metadata line: session id and project hash for lines read after it."""
    f.seek(0)
    first = f.readline(follower.MAX_LINE + 1)
    meta = object_or_none(first) if first.endswith(b"\n") else None
    if isinstance(meta, dict) and isinstance(meta.get("sessionId"), str):
        return {k: v for k, v in meta.items() if k != "messages"}
    return {}


def _batches(
    session: _Session,
    where: _Where,
    path: Path,
    state: FileState,
    previous: FileState | None,
    skipped: int,
    masker: Masker | None,
) -> Iterator[FileBatch]:
    """The session's records in BATCH-sized batches. Only the last carries the new checkpoint:
    the records are the session as all the lines read say, so an earlier batch has no place in
    the file to stop at (a crash between them reads the same lines again, and the uuids keep
    that from storing anything twice)."""
    own_id = session.meta.get("sessionId")
    where = where.with_session(safe_id(own_id, path.stem), session.meta)
    records: list[tuple[int, Message | Title]] = []
    uuids: set[str] = set()  # a result under its call and again as a user turn: once
    for line, msg in enumerate(session.messages.values(), 1):
        for record in _records(msg, where, uuids):
            if record.uuid not in uuids:
                uuids.add(record.uuid)
                records.append((line, record))
    if session.summary and not where.sidechain:
        records.append((0, Title(session.summary, session_id=where.session_id)))
    records = [(n, masked(masker, r)) for n, r in records]
    before = previous or FileState(str(path), state.dev, state.ino)
    chunks = [records[i : i + BATCH] for i in range(0, len(records), BATCH)] or [[]]
    for chunk in chunks[:-1]:
        yield FileBatch(before, chunk, where.project, 0, AGENT)
    yield FileBatch(state, chunks[-1], where.project, skipped, AGENT)


# -- where a session belongs ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Where:
    project: str  # the project's root path, or its folder when it cannot be recovered
    folder: Path
    root: Path
    parent: str | None  # a subagent's file: its parent session's id
    session_id: str = ""
    agent_id: str | None = None  # a subagent's own session id
    sidechain: bool = False

    @classmethod
    def of(cls, root: Path, path: Path) -> _Where:
        try:
            parts = path.relative_to(root / "tmp").parts
        except ValueError:
            parts = ()
        folder = root / "tmp" / parts[0] if len(parts) > 2 else path.parent
        # <folder>/chats/<parent id>/<id>.jsonl: a subagent's, part of its parent's session.
        parent = safe_id(parts[2], parts[2]) if len(parts) == 4 else None
        return cls(_project_root(root, folder, None), folder, root, parent)

    def with_session(self, own_id: str, meta: dict[str, Any]) -> _Where:
        project = self.project
        if project == str(self.folder):  # not recovered from the folder: try the hash
            project = _project_root(self.root, self.folder, meta)
        if self.parent is None:
            return _Where(project, self.folder, self.root, None, own_id)
        return _Where(project, self.folder, self.root, self.parent, self.parent, own_id, True)


def _project_root(root: Path, folder: Path, meta: dict[str, Any] | None) -> str:
    """The path a project folder stands for: `.project_root` in it, or the path projects.json
    maps to its slug; for a folder named by the SHA-256 of its path (older releases) or a
    session's `projectHash`, the known path with that hash; else the folder itself."""
    marker = folder / ".project_root"
    try:
        text = marker.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        text = ""
    if text:
        return text
    known = _known_roots(root)
    by_slug = {slug: p for p, slug in known.items() if slug}
    if folder.name in by_slug:
        return by_slug[folder.name]
    hashes = [folder.name] if _HASH.fullmatch(folder.name) else []
    extra: list[str] = []
    if meta is not None:
        if isinstance(meta.get("projectHash"), str):
            hashes.append(meta["projectHash"])
        dirs = meta.get("directories")
        extra = [d for d in dirs if isinstance(d, str)] if isinstance(dirs, list) else []
    for candidate in [*known, *extra]:
        if hashlib.sha256(candidate.encode()).hexdigest() in hashes:
            return candidate
    return str(folder)


_roots_cache: dict[str, tuple[tuple[int, int], dict[str, str]]] = {}


def _known_roots(root: Path) -> dict[str, str]:
    """Every project path gemini-cli knows, each with its slug ('' when only a folder's
    `.project_root` names it): projects.json, read again only when it or tmp/ changes."""
    registry, tmp = root / "projects.json", root / "tmp"
    stamp = (_mtime_ns(registry), _mtime_ns(tmp))
    cached = _roots_cache.get(str(root))
    if cached is not None and cached[0] == stamp:
        return cached[1]
    roots: dict[str, str] = {}
    try:
        projects = orjson.loads(registry.read_bytes()).get("projects")
    except (OSError, orjson.JSONDecodeError, AttributeError):
        projects = None
    if isinstance(projects, dict):
        roots.update((p, s) for p, s in projects.items() if isinstance(s, str))
    for marker in tmp.glob("*/.project_root"):
        try:
            roots.setdefault(marker.read_text(encoding="utf-8").strip(), marker.parent.name)
        except (OSError, UnicodeDecodeError):
            continue
    _roots_cache[str(root)] = (stamp, roots)
    return roots


def _mtime_ns(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


# -- one message to records -----------------------------------------------------------------


def _records(msg: dict[str, Any], where: _Where, seen: set[str]) -> list[Message]:
    """The records of one message; `seen`: the uuids of the records before it."""
    kind = msg.get("type")
    if kind == "gemini":
        return _answer(msg, where)
    if kind == "user":
        return _user(msg, where, seen)
    text = _text(_parts(msg.get("content")))[0]
    if not text:
        return []
    # info / warning / error: what the CLI showed, neither typed nor answered.
    return [_message(msg, where, msg["id"], "user", Kind.META, text=text)]


def _answer(msg: dict[str, Any], where: _Where) -> list[Message]:
    """The answer, then each tool call (merged into it by api_id: calls a later version of
    the message adds are stored too), then each call's result."""
    msg_id = msg["id"]
    text, thinking = _text(_parts(msg.get("content")))
    thoughts = [_thought(t) for t in _list(msg.get("thoughts")) if isinstance(t, dict)]
    thinking = "\n\n".join(t for t in (*thoughts, thinking) if t)
    calls = _calls(msg)
    out: list[Message] = []
    if text or thinking or calls:
        out.append(_message(msg, where, msg_id, "assistant", Kind.ASSISTANT, text, thinking))
    for call_id, call in calls.items():
        record = _message(msg, where, f"{msg_id}/{call_id}", "assistant", Kind.ASSISTANT)
        record.tool_calls = [ToolCall(_str(call.get("name")), key_arg(call.get("args")), call_id)]
        out.append(record)
    for record in out:
        record.api_id = msg_id
    for call_id, call in calls.items():
        result = call.get("result")
        if result is not None:
            record = _result(msg, where, call_id, result, call.get("status") == "error")
            record.timestamp = _str(call.get("timestamp")) or record.timestamp
            record.epoch = epoch(record.timestamp)
            out.append(record)
    return out


def _calls(msg: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Tool calls by id: the recorded ones (with their results), and any only in `content`."""
    calls: dict[str, dict[str, Any]] = {}
    for n, call in enumerate(_list(msg.get("toolCalls"))):
        if isinstance(call, dict):
            calls[_str(call.get("id")) or f"call-{n}"] = call
    for n, part in enumerate(_parts(msg.get("content"))):
        fc = part.get("functionCall")
        if isinstance(fc, dict):
            calls.setdefault(_str(fc.get("id")) or f"part-{n}", fc)
    return calls


def _user(msg: dict[str, Any], where: _Where, seen: set[str]) -> list[Message]:
    parts = _parts(msg.get("content"))
    responses = [
        p["functionResponse"] for p in parts if isinstance(p.get("functionResponse"), dict)
    ]
    if responses:
        # Newer releases also record the results sent back as a user turn: the same uuids as
        # the results under the call, so whichever is read first is the one stored.
        ids = [_str(r.get("id")) or f"{msg['id']}-{n}" for n, r in enumerate(responses)]
        return [
            _result(msg, where, call_id, [{"functionResponse": r}], None)
            for call_id, r in zip(ids, responses, strict=True)
            if _result_uuid(where, call_id) not in seen
        ]
    shown = msg.get("displayContent")
    text = _text(_parts(shown))[0] if shown else _text(parts)[0]
    stripped = text.lstrip()
    if not stripped:
        return []
    if stripped.startswith(_INJECTED):
        return [_message(msg, where, msg["id"], "user", Kind.META, text=text)]
    if stripped.startswith(_SNAPSHOT):
        return [_message(msg, where, msg["id"], "user", Kind.COMPACT_SUMMARY, text=text)]
    record = _message(msg, where, msg["id"], "user", Kind.PROMPT, text=text)
    record.title = prompt_title(text)
    return [record]


def _result(
    msg: dict[str, Any], where: _Where, call_id: str, result: object, is_error: bool | None
) -> Message:
    output, failed = _output(_parts(result))
    record = _message(msg, where, _result_uuid(where, call_id), "user", Kind.TOOL_RESULT)
    record.tool_output = output
    record.answers = [call_id]
    record.is_error = bool(is_error or failed)
    return record


def _result_uuid(where: _Where, call_id: str) -> str:
    return f"{where.session_id}/{call_id}/result"


def _output(parts: list[dict[str, Any]]) -> tuple[str, bool]:
    """A result's text, and whether it reports an error."""
    texts: list[str] = []
    failed = False
    for part in parts:
        if isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif isinstance(fr := part.get("functionResponse"), dict):
            response = fr.get("response")
            if isinstance(response, dict) and ("output" in response or "error" in response):
                failed = failed or "error" in response
                value = response.get("output", response.get("error"))
                texts.append(value if isinstance(value, str) else _dump(value))
            elif response is not None:
                texts.append(_dump(response))
        elif "inlineData" in part or "fileData" in part:
            texts.append("[attachment]")
    return "\n".join(texts), failed


def _message(
    msg: dict[str, Any],
    where: _Where,
    uuid: str,
    role: str,
    kind: Kind,
    text: str = "",
    thinking: str = "",
) -> Message:
    timestamp = _str(msg.get("timestamp")) or None
    return Message(
        uuid=uuid,
        session_id=where.session_id,
        role=role,
        kind=kind,
        timestamp=timestamp,
        cwd=where.project,
        git_branch=None,
        is_sidechain=where.sidechain,
        agent_id=where.agent_id,
        text=text,
        thinking=thinking,
        epoch=epoch(timestamp),
    )


def _parts(content: object) -> list[dict[str, Any]]:
    """A PartListUnion as a list of parts: a string is one text part."""
    if isinstance(content, str):
        return [{"text": content}]
    if isinstance(content, dict):
        return [content]
    if isinstance(content, list):
        return [
            p if isinstance(p, dict) else {"text": p} for p in content if isinstance(p, dict | str)
        ]
    return []


def _text(parts: list[dict[str, Any]]) -> tuple[str, str]:
    """The text of some parts, and apart the text of those marked as thoughts."""
    said: list[str] = []
    thought: list[str] = []
    for part in parts:
        text = part.get("text")
        if isinstance(text, str) and text:
            (thought if part.get("thought") is True else said).append(text)
    return "".join(said), "\n\n".join(thought)


def _thought(thought: dict[str, Any]) -> str:
    subject, description = _str(thought.get("subject")), _str(thought.get("description"))
    return f"{subject}\n{description}".strip()


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def _dump(value: object) -> str:
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return ""


SOURCE = Source(
    agent=AGENT,
    env="MEMTUI_GEMINI_DIR",
    holds="`tmp/` (as ~/.gemini)",
    default_root=_default_root,
    discover=discover,
    read_file=read_file,
    resume=_resume,
)
