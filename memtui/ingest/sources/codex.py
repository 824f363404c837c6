"""Codex CLI: rollouts under `$CODEX_HOME` (`~/.codex`), `sessions/YYYY/MM/DD/` and
`archived_sessions/`, one `rollout-<time>-<uuid>.jsonl` per session, appended in place
(codex-rs rollout recorder.rs, policy.rs, compression.rs; protocol models.rs).

Each line is `{timestamp, type, payload}`: `session_meta` (id, cwd, cli version, git),
`turn_context` (model), `response_item` (the model-visible history: messages, reasoning,
tool calls and their outputs), `event_msg` (what the UI showed; its user and agent messages
repeat response items, so none is stored) and `compacted` (a summary standing for the history
before it). Old rollouts may be compressed to `.jsonl.zst`: such a file is final, read whole
again only when it changes; Codex itself reads the plain file when both exist, so does this.

Rollout items carry no ids, so message uuids are a hash chain over the history: each stored
item's uuid hashes the uuid before it with what the item says (never its timestamp), and a
`session_meta` line starts the chain anew from its session id. A fork copies its parent's
history into the new file, after the parent's `session_meta` (new timestamps, same items):
the copy gets the parent's uuids, and whatever the fork adds after it continues the parent's
chain at that point, so it is new unless it is the very same item at the very same place.
We derive uuids rather than skip the copied prefix because nothing in the file marks where
the copy ends. The same chain makes a `.jsonl.zst` replacing its `.jsonl` (another path,
read from its start) store nothing twice. The chain's head is kept in the checkpoint, after
the follower's tail digest, so a growing rollout is read on from its offset.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import re
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, BinaryIO

import orjson
import zstandard

from memtui.ingest import follower
from memtui.ingest.parser import ARG_LIMIT, ARG_READ, epoch, loads_object, safe_id
from memtui.ingest.reader import BATCH, Unreadable, guarded, masked, unstorable
from memtui.ingest.sources import Source
from memtui.ingest.titles import prompt_title
from memtui.store.archive import FileBatch, FileState
from memtui.store.mask import Masker
from memtui.store.records import Bad, Kind, Message, Title, ToolCall

log = logging.getLogger(__name__)

AGENT = "codex"
_FOLDERS = ("sessions", "archived_sessions")  # history.jsonl beside them is not a conversation
# Names given with /rename: `{id, thread_name, updated_at}` appended, the last one wins
# (rollout session_index.rs). Read after the rollouts, so the sessions it names are stored.
_NAMES = "session_index.jsonl"
_PLAIN, _COMPRESSED = ".jsonl", ".jsonl.zst"
# User-role text Codex sends on the person's behalf: never a prompt or a title.
_INJECTED = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions for ",
    "<user_shell_command>",
    "<turn_aborted>",
)
_CWD = re.compile(r"<environment_context>.*?<cwd>(.*?)</cwd>", re.DOTALL)
_ARG_KEYS = ("command", "cmd", "file_path", "path", "pattern", "query", "url", "q")
_PATCH_FILE = ("*** Update File: ", "*** Add File: ", "*** Delete File: ")
_CHAIN = b"\x00c"  # in a checkpoint's tail: this marker, then the chain's head (SHA-1)
_CHAIN_TAIL = len(_CHAIN) + 20
_ZST_CHUNK = 1 << 17  # compressed bytes read at a time
# Codex writes `{"timestamp":"<24 characters>",` and, in newer releases, an ordinal before
# `"type":...`: the type is within the first 120 bytes.
_TYPE_WITHIN = 120


def _default_root(environ: Mapping[str, str]) -> Path:
    home = environ.get("CODEX_HOME", "").strip()
    return Path(home).expanduser() if home else Path.home() / ".codex"


def _resume(session_id: str) -> list[str]:
    return ["codex", "resume", session_id]


def discover(root: Path) -> tuple[list[Path], list[str]]:
    """Every rollout, by its name (its start time: a parent before its forks), then the
    sessions' names; a `.jsonl.zst` whose plain `.jsonl` is still there is the same session
    and left out, as Codex does."""
    found: list[Path] = []
    bad: list[str] = []
    for folder in _FOLDERS:
        for path in (root / folder).rglob("rollout-*.jsonl*"):
            if not path.name.endswith((_PLAIN, _COMPRESSED)):
                continue
            if why := unstorable(path):
                bad.append(why)
            elif not (path.name.endswith(_COMPRESSED) and _plain(path).exists()):
                found.append(path)
    found.sort(key=lambda p: (_plain(p).name, str(p)))
    if (root / _NAMES).is_file():
        found.append(root / _NAMES)
    return found, bad


def _plain(path: Path) -> Path:
    name = path.name
    return path.with_name(name.removesuffix(".zst")) if name.endswith(_COMPRESSED) else path


@dataclass(slots=True)
class _Session:
    """What every message of one rollout shares, and the chain's head after the last line."""

    session_id: str
    head: bytes
    cwd: str | None = None
    git_branch: str | None = None
    started: str | None = None  # the session_meta's timestamp
    own: bool = False  # the file's own session_meta was seen (later ones are a parent's)


