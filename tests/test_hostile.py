"""Every hostile input a transcripts folder can hold, in one archive: `memtui index` stores
every good line, counts every bad line and entry, and stops for none of them (issue 25).

Each case writes its files under the transcripts folder and says what it adds: good messages
(each with a word of its own, searched for afterwards), lines to skip and count, entries that
cannot be read at all. A new hostile input is one more function in CASES. Files that vanish
while memtui reads need the run itself: the main test deletes them once memtui reads the
file before them.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import pytest

from memtui.config import Config
from memtui.engine.memory import Memory
from memtui.errors import InvalidArgument
from memtui.ingest import pipeline
from memtui.ingest.follower import MAX_LINE
from memtui.progress import ProgressEvent
from memtui.store.archive import Archive
from tests.cli_run import AS_A_USER, env_for, memtui, one_line_error
from tests.lines import CWD, assistant, exchange, text, user, write

CUT = "\ud83d"  # half an emoji: what a tool output cut mid-character leaves in JSON


@dataclass
class Expect:
    """What a case adds to the archive."""

    words: list[str] = field(default_factory=list)  # one word a good message, searched for
    messages: int = 0  # good messages (a tool result with no word of its own counts too)
    skipped: int = 0  # lines skipped and counted
    unreadable: int = 0  # entries skipped whole and counted
    checks: list[Callable[[Memory], None]] = field(default_factory=list)  # more to assert

    def __iadd__(self, other: Expect) -> Expect:
        self.words += other.words
        self.messages += other.messages
        self.skipped += other.skipped
        self.unreadable += other.unreadable
        self.checks += other.checks
        return self


def _record(**fields: object) -> bytes:
    return json.dumps(fields).encode() + b"\n"  # lone surrogates go out as \ud83d escapes


def good_sessions(root: Path) -> Expect:
    for n, word in enumerate(("plainalpha", "plainbeta")):
        session = f"good-{n}"
        write(
            root / "-home-dev-shop" / f"{session}.jsonl", user(f"{session}-u", f"a {word}", session)
        )
    return Expect(["plainalpha", "plainbeta"], 2)


def cut_emoji_everywhere(root: Path) -> Expect:
    """A lone surrogate in every text a line can carry: prompt, answer, thinking, tool name
    and argument, tool output, ids, cwd, branch, and the session's titles."""
    session = f"cut-{CUT}"
    head = {
        "sessionId": session,
        "cwd": f"/home/dev/caf{CUT}",
        "gitBranch": f"fix-{CUT}",
        "timestamp": "2026-11-01T10:00:00Z",
    }
    lines = [
        _record(
            type="user",
            uuid=f"cut-u{CUT}",
            message={"role": "user", "content": f"cutprompt {CUT}"},
            **head,
        ),
        _record(
            type="assistant",
            uuid="cut-a",
            message={
                "id": f"msg-{CUT}",
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": f"hm {CUT}"},
                    {"type": "text", "text": f"cutanswer {CUT}"},
                    {
                        "type": "tool_use",
                        "name": f"mcp__s{CUT}__t",
                        "input": {"command": f"ls {CUT}"},
                    },
                ],
            },
            **head,
        ),
        _record(
            type="user",
            uuid="cut-r",
            message={
                "role": "user",
                "content": [{"type": "tool_result", "content": f"cutoutput {CUT}"}],
            },
            **head,
        ),
        _record(type="custom-title", customTitle=f"Cut {CUT} title", sessionId=session),
        _record(type="summary", summary=f"Cut {CUT} summary", leafUuid="cut-a"),
    ]
    write(root / "-home-dev-cafe" / "cut.jsonl", b"".join(lines))

    def check(memory: Memory) -> None:
        page = memory.history.get_session("cut-\ufffd", limit=10)
        info = page.session
        assert info.title == "Cut \ufffd title"
        assert info.project == "/home/dev/caf\ufffd" and info.git_branch == "fix-\ufffd"
        prompt, answer, output = page.messages
        assert prompt.text == "cutprompt \ufffd" and prompt.uuid == "cut-u\ufffd"
        assert answer.text == "cutanswer \ufffd" and answer.thinking == "hm \ufffd"
        assert [(c.name, c.arg) for c in answer.tool_calls] == [("mcp__s\ufffd__t", "ls \ufffd")]
        assert output.tool_output == "cutoutput \ufffd"

    return Expect(["cutprompt", "cutanswer", "cutoutput"], 3, checks=[check])


