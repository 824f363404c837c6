"""Nothing a user's disk can hold stops the archive, and every failure is one clear line.

Each case is made on real files beside good transcripts: odd entries in the transcripts tree,
a deleted or torn index, a damaged store, a full disk, a closed pipe, a bad model path, a
data dir the user cannot write.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import corpus
import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

from memtui.config import Config
from memtui.engine import Memory
from memtui.ingest import pipeline, reader
from memtui.store.embed import bundled_model_path, model_identity
from memtui.store.fts import FtsDoc, FullText
from memtui.store.indexes import LEGACY_FTS
from tests.cli_run import AS_A_USER, env_for, memtui, one_line_error
from tests.lines import exchange, write

GOOD = ("aaaa1111-one", "aaaa2222-two", "bbbb3333-three")


def good_transcripts(claude_dir: Path) -> None:
    for session in GOOD:
        write(claude_dir / "-home-dev-shop-api" / f"{session}.jsonl", exchange(1, session))


def bad_entries(claude_dir: Path) -> int:
    """Entries that look like transcripts but cannot be read; how many."""
    project = claude_dir / "-home-dev-odd"
    project.mkdir(parents=True, exist_ok=True)
    (project / "folder.jsonl").mkdir()  # a folder named like a transcript
    os.mkfifo(project / "pipe.jsonl")  # opening it would wait for a writer forever
    (project / "gone.jsonl").symlink_to(project / "deleted-before-it-was-read")
    os.close(os.open(bytes(project) + b"/caf\xff.jsonl", os.O_CREAT | os.O_WRONLY, 0o600))
    return 4


def test_odd_entries_are_skipped_counted_and_the_rest_archived(cfg: Config) -> None:
    good_transcripts(cfg.claude_dir)
    bad = bad_entries(cfg.claude_dir)
    result = memtui(cfg, "index")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert "3 sessions, 6 new messages" in result.stderr
    assert f"{bad} entries skipped" in result.stderr
    again = memtui(cfg, "index")  # and on every later run too, nothing stops
    assert again.returncode == 0 and f"{bad} entries skipped" in again.stderr
    stats = memtui(cfg, "stats", "--json")
    doc = __import__("json").loads(stats.stdout)
    assert doc["messages"] == 6 and doc["unreadable_files"] == bad


needs_modes = pytest.mark.skipif(
    os.geteuid() == 0 and not AS_A_USER, reason="root ignores file modes and setpriv is missing"
)


@needs_modes
def test_unreadable_transcript_is_skipped(cfg: Config) -> None:
    good_transcripts(cfg.claude_dir)
    secret = cfg.claude_dir / "-home-dev-shop-api" / "cccc4444-secret.jsonl"
    write(secret, exchange(1, "cccc4444-secret"))
    secret.chmod(0o000)
    result = memtui(cfg, "index", as_user=True)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert "3 sessions, 6 new messages" in result.stderr
    assert "1 entry skipped" in result.stderr and "Permission denied" in result.stderr


def test_file_deleted_while_it_is_read_is_read_whole(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    path = root / "-p" / "dddd-deleted.jsonl"
    n = reader.BATCH // 3 + 100  # more lines than one batch
    write(path, b"".join(exchange(i, "dddd-deleted") for i in range(n)))
    batches = reader.read_file(root, path, None)
    first = next(batches)
    path.unlink()  # while the file is open, between two batches
    rest = list(batches)
    assert isinstance(first, reader.FileBatch)
    assert all(isinstance(b, reader.FileBatch) for b in rest)
    assert len(first.records) + sum(len(b.records) for b in rest) == 3 * n


def test_file_gone_before_it_is_opened_is_counted(memory: Memory, claude_dir: Path) -> None:
    good_transcripts(claude_dir)
    files, _ = pipeline.discover(claude_dir)
    files[0].unlink()
    report = memory.upkeep.ingest(claude_dir, files)
    assert report is not None and report.messages == 4 and len(report.unreadable) == 1


def test_watch_survives_odd_entries_appearing(cfg: Config, memory: Memory) -> None:
    good_transcripts(cfg.claude_dir)
    watcher = subprocess.Popen(
        [sys.executable, "-m", "memtui", "index", "--watch"],
        env=env_for(cfg),
        stderr=subprocess.PIPE,
        text=True,
        # As a terminal starts it: a suite started in the background (`.ci/run &`) passes
        # SIGINT ignored down to its children, and Python keeps it ignored.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 90  # a cap: the waits end on the state
        while time.monotonic() < deadline and not memory.history.list_projects():
            time.sleep(0.1)
        bad_entries(cfg.claude_dir)
        time.sleep(0.5)
        write(
            cfg.claude_dir / "-home-dev-shop-api" / "eeee5555-new.jsonl",
            exchange(1, "eeee5555-new"),
        )
        while time.monotonic() < deadline:
            try:
                if memory.history.get_session("eeee5555").total == 2:
                    break
            except Exception:  # not archived yet
                pass
            time.sleep(0.1)
        assert memory.history.get_session("eeee5555").total == 2
        assert watcher.poll() is None  # still watching
    finally:
        watcher.send_signal(signal.SIGINT)
        try:
            _, err = watcher.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            watcher.kill()
            _, err = watcher.communicate()
            raise AssertionError(f"ctrl+c left `index --watch` running 60 s: {err}") from None
    assert "Traceback" not in err, err


@pytest.fixture
def indexed(cfg: Config) -> Config:
    corpus.generate(cfg.claude_dir, messages=600, seed=3)
    assert memtui(cfg, "index").returncode == 0
    return cfg


def answers(cfg: Config) -> list[str]:
    with Memory(cfg) as memory:
        return [
            r.uuid
            for q in ("flaky test", "docker image", "migration rollback")
            for mode in ("fts", "vector", "hybrid")
            for r in memory.history.search(q, mode, limit=10).results
        ]


def test_deleted_index_folder_is_noticed_and_rebuilt(indexed: Config) -> None:
    before = answers(indexed)
    shutil.rmtree(indexed.index_dir)
    searched = memtui(indexed, "search", "--mode", "fts", "checkout")  # nothing rebuilds it here
    assert "the full-text index is empty" in searched.stdout + searched.stderr
    assert "memtui index" in searched.stdout + searched.stderr, "what rebuilds it"
    stats = memtui(indexed, "stats")
    assert "damaged" in stats.stdout or "behind" in stats.stdout, stats.stdout
    assert memtui(indexed, "index").returncode == 0
    assert "in step" in memtui(indexed, "stats").stdout
    assert answers(indexed) == before
    assert memtui(indexed, "doctor").returncode == 0


@pytest.fixture
def other_model(tmp_path: Path) -> Path:
    """A second real model of the bundled one's width: its weights with each token's vector
    moved to the next token, so the same texts land elsewhere in a space of the same shape."""
    path = tmp_path / "other-model"
    shutil.copytree(bundled_model_path(), path)
    weights = load_file(path / "model.safetensors")
    save_file({k: np.roll(v, 1, axis=0) for k, v in weights.items()}, path / "model.safetensors")
    return path


def test_vectors_of_another_model_are_embedded_again(
    indexed: Config, other_model: Path, tmp_path: Path
) -> None:
    """MEMTUI_MODEL changed to a model of the same width: its vectors are never mixed with or
    searched against the old ones; the next index embeds them again, as a fresh build would."""
    bundled = answers(indexed)
    switched = dataclasses.replace(indexed, model=str(other_model))
    other = {"MEMTUI_MODEL": str(other_model)}
    assert "vectors made by another model" in memtui(indexed, "stats", **other).stdout
    doctor = memtui(indexed, "doctor", **other)
    assert doctor.returncode == 1 and "made by another model" in doctor.stdout, doctor.stdout
    with Memory(switched) as memory:
        hybrid = memory.history.search("flaky test", "hybrid")
        assert hybrid.mode == "fts" and hybrid.results and "another model" in (hybrid.note or "")
        assert memory.history.search("flaky test", "vector").results == []
    assert memtui(indexed, "index", **other).returncode == 0
    assert "in step" in memtui(indexed, "stats", **other).stdout
    snapshot = one_snapshot(indexed)
    assert snapshot.endswith(f"-{model_identity(other_model)}.hnsw")
    clean = Config(
        tmp_path / "clean", indexed.claude_dir, tmp_path / "logs", model=str(other_model)
    )
    assert memtui(clean, "index", **other).returncode == 0
    assert answers(switched) == answers(clean) != bundled
    assert memtui(indexed, "doctor", **other).returncode == 0
    # Back to the bundled model: the same again, by doctor --repair this time.
    assert "made by another model" in memtui(indexed, "stats").stdout
    assert memtui(indexed, "doctor", "--repair").returncode == 0
    assert one_snapshot(indexed).endswith(f"-{model_identity(bundled_model_path())}.hnsw")
    assert answers(indexed) == bundled


def one_snapshot(cfg: Config) -> str:
    (snapshot,) = (cfg.index_dir / "vectors").glob("vectors-*.hnsw")
    return snapshot.name


def test_kill_during_vector_build_then_rerun_equals_clean_build(
    cfg: Config, tmp_path: Path
) -> None:
    corpus.generate(cfg.claude_dir, messages=4_000, seed=8)
    clean = Config(tmp_path / "clean", cfg.claude_dir, tmp_path / "logs")
    assert memtui(clean, "index").returncode == 0
    proc = subprocess.Popen(
        [sys.executable, "-m", "memtui", "index"], env=env_for(cfg), stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not _fts_started(cfg):
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)  # the indexes are being built side by side now
    proc.wait()
    assert not list((cfg.index_dir / "vectors").glob("vectors-*.hnsw"))  # killed before a save
    assert memtui(cfg, "index").returncode == 0
    assert answers(cfg) == answers(clean)
    assert memtui(cfg, "doctor").returncode == 0


def _fts_started(cfg: Config) -> bool:
    try:
        with sqlite3.connect(f"file:{cfg.db_path}?mode=ro", uri=True, timeout=1) as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = 'text_seq'").fetchone()
            return row is not None and int(row[0]) > 0
    except sqlite3.Error:
        return False


COMMANDS = (
    ("stats",),
    ("projects",),
    ("sessions",),
    ("search", "flaky test"),
    ("show", "0"),
    ("index",),
    ("reindex",),
    ("doctor",),
)


def test_damaged_store_is_one_line_and_keeps_the_indexes(indexed: Config) -> None:
    index_files = sorted(p.name for p in (indexed.index_dir / "text").iterdir())
    size = indexed.db_path.stat().st_size
    with open(indexed.db_path, "r+b") as f:  # 200 KB of garbage over the middle of the file
        f.seek(min(size // 3, max(size - 200_000, 0)))
        f.write(os.urandom(200_000))
    for args in COMMANDS:
        result = memtui(indexed, *args)
        assert "Traceback" not in result.stderr, (args, result.stderr)
        if result.returncode:
            assert one_line_error(result) or args == ("doctor",), (args, result.stderr)
    doctor = memtui(indexed, "doctor")
    assert doctor.returncode != 0 and "restore" in doctor.stderr
    assert sorted(p.name for p in (indexed.index_dir / "text").iterdir()) == index_files


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "small"
    mount.mkdir()
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mount)], capture_output=True
    )
    if made.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_full_disk_is_one_line_and_loses_nothing(cfg: Config, small_disk: Path) -> None:
    corpus.generate(cfg.claude_dir, messages=3_000, seed=4)
    full = Config(small_disk / "data", cfg.claude_dir, cfg.log_dir)
    result = memtui(full, "index")
    assert one_line_error(result), result.stderr
    assert "STORE_UNAVAILABLE" in result.stderr and "room" in result.stderr
    with sqlite3.connect(full.db_path) as conn:  # what was committed is intact
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_closed_pipe_is_a_quiet_exit(indexed: Config) -> None:
    with Memory(indexed) as memory:
        longest = max(memory.history.list_sessions(), key=lambda s: s.message_count)
    proc = subprocess.Popen(
        [sys.executable, "-m", "memtui", "show", longest.session_id],
        env=env_for(indexed),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()  # `| head -1`
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) in (0, 141) and err == b""


BAD_INPUT = (
    ("search", b"caf\xff"),
    ("search", "x", "--session", b"\xff"),
    ("search", "x", "--project", b"\xff"),
    ("show", b"\xff"),
    ("show", "a" * 50_000),
    ("search", "x", "--offset", str(10**12)),
    ("search", "x", "--project", "/no/such/project"),
    ("sessions", "--project", "/no/such/project"),
)


@pytest.mark.parametrize("args", BAD_INPUT, ids=lambda a: " ".join(map(str, a))[:40])
def test_bad_input_is_one_line(indexed: Config, args: tuple[str | bytes, ...]) -> None:
    assert one_line_error(memtui(indexed, *args))


def test_project_with_trailing_slash(indexed: Config) -> None:
    with Memory(indexed) as memory:
        project = memory.history.list_projects()[0].project
    result = memtui(indexed, "sessions", "--project", project + "/")
    assert result.returncode == 0 and result.stdout.strip()


def test_bad_model_is_one_line(indexed: Config, tmp_path: Path) -> None:
    for args in (("search", "flaky"), ("reindex",), ("doctor",)):
        result = memtui(indexed, *args, MEMTUI_MODEL=str(tmp_path / "no-model"))
        assert one_line_error(result) and "MODEL_UNAVAILABLE" in result.stderr, result.stderr
    assert memtui(indexed, "projects", MEMTUI_MODEL=str(tmp_path / "no-model")).returncode == 0


@needs_modes
def test_data_dir_not_writable_is_one_line(cfg: Config) -> None:
    good_transcripts(cfg.claude_dir)
    assert memtui(cfg, "index").returncode == 0
    cfg.data_dir.chmod(0o500)
    try:
        for args in (("index",), ("stats",), ("search", "checkout"), ("projects",)):
            result = memtui(cfg, *args, as_user=True)
            assert one_line_error(result), (args, result.stderr)
    finally:
        cfg.data_dir.chmod(0o700)


def test_empty_archive_says_to_index(cfg: Config) -> None:
    result = memtui(cfg, "search", "anything")
    assert result.returncode == 0 and "memtui index" in (result.stdout + result.stderr)


def test_second_index_says_another_is_running(indexed: Config) -> None:
    from memtui.store.locks import file_lock

    with file_lock(indexed.data_dir / "ingest.lock"):
        proc = subprocess.Popen(
            [sys.executable, "-m", "memtui", "index"],
            env=env_for(indexed),
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stderr is not None
        assert "another memtui is indexing" in proc.stderr.readline()
    assert proc.wait(timeout=60) == 0


def test_existing_data_dir_is_made_private(cfg: Config) -> None:
    cfg.data_dir.mkdir(mode=0o755)
    cfg.data_dir.chmod(0o755)
    assert memtui(cfg, "stats").returncode == 0
    assert cfg.data_dir.stat().st_mode & 0o777 == 0o700


def test_damaged_full_text_index_is_set_aside_and_rebuilt(indexed: Config) -> None:
    before = answers(indexed)
    # One partition's: the messages' index is several Tantivy indexes in the folder.
    next((indexed.index_dir / "text").rglob("meta.json")).write_text("garbage{")
    search = memtui(indexed, "search", "flaky test")
    assert search.returncode == 0 and "Traceback" not in search.stderr, search.stderr
    assert "damaged" in memtui(indexed, "stats").stdout
    assert memtui(indexed, "index").returncode == 0
    assert answers(indexed) == before
    assert (indexed.index_dir / "text.damaged").is_dir()  # kept aside, not deleted


def _legacy_index(cfg: Config, words: str) -> Path:
    """The full-text index an older memtui keeps (one Tantivy index in `index/fts`)."""
    legacy = cfg.index_dir / LEGACY_FTS
    FullText(legacy).write([FtsDoc(1, "s", "/p", "user", "prompt", 0, words, "")])
    return legacy


def test_an_older_memtuis_index_is_kept_while_used_and_removed_once_idle(indexed: Config) -> None:
    """An MCP server started before the upgrade searches `index/fts` and moves `fts_seq`: the
    partitioned index and its mark are other names, so neither disturbs the other."""
    before = answers(indexed)
    legacy = _legacy_index(indexed, "zqxlegacy words")
    with sqlite3.connect(indexed.db_path) as conn:
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('fts_seq', '0')")
    assert memtui(indexed, "index").returncode == 0
    assert legacy.is_dir()  # committed to a moment ago: an older process may be using it
    assert answers(indexed) == before
    hour_ago = time.time() - 2 * 3600
    os.utime(legacy / "meta.json", (hour_ago, hour_ago))
    assert memtui(indexed, "index").returncode == 0
    assert not legacy.exists()
    assert answers(indexed) == before


def test_a_forget_removes_an_older_memtuis_index(indexed: Config) -> None:
    legacy = _legacy_index(indexed, "zqxlegacy words")
    with Memory(indexed) as memory:
        session = memory.history.list_sessions()[0].session_id
        memory.forget(session_id=session, confirmed=True)
    assert not legacy.exists()
