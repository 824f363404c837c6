"""The Codex CLI reader: every record type, a fork's copy of its parent and a `.jsonl.zst`
replacing its `.jsonl` stored once, a rollout growing between reads, a half-written line,
damaged lines; into a real Archive."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
import zstandard

from memtui.engine.errortext import run_output
from memtui.ingest import pipeline
from memtui.ingest.reader import Unreadable
from memtui.ingest.sources import codex
from memtui.store.archive import Archive, FileBatch
from memtui.store.mask import Masker
from memtui.store.records import Kind, Message
from tests.agents import codex_files as cf
from tests.agents import support


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / ".codex"
    path.mkdir()
    return path


@pytest.fixture
def archive(tmp_path: Path) -> Iterator[Archive]:
    store = Archive(tmp_path / "store.db")
    yield store
    store.close()


def read(home: Path, path: Path, archive: Archive | None = None) -> list[FileBatch]:
    return support.read(codex.read_file, home, path, archive)


def ingest(home: Path, archive: Archive) -> tuple[int, int]:
    """Every rollout discovered, as the pipeline does: new messages stored, lines skipped."""
    stored = skipped = 0
    for path in codex.discover(home)[0]:
        batches = read(home, path, archive)
        stored += archive.apply(batches).messages
        skipped += sum(b.skipped for b in batches)
    return stored, skipped


def rows(archive: Archive, session: str) -> list[tuple[str, str]]:
    found = archive.conn.execute(
        "SELECT kind, text FROM messages WHERE session_id = ? ORDER BY idx", (session,)
    )
    return [(kind, text) for kind, text in found]


def test_every_record_type(home: Path) -> None:
    path = cf.write(cf.rollout_path(home, cf.PARENT), cf.parent_rollout(cf.Clock()))
    batches = read(home, path)
    assert all(b.agent == "codex" and b.fallback_project == cf.PROJECT for b in batches)
    records = support.messages(batches)
    assert [r.kind for r in records[:3]] == [Kind.META] * 3  # developer, instructions, env
    assert all(r.title is None for r in records[:3])
    prompts = [r for r in records if r.kind is Kind.PROMPT]  # each once, not again as events
    assert [(p.role, p.text, p.title) for p in prompts] == [
        ("user", t, t) for t in ("why does the forecast cache never expire?", "run the tests again")
    ]
    thinking = [r for r in records if r.thinking]
    assert [(r.role, r.thinking) for r in thinking] == [
        ("assistant", "**Reading the cache**\n\nLook at forecast.py first.")
    ]
    calls = [(c.name, c.arg, c.id) for r in records for c in r.tool_calls]
    assert calls == [
        ("shell", "pytest -q tests/test_cache.py", "c1"),
        ("apply_patch", "src/cache.py", "c2"),
        ("shell", "pytest -q", "c3"),
    ]
    results = [r for r in records if r.kind is Kind.TOOL_RESULT]
    assert [(r.role, r.answers, r.is_error) for r in results] == [
        ("user", ["c1"], True),
        ("user", ["c2"], None),
        ("user", ["c3"], False),
    ]
    # The JSON form's exit code is kept, written as Codex's text form writes it: `memtui
    # fixes` said `failed:` with no code for it.
    assert results[0].tool_output == "Exit code: 1\nOutput:\n1 failed: test_cache_expiry\n"
    assert run_output(results[0].tool_output, "codex") == (1, "1 failed: test_cache_expiry\n")
    answers = [r.text for r in records if r.kind is Kind.ASSISTANT and r.text]
    assert answers == ["The TTL was never set: it is 300 seconds now.", "All 3 tests pass."]
    assert {(r.session_id, r.cwd, r.git_branch) for r in records} == {
        (cf.PARENT, cf.PROJECT, cf.BRANCH)
    }
    assert prompts[0].timestamp == "2026-11-02T09:00:06.000Z"
    assert prompts[0].epoch == 1793610006
    assert len({r.uuid for r in records}) == len(records) == 14


def test_a_rollout_from_before_mid_2025(home: Path) -> None:
    when = cf.START.replace(year=2025, month=5)
    path = cf.write(cf.rollout_path(home, cf.PARENT, when), cf.legacy_rollout(cf.PARENT))
    records = support.messages(read(home, path))
    assert [(r.kind, r.text or r.thinking or r.tool_output) for r in records] == [
        (Kind.META, cf.ENV_CONTEXT.replace(cf.PROJECT, "/home/dev/old")),
        (Kind.PROMPT, "explain the cache"),
        (Kind.ASSISTANT, "Look"),
        (Kind.ASSISTANT, ""),
        (Kind.TOOL_RESULT, "cat: cache.py: No such file"),
        (Kind.ASSISTANT, "It caches."),
    ]
    assert records[3].tool_calls[0].arg == "cat cache.py" and records[4].is_error is True
    assert {(r.session_id, r.git_branch, r.timestamp) for r in records} == {
        (cf.PARENT, "main", "2025-05-07T17:24:21.123Z")
    }
    assert {r.cwd for r in records} == {"/home/dev/old"}  # from the environment context


def test_compacted_stands_for_the_history_before_it(home: Path) -> None:
    clock = cf.Clock()
    lines = [
        *cf.parent_rollout(clock),
        cf.compacted(clock, "The cache TTL was fixed; tests pass."),
        cf.line(clock, "compacted", {"message": "", "replacement_history": []}),
        cf.event(clock, "context_compacted"),
    ]
    records = support.messages(read(home, cf.write(cf.rollout_path(home, cf.PARENT), lines)))
    summaries = [r for r in records if r.kind is Kind.COMPACT_SUMMARY]
    summary = "The cache TTL was fixed; tests pass."
    assert [(s.role, s.text) for s in summaries] == [("user", summary)]


def test_a_fork_stores_only_what_it_adds(home: Path, archive: Archive) -> None:
    clock = cf.Clock()
    parent = cf.parent_rollout(clock)
    cf.write(cf.rollout_path(home, cf.PARENT), parent)
    later = cf.START.replace(hour=10)
    fork = cf.write(cf.rollout_path(home, cf.FORK, later), cf.fork_rollout(parent, clock))
    forked = support.messages(read(home, fork))
    assert {r.session_id for r in forked} == {cf.FORK}  # the parent's id never names it
    assert ingest(home, archive) == (14 + 2, 0)
    assert len(rows(archive, cf.PARENT)) == 14
    assert rows(archive, cf.FORK) == [
        ("prompt", "try a TTL of 60 instead"),
        ("assistant", "TTL = 60 now."),
    ]
    assert ingest(home, archive) == (0, 0)


def test_a_compressed_rollout_is_the_same_session(home: Path, archive: Archive) -> None:
    path = cf.write(cf.rollout_path(home, cf.PARENT), cf.parent_rollout(cf.Clock()))
    plain = support.messages(read(home, path))
    assert ingest(home, archive) == (14, 0)
    packed = path.with_name(path.name + ".zst")
    packed.write_bytes(cf.compress(path).read_bytes())  # both there: Codex reads the plain one
    cf.write(path, cf.parent_rollout(cf.Clock()))
    assert codex.discover(home)[0] == [path]
    path.unlink()
    assert codex.discover(home)[0] == [packed]
    assert [(r.uuid, r.text) for r in support.messages(read(home, packed))] == [
        (r.uuid, r.text) for r in plain
    ]
    assert ingest(home, archive) == (0, 0)  # read whole, nothing stored twice
    assert read(home, packed, archive) == []  # unchanged: not read again


def test_a_session_is_named_by_rename(home: Path, archive: Archive) -> None:
    cf.write(cf.rollout_path(home, cf.PARENT), cf.parent_rollout(cf.Clock()))
    cf.name(home, cf.PARENT, "  ")  # an empty name names nothing, as in Codex
    cf.name(home, cf.PARENT, "Cache TTL fix")
    ingest(home, archive)
    title = "SELECT custom_title FROM sessions WHERE id = ?"
    assert archive.conn.execute(title, (cf.PARENT,)).fetchone()[0] == "Cache TTL fix"
    cf.name(home, cf.PARENT, "Cache TTL, fixed")  # renamed: the last name wins
    ingest(home, archive)
    assert archive.conn.execute(title, (cf.PARENT,)).fetchone()[0] == "Cache TTL, fixed"


def test_a_damaged_compressed_rollout_is_unreadable(home: Path) -> None:
    path = cf.write(cf.rollout_path(home, cf.PARENT), cf.parent_rollout(cf.Clock()))
    packed = cf.compress(path)
    packed.write_bytes(packed.read_bytes()[:-40] + b"\x00" * 40)
    found = list(codex.read_file(home, packed, None))
    assert isinstance(found[-1], Unreadable) and "zstd" in found[-1].reason
    batch = found[-2]
    assert isinstance(batch, FileBatch) and batch.state.offset == 0  # read again next time


def test_a_growing_rollout_is_read_on_from_its_offset(home: Path, archive: Archive) -> None:
    lines = cf.parent_rollout(cf.Clock())
    data = cf.encode(lines)
    cut = data.index(b'"run the tests again"')
    cut = data.rindex(b"\n", 0, cut) + 1  # before the second turn
    path = cf.rollout_path(home, cf.PARENT)
    path.parent.mkdir(parents=True)
    path.write_bytes(data[:cut] + data[cut : cut + 30])  # and half of its first line
    assert archive.apply(read(home, path, archive)).messages == 10
    cf.append(path, data[cut + 30 :])
    batches = read(home, path, archive)
    assert batches[0].records[0][0] > 16  # from the offset: the earlier lines not read again
    result = archive.apply(batches)
    assert (result.messages, result.duplicates) == (4, 0)
    assert [k for k, _ in rows(archive, cf.PARENT)][-4:] == [
        "prompt",
        "assistant",
        "tool_result",
        "assistant",
    ]
    whole = support.messages(read(home, path))  # the same uuids as a read from the start
    stored = {u for (u,) in archive.conn.execute("SELECT uuid FROM messages")}
    assert {r.uuid for r in whole} == stored


def test_damaged_lines_are_skipped_and_counted(home: Path, archive: Archive) -> None:
    clock = cf.Clock()
    lines = cf.parent_rollout(clock)
    lines[5:5] = [b"{not json", b"[1, 2]", b'{"type":"response_item","payload":\xff}']
    lines.append(cf.line(clock, "response_item", {"type": "ghost_snapshot", "ghost_commit": {}}))
    lines.append(cf.line(clock, "future_kind", {"anything": 1}))
    cf.write(cf.rollout_path(home, cf.PARENT), lines)
    assert ingest(home, archive) == (14, 3)


def test_a_half_written_last_line_waits(home: Path, archive: Archive) -> None:
    clock = cf.Clock()
    path = cf.write(cf.rollout_path(home, cf.PARENT), cf.opening(clock, cf.PARENT))
    last = orjson.dumps(cf.message(clock, "user", "add a test for the TTL"))
    cf.append(path, last[:25])
    assert archive.apply(read(home, path, archive)).messages == 3
    cf.append(path, last[25:] + b"\n")
    batches = read(home, path, archive)
    assert [r.text for r in support.messages(batches)] == ["add a test for the TTL"]
    assert archive.apply(batches).messages == 1


def test_discover_finds_sessions_and_archived_ones_not_history(home: Path) -> None:
    clock = cf.Clock()
    live = cf.write(cf.rollout_path(home, cf.PARENT), cf.opening(clock, cf.PARENT))
    old = cf.START.replace(year=2025)
    archived = cf.write(cf.rollout_path(home, cf.FORK, old, True), cf.opening(clock, cf.FORK))
    cf.history(home)
    (home / "sessions" / "notes.jsonl").write_text("{}\n")
    assert codex.discover(home) == ([archived, live], [])
    names = cf.name(home, cf.PARENT, "cache ttl")
    assert codex.discover(home) == ([archived, live, names], [])  # the names after the sessions
    assert codex.discover(home / "absent") == ([], [])


def test_unreadable_rollout(home: Path) -> None:
    path = cf.rollout_path(home, cf.PARENT)
    path.mkdir(parents=True)  # a folder named like a rollout
    [found] = codex.read_file(home, path, None)
    assert isinstance(found, Unreadable)


def test_secrets_are_masked(home: Path) -> None:
    clock = cf.Clock()
    token = "ghp_" + "x" * 36
    lines = [*cf.opening(clock, cf.PARENT), *cf.prompt(clock, f"use {token} to push")]
    path = cf.write(cf.rollout_path(home, cf.PARENT), lines)
    records = [
        r
        for b in codex.read_file(home, path, None, Masker(key=b"k" * 32))
        if isinstance(b, FileBatch)
        for _, r in b.records
        if isinstance(r, Message)
    ]
    assert records and not any(token in r.text for r in records)


def test_a_secret_a_cut_would_split_is_masked_first(home: Path) -> None:
    clock = cf.Clock()
    calls = [
        cf.function_call(clock, "shell", {"command": ["bash", "-lc", c]}, f"k{n}")
        for n, c in enumerate(support.CUT_COMMANDS)
    ]
    lines = [*cf.opening(clock, cf.PARENT), *cf.prompt(clock, support.CUT_PROMPT), *calls]
    path = cf.write(cf.rollout_path(home, cf.PARENT), lines)
    batches = list(codex.read_file(home, path, None, Masker(key=b"k" * 32)))
    found = support.messages(batches)
    support.assert_cut_after_masking(found)


def test_a_session_id_that_would_be_an_option_is_not_stored(home: Path) -> None:
    clock = cf.Clock()
    lines = [*cf.opening(clock, cf.PARENT), *cf.prompt(clock, "hello")]
    lines[0]["payload"]["id"] = "--dangerously-bypass-approvals-and-sandbox"
    path = cf.write(cf.rollout_path(home, cf.PARENT), lines)
    # The id the file's name gives, as for a rollout whose session_meta has none.
    assert {m.session_id for m in support.messages(read(home, path))} == {cf.PARENT}


def test_where_and_how_to_resume() -> None:
    src = codex.SOURCE
    assert src.root({"CODEX_HOME": "/opt/codex"}) == Path("/opt/codex")
    assert src.root({"CODEX_HOME": "/opt/codex", "MEMTUI_CODEX_DIR": "/x"}) == Path("/x")
    assert src.root({"MEMTUI_CODEX_DIR": "off"}) is None
    assert src.root({}) == Path.home() / ".codex"
    assert src.resume(cf.PARENT) == ["codex", "resume", cf.PARENT]


def test_a_compressed_rollout_cut_short_is_unreadable(home: Path) -> None:
    path = cf.write(cf.rollout_path(home, cf.PARENT), cf.parent_rollout(cf.Clock()))
    packed = cf.compress(path)
    data = packed.read_bytes()
    packed.write_bytes(data[: len(data) * 2 // 3])
    found = list(codex.read_file(home, packed, None))
    assert isinstance(found[-1], Unreadable) and "cut short" in found[-1].reason
    batch = found[-2]
    assert isinstance(batch, FileBatch) and batch.state.offset == 0  # read again next time


def test_a_compressed_rollout_of_several_frames_is_read_whole(home: Path) -> None:
    lines = cf.parent_rollout(cf.Clock())
    path = cf.write(cf.rollout_path(home, cf.PARENT), lines)
    whole = support.messages(read(home, path))
    data = path.read_bytes()
    half = data.index(b"\n", len(data) // 2) + 1
    path.unlink()
    packed = path.with_name(path.name + ".zst")
    pack = zstandard.ZstdCompressor().compress
    packed.write_bytes(pack(data[:half]) + pack(data[half:]))
    batches = read(home, packed)
    assert [r.uuid for r in support.messages(batches)] == [r.uuid for r in whole]
    assert batches[-1].state.offset == packed.stat().st_size


def test_a_rollout_replaced_by_its_zst_is_no_file_gone(home: Path, tmp_path: Path) -> None:
    path = cf.write(cf.rollout_path(home, cf.PARENT), cf.parent_rollout(cf.Clock()))
    store = Archive(tmp_path / "index.db")
    try:
        assert pipeline.ingest(store, home, source=codex.SOURCE, parallel=False).messages == 14
        cf.compress(path)
        report = pipeline.ingest(store, home, source=codex.SOURCE, parallel=False)
        assert (report.messages, report.archived) == (0, 0)
        archived = "SELECT archived FROM sessions WHERE id = ?"
        assert store.conn.execute(archived, (cf.PARENT,)).fetchone()[0] == 0
    finally:
        store.close()
