"""Notes written by several processes at once, and by one killed with SIGKILL mid-loop."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from memtui.config import Config
from memtui.engine import Memory
from tests import notes_writer

ROOT = Path(__file__).resolve().parents[1]


def start_writer(cfg: Config, prefix: str, count: int) -> subprocess.Popen[str]:
    env = {**os.environ, "MEMTUI_DATA_DIR": str(cfg.data_dir), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "tests.notes_writer", prefix, str(count)],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )


def assert_found(memory: Memory, acked: dict[str, list[tuple[int, int]]]) -> None:
    """Each acknowledged note is stored, and found by full text and by vectors."""
    for prefix, notes in acked.items():
        for note_id, i in notes:
            assert memory.notes.get(note_id).note.title == notes_writer.title(prefix, i)
            fts = memory.notes.search(f"mark{prefix}{i}x", mode="fts", limit=1, flashbacks=False)
            assert [h.note.id for h in fts.results] == [note_id]
            text = f"{notes_writer.title(prefix, i)}\n{notes_writer.body(prefix, i)}"
            vec = memory.notes.search(text, mode="vector", limit=1, flashbacks=False)
            assert [h.note.id for h in vec.results] == [note_id]


def read_acks(proc: subprocess.Popen[str]) -> list[tuple[int, int]]:
    assert proc.stdout is not None
    return [(int(a), int(b)) for a, b in (line.split() for line in proc.stdout)]


def test_two_processes_save_200_notes_each(cfg: Config) -> None:
    Memory(cfg).close()  # the store exists before both start
    writers = {p: start_writer(cfg, p, 200) for p in ("a", "b")}
    acked = {p: read_acks(w) for p, w in writers.items()}
    assert all(w.wait(timeout=600) == 0 for w in writers.values())
    assert {p: len(a) for p, a in acked.items()} == {"a": 200, "b": 200}
    with Memory(cfg) as memory:
        assert memory.notes.count() == 400
        assert_found(memory, acked)
        assert memory.upkeep.doctor().ok


def test_kill_9_during_saves_keeps_every_acknowledged_note(cfg: Config) -> None:
    Memory(cfg).close()
    writer = start_writer(cfg, "k", 100_000)
    assert writer.stdout is not None
    acked: list[tuple[int, int]] = []
    for line in writer.stdout:
        note_id, i = line.split()
        acked.append((int(note_id), int(i)))
        if len(acked) >= 150:
            break
    os.kill(writer.pid, signal.SIGKILL)
    acked += read_acks(writer)  # saves acknowledged before the kill landed
    writer.wait(timeout=60)
    with Memory(cfg) as memory:
        stored = {n.id for n in memory.notes.export_all()}
        assert {note_id for note_id, _ in acked} <= stored
        assert len(stored) - len(acked) <= 1  # at most the save under way, committed unacked
        assert_found(memory, {"k": acked})
        report = memory.upkeep.doctor()
        assert report.ok, report.differences