def read_file(
    root: Path, path: Path, previous: FileState | None, masker: Masker | None = None
) -> Iterator[FileBatch | Unreadable]:
    """The new messages of one rollout, in batches, each with the checkpoint after it."""
    compressed = str(path).endswith(_COMPRESSED)
    return guarded(
        path,
        lambda f: (_read_compressed if compressed else _read_plain)(f, path, previous, masker),
    )


def _read_plain(
    f: BinaryIO, path: Path, previous: FileState | None, masker: Masker | None
) -> Iterator[FileBatch]:
    name = str(path)
    head = b""
    if previous is not None and previous.tail[-_CHAIN_TAIL:-20] == _CHAIN:
        head = previous.tail[-20:]
        previous = replace(previous, tail=previous.tail[:-_CHAIN_TAIL])
    else:
        previous = None  # without the chain's head, only a read from the start is right
    state, fresh = follower.start_state(f, name, previous)
    session = _new_session(path)
    if fresh:
        log.info("reading %s from the start", name)
    else:
        _read_meta(f, session)
        session.head = head
    batch: list[tuple[int, Message | Title]] = []
    end, skipped_before = state.offset, state.skipped
    for line in follower.read_lines(f, state):
        state.line, end = line.number, line.end
        found = _parse(line.data, session) if line.data is not None else Bad("too long")
        if isinstance(found, Bad):
            state.skipped += 1
            log.warning("%s:%d skipped: %s", name, line.number, found.reason)
            continue
        for msg in found:
            batch.append((line.number, masked(masker, msg)))
        if len(batch) >= BATCH:
            state.offset = end
            state.tail = follower.tail_before(f, end) + _CHAIN + session.head
            yield _batch(state, batch, session, state.skipped - skipped_before)
            batch, skipped_before = [], state.skipped
    if batch or end != state.offset or fresh:
        state.offset = end
        state.tail = follower.tail_before(f, end) + _CHAIN + session.head
        yield _batch(state, batch, session, state.skipped - skipped_before)


