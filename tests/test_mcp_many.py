"""Four Claude Code windows and a watcher on one data dir: four `memtui mcp` processes and a
`memtui index --watch`. All answer, one ingests at a time, none errors, and each sees a new
transcript line within seconds."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from memtui.config import Config
from tests.lines import user, write
from tests.mcp_data import SHOP, build
from tests.test_mcp_stdio import ROOT, Wire, server_env

SEEN_WITHIN = 45.0  # seconds from the write to a search that finds it, in every server (a cap)


def lock_holders(path: Path) -> set[int]:
    """PIDs holding a flock on `path`, from /proc/locks (Linux)."""
    if not path.exists():
        return set()
    inode = path.stat().st_ino
    holders = set()
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" (a "->" marks a waiter)
        if "FLOCK" in fields and "->" not in fields and fields[5].split(":")[-1] == str(inode):
            holders.add(int(fields[4]))
    return holders


def found(wire: Wire, word: str) -> bool:
    result = wire.call("search_history", {"query": word, "mode": "fts"})
    assert not result.get("isError"), result
    return bool(result["structuredContent"]["results"])


def test_four_servers_and_a_watcher(
    cfg: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # this test's own log
    build(cfg.claude_dir)
    watch_log = (tmp_path / "watch.err").open("w")
    watcher = subprocess.Popen(
        [sys.executable, "-m", "memtui", "index", "--watch"],
        cwd=ROOT,
        env=server_env(cfg),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=watch_log,
    )
    servers = [Wire(cfg) for _ in range(4)]
    try:
        for wire in servers:
            assert wire.initialize()["result"]["serverInfo"]["name"] == "memtui"
        deadline = time.monotonic() + 120  # caps: the waits end on the state, sooner
        while not all(found(wire, "invoice") for wire in servers):
            assert time.monotonic() < deadline, "the archive never became searchable"
            time.sleep(0.5)

        pids = {wire.proc.pid for wire in servers}
        ingest_lock, follow_lock = cfg.data_dir / "ingest.lock", cfg.data_dir / "follow.lock"
        deadline = time.monotonic() + 90
        while not lock_holders(follow_lock) & pids:  # a server follows after a second or so
            assert time.monotonic() < deadline, "no server took up following"
            time.sleep(0.2)
        assert len(lock_holders(follow_lock)) == 1

        for n in range(3):
            word = f"zanzibar{n}"
            new = (
                cfg.claude_dir / "-home-dev-shop-api" / f"dddd{n}000-0000-4000-8000-00000000000{n}"
            )
            write(
                new.with_suffix(".jsonl"),
                user(f"z-{n}", f"{word} rollout plan", new.name, cwd=SHOP),
            )
            written = time.monotonic()
            waiting = set(range(4))
            while waiting:
                assert len(lock_holders(ingest_lock)) <= 1
                waiting = {i for i in waiting if not found(servers[i], word)}
                took = time.monotonic() - written
                assert took < SEEN_WITHIN, (
                    f"{word}: servers {waiting} still blind after {took:.1f} s"
                )
                time.sleep(0.1)
        assert watcher.poll() is None
    finally:
        codes = [wire.finish() for wire in servers]
        watcher.terminate()
        watcher.wait(20)
        watch_log.close()
    assert codes == [0, 0, 0, 0]
    for wire in servers:
        wire.only_json_rpc()
        assert wire.proc.stderr is not None
        assert b"Traceback" not in wire.proc.stderr.read()
    assert "Traceback" not in (tmp_path / "watch.err").read_text()
    (log,) = (tmp_path / "state").glob("**/memtui.log")
    assert " ERROR " not in log.read_text()
