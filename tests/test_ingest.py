"""Incremental ingestion on files we write byte by byte: every count exact, nothing twice."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from memtui.engine.memory import Memory
from tests.lines import assistant, exchange, text, user, write


def session_file(claude_dir: Path, session: str = "s-1") -> Path:
    return claude_dir / "-home-dev-shop-api" / f"{session}.jsonl"


def count(memory: Memory, kind: str | None = None) -> int:
    stats = memory.upkeep.stats()
    return stats.messages if kind is None else stats.by_kind.get(kind, 0)


def test_append_reads_only_new_lines(memory: Memory, claude_dir: Path) -> None:
    path = session_file(claude_dir)
    write(path, exchange(1) + exchange(2))
    first = memory.upkeep.ingest()
    assert first is not None and first.messages == 4 and first.merged == 2
    write(path, exchange(3))
    second = memory.upkeep.ingest()
    assert second is not None
    assert (second.messages, second.duplicates) == (2, 0)  # nothing re-read
    assert (count(memory, "prompt"), count(memory, "assistant")) == (3, 3)
    state = memory._archive.file_states([str(path)]).get(str(path))
    assert state is not None and state.offset == path.stat().st_size and state.line == 9


def test_split_assistant_message_is_one_message(memory: Memory, claude_dir: Path) -> None:
    path = session_file(claude_dir)
    write(path, user("u1", "why is the build red?"))
    write(path, assistant("a1", "msg_1", {"type": "thinking", "thinking": "look at CI"}))
    memory.upkeep.ingest()
    # The rest of the same API message arrives in a later append.
    write(path, assistant("a2", "msg_1", text("The lockfile is stale.")))
    write(
        path,
        assistant(
            "a3", "msg_1", {"type": "tool_use", "name": "Bash", "input": {"command": "npm ci"}}
        ),
    )
    memory.upkeep.ingest()
    page = memory.history.get_session("s-1", limit=5)
    assert [m.kind for m in page.messages] == ["prompt", "assistant"]
    answer = page.messages[1]
    assert answer.thinking == "look at CI"
    assert answer.text == "The lockfile is stale."
    assert [(c.name, c.arg) for c in answer.tool_calls] == [("Bash", "npm ci")]


def test_half_written_line_waits_for_its_newline(memory: Memory, claude_dir: Path) -> None:
    path = session_file(claude_dir)
    line = user("u1", "first")
    write(path, line + user("u2", "second")[:-20])
    memory.upkeep.ingest()
    assert count(memory) == 1
    write(path, user("u2", "second")[-20:])
    memory.upkeep.ingest()
    assert count(memory) == 2
    assert [m.text for m in memory.history.get_session("s-1").messages] == ["first", "second"]


def test_truncated_file_is_reread_without_duplicates(memory: Memory, claude_dir: Path) -> None:
    path = session_file(claude_dir)
    write(path, exchange(1) + exchange(2) + exchange(3))
    memory.upkeep.ingest()
    write(path, exchange(1) + exchange(4), mode="wb")  # shorter than before
    report = memory.upkeep.ingest()
    assert report is not None and report.duplicates == 3 and report.messages == 2
    assert (count(memory, "prompt"), count(memory, "assistant")) == (4, 4)


def test_rewritten_in_place_is_noticed(memory: Memory, claude_dir: Path) -> None:
    path = session_file(claude_dir)
    write(path, exchange(1))
    memory.upkeep.ingest()
    # Same inode, longer file, but the bytes before the old offset changed.
    write(path, exchange(5) + exchange(1) + exchange(6), mode="r+b")
    memory.upkeep.ingest()
    assert count(memory, "prompt") == 3


def test_replaced_file_is_reread_without_duplicates(memory: Memory, claude_dir: Path) -> None:
    path = session_file(claude_dir)
    write(path, exchange(1) + exchange(2))
    memory.upkeep.ingest()
    fresh = path.with_suffix(".tmp")
    write(fresh, exchange(1) + exchange(2) + exchange(3))
    os.replace(fresh, path)  # a new inode, as an editor or a sync tool would leave it
    memory.upkeep.ingest()
    assert (count(memory, "prompt"), count(memory, "assistant")) == (3, 3)


def test_deleted_file_keeps_its_session_archived(memory: Memory, claude_dir: Path) -> None:
    path = session_file(claude_dir)
    write(path, exchange(1))
    memory.upkeep.ingest()
    path.unlink()
    report = memory.upkeep.ingest()
    assert report is not None and report.archived == 1
    info = memory.history.get_session("s-1").session
    assert info.archived and info.message_count == 2
    assert "question number 1" in memory.history.session_markdown("s-1")
    assert memory.upkeep.stats().archived_sessions == 1


@pytest.mark.parametrize(
    "how", ["moved back", "restored by the follower", "under another name", "an older backup"]
)
def test_a_file_back_on_disk_is_no_longer_archived(
    memory: Memory, claude_dir: Path, tmp_path: Path, how: str
) -> None:
    """A transcript moved away then back (a backup restored) holds nothing new to read: its
    session is live again all the same, the follower's path as the full scan's."""
    path = session_file(claude_dir)
    write(path, exchange(1))
    memory.upkeep.ingest()
    aside = tmp_path / "aside.jsonl"
    os.replace(path, aside)
    memory.upkeep.ingest()
    assert memory.history.get_session("s-1").session.archived
    if how == "under another name":  # lines all stored already: no session is written
        os.replace(aside, path.with_name("restored.jsonl"))
    elif how == "an older backup":  # the start of it, where it was: read again from the start
        path.write_bytes(aside.read_bytes().splitlines(keepends=True)[0])
    else:
        os.replace(aside, path)
    if how == "restored by the follower":
        memory.upkeep.ingest(paths=[path])
    else:
        report = memory.upkeep.ingest()
        assert report is not None and report.messages == 0, "nothing new was read"
    info = memory.history.get_session("s-1").session
    assert not info.archived and info.message_count == 2
    assert memory.upkeep.stats().archived_sessions == 0
    (path if path.exists() else path.with_name("restored.jsonl")).unlink()  # gone again
    memory.upkeep.ingest()
    assert memory.history.get_session("s-1").session.archived


def test_resume_copy_is_not_stored_twice(memory: Memory, claude_dir: Path) -> None:
    write(session_file(claude_dir, "s-1"), exchange(1))
    # `claude --resume` copies history into a new file: same uuids, then new lines.
    write(session_file(claude_dir, "s-2"), exchange(1) + exchange(7, session="s-2"))
    memory.upkeep.ingest()
    assert count(memory, "prompt") == 2
    assert memory.upkeep.stats().sessions == 2


def test_bad_lines_are_skipped_and_counted(memory: Memory, claude_dir: Path) -> None:
    path = session_file(claude_dir)
    huge = b'{"type": "user", "pad": "' + b"x" * (50 * 1024 * 1024) + b'"}\n'
    write(path, user("u1", "before") + b"{not json\n" + b"[1, 2]\n" + b"\xff\xfe\n" + huge)
    write(path, user("u2", "after"))
    report = memory.upkeep.ingest()
    assert report is not None and report.skipped == 4 and report.messages == 2
    assert memory.upkeep.stats().skipped_lines == 4


def test_subagent_files_belong_to_their_session(memory: Memory, claude_dir: Path) -> None:
    main = session_file(claude_dir)
    write(main, exchange(1))
    agent = main.parent / "s-1" / "subagents" / "agent-abc.jsonl"
    line = user("sub-1", "search the codebase for checkout")
    write(agent, line.replace(b'"isSidechain": false', b'"isSidechain": true, "agentId": "abc"'))
    memory.upkeep.ingest()
    page = memory.history.get_session("s-1")
    assert memory.upkeep.stats().sessions == 1 and page.total == 3
    assert page.messages[-1].is_sidechain and page.messages[-1].agent_id == "abc"


def test_follow_stores_a_change(memory: Memory, claude_dir: Path) -> None:
    path = session_file(claude_dir)
    write(path, exchange(1))
    memory.upkeep.ingest()
    stop = threading.Event()
    thread = threading.Thread(target=memory.upkeep.follow, args=(None, stop), daemon=True)
    thread.start()
    time.sleep(0.3)  # let the watcher start
    try:
        write(path, exchange(2))
        written = time.monotonic()
        while count(memory, "prompt") < 2 and time.monotonic() - written < 5:
            time.sleep(0.02)
        assert count(memory, "prompt") == 2  # the latency itself is measured in bench/
    finally:
        stop.set()
        thread.join(timeout=5)