def _read_compressed(
    f: BinaryIO, path: Path, previous: FileState | None, masker: Masker | None
) -> Iterator[FileBatch | Unreadable]:
    """A compressed rollout is final: read whole again only when it is another file or its
    size or last bytes changed; the chain's uuids keep the re-read from storing anything
    twice. Until the stream's end is reached, a batch's checkpoint says nothing was read."""
    name = str(path)
    st = os.fstat(f.fileno())
    if (
        previous is not None
        and (previous.dev, previous.ino, previous.offset) == (st.st_dev, st.st_ino, st.st_size)
        and previous.tail == follower.tail_before(f, st.st_size)
    ):
        return
    log.info("reading %s whole", name)
    state = FileState(path=name, dev=st.st_dev, ino=st.st_ino)
    session = _new_session(path)
    batch: list[tuple[int, Message | Title]] = []
    skipped_before = 0
    f.seek(0)
    frames = _Frames(f)
    lines = io.BufferedReader(frames)
    try:
        for data in lines:
            state.line += 1
            found = _parse(data, session)
            if isinstance(found, Bad):
                state.skipped += 1
                log.warning("%s:%d skipped: %s", name, state.line, found.reason)
                continue
            for msg in found:
                batch.append((state.line, masked(masker, msg)))
            if len(batch) >= BATCH:
                yield _batch(replace(state), batch, session, state.skipped - skipped_before)
                batch, skipped_before = [], state.skipped
    except zstandard.ZstdError as exc:
        log.warning("stopped reading %s: %s", name, exc)
        yield _batch(replace(state), batch, session, state.skipped - skipped_before)
        yield Unreadable(name, f"damaged zstd stream: {exc}")
        return
    if not frames.whole:
        log.warning("stopped reading %s: the zstd stream is cut short", name)
        yield _batch(replace(state), batch, session, state.skipped - skipped_before)
        yield Unreadable(name, "damaged zstd stream: cut short")
        return
    state.offset = st.st_size
    state.tail = follower.tail_before(f, st.st_size)
    yield _batch(state, batch, session, state.skipped - skipped_before)


class _Frames(io.RawIOBase):
    """The bytes of a zstd file's frames, one after another. `whole` once the file ended
    where a frame does: zstandard's stream reader ends a file cut short mid-frame silently."""

    def __init__(self, f: BinaryIO) -> None:
        self.f = f
        self.unzip = zstandard.ZstdDecompressor()
        self.frame = self.unzip.decompressobj()
        self.out = memoryview(b"")
        self.whole = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self.out:
            data = self.f.read(_ZST_CHUNK)
            if not data:
                self.whole = self.frame.eof
                return 0
            out = []
            while data:
                if self.frame.eof:
                    self.frame = self.unzip.decompressobj()  # the next frame
                out.append(self.frame.decompress(data))
                data = self.frame.unused_data if self.frame.eof else b""
            self.out = memoryview(b"".join(out))
        size = min(len(buffer), len(self.out))
        buffer[:size] = self.out[:size]
        self.out = self.out[size:]
        return size


def _batch(
    state: FileState, batch: list[tuple[int, Message | Title]], session: _Session, skipped: int
) -> FileBatch:
    # A project is its directory: the session's cwd, else the folder the rollout is in.
    project = session.cwd or str(Path(state.path).parent)
    return FileBatch(replace(state), batch, project, skipped, agent=AGENT)


def _new_session(path: Path) -> _Session:
    # The file name ends with the session's id: the fallback when no session_meta says it.
    session_id = _plain(path).name.removesuffix(_PLAIN)[-36:]
    return _Session(safe_id(session_id, session_id), _digest(session_id.encode()))


def _read_meta(f: BinaryIO, session: _Session) -> None:
    """Take the session's id, cwd and branch from the first line, on reading on from an
    offset (where the chain's head comes from the checkpoint)."""
    f.seek(0)
    for line in follower.read_lines(f, FileState(path="")):
        if line.data is not None:
            _parse(line.data, session)
        return


def _digest(data: bytes) -> bytes:
    return hashlib.sha1(data, usedforsecurity=False).digest()


def _parse(data: bytes, session: _Session) -> list[Message | Title] | Bad:
    """The messages of one line (none for most), updating `session`; never raises."""
    if data.find(b'"type":"event_msg"', 0, _TYPE_WITHIN) >= 0:
        return []  # a third of a rollout's lines, and never stored: not even parsed
    obj = loads_object(data)
    if isinstance(obj, Bad):
        return obj
    kind, payload = obj.get("type"), obj.get("payload")
    if not isinstance(payload, dict):
        return _unwrapped(obj, session)
    if kind == "session_meta":
        _meta(payload, session)
        return []
    if kind == "response_item":
        msg = _response_item(payload, session)
    elif kind == "compacted":
        msg = _compacted(payload, session)
    else:  # turn_context, event_msg (repeats of response items) and what is yet to come
        return []
    return [] if msg is None else _stamped(msg, _str(obj.get("timestamp")), session)


