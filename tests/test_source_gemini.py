"""The Gemini CLI reader: every record type, the two layouts (a `.json` rewritten whole, a
`.jsonl` appended with re-appends, `$set` and `$rewindTo`), copies of one session stored once,
the project path recovered from a slug or a hash folder; into a real Archive."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from memtui.ingest.reader import Unreadable
from memtui.ingest.sources import gemini
from memtui.store.archive import Archive, FileBatch
from memtui.store.mask import Masker
from memtui.store.records import Kind, Message, Title
from tests.agents import gemini_files as gf
from tests.agents import support

SESSION = "dddd4444-s"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / ".gemini"
    (path / "tmp" / gf.SLUG).mkdir(parents=True)
    (path / "projects.json").write_text(json.dumps({"projects": {gf.PROJECT: gf.SLUG}}))
    (path / "tmp" / gf.SLUG / ".project_root").write_text(gf.PROJECT)
    return path


@pytest.fixture
def archive(tmp_path: Path) -> Iterator[Archive]:
    store = Archive(tmp_path / "store.db")
    yield store
    store.close()


def chats(home: Path, folder: str = gf.SLUG) -> Path:
    return home / "tmp" / folder / "chats"


def read(home: Path, path: Path, archive: Archive | None = None) -> list[FileBatch]:
    return support.read(gemini.read_file, home, path, archive)


def ingest(home: Path, archive: Archive) -> tuple[int, int]:
    """Every file discovered, as the pipeline does: new messages stored, lines skipped."""
    stored = skipped = 0
    files, _ = gemini.discover(home)
    for path in files:
        batches = read(home, path, archive)
        stored += archive.apply(batches).messages
        skipped += sum(b.skipped for b in batches)
    return stored, skipped


def rows(archive: Archive, session: str = SESSION) -> list[tuple[str, str, str]]:
    return archive.conn.execute(
        "SELECT uuid, kind, text FROM messages WHERE session_id = ? ORDER BY idx", (session,)
    ).fetchall()


def test_every_record_type(home: Path) -> None:
    msgs = [*gf.conversation("b"), gf.snapshot("b-snap")]
    path = gf.append(chats(home) / "session-x.jsonl", gf.jsonl(SESSION, msgs, summary="Cache TTL"))
    batches = read(home, path)
    assert all(b.agent == "gemini" and b.fallback_project == gf.PROJECT for b in batches)
    records = support.messages(batches)
    by_uuid = {r.uuid: r for r in records}
    assert by_uuid["b-ctx"].kind is Kind.META  # injected <session_context>: never a prompt
    prompt = by_uuid["b-u1"]
    assert (prompt.kind, prompt.role) == (Kind.PROMPT, "user")
    assert (
        prompt.text == prompt.title == "why does the forecast cache never expire? @src/forecast.py"
    )
    answer = by_uuid["b-g1"]
    assert (answer.kind, answer.role, answer.api_id) == (Kind.ASSISTANT, "assistant", "b-g1")
    assert answer.thinking == "Reading the cache\nI should look at forecast.py first."
    calls = [c for r in records if r.api_id == "b-g1" for c in r.tool_calls]
    assert [(c.name, c.arg, c.id) for c in calls] == [
        ("read_file", f"{gf.PROJECT}/src/forecast.py", "b-read-1"),
        ("run_shell_command", "pytest -q tests/test_forecast.py", "b-shell-1"),
    ]
    results = [r for r in records if r.kind is Kind.TOOL_RESULT]
    assert [(r.answers, r.is_error, r.role) for r in results] == [
        (["b-read-1"], False, "user"),
        (["b-shell-1"], True, "user"),
    ]  # each once, though also recorded as a user turn
    assert results[1].tool_output == "1 failed: test_cache_expiry"
    assert by_uuid["b-i1"].kind is by_uuid["b-e1"].kind is Kind.META
    assert by_uuid["b-g2"].text.startswith("The TTL is read")
    assert by_uuid["b-snap"].kind is Kind.COMPACT_SUMMARY
    assert {r.session_id for r in records} == {SESSION}
    assert {r.cwd for r in records} == {gf.PROJECT}
    assert prompt.timestamp == "2026-11-02T09:00:01.000Z" and prompt.epoch == 1793610001
    titles = [r for b in batches for _, r in b.records if isinstance(r, Title)]
    assert [(t.title, t.session_id) for t in titles] == [("Cache TTL", SESSION)]


def test_each_copy_of_a_session_is_stored_once(tmp_path: Path, archive: Archive) -> None:
    """The hash folder's `.json`, its copy in the slug folder, the same session resumed as
    `.jsonl`: one session, each message once, in the project the slug and the hash name."""
    home = tmp_path / ".gemini"
    files = gf.gemini_home(home)
    found, bad = gemini.discover(home)
    assert sorted(found) == sorted(files.values()) and bad == []  # not logs.json nor *.tmp-*
    stored, skipped = ingest(home, archive)
    assert skipped == 0
    legacy = rows(archive, "aaaa1111-s")
    assert [u for u, _, _ in legacy] == [
        "a-ctx",
        "a-u1",
        "a-g1",
        "aaaa1111-s/a-read-1/result",
        "aaaa1111-s/a-shell-1/result",
        "a-i1",
        "a-e1",
        "a-g2",
        "a-u2",  # only in the resumed copy
    ]
    (calls,) = archive.conn.execute(
        "SELECT tool_calls FROM messages WHERE uuid = 'a-g1'"
    ).fetchone()
    assert [c[0] for c in orjson.loads(calls)] == ["read_file", "run_shell_command"]
    assert stored == len(legacy) + len(rows(archive, "bbbb2222-s")) == 9 + 10
    projects = archive.conn.execute("SELECT path FROM projects").fetchall()
    assert [p[0] for p in projects] == [gf.PROJECT]
    (title,) = archive.conn.execute(
        "SELECT custom_title FROM sessions WHERE id = 'bbbb2222-s'"
    ).fetchone()
    assert title == "Forecast cache never expires"
    assert ingest(home, archive) == (0, 0)


def test_a_subagent_belongs_to_its_parent_session(tmp_path: Path, archive: Archive) -> None:
    home = tmp_path / ".gemini"
    files = gf.gemini_home(home)
    records = support.messages(read(home, files["subagent"]))
    assert {(r.session_id, r.agent_id, r.is_sidechain) for r in records} == {
        ("bbbb2222-s", "cccc3333-sub", True)
    }
    ingest(home, archive)
    sessions = archive.conn.execute("SELECT id FROM sessions ORDER BY id").fetchall()
    assert [s[0] for s in sessions] == ["aaaa1111-s", "bbbb2222-s"]


def test_a_rewritten_json_is_read_whole_and_only_the_new_is_stored(
    home: Path, archive: Archive
) -> None:
    path = chats(home) / "session-2026-11-02T09-00-dddd4444.json"
    first = [gf.user("d-u1", "add a retry to the fetch"), gf.gemini("d-g1", "Done.", tokens=False)]
    gf.write_json(path, SESSION, first)
    assert ingest(home, archive) == (2, 0)
    # Rewritten: tokens added to the answer, a new exchange.
    later = [first[0], gf.gemini("d-g1", "Done."), gf.user("d-u2", "and a timeout", 20)]
    gf.write_json(path, SESSION, [*later, gf.gemini("d-g2", "Added.", 25)])
    batches = read(home, path, archive)
    assert len(support.messages(batches)) == 4  # read whole again
    result = archive.apply(batches)
    assert (result.messages, result.duplicates) == (2, 2)
    assert [u for u, _, _ in rows(archive)] == ["d-u1", "d-g1", "d-u2", "d-g2"]
    # Untouched: not even read. Touched with the same bytes: a checkpoint, no records.
    assert read(home, path, archive) == []
    os.utime(path, ns=(1, 1))
    (touched,) = read(home, path, archive)
    assert touched.records == []
    archive.apply([touched])
    assert read(home, path, archive) == []


def test_a_growing_jsonl_is_read_from_where_it_stopped(home: Path, archive: Archive) -> None:
    path = chats(home) / "session-x.jsonl"
    calls = [gf.tool_call("d-ls-1", "list_directory", {"dir_path": "src"}, None)]
    gf.append(path, gf.jsonl(SESSION, [gf.user("d-u1", "list the sources")]))
    gf.append(path, gf.line(gf.gemini("d-g1", "", calls=calls)))  # scheduled, no result yet
    assert ingest(home, archive) == (2, 0)
    # The call's result arrives (the answer re-appended by id), then a new exchange.
    done = [gf.tool_call("d-ls-1", "list_directory", {"dir_path": "src"}, "forecast.py")]
    gf.append(path, gf.line(gf.gemini("d-g1", "", calls=done)))
    gf.append(path, gf.line(gf.user("d-u2", "thanks", 40)))
    batches = read(home, path, archive)
    assert [r.uuid for r in support.messages(batches)] == [
        "d-g1",
        "d-g1/d-ls-1",
        f"{SESSION}/d-ls-1/result",
        "d-u2",
    ]  # only what the new lines say: the re-appended answer, not the first prompt
    result = archive.apply(batches)
    assert (result.messages, result.duplicates) == (2, 2)
    assert [k for _, k, _ in rows(archive)] == ["prompt", "assistant", "tool_result", "prompt"]


def test_a_half_written_line_waits_for_its_newline(home: Path, archive: Archive) -> None:
    path = chats(home) / "session-x.jsonl"
    gf.append(path, gf.jsonl(SESSION, [gf.user("d-u1", "first")]))
    whole = gf.line(gf.gemini("d-g1", "an answer cut mid-write"))
    gf.append(path, whole[:30])
    assert ingest(home, archive) == (1, 0)
    gf.append(path, whole[30:])
    assert ingest(home, archive) == (1, 0)
    assert [u for u, _, _ in rows(archive)] == ["d-u1", "d-g1"]


def test_damaged_entries_are_skipped_counted_once_and_the_rest_archived(
    home: Path, archive: Archive
) -> None:
    path = chats(home) / "session-x.jsonl"
    gf.append(path, gf.jsonl(SESSION, [gf.user("d-u1", "first")]))
    gf.append(path, b'{"id": "d-g1", "type": "gem\n[1, 2]\n\xff\xfe\n')
    gf.append(path, gf.line(gf.gemini("d-g2", "still read")))
    broken = gf.write_json(chats(home) / "session-y.json", "eeee5555-s", [])
    broken.write_text(broken.read_text()[:40])
    gf.write_json(chats(home) / "session-z.json", "ffff6666-s", [gf.user("f-u1", "ok"), 7])
    assert ingest(home, archive) == (3, 3 + 1 + 1)
    gf.append(path, gf.line(gf.user("d-u3", "more", 50)))
    assert ingest(home, archive) == (1, 0)  # not counted again
    gf.append(path, gf.line({"$rewindTo": "d-u3"}))
    assert ingest(home, archive) == (0, 0)  # nor by the replay a rewind starts
    (skipped,) = archive.conn.execute(
        "SELECT skipped FROM files WHERE path = ?", (str(path),)
    ).fetchone()
    assert skipped == 3


def test_a_rewind_never_stores_what_it_dropped(home: Path, archive: Archive) -> None:
    path = chats(home) / "session-x.jsonl"
    gf.append(path, gf.jsonl(SESSION, [gf.user("d-u1", "one"), gf.gemini("d-g1", "1")]))
    gf.append(path, gf.line(gf.user("d-u2", "two", 10)))
    assert ingest(home, archive) == (3, 0)
    # An answer to the prompt being rewound, the rewind, the prompt typed again: a replay.
    gf.append(path, gf.line(gf.gemini("d-g2", "2", 11)))
    gf.append(path, gf.line({"$rewindTo": "d-u2"}))
    gf.append(path, gf.line(gf.user("d-u2b", "two, better", 12)))
    # Within one read: a new exchange rewound at once.
    gf.append(path, gf.line(gf.gemini("d-g2b", "2b", 13)))
    gf.append(path, gf.line(gf.user("d-u3", "three", 14)))
    gf.append(path, gf.line(gf.gemini("d-g3", "3", 15)))
    gf.append(path, gf.line({"$rewindTo": "d-u3"}))
    batches = read(home, path, archive)
    assert [r.uuid for r in support.messages(batches)] == ["d-u1", "d-g1", "d-u2b", "d-g2b"]
    result = archive.apply(batches)
    assert (result.messages, result.duplicates) == (2, 2)
    # d-u2 was stored before the rewind and stays (the store cannot delete yet).
    assert [u for u, _, _ in rows(archive)] == ["d-u1", "d-g1", "d-u2", "d-u2b", "d-g2b"]
    assert ingest(home, archive) == (0, 0)


def test_a_set_of_messages_is_the_whole_list_anew(home: Path, archive: Archive) -> None:
    path = chats(home) / "session-x.jsonl"
    keep, drop = gf.user("d-u1", "one"), gf.user("d-u2", "two", 10)
    gf.append(path, gf.jsonl(SESSION, [keep, drop]))
    gf.append(path, gf.line({"$set": {"messages": [keep, gf.gemini("d-g1", "1")]}}))
    assert [r.uuid for r in support.messages(read(home, path))] == ["d-u1", "d-g1"]


@pytest.mark.parametrize("marker", [True, False])
def test_a_hash_folder_finds_its_path(tmp_path: Path, archive: Archive, marker: bool) -> None:
    """An older release's folder is named by the SHA-256 of the path: matched against
    projects.json's paths, else the slug folders' `.project_root`."""
    home = tmp_path / ".gemini"
    root = "/home/dev/other"
    (home / "tmp" / "other").mkdir(parents=True)
    if marker:
        (home / "tmp" / "other" / ".project_root").write_text(root)
    else:
        (home / "projects.json").write_text(json.dumps({"projects": {root: "other"}}))
    path = gf.write_json(
        chats(home, gf.project_hash(root)) / "session-h.json", SESSION, [gf.user("d-u1", "hi")]
    )
    (batch,) = read(home, path)
    assert batch.fallback_project == root
    assert {r.cwd for r in support.messages([batch])} == {root}


def test_an_unknown_project_falls_back_to_its_folder(tmp_path: Path) -> None:
    home = tmp_path / ".gemini"
    folder = home / "tmp" / gf.project_hash("/nowhere/known")
    path = gf.write_json(folder / "chats" / "session-h.json", SESSION, [gf.user("d-u1", "hi")])
    (batch,) = read(home, path)
    assert batch.fallback_project == str(folder)


def test_a_session_hash_matches_a_known_directory(tmp_path: Path) -> None:
    """A slug folder that lost its marker and its registry entry: the session's projectHash
    against the directories the session names."""
    home = tmp_path / ".gemini"
    root = "/home/dev/lost"
    path = gf.write_json(
        chats(home, "lost") / "session-l.json",
        SESSION,
        [gf.user("d-u1", "hi")],
        root=root,
        directories=[root],
    )
    (batch,) = read(home, path)
    assert {r.cwd for r in support.messages([batch])} == {root}


def test_secrets_are_masked(home: Path) -> None:
    token = "ghp_" + "x" * 36
    calls = [gf.tool_call("d-env-1", "run_shell_command", {"command": "env"}, f"GH={token}")]
    path = gf.append(
        chats(home) / "session-x.jsonl",
        gf.jsonl(SESSION, [gf.user("d-u1", f"use {token}"), gf.gemini("d-g1", "", calls=calls)]),
    )
    records = [
        r
        for b in gemini.read_file(home, path, None, Masker(key=b"k" * 32))
        if isinstance(b, FileBatch)
        for _, r in b.records
        if isinstance(r, Message)
    ]
    assert records and not any(token in r.text + r.tool_output for r in records)


def test_a_secret_a_cut_would_split_is_masked_first(home: Path) -> None:
    calls = [
        gf.tool_call(f"k{n}", "run_shell_command", {"command": c}, "ok")
        for n, c in enumerate(support.CUT_COMMANDS)
    ]
    msgs = [gf.user("k-u1", support.CUT_PROMPT), gf.gemini("k-g1", "", calls=calls)]
    path = gf.append(chats(home) / "session-k.jsonl", gf.jsonl(SESSION, msgs))
    found = support.messages(list(gemini.read_file(home, path, None, Masker(key=b"k" * 32))))
    support.assert_cut_after_masking(found)


def test_a_session_id_that_would_be_an_option_is_not_stored(home: Path) -> None:
    path = gf.append(
        chats(home) / "session-y.jsonl", gf.jsonl("--yolo", [gf.user("y-u1", "hello")])
    )
    # The file's name, as for a file that gives no id.
    assert {m.session_id for m in support.messages(read(home, path))} == {"session-y"}


def test_an_unreadable_file_is_one_entry(home: Path) -> None:
    folder = chats(home) / "session-d.jsonl"
    folder.mkdir(parents=True)
    (entry,) = gemini.read_file(home, folder, None)
    assert isinstance(entry, Unreadable)


def test_where_it_looks_and_how_it_resumes(tmp_path: Path) -> None:
    source = gemini.SOURCE
    assert source.agent == "gemini" and source.env == "MEMTUI_GEMINI_DIR"
    assert source.root({"GEMINI_CLI_HOME": str(tmp_path)}) == tmp_path / ".gemini"
    assert source.root({}) == Path.home() / ".gemini"
    assert source.root({"MEMTUI_GEMINI_DIR": "off"}) is None
    assert source.resume(SESSION) == ["gemini", "--resume", SESSION]


def test_a_long_read_is_split_and_only_its_last_batch_moves_the_checkpoint(
    home: Path, archive: Archive, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gemini, "BATCH", 3)
    path = chats(home) / "session-x.jsonl"
    gf.append(path, gf.jsonl(SESSION, [gf.user(f"d-u{n}", f"prompt {n}", n) for n in range(7)]))
    batches = read(home, path, archive)
    assert [len(b.records) for b in batches] == [3, 3, 1]
    assert [b.state.offset for b in batches] == [0, 0, path.stat().st_size]
    archive.apply(batches[:2])  # killed before the last: read again, nothing stored twice
    assert ingest(home, archive) == (1, 0)
    assert len(rows(archive)) == 7


def test_a_name_that_is_not_utf8_is_reported(home: Path) -> None:
    gf.append(chats(home) / "session-ok.jsonl", gf.jsonl(SESSION, []))
    odd = os.fsencode(chats(home)) + b"/session-\xff.jsonl"
    with open(odd, "wb") as f:
        f.write(gf.jsonl("other", []))
    found, bad = gemini.discover(home)
    assert [p.name for p in found] == ["session-ok.jsonl"]
    assert len(bad) == 1 and "not valid UTF-8" in bad[0]


@pytest.mark.parametrize("name", ["session-x.json", "session-x.jsonl"])
def test_a_lone_surrogate_escape_becomes_a_replacement_character(
    home: Path, archive: Archive, name: str
) -> None:
    # json.dumps writes the lone surrogate as the escape \ud83d, as JSON.stringify does.
    msgs = [gf.user("u1", "half an emoji \ud83d here", 1), gf.gemini("g1", "an answer", 5)]
    path = chats(home) / name
    if name.endswith(".json"):
        gf.write_json(path, SESSION, msgs)
    else:
        gf.append(path, gf.jsonl(SESSION, msgs))
    assert ingest(home, archive) == (2, 0)
    assert [text for _, _, text in rows(archive)] == ["half an emoji \ufffd here", "an answer"]


def test_a_set_field_of_the_wrong_type_is_ignored(home: Path, archive: Archive) -> None:
    path = gf.append(chats(home) / "session-x.jsonl", gf.jsonl(SESSION, [gf.user("u1", "one", 1)]))
    gf.append(path, gf.line({"$set": {"sessionId": 5, "projectHash": ["x"], "summary": {}}}))
    gf.append(path, gf.line(gf.user("u2", "two", 2)))
    assert ingest(home, archive) == (2, 0)
    assert [text for _, _, text in rows(archive)] == ["one", "two"]
    assert {r.session_id for r in support.messages(read(home, path))} == {SESSION}
