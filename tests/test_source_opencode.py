"""OpenCode's reader: opencode.db followed by time_updated, the older JSON tree, both copies
stored once, parts updated in place, subagent sessions under their parent."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from memtui.ingest.reader import Unreadable
from memtui.ingest.sources.opencode import SOURCE, discover, read_file
from memtui.store.archive import Archive, BatchResult, FileBatch, FileState
from memtui.store.mask import Masker
from memtui.store.records import Kind, Message, Title
from tests.agents import opencode_files as oc
from tests.agents import support

ROWS = 12  # what oc.conversation stores: 9 in the session, 3 from its subagent


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "opencode"


@pytest.fixture
def archive(tmp_path: Path) -> Iterator[Archive]:
    store = Archive(tmp_path / "store.db")
    yield store
    store.close()


def read(root: Path, states: dict[str, FileState] | None = None) -> list[FileBatch | Unreadable]:
    files, _ = discover(root)
    states = states or {}
    return [b for p in files for b in read_file(root, p, states.get(str(p)))]


def ingest(archive: Archive, root: Path) -> BatchResult:
    files, _ = discover(root)
    states = archive.file_states([str(p) for p in files])
    batches = [b for p in files for b in read_file(root, p, states.get(str(p)))]
    assert all(isinstance(b, FileBatch) for b in batches), batches
    return archive.apply([b for b in batches if isinstance(b, FileBatch)])


def rows(archive: Archive) -> list[sqlite3.Row]:
    return archive.conn.execute("SELECT * FROM messages ORDER BY session_id, idx").fetchall()


def test_every_part_kind_becomes_its_record(root: Path) -> None:
    ids = oc.Ids()
    session, child = oc.conversation(ids)
    oc.write_db(oc.open_db(root), session, child)
    batches = read(root)
    found = support.messages(batches)
    assert all(isinstance(b, FileBatch) and b.agent == "opencode" for b in batches)
    by_kind = {k: [m for m in found if m.kind is k] for k in Kind}
    prompts = [m.text for m in by_kind[Kind.PROMPT] if not m.is_sidechain]
    assert prompts[0].startswith("why does test_checkout fail") and prompts[1] == "use freezegun"
    assert by_kind[Kind.PROMPT][0].title == prompts[0]
    assert [m.text[:10] for m in by_kind[Kind.META]] == ["Called the"]
    answer = [m for m in by_kind[Kind.ASSISTANT] if m.thinking]
    assert answer[0].thinking == "The test depends on the wall clock."
    calls = [c for m in by_kind[Kind.ASSISTANT] for c in m.tool_calls]
    assert [(c.name, c.arg, c.id) for c in calls] == [
        ("bash", "pytest tests/test_checkout.py", "toolu_run1"),
        ("read", "/work/shop/missing.py", "toolu_read1"),
        ("task", "check other tests", "toolu_task1"),
        ("grep", "datetime.now", "toolu_grep1"),
    ]
    results = {m.answers[0]: m for m in by_kind[Kind.TOOL_RESULT]}
    assert (
        results["toolu_run1"].tool_output == "1 failed" and results["toolu_run1"].is_error is False
    )
    assert (
        results["toolu_read1"].tool_output == "File not found" and results["toolu_read1"].is_error
    )
    assert all(m.role == "user" for m in results.values())
    assert [m.text for m in by_kind[Kind.COMPACT_SUMMARY]] == [
        "Summary: the checkout test now freezes time."
    ]
    # One answer's parts share its message id, so the store folds them into one message.
    assert len({m.api_id for m in by_kind[Kind.ASSISTANT]}) == 3
    first = found[0]
    assert (first.session_id, first.cwd, first.git_branch) == (session.id, "/work/shop", None)
    assert first.timestamp == "2025-06-15T15:06:41.000Z" and first.epoch == (oc.T0 + 1000) // 1000
    sub = [m for m in found if m.is_sidechain]
    assert len(sub) == 4 and {(m.session_id, m.agent_id) for m in sub} == {(session.id, child.id)}
    titles = [
        r for b in batches if isinstance(b, FileBatch) for _, r in b.records if isinstance(r, Title)
    ]
    assert [(t.title, t.session_id) for t in titles] == [("Flaky checkout test", session.id)]


def test_ingested_into_the_store_under_the_parent_session(root: Path, archive: Archive) -> None:
    session, child = oc.conversation(oc.Ids())
    oc.write_db(oc.open_db(root), session, child)
    result = ingest(archive, root)
    assert result.messages == ROWS
    stored = rows(archive)
    assert {r["session_id"] for r in stored} == {session.id}
    assert sum(r["is_sidechain"] for r in stored) == 3
    answer = next(r for r in stored if r["thinking"])
    assert orjson.loads(answer["tool_calls"]) == [
        ["bash", "pytest tests/test_checkout.py"],
        ["read", "/work/shop/missing.py"],
    ]
    assert answer["text"] == "Let me run it."
    row = archive.conn.execute("SELECT custom_title, first_prompt FROM sessions").fetchone()
    assert row["custom_title"] == "Flaky checkout test"
    assert row["first_prompt"].startswith("why does test_checkout fail")
    project = archive.conn.execute("SELECT path FROM projects").fetchone()[0]
    assert project == "/work/shop"


def test_both_copies_of_a_migrated_session_are_stored_once(root: Path, archive: Archive) -> None:
    # OpenCode copies storage/ into opencode.db and keeps the folder: same ids in both.
    session, child = oc.conversation(oc.Ids())
    oc.write_tree(root, session, child)
    oc.write_db(oc.open_db(root), session, child)
    first = ingest(archive, root)
    assert first.messages == ROWS and first.duplicates > 0
    assert len(rows(archive)) == ROWS
    again = ingest(archive, root)
    assert (again.messages, again.merged) == (0, 0)
    assert len(rows(archive)) == ROWS


def test_the_json_tree_alone(root: Path, archive: Archive) -> None:
    session, child = oc.conversation(oc.Ids())
    oc.write_tree(root, session, child)
    assert ingest(archive, root).messages == ROWS
    assert {r["session_id"] for r in rows(archive)} == {session.id}
    assert ingest(archive, root).messages == 0


def test_a_part_updated_in_place_updates_its_stored_message(root: Path, archive: Archive) -> None:
    ids = oc.Ids()
    s = oc.Session(ids("ses"), "/work/shop", "Deploy")
    prompt = oc.user(ids, s, oc.T0, oc.text("deploy it"))
    bash = {"command": "make deploy"}
    mid = oc.assistant(
        ids,
        s,
        oc.T0 + 100,
        prompt,
        oc.text("Deploying.", oc.T0 + 110),
        oc.tool("bash", "call_1", bash, "pending", oc.T0 + 120),
        done=False,
    )
    conn = oc.open_db(root)
    oc.write_db(conn, s)
    part_id = s.messages[1][2][1][0]
    assert ingest(archive, root).messages == 2  # the prompt, and the answer so far
    steps = [("running", ""), ("completed", "deployed v2")]
    for n, (status, output) in enumerate(steps, start=1):
        part = oc.tool("bash", "call_1", bash, status, oc.T0 + 120, output)
        oc.set_part(conn, s.id, mid, part_id, part, at=oc.T0 + 1000 * n)
        ingest(archive, root)
    stored = rows(archive)
    answers = [r for r in stored if r["api_id"] == mid]
    assert len(answers) == 1, "one message for the answer, however often its parts changed"
    assert answers[0]["text"] == "Deploying."
    assert orjson.loads(answers[0]["tool_calls"]) == [["bash", "make deploy"]]
    result = [r for r in stored if r["kind"] == "tool_result"]
    assert [(r["tool_output"], r["is_error"]) for r in result] == [("deployed v2", 0)]
    assert len(stored) == 3


def test_text_still_streaming_waits_until_it_ends(root: Path, archive: Archive) -> None:
    ids = oc.Ids()
    s = oc.Session(ids("ses"), "/work/shop", "Explain")
    prompt = oc.user(ids, s, oc.T0, oc.text("explain the bug"))
    mid = oc.assistant(
        ids, s, oc.T0 + 100, prompt, oc.text("The bu", oc.T0 + 110, ended=False), done=False
    )
    conn = oc.open_db(root)
    oc.write_db(conn, s)
    ingest(archive, root)
    assert [r["kind"] for r in rows(archive)] == ["prompt"]
    part_id = s.messages[1][2][0][0]
    whole = oc.text("The bug is a race.", oc.T0 + 110)
    oc.set_part(conn, s.id, mid, part_id, whole, at=oc.T0 + 5000)
    ingest(archive, root)
    assert [r["text"] for r in rows(archive)] == ["explain the bug", "The bug is a race."]


def test_a_growing_database_is_read_from_where_it_stopped(root: Path) -> None:
    ids = oc.Ids()
    session, child = oc.conversation(ids)
    conn = oc.open_db(root)
    oc.write_db(conn, session, child)
    (first,) = read(root)
    assert isinstance(first, FileBatch) and len(support.messages([first])) == 17
    states = {first.state.path: first.state}
    assert read(root, states) == []  # nothing written: not even opened
    later = oc.T0 + 100_000
    prompt = oc.user(ids, session, later, oc.text("and the cart test?"))
    oc.assistant(ids, session, later + 10, prompt, oc.text("Same cause.", later + 20))
    oc.write_db(
        conn,
        oc.Session(
            session.id,
            session.directory,
            session.title,
            updated=later,
            messages=session.messages[-2:],
        ),
    )
    (second,) = read(root, states)
    assert [m.text for m in support.messages([second])] == ["and the cart test?", "Same cause."]
    assert second.state.offset > first.state.offset


def test_damaged_rows_are_counted_and_the_rest_archived(root: Path, archive: Archive) -> None:
    session, child = oc.conversation(oc.Ids())
    conn = oc.open_db(root)
    oc.write_db(conn, session, child)
    mid = session.messages[0][0]
    conn.execute(
        "INSERT INTO part VALUES ('prt_bad1', ?, ?, 1, 1, '{\"type\": \"te')", (mid, session.id)
    )
    conn.execute("INSERT INTO message VALUES ('msg_bad', ?, 1, 1, '[1, 2]')", (session.id,))
    (batch,) = read(root)
    assert isinstance(batch, FileBatch)
    assert batch.skipped == 2 and batch.state.skipped == 2
    archive.apply([batch])
    assert len(rows(archive)) == ROWS


def test_a_row_that_is_not_utf8_is_counted_not_the_whole_database(
    root: Path, archive: Archive
) -> None:
    session, child = oc.conversation(oc.Ids())
    conn = oc.open_db(root)
    oc.write_db(conn, session, child)
    mid = session.messages[0][0]
    # A flipped bit in a text column: SQLite hands the bytes back as they are.
    bad = b'{"type":"text","text":"caf\xe9"}'
    conn.execute(
        "INSERT INTO part VALUES ('prt_bad2', ?, ?, 1, 1, CAST(? AS TEXT))", (mid, session.id, bad)
    )
    (batch,) = read(root)
    assert isinstance(batch, FileBatch) and batch.skipped == 1
    archive.apply([batch])
    assert len(rows(archive)) == ROWS


def test_a_tree_file_mid_write_waits_an_old_damaged_one_counts(
    root: Path, archive: Archive
) -> None:
    session, child = oc.conversation(oc.Ids())
    oc.write_tree(root, session, child)
    message_id, _, parts = session.messages[1]
    half = root / "storage" / "part" / message_id / f"{parts[2][0]}.json"
    whole = half.read_bytes()
    half.write_bytes(whole[:20])  # just now: OpenCode is still writing it
    broken = root / "storage" / "part" / message_id / f"{parts[3][0]}.json"
    broken.write_bytes(b"{nope")
    os.utime(broken, (1_700_000_000, 1_700_000_000))  # long ago: it stays broken
    (batch,) = read(root, {})[:1]
    assert isinstance(batch, FileBatch) and batch.skipped == 1
    archive.apply([batch])
    texts = [r["text"] for r in rows(archive)]
    assert "Let me run it." not in texts
    half.write_bytes(whole)
    ingest(archive, root)
    assert "Let me run it." in [r["text"] for r in rows(archive)]


def test_a_tree_read_once_is_left_alone_once_opencode_db_exists(root: Path) -> None:
    session, child = oc.conversation(oc.Ids())
    (session_file, _) = oc.write_tree(root, session, child)
    (batch,) = list(read_file(root, session_file, None))
    assert isinstance(batch, FileBatch)
    oc.open_db(root).close()
    assert list(read_file(root, session_file, batch.state)) == []


def test_a_busy_database_is_skipped_this_run(root: Path) -> None:
    session, child = oc.conversation(oc.Ids())
    conn = oc.open_db(root)
    oc.write_db(conn, session, child)
    conn.execute("PRAGMA journal_mode = DELETE")  # where a writer's lock keeps readers out
    conn.execute("BEGIN EXCLUSIVE")
    try:
        assert read(root) == []
    finally:
        conn.execute("ROLLBACK")
    assert len(support.messages(read(root))) == 17


def test_no_lock_is_held_between_batches(root: Path) -> None:
    session, child = oc.conversation(oc.Ids())
    conn = oc.open_db(root)
    oc.write_db(conn, session, child)
    (db_file,) = discover(root)[0]
    reading = read_file(root, db_file, None)
    assert isinstance(next(reading), FileBatch)  # the reader is paused after a batch
    writer = sqlite3.connect(db_file, timeout=0, isolation_level=None)
    writer.execute("UPDATE session SET title = 'x'")
    busy, _, _ = writer.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    assert busy == 0, "a read transaction of ours would keep the checkpoint from finishing"
    writer.close()
    reading.close()


def test_a_file_that_is_no_database_is_one_unreadable(root: Path) -> None:
    root.mkdir(parents=True)
    (root / "opencode.db").write_bytes(b"not a database at all" * 100)
    (entry,) = read(root)
    assert isinstance(entry, Unreadable) and entry.path.endswith("opencode.db")


def test_a_secret_a_cut_would_split_is_masked_first(root: Path) -> None:
    ids = oc.Ids()
    s = oc.Session(ids("ses"), "/work/shop", "Cut")
    asked = oc.user(ids, s, oc.T0, oc.text(support.CUT_PROMPT))
    calls = [
        oc.tool("bash", f"k{n}", {"command": c}, "completed", oc.T0 + 10, "ok")
        for n, c in enumerate(support.CUT_COMMANDS)
    ]
    oc.assistant(ids, s, oc.T0 + 10, asked, *calls)
    oc.write_db(oc.open_db(root), s)
    files, _ = discover(root)
    found = support.messages(list(read_file(root, files[0], None, Masker(key=b"k" * 32))))
    support.assert_cut_after_masking(found)


def test_a_session_id_that_would_be_an_option_is_not_stored(root: Path) -> None:
    ids = oc.Ids()
    s = oc.Session("--port", "/work/shop", "Injected")
    oc.user(ids, s, oc.T0, oc.text("hello"))
    oc.write_db(oc.open_db(root), s)
    files, _ = discover(root)
    (batch,) = read_file(root, files[0], None)
    assert isinstance(batch, FileBatch)
    assert {m.session_id for m in support.messages([batch])} == {"_--port"}
    assert [r.session_id for _, r in batch.records if isinstance(r, Title)] == ["_--port"]


def test_secrets_are_masked(root: Path) -> None:
    ids = oc.Ids()
    s = oc.Session(ids("ses"), "/work/shop", "Token")
    token = "ghp_" + "x" * 36
    oc.user(ids, s, oc.T0, oc.text(f"use {token}"))
    oc.write_db(oc.open_db(root), s)
    files, _ = discover(root)
    (batch,) = read_file(root, files[0], None, Masker())
    assert isinstance(batch, FileBatch)
    (msg,) = support.messages([batch])
    assert token not in msg.text


def test_where_opencode_keeps_its_files_and_how_to_resume() -> None:
    assert SOURCE.agent == "opencode" and SOURCE.env == "MEMTUI_OPENCODE_DIR"
    assert SOURCE.root({"XDG_DATA_HOME": "/data"}) == Path("/data/opencode")
    assert SOURCE.root({}) == Path.home() / ".local/share/opencode"
    assert SOURCE.root({"MEMTUI_OPENCODE_DIR": "off"}) is None
    assert SOURCE.root({"MEMTUI_OPENCODE_DIR": "/elsewhere"}) == Path("/elsewhere")
    assert SOURCE.resume("ses_abc") == ["opencode", "--session", "ses_abc"]


def test_a_run_stopped_between_batches_loses_nothing(
    root: Path, archive: Archive, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("memtui.ingest.sources.opencode.BATCH", 4)
    session, child = oc.conversation(oc.Ids())
    oc.write_db(oc.open_db(root), session, child)
    batches = read(root)
    assert len(batches) >= 2
    assert all(isinstance(b, FileBatch) and b.state.offset == 0 for b in batches[:-1])
    archive.apply([b for b in batches[:1] if isinstance(b, FileBatch)])  # then kill -9
    ingest(archive, root)
    assert len(rows(archive)) == ROWS


def test_a_release_without_a_session_column_still_reads(root: Path) -> None:
    session, child = oc.conversation(oc.Ids())
    conn = oc.open_db(root)
    oc.write_db(conn, session, child)
    conn.execute("ALTER TABLE session DROP COLUMN directory")
    found = support.messages(read(root))
    assert len(found) == 17 and {m.cwd for m in found} == {None}


def test_a_session_of_the_json_tree_growing_is_read_from_where_it_stopped(root: Path) -> None:
    ids = oc.Ids()
    session, _ = oc.conversation(ids)
    (session_file,) = oc.write_tree(root, session)
    for path in (root / "storage").rglob("*.json"):
        os.utime(path, ns=(oc.T0 * 1_000_000, oc.T0 * 1_000_000))  # written back then
    (first,) = read_file(root, session_file, None)
    assert isinstance(first, FileBatch) and len(support.messages([first])) == 13
    prompt = oc.user(ids, session, oc.T0 + 100_000, oc.text("and the cart test?"))
    oc.assistant(ids, session, oc.T0 + 100_010, prompt, oc.text("Same cause.", oc.T0 + 100_020))
    later = oc.Session(session.id, session.directory, session.title, messages=session.messages[-2:])
    oc.write_tree(root, later)
    (second,) = read_file(root, session_file, first.state)
    assert [m.text for m in support.messages([second])] == ["and the cart test?", "Same cause."]


def test_a_time_out_of_range_is_no_time(root: Path, archive: Archive) -> None:
    ids = oc.Ids()
    session = oc.Session(ids("ses"), "/work/bad", "bad", created=oc.T0, updated=oc.T0 + 10000)
    first = oc.user(ids, session, oc.T0 + 1000, oc.text("a prompt from the far future"))
    oc.user(ids, session, oc.T0 + 2000, oc.text("a prompt of its time"))
    conn = oc.open_db(root)
    oc.write_db(conn, session)
    conn.execute(
        "UPDATE message SET data = ? WHERE id = ?",
        ('{"role": "user", "time": {"created": 1e22}}', first),
    )
    conn.close()
    assert ingest(archive, root).messages == 2
    stamps = archive.conn.execute("SELECT ts, epoch FROM messages ORDER BY idx").fetchall()
    assert tuple(stamps[0]) == (None, 0) and stamps[1]["epoch"] == (oc.T0 + 2000) // 1000


def test_the_store_takes_an_epoch_out_of_range_for_none(archive: Archive) -> None:
    far = Message("far", "s", "user", Kind.PROMPT, None, "/work", None, epoch=10**20)
    archive.apply([FileBatch(FileState("/x.json", 1, 1), [(1, far)], "/work", 0, "opencode")])
    assert archive.conn.execute("SELECT epoch FROM messages").fetchone()[0] == 0


def test_a_lone_surrogate_escape_becomes_a_replacement_character(
    root: Path, archive: Archive
) -> None:
    ids = oc.Ids()
    session = oc.Session(ids("ses"), "/work/shop", "cut", created=oc.T0, updated=oc.T0 + 10000)
    # compact (JSON.stringify's way) writes the lone surrogate as the escape \ud83d.
    oc.user(ids, session, oc.T0 + 1000, oc.text("half an emoji \ud83d here"))
    oc.write_db(oc.open_db(root), session)
    assert ingest(archive, root).messages == 1
    assert rows(archive)[0]["text"] == "half an emoji \ufffd here"


def test_a_damaged_session_file_of_the_tree_is_counted_once(root: Path, archive: Archive) -> None:
    damaged = root / "storage" / "session" / "a1b2c3" / "ses_zzzz.json"
    damaged.parent.mkdir(parents=True)
    damaged.write_bytes(b"not json")
    os.utime(damaged, (1_700_000_000, 1_700_000_000))  # long ago: it stays broken
    counts = []
    for _ in range(3):
        states = archive.file_states([str(damaged)])
        batches = list(read_file(root, damaged, states.get(str(damaged))))
        assert all(isinstance(b, FileBatch) for b in batches)
        archive.apply([b for b in batches if isinstance(b, FileBatch)])
        counts.append(archive.file_states([str(damaged)])[str(damaged)].skipped)
    assert counts == [1, 1, 1]


def test_a_session_with_no_directory_belongs_to_opencodes_folder(
    root: Path, archive: Archive
) -> None:
    ids = oc.Ids()
    sessions = [
        oc.Session(ids("ses"), "/work/shop", "named", created=oc.T0, updated=oc.T0),
        oc.Session(ids("ses"), "", "nowhere", created=oc.T0, updated=oc.T0),
    ]
    for at, session in enumerate(sessions, 1):
        oc.user(ids, session, oc.T0 + at, oc.text(f"prompt of {session.title}"))
    conn = oc.open_db(root)
    oc.write_db(conn, *sessions)
    # A message whose session row is gone (OpenCode deletes the session first).
    conn.execute(
        "INSERT INTO message VALUES ('msg_orphan', 'ses_gone', ?, ?, ?)",
        (oc.T0, oc.T0 + 5, oc.compact({"role": "user", "time": {"created": oc.T0 + 5}})),
    )
    oc.set_part(conn, "ses_gone", "msg_orphan", "prt_orphan", oc.text("an orphan"), oc.T0 + 5)
    conn.close()
    assert ingest(archive, root).messages == 3
    found = archive.conn.execute(
        "SELECT m.text, p.path FROM messages m JOIN sessions s ON s.id = m.session_id "
        "JOIN projects p ON p.id = s.project_id ORDER BY m.text"
    ).fetchall()
    assert [tuple(r) for r in found] == [
        ("an orphan", str(root)),
        ("prompt of named", "/work/shop"),
        ("prompt of nowhere", str(root)),
    ]