def _unwrapped(obj: dict[str, Any], session: _Session) -> list[Message | Title]:
    """A line not wrapped in `{timestamp, type, payload}`: a name in session_index.jsonl, or
    a line of a rollout from before mid-2025 (a first line with the session's id, timestamp
    and git, then bare response items between `record_type` lines)."""
    if "thread_name" in obj:
        return _name(obj)
    if "type" not in obj and "record_type" not in obj:
        _meta(obj, session)
        return []
    msg = _response_item(obj, session)
    return [] if msg is None else _stamped(msg, None, session)


def _stamped(msg: Message, timestamp: str | None, session: _Session) -> list[Message | Title]:
    # Older rollouts stamp no line: their messages take the session's start.
    timestamp = timestamp or session.started
    msg.timestamp, msg.epoch = timestamp, epoch(timestamp)
    _chain(msg, session)
    return [msg]


def _name(entry: dict[str, Any]) -> list[Message | Title]:
    """A session's name from session_index.jsonl."""
    name, session_id = _str(entry.get("thread_name")), _str(entry.get("id"))
    if not name or not name.strip() or not session_id:
        return []
    return [Title(title=name.strip(), session_id=session_id)]


def _meta(payload: dict[str, Any], session: _Session) -> None:
    session_id = _str(payload.get("id")) or _str(payload.get("session_id"))
    if not session_id:
        return
    # Every session_meta starts a chain: a fork's copy of its parent follows the parent's.
    session.head = _digest(session_id.encode())
    if session.own:
        return
    session.own = True
    session.session_id = safe_id(session_id, session.session_id)
    session.started = _str(payload.get("timestamp"))
    session.cwd = _str(payload.get("cwd")) or session.cwd
    git = payload.get("git")
    if isinstance(git, dict):
        session.git_branch = _str(git.get("branch"))


def _chain(msg: Message, session: _Session) -> None:
    said = orjson.dumps(
        [
            msg.role,
            msg.kind,
            msg.text,
            msg.thinking,
            # Each argument as it was chained when readers cut it before masking: the same
            # uuids for the messages of a rollout read again (compressed, or by a fork).
            [[c.name, c.arg[:ARG_LIMIT], c.id] for c in msg.tool_calls],
            msg.tool_output,
        ]
    )
    session.head = _digest(session.head + said)
    msg.uuid = "codex-" + session.head.hex()


def _message(session: _Session, role: str, kind: Kind) -> Message:
    return Message(
        uuid="",
        session_id=session.session_id,
        role=role,
        kind=kind,
        timestamp=None,
        cwd=session.cwd,
        git_branch=session.git_branch,
    )


def _response_item(item: dict[str, Any], session: _Session) -> Message | None:
    kind = item.get("type")
    if kind == "message":
        return _chat(item, session)
    if kind == "reasoning":
        thinking = "\n\n".join(_texts(item.get("summary")) or _texts(item.get("content")))
        if not thinking:
            return None  # encrypted only: nothing to read
        msg = _message(session, "assistant", Kind.ASSISTANT)
        msg.thinking = thinking
        return msg
    call = _tool_call(kind, item)
    if call is not None:
        msg = _message(session, "assistant", Kind.ASSISTANT)
        msg.tool_calls = [call]
        return msg
    if kind in ("function_call_output", "custom_tool_call_output"):
        msg = _message(session, "user", Kind.TOOL_RESULT)
        msg.tool_output, msg.is_error = _output(item.get("output"))
        if call_id := _str(item.get("call_id")):
            msg.answers = [call_id]
        return msg
    return None


def _chat(item: dict[str, Any], session: _Session) -> Message | None:
    role = item.get("role")
    text = "\n\n".join(_texts(item.get("content")))
    if role == "assistant":
        msg = _message(session, "assistant", Kind.ASSISTANT)
    elif role == "user" and not text.lstrip().startswith(_INJECTED):
        msg = _message(session, "user", Kind.PROMPT)
        msg.title = prompt_title(text)
    elif role in ("user", "developer", "system"):
        if session.cwd is None and (found := _CWD.search(text)):
            session.cwd = found.group(1)  # older session_meta lines have no cwd
        msg = _message(session, "user", Kind.META)
    else:
        return None
    msg.text = text
    return msg