def broken_lines(root: Path) -> Expect:
    """Lines that are not JSON, not UTF-8, not an object, cut short mid-file, or too long."""
    session = "broken-1"
    data = (
        user("broken-u1", "brokenfirst", session)
        + b'{"type": "user", "message": {"content": "cut sho\n'
        + b"not json at all\n"
        + b'{"type":"user","message":{"content":"caf\xc3"}}\n'
        + b"[1, 2]\n"
        + b'{"type": "user", "uuid": "x", "message": {"content": "'
        + b"x" * MAX_LINE
        + b'"}}\n'
        + assistant("broken-a1", "msg-b1", text("brokensecond"), session)
    )
    write(root / "-home-dev-shop" / f"{session}.jsonl", data)
    return Expect(["brokenfirst", "brokensecond"], 2, skipped=5)


def truncated_last_line(root: Path) -> Expect:
    """A last line without its newline (Claude Code is still writing it): waits, not counted."""
    session = "trunc-1"
    half = user("trunc-u2", "truncwaiting", session)[:-20]
    write(
        root / "-home-dev-shop" / f"{session}.jsonl", user("trunc-u1", "truncdone", session) + half
    )
    return Expect(["truncdone"], 1)


def folder_named_like_a_transcript(root: Path) -> Expect:
    (root / "-home-dev-odd" / "folder.jsonl").mkdir(parents=True)
    return Expect(unreadable=1)


def name_not_utf8(root: Path) -> Expect:
    folder = root / "-home-dev-odd"
    folder.mkdir(parents=True, exist_ok=True)
    os.close(os.open(bytes(folder) + b"/caf\xff.jsonl", os.O_CREAT | os.O_WRONLY, 0o600))
    return Expect(unreadable=1)


def gone_before_it_is_read(root: Path) -> Expect:
    """An entry listed but gone when opened (Claude Code's cleanup removed it meanwhile)."""
    folder = root / "-home-dev-odd"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "gone.jsonl").symlink_to(folder / "deleted-before-it-was-read")
    return Expect(unreadable=1)


def pipe_named_like_a_transcript(root: Path) -> Expect:
    folder = root / "-home-dev-odd"
    folder.mkdir(parents=True, exist_ok=True)
    os.mkfifo(folder / "pipe.jsonl")
    return Expect(unreadable=1)


def unreadable_file(root: Path) -> Expect:
    """A transcript the user may not read (run as a user: root reads anything)."""
    path = root / "-home-dev-shop" / "secret-1.jsonl"
    write(path, exchange(1, "secret-1"))
    path.chmod(0o000)
    return Expect(unreadable=1)


CASES: list[Callable[[Path], Expect]] = [
    good_sessions,
    cut_emoji_everywhere,
    broken_lines,
    truncated_last_line,
    folder_named_like_a_transcript,
    name_not_utf8,
    gone_before_it_is_read,
    pipe_named_like_a_transcript,
    unreadable_file,
]


def hostile(root: Path) -> Expect:
    expected = Expect()
    for case in CASES:
        expected += case(root)
    return expected


