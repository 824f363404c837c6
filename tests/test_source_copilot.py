"""The GitHub Copilot CLI reader: every record type of `events.jsonl` (each prompt once, as
typed), the flat and the legacy `history-session-state` layouts, a legacy session and its
import stored once, a file growing, truncated by a rewind, damaged; into a real Archive."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from memtui.ingest import pipeline
from memtui.ingest.reader import Unreadable
from memtui.ingest.sources import copilot
from memtui.store.archive import Archive, BatchResult, FileBatch, FileState
from memtui.store.mask import Masker
from memtui.store.records import Kind, Message, Title
from tests.agents import copilot_files as cf
from tests.agents import support


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / ".copilot"
    path.mkdir()
    return path


@pytest.fixture
def archive(tmp_path: Path) -> Iterator[Archive]:
    store = Archive(tmp_path / "store.db")
    yield store
    store.close()


def events_path(home: Path, session: str = cf.SESSION) -> Path:
    return home / "session-state" / session / "events.jsonl"


def read(home: Path, path: Path, archive: Archive | None = None) -> list[FileBatch]:
    return support.read(copilot.read_file, home, path, archive)


def apply(home: Path, path: Path, archive: Archive) -> tuple[BatchResult, int]:
    batches = read(home, path, archive)
    return archive.apply(batches), sum(b.skipped for b in batches)


def ingest(home: Path, archive: Archive) -> int:
    """Every file discovered, as the pipeline reads them: the new messages stored."""
    files, bad = copilot.discover(home)
    assert bad == []
    return sum(apply(home, path, archive)[0].messages for path in files)


def stored(archive: Archive, session: str = cf.SESSION) -> list[tuple[str, str, str]]:
    return archive.conn.execute(
        "SELECT uuid, kind, text FROM messages WHERE session_id = ? ORDER BY idx",
        (session,),
    ).fetchall()


def test_every_record_type(home: Path) -> None:
    path = cf.append(events_path(home), cf.lines(cf.conversation("a")))
    cf.workspace(path.parent)
    batches = read(home, path)
    assert [(b.agent, b.fallback_project, b.skipped) for b in batches] == [
        ("copilot", cf.PROJECT, 0)
    ]
    records = support.messages(batches)
    assert {(r.session_id, r.cwd, r.git_branch) for r in records} == {
        (cf.SESSION, cf.PROJECT, cf.BRANCH)
    }
    assert [(r.role, r.kind) for r in records] == [
        ("user", Kind.PROMPT),
        ("assistant", Kind.ASSISTANT),
        ("user", Kind.TOOL_RESULT),
        ("user", Kind.TOOL_RESULT),
        ("assistant", Kind.ASSISTANT),
        ("assistant", Kind.ASSISTANT),
        ("user", Kind.META),  # a skill's injected message: not typed
        ("user", Kind.META),  # a command the person ran: its call ...
        ("user", Kind.TOOL_RESULT),  # ... and its result
        ("user", Kind.COMPACT_SUMMARY),
    ]
    typed, asked, viewed, failed, sub, answer, _, ran, ran_out, summary = records
    # The prompt as typed, once: never the transformed copy with its injected context.
    assert typed.text == "Why is the ledger total off by a cent?"
    assert typed.title == typed.text
    assert not any(cf.INJECTED in r.text or "<reminder>" in r.text for r in records)
    assert asked.text == "Let me look at how totals are summed."
    assert asked.thinking == "Floats summed in a loop drift; check the sum."
    assert [(c.name, c.arg, c.id) for c in asked.tool_calls] == [
        ("view", f"{cf.PROJECT}/ledger/total.py", "a-call-view"),
        ("bash", "pytest -q tests/test_total.py", "a-call-bash"),
    ]
    assert (viewed.answers, viewed.is_error) == (["a-call-view"], False)
    assert viewed.tool_output.startswith("1. def total(rows):")
    assert (failed.answers, failed.is_error) == (["a-call-bash"], True)
    assert failed.tool_output == "AssertionError: 10.01 != 10.0\nexit code 1"
    assert (sub.is_sidechain, sub.agent_id) == (True, "a-agent-explore")
    assert not answer.is_sidechain
    assert [(c.name, c.arg, c.id) for c in ran.tool_calls] == [("bash", "ls", "a-call-user")]
    assert (ran_out.answers, ran_out.tool_output) == (["a-call-user"], "ledger\ntests")
    assert summary.text == "The ledger summed floats; now Decimal."
    assert typed.uuid == cf.conversation("a")[2]["id"]  # the event id: a copy is the same
    assert (typed.timestamp, typed.epoch) == (cf.ts(3), 1795168803)
    titles = [r for b in batches for _, r in b.records if isinstance(r, Title)]
    assert [(t.title, t.session_id) for t in titles] == [(cf.NAME, cf.SESSION)]


def test_ingest_stores_each_message_once_whatever_the_copies(home: Path, archive: Archive) -> None:
    events = cf.conversation("b")
    path = cf.append(events_path(home), cf.lines(events))
    cf.workspace(path.parent)
    assert ingest(home, archive) == cf.MESSAGES
    # A flat copy of the same session, as releases before the folder layout kept it.
    cf.append(home / "session-state" / f"{cf.SESSION}.jsonl", cf.lines(events))
    assert ingest(home, archive) == 0
    rows = stored(archive)
    assert len(rows) == len({uuid for uuid, _, _ in rows}) == cf.MESSAGES
    title, project = archive.conn.execute(
        "SELECT s.custom_title, p.path FROM sessions s JOIN projects p ON p.id = s.project_id "
        "WHERE s.id = ?",
        (cf.SESSION,),
    ).fetchone()
    assert (title, project) == (cf.NAME, cf.PROJECT)


def test_a_growing_file_is_read_once_and_a_half_written_event_waits(
    home: Path, archive: Archive
) -> None:
    events = cf.conversation("c")
    path = events_path(home)
    cf.append(path, cf.lines(events[:5]))  # start, model change, prompt, turn, message
    first, _ = apply(home, path, archive)
    assert (first.messages, first.duplicates) == (2, 0)
    rest = cf.lines(events[5:])
    cut = len(cf.lines(events[5:6])) - 10  # the next result, written but for its last bytes
    cf.append(path, rest[:cut])
    waiting, _ = apply(home, path, archive)
    assert (waiting.messages, waiting.duplicates) == (0, 0)
    cf.append(path, rest[cut:])
    batches = read(home, path, archive)
    # A read that resumes past session.start still knows the session's directory and branch.
    assert {(m.cwd, m.git_branch) for m in support.messages(batches)} == {(cf.PROJECT, cf.BRANCH)}
    second = archive.apply(batches)
    skipped = sum(b.skipped for b in batches)
    assert (second.messages, second.duplicates, skipped) == (cf.MESSAGES - 2, 0, 0)
    assert len(stored(archive)) == cf.MESSAGES


def test_damaged_lines_are_skipped_and_counted_the_rest_stored(
    home: Path, archive: Archive
) -> None:
    events = cf.conversation("d")
    damaged = b"".join(line + b"\n" for line in [*cf.DAMAGED, cf.PADDING])
    path = cf.append(events_path(home), cf.lines(events[:6]) + damaged + cf.lines(events[6:]))
    result, skipped = apply(home, path, archive)
    assert (result.messages, skipped) == (cf.MESSAGES, len(cf.DAMAGED))  # NUL padding is not damage
    state = archive.file_states([str(path)])[str(path)]
    assert state.skipped == len(cf.DAMAGED)


def test_a_rewind_that_truncates_the_file_stores_only_what_is_new(
    home: Path, archive: Archive
) -> None:
    events = cf.conversation("e")
    path = cf.append(events_path(home), cf.lines(events))
    assert apply(home, path, archive)[0].messages == cf.MESSAGES
    # /rewind truncates events.jsonl back to the prompt; the session then goes on anew.
    path.write_bytes(cf.lines(events[:3]))
    redo = cf.Events("e2")
    cf.prompt(redo, "Use integer cents instead")
    cf.append(path, cf.lines(redo.events))
    result, _ = apply(home, path, archive)
    assert (result.messages, result.duplicates) == (1, 1)
    assert stored(archive)[-1][2] == "Use integer cents instead"


def test_a_legacy_session_and_its_import_are_stored_once(home: Path, archive: Archive) -> None:
    old = cf.legacy()
    legacy = cf.write_legacy(cf.legacy_path(home), old)
    records = support.messages(read(home, legacy))
    assert [(r.role, r.kind) for r in records] == [
        ("assistant", Kind.META),
        ("user", Kind.PROMPT),
        ("assistant", Kind.ASSISTANT),
        ("assistant", Kind.ASSISTANT),
        ("user", Kind.TOOL_RESULT),
        ("user", Kind.TOOL_RESULT),
        ("assistant", Kind.META),
        ("assistant", Kind.ASSISTANT),
    ]
    _, typed, _, call, done, rejected, _, _ = records
    # The timeline's text as typed: the <reminder> of chatMessages is never read.
    assert typed.text == "Add a --dry-run flag to the import command"
    assert (typed.session_id, typed.timestamp) == (cf.SESSION, "2025-09-30T08:00:01.000Z")
    # No workspace.yaml yet: the directory comes from the system prompt's environment.
    assert typed.cwd == cf.PROJECT
    assert [(c.name, c.arg, c.id) for c in call.tool_calls] == [
        ("str_replace_editor", f"{cf.PROJECT}/cli.py", "old-call-1")
    ]
    assert (done.answers, done.is_error, done.tool_output) == (
        ["old-call-1"],
        False,
        "def import_cmd(path): ...",
    )
    assert (rejected.is_error, rejected.tool_output) == (True, "rejected")
    assert ingest(home, archive) == 8
    assert [tuple(r) for r in archive.conn.execute("SELECT path FROM projects")] == [(cf.PROJECT,)]
    # A newer release resumes it: the whole legacy session inside session.import_legacy.
    path = cf.append(events_path(home), cf.lines(cf.imported("f", old)))
    cf.workspace(path.parent)
    assert apply(home, path, archive)[0].messages == 1  # only the new prompt
    assert len(stored(archive)) == 9


def test_a_legacy_file_is_read_again_only_when_rewritten(home: Path, archive: Archive) -> None:
    old = cf.legacy()
    path = cf.write_legacy(cf.legacy_path(home), old)
    assert apply(home, path, archive)[0].messages == 8
    assert read(home, path, archive) == []  # untouched: not even opened past its stat
    old["timeline"].append(
        {"type": "copilot", "text": "Done.", "id": "old-9", "timestamp": "2025-09-30T08:01:00Z"}
    )
    old["timeline"].append({"type": "copilot", "id": "old-10"})  # no text: damaged
    cf.write_legacy(path, old)
    result, skipped = apply(home, path, archive)
    assert (result.messages, result.duplicates, skipped) == (1, 8, 1)
    path.write_text('{"sessionId": "cut', encoding="utf-8")  # caught half-written
    result, skipped = apply(home, path, archive)
    assert (result.messages, skipped) == (0, 1)


def test_workspace_yaml_values_quoted_plain_and_block(tmp_path: Path) -> None:
    (tmp_path / "workspace.yaml").write_text(
        "id: x\n"
        "cwd: '/home/dev/it''s here'\n"
        'branch: "feat/\\u00e9t\\u00e9"\n'
        "name: |-\n"
        "  Two lines\n"
        "  of name\n"
        "summary: plain # a comment\n"
        "  indented: not a top-level key\n"
    )
    assert copilot._workspace(tmp_path) == {
        "cwd": "/home/dev/it's here",
        "branch": "feat/été",
        "name": "Two lines\nof name",
        "summary": "plain",
    }
    assert copilot._workspace(tmp_path / "absent") == {}


def test_where_the_files_are(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    source = copilot.SOURCE
    assert source.root({}) == tmp_path / ".copilot"
    assert source.root({"COPILOT_HOME": "/srv/copilot"}) == Path("/srv/copilot")
    assert source.root({"MEMTUI_COPILOT_DIR": "/elsewhere", "COPILOT_HOME": "/x"}) == Path(
        "/elsewhere"
    )
    assert source.root({"MEMTUI_COPILOT_DIR": "off"}) is None
    # Releases before 0.0.421 kept sessions under $XDG_STATE_HOME/.copilot.
    state = tmp_path / "state"
    (state / ".copilot" / "history-session-state").mkdir(parents=True)
    assert source.root({"XDG_STATE_HOME": str(state)}) == state / ".copilot"
    (tmp_path / ".copilot" / "session-state").mkdir(parents=True)  # moved by a newer release
    assert source.root({"XDG_STATE_HOME": str(state)}) == tmp_path / ".copilot"
    assert source.resume(cf.SESSION) == ["copilot", "--resume", cf.SESSION]


def test_discover_finds_every_layout_and_nothing_else(home: Path) -> None:
    folder = events_path(home).parent
    cf.append(folder / "events.jsonl", b"")
    cf.workspace(folder)
    cf.append(folder / "checkpoints" / "001-start.md", b"# notes\n")
    cf.append(home / "session-state" / "0ld-flat.jsonl", b"")
    cf.write_legacy(cf.legacy_path(home), cf.legacy())
    (home / "mcp-config.json").write_text(json.dumps({"mcpServers": {}}))
    (home / "command-history-state.json").write_text("[]")
    files, bad = copilot.discover(home)
    assert sorted(files) == sorted(
        [folder / "events.jsonl", home / "session-state" / "0ld-flat.jsonl", cf.legacy_path(home)]
    )
    assert bad == []
    assert copilot.discover(home / "absent") == ([], [])


def test_a_file_that_cannot_be_read_is_one_unreadable(home: Path) -> None:
    path = events_path(home)
    path.mkdir(parents=True)  # a folder named like the events file
    assert [type(b) for b in copilot.read_file(home, path, None)] == [Unreadable]


def test_a_secret_a_cut_would_split_is_masked_first(home: Path) -> None:
    ev = cf.Events("k")
    cf.start(ev)
    cf.prompt(ev, support.CUT_PROMPT)
    requests = [
        {"toolCallId": f"k-{n}", "name": "bash", "arguments": {"command": c}, "type": "function"}
        for n, c in enumerate(support.CUT_COMMANDS)
    ]
    ev.add("assistant.message", {"messageId": "k-m", "content": "", "toolRequests": requests})
    path = cf.append(events_path(home), cf.lines(ev.events))
    found = support.messages(list(copilot.read_file(home, path, None, Masker(key=b"k" * 32))))
    support.assert_cut_after_masking(found)


def test_a_session_id_that_would_be_an_option_is_not_stored(home: Path) -> None:
    ev = cf.Events("y")
    cf.start(ev, session="--allow-all-tools")
    cf.prompt(ev, "hello")
    path = cf.append(events_path(home), cf.lines(ev.events))
    # The session folder's name, as for a session.start that gives no id.
    assert {m.session_id for m in support.messages(read(home, path))} == {cf.SESSION}


def test_secrets_are_masked(home: Path) -> None:
    token = "ghp_" + "x" * 36
    ev = cf.Events("g")
    cf.start(ev)
    cf.prompt(ev, f"use the token {token} to push")
    path = cf.append(events_path(home), cf.lines(ev.events))
    batches = list(copilot.read_file(home, path, None, Masker()))
    (typed,) = support.messages([b for b in batches if isinstance(b, FileBatch)])
    assert token not in typed.text and "\u2039secret:" in typed.text


def test_fields_of_a_wrong_type_are_ignored_not_fatal(home: Path, archive: Archive) -> None:
    ev = cf.Events("w")
    cf.start(ev)
    cf.prompt(ev, "before the odd events")
    ev.add("assistant.message", {"messageId": "m1", "content": "odd requests", "toolRequests": 5})
    ev.add("tool.execution_complete", {"toolCallId": "x", "result": {"contents": 7}})
    for command in (["ls", "-l"], {"view": 1}):
        ev.add(
            "assistant.message",
            {"content": "", "toolRequests": [{"name": "bash", "arguments": {"command": command}}]},
        )
    cf.prompt(ev, "after the odd events")
    path = cf.append(events_path(home), cf.lines(ev.events))
    result, skipped = apply(home, path, archive)
    assert (result.messages, skipped) == (6, 0)
    texts = [text for _, _, text in stored(archive)]
    assert texts[0] == "before the odd events" and texts[-1] == "after the odd events"


def test_a_lone_surrogate_escape_becomes_a_replacement_character(
    home: Path, archive: Archive
) -> None:
    ev = cf.Events("s")
    cf.start(ev)
    cf.prompt(ev, "half an emoji \ud83d here")  # json.dumps writes it as the escape \ud83d
    folder = home / "session-state" / cf.SESSION
    path = cf.append(folder / "events.jsonl", cf.lines(ev.events))
    cf.workspace(folder, name="Fix totals \ud83d")
    result, skipped = apply(home, path, archive)
    assert (result.messages, skipped) == (1, 0)
    assert stored(archive)[0][2] == "half an emoji \ufffd here"
    assert copilot._workspace(folder)["name"] == "Fix totals \ufffd"


def two_sessions(home: Path) -> tuple[Path, Path]:
    paths = []
    for session, text in ((cf.SESSION, "first session"), (OTHER, "second session")):
        ev = cf.Events(session[:4])
        cf.start(ev, session)
        cf.prompt(ev, text)
        paths.append(cf.append(events_path(home, session), cf.lines(ev.events)))
    return paths[0], paths[1]


OTHER = "0c0ffee0-0000-4000-8000-000000000002"


def test_a_reader_failing_on_one_file_costs_that_file_alone(home: Path, archive: Archive) -> None:
    bad, _ = two_sessions(home)

    def read_file(
        root: Path, path: Path, previous: FileState | None, masker: Masker | None
    ) -> Iterator[FileBatch | Unreadable]:
        if path == bad:
            raise TypeError("a field of a shape the reader never met")
        return copilot.read_file(root, path, previous, masker)

    source = dataclasses.replace(copilot.SOURCE, read_file=read_file)
    report = pipeline.ingest(archive, home, source=source, parallel=False)
    assert len(report.unreadable) == 1 and report.unreadable[0].startswith(str(bad))
    assert [text for _, _, text in stored(archive, OTHER)] == ["second session"]


def test_a_record_the_store_refuses_costs_its_file_alone(home: Path, archive: Archive) -> None:
    bad, _ = two_sessions(home)

    def read_file(
        root: Path, path: Path, previous: FileState | None, masker: Masker | None
    ) -> Iterator[FileBatch | Unreadable]:
        for batch in copilot.read_file(root, path, previous, masker):
            for _, record in batch.records if path == bad and isinstance(batch, FileBatch) else ():
                if isinstance(record, Message):
                    record.text += "\ud83d"  # SQLite refuses a lone surrogate
            yield batch

    source = dataclasses.replace(copilot.SOURCE, read_file=read_file)
    report = pipeline.ingest(archive, home, source=source, parallel=False)
    assert len(report.unreadable) == 1 and report.unreadable[0].startswith(str(bad))
    assert stored(archive, cf.SESSION) == []
    assert [text for _, _, text in stored(archive, OTHER)] == ["second session"]