def _compacted(payload: dict[str, Any], session: _Session) -> Message | None:
    text = _str(payload.get("message"))
    if not text:
        return None  # a remote compaction keeps only an encrypted summary
    msg = _message(session, "user", Kind.COMPACT_SUMMARY)
    msg.text = text
    return msg


def _texts(parts: object) -> list[str]:
    """The text of content or summary parts (input_text, output_text, summary_text ...)."""
    if not isinstance(parts, list):
        return []
    texts = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        if isinstance(text := part.get("text"), str):
            texts.append(text)
        elif part.get("type") == "input_image":
            texts.append("[image]")
    return texts


def _tool_call(kind: object, item: dict[str, Any]) -> ToolCall | None:
    call_id = _str(item.get("call_id")) or ""
    if kind == "function_call":
        arguments = _str(item.get("arguments")) or ""
        try:
            parsed = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            parsed = None
        arg = _key_arg(parsed) if isinstance(parsed, dict) else ""
        return ToolCall(_str(item.get("name")) or "", arg or arguments[:ARG_READ], call_id)
    if kind == "custom_tool_call":
        return ToolCall(_str(item.get("name")) or "", _patch_arg(item.get("input")), call_id)
    if kind == "local_shell_call":
        action = item.get("action")
        arg = _key_arg(action) if isinstance(action, dict) else ""
        return ToolCall("local_shell", arg, call_id)
    if kind == "web_search_call":
        action = item.get("action")
        arg = _key_arg(action) if isinstance(action, dict) else ""
        return ToolCall("web_search", arg, call_id)
    return None


def _key_arg(arguments: dict[str, Any]) -> str:
    for key in _ARG_KEYS:
        value = arguments.get(key)
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            # The shell tool's argv: ["bash", "-lc", "<script>"] is about the script.
            shell = len(value) == 3 and value[1] in ("-lc", "-c")
            value = value[2] if shell else shlex.join(value)
        if isinstance(value, str) and value:
            return value[:ARG_READ]
    return ""


def _patch_arg(text: object) -> str:
    """apply_patch's input is a patch: it is about the first file it touches."""
    if not isinstance(text, str):
        return ""
    for line in text.splitlines():
        if line.startswith(_PATCH_FILE):
            return line.split(": ", 1)[1][:ARG_READ]
    return text[:ARG_READ]


def _output(output: object) -> tuple[str, bool | None]:
    """A tool's output and whether it failed, as far as the rollout says: a string (the shell
    tool's is JSON with an exit code, or text headed `Exit code: N`), content parts, or an
    older `{content, success}` object."""
    if isinstance(output, list):
        return "\n".join(_texts(output)), None
    if isinstance(output, dict):
        success = output.get("success")
        text, failed = _shell_output(_str(output.get("content")) or "")
        return text, (not success) if isinstance(success, bool) else failed
    return _shell_output(_str(output) or "")


def _shell_output(text: str) -> tuple[str, bool | None]:
    if text.startswith("{"):
        try:
            obj = orjson.loads(text)
        except orjson.JSONDecodeError:
            return text, None
        if not isinstance(obj, dict) or not isinstance(obj.get("output"), str):
            return text, None
        meta = obj.get("metadata")
        code = meta.get("exit_code") if isinstance(meta, dict) else None
        if not isinstance(code, int) or isinstance(code, bool):
            return obj["output"], None
        # Its exit code as Codex's text form writes it: what reads a run's outcome knows it.
        return f"Exit code: {code}\nOutput:\n{obj['output']}", code != 0
    if text.startswith("Exit code: "):
        code = text[len("Exit code: ") :].split("\n", 1)[0].strip()
        return text, code != "0" if code.lstrip("-").isdigit() else None
    return text, None


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


SOURCE = Source(
    agent=AGENT,
    env="MEMTUI_CODEX_DIR",
    holds="`sessions/` (as ~/.codex)",
    default_root=_default_root,
    discover=discover,
    read_file=read_file,
    resume=_resume,
)