def filler(root: Path, size: int) -> Path:
    """About `size` bytes of valid lines that carry no message, slow to read (each holds a
    cut emoji, so it is parsed the slow way): the window in which files vanish."""
    line = _record(type="progress", data=f"{CUT} " + "f" * 8_000)
    path = root / "-home-dev-filler" / "filler-1.jsonl"
    write(path, line * (size // len(line) + 1))
    return path


def vanishing(root: Path) -> list[Path]:
    """Sessions that Claude Code's cleanup deletes while memtui reads the filler before them."""
    paths = [root / "-home-dev-old" / f"old-{n}.jsonl" for n in range(3)]
    for path in paths:
        write(path, exchange(1, path.stem))
    return paths


def read_in_order(*paths: Path) -> None:
    """The reading order is the files' age: give each group a later time than the last."""
    now = time.time()
    for n, path in enumerate(paths, start=1):
        os.utime(path, (now + 10 * n, now + 10 * n))


def reading(proc: subprocess.Popen[str], path: Path) -> bool:
    """Whether `memtui index` (or its reader process) has `path` open."""
    try:
        parent = psutil.Process(proc.pid)
        return any(
            f.path == str(path) for p in (parent, *parent.children()) for f in p.open_files()
        )
    except psutil.Error:  # a reader that ended meanwhile
        return False


def check_archive(cfg: Config, expected: Expect, unreadable: int) -> None:
    memory = Memory(cfg)
    try:
        stats = memory.upkeep.stats()
        assert stats.messages == expected.messages
        assert stats.skipped_lines == expected.skipped
        assert stats.unreadable_files == unreadable
        for word in expected.words:
            found = memory.history.search(word, "fts")
            assert len(found.results) == 1, word
        for check in expected.checks:
            check(memory)
    finally:
        memory.close()


needs_a_user = pytest.mark.skipif(
    os.geteuid() == 0 and not AS_A_USER, reason="root reads any file and setpriv is missing"
)


@needs_a_user
@pytest.mark.parametrize("reader", ["in-process", "reader process"])
def test_index_archives_every_good_line_of_a_hostile_archive(cfg: Config, reader: str) -> None:
    """Every hostile input, files deleted while memtui reads included, through each reader
    (the reader process takes over from PARALLEL_BYTES unread), as a user (not root)."""
    expected = hostile(cfg.claude_dir)
    size = pipeline.PARALLEL_BYTES * (3 if reader == "reader process" else 1) // 2
    slow = filler(cfg.claude_dir, size)
    gone = vanishing(cfg.claude_dir)
    read_in_order(slow, *gone)
    proc = subprocess.Popen(
        [*AS_A_USER, sys.executable, "-m", "memtui", "index"],
        env=env_for(cfg),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd="/",
    )
    wait_for(lambda: reading(proc, slow) or proc.poll() is not None, timeout=120)
    assert proc.poll() is None, "the filler was read before the files could vanish"
    for path in gone:
        path.unlink()
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert f"{expected.unreadable + len(gone)} entries skipped" in err
    assert err.count("No such file or directory") == 1 + len(gone)  # and the dangling link
    check_archive(cfg, expected, expected.unreadable + len(gone))
    again = memtui(cfg, "index", as_user=True)  # and every later run: nothing stops or doubles
    assert again.returncode == 0 and "Traceback" not in again.stderr, again.stderr
    assert f"{expected.unreadable} entries skipped" in again.stderr
    check_archive(cfg, expected, expected.unreadable)


@pytest.mark.parametrize("parallel", [False, True])
def test_files_gone_after_they_were_listed_are_counted(
    tmp_path: Path, claude_dir: Path, parallel: bool
) -> None:
    """Claude Code's 30-day cleanup deletes files between the listing and the reading."""
    for n in range(6):
        write(claude_dir / "-p" / f"v-{n}.jsonl", exchange(1, f"v-{n}"))
    files, _ = pipeline.discover(claude_dir)
    for path in files[::2]:
        path.unlink()
    archive = Archive(tmp_path / "store.db")
    try:
        report = pipeline.ingest(archive, claude_dir, files, parallel=parallel)
    finally:
        archive.close()
    assert report.messages == 3 * 2 and len(report.unreadable) == 3
    assert all("No such file" in entry for entry in report.unreadable)


@pytest.mark.parametrize("parallel", [False, True])
def test_files_deleted_during_the_run_leave_the_rest_archived(
    tmp_path: Path, claude_dir: Path, parallel: bool
) -> None:
    """Files deleted while an ingest runs: each is archived whole (read before it went) or
    counted unreadable; every other file is archived."""
    sessions = [f"w-{n:03d}" for n in range(60)]
    for session in sessions:
        write(claude_dir / "-p" / f"{session}.jsonl", exchange(1, session))
    files, _ = pipeline.discover(claude_dir)
    doomed = files[len(files) // 2 :]

    def delete_the_rest(_: ProgressEvent) -> None:
        for path in doomed:
            path.unlink(missing_ok=True)

    archive = Archive(tmp_path / "store.db")
    try:
        report = pipeline.ingest(
            archive, claude_dir, on_progress=delete_the_rest, parallel=parallel
        )
        stored = dict(archive.conn.execute("SELECT id, message_count FROM sessions").fetchall())
    finally:
        archive.close()
    gone = {Path(entry.split(":")[0]).stem for entry in report.unreadable}
    assert {p.stem for p in files} == set(stored) | gone and not set(stored) & gone
    assert all(count == 2 for count in stored.values())
    assert set(stored) >= {p.stem for p in files[: len(files) // 2]}
    if not parallel:  # in process, a file is opened when its turn comes: all went before
        assert gone == {p.stem for p in doomed}


def test_the_follower_keeps_following_past_a_cut_emoji(cfg: Config, memory: Memory) -> None:
    path = cfg.claude_dir / "-home-dev-shop" / "follow-1.jsonl"
    write(path, user("f-u1", "followfirst", "follow-1"))
    stop = threading.Event()
    follower = threading.Thread(target=memory.upkeep.follow, kwargs={"stop": stop})
    follower.start()
    try:
        wait_for(lambda: memory.history.search("followfirst", "fts").results)
        write(path, user("f-u2", f"followcut {CUT}", "follow-1"))
        write(path, user("f-u3", "followafter", "follow-1"))
        wait_for(lambda: memory.history.search("followafter", "fts").results)
        assert follower.is_alive()
        page = memory.history.get_session("follow-1", limit=10)
        assert [m.text for m in page.messages] == [
            "followfirst",
            "followcut \ufffd",
            "followafter",
        ]
    finally:
        stop.set()
        follower.join(timeout=30)


def wait_for(condition: Callable[[], object], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_transcripts_folder_named_in_bytes_that_are_not_utf8(cfg: Config) -> None:
    root = Path(os.fsdecode(bytes(cfg.claude_dir.parent) + b"/caf\xff"))
    write(root / "-home-dev-shop" / "good-1.jsonl", user("u1", "hello", "good-1"))
    for result in (
        memtui(cfg, "index", "--source", os.fsencode(root)),
        memtui(cfg, "index", MEMTUI_CLAUDE_DIR=str(root)),
    ):
        assert one_line_error(result) and "INVALID_ARGUMENT" in result.stderr, result.stderr
        assert "not valid UTF-8" in result.stderr


def test_a_store_holding_bytes_that_are_not_utf8_is_read(cfg: Config) -> None:
    """memtui writes only valid text, but a store another tool wrote to (or a damaged page)
    may hold bytes that are not UTF-8: every reader shows them as U+FFFD and goes on."""
    good_sessions(cfg.claude_dir)
    assert memtui(cfg, "index").returncode == 0
    assert memtui(cfg, "note", "add", "--title", "a note", "--layer", "state", "-").returncode == 0
    bad = "CAST(X'ff' AS TEXT)"  # one byte that is not UTF-8
    with sqlite3.connect(cfg.db_path) as conn:
        conn.execute(f"UPDATE messages SET text = text || {bad}")
        conn.execute(f"UPDATE sessions SET custom_title = 'title ' || {bad}")
        conn.execute(f"UPDATE notes SET title = title || {bad}, body = 'body ' || {bad}")
    hook = subprocess.run(
        [sys.executable, "-m", "memtui", "hook", "session-start"],
        input=json.dumps({"cwd": CWD, "session_id": "x"}),
        env=env_for(cfg),
        capture_output=True,
        text=True,
        timeout=60,
    )
    # the session by its first request (the hook shows no title)
    assert hook.returncode == 0 and "a plainalpha\ufffd" in hook.stdout, hook.stdout
    with sqlite3.connect(cfg.db_path) as conn:
        conn.execute(f"UPDATE projects SET path = path || {bad}")
    for args, shown in [
        (("show", "good-0"), "a plainalpha\ufffd"),
        (("search", "plainalpha", "--mode", "fts"), CWD + "\ufffd"),
        (("sessions",), "title \ufffd"),
        (("projects",), CWD + "\ufffd"),
        (("notes",), "a note\ufffd"),
        (("note", "show", "1"), "body \ufffd"),
        (("reindex",), "reindexed"),
        (("doctor",), "store"),
        (("index",), "indexed"),
    ]:
        result = memtui(cfg, *args)
        assert result.returncode == 0 and "Traceback" not in result.stderr, (args, result.stderr)
        assert shown in result.stdout + result.stderr, (args, result.stdout)


def test_typed_text_with_a_lone_surrogate_is_refused_and_nothing_stored(
    memory: Memory, tmp_path: Path
) -> None:
    """What a person or an agent writes (notes, imports, inferences) passes one check
    (engine/validate.py): text that is not Unicode is refused with INVALID_ARGUMENT, saying
    where, and nothing is stored; transcripts are repaired instead (nobody is there to fix
    them). The CLI's arguments and MCP's requests are refused before (test_cli_notes,
    test_mcp_stdio)."""
    kept = memory.notes.save("kept", "body", "state", by="person").note
    writes: list[Callable[[], object]] = [
        lambda: memory.notes.save(f"t{CUT}", "b", "state", by="agent"),
        lambda: memory.notes.save("t", f"b{CUT}", "state", by="agent"),
        lambda: memory.notes.save("t", "b", "state", by="agent", folder=f"f{CUT}"),
        lambda: memory.notes.save("t", "b", "state", by="agent", tags=[f"x{CUT}"]),
        lambda: memory.notes.update(kept.id, by="person", title=f"t{CUT}"),
        lambda: memory.notes.update(kept.id, by="person", body=f"b{CUT}"),
        lambda: memory.inferences.mint(
            f"i{CUT}", "s", 0.5, confirmed=True, evidence_note_ids=[kept.id]
        ),
        lambda: memory.inferences.mint(
            "i", f"s{CUT}", 0.5, confirmed=True, evidence_note_ids=[kept.id]
        ),
    ]
    jsonl = tmp_path / "notes.jsonl"
    jsonl.write_text(
        json.dumps({"type": "memtui-export", "version": 1})
        + "\n"
        + json.dumps({"type": "note", "title": f"t{CUT}", "body": "b", "layer": "state"})
        + "\n"
    )
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text('---\ntitle: "cut \\ud83d"\nlayer: state\n---\nbody\n')
    writes += [lambda: memory.transfer.import_(jsonl), lambda: memory.transfer.import_(vault)]
    for write_it in writes:
        with pytest.raises(InvalidArgument):
            write_it()
    assert [n.title for n in memory.notes.export_all()] == ["kept"]
    assert memory.notes.get(kept.id).note.body == "body"
    assert memory.inferences.list() == []
