"""`memtui signals`, `signal`, `inferences` from the shell."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from memtui.config import Config
from memtui.engine import Memory


def cli(cfg: Config, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memtui", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "MEMTUI_DATA_DIR": str(cfg.data_dir)},
    )


def test_signals_triage_and_inferences(cfg: Config) -> None:
    with Memory(cfg) as memory:
        fact = memory.notes.save("Fact", "See [[Runbook]].", "past", by="person").note
    listed = json.loads(cli(cfg, "signals", "--json").stdout)["signals"]
    assert [s["type"] for s in listed] == ["dangling_link"]
    sid = str(listed[0]["id"])
    plain = cli(cfg, "signals")
    assert f"#{sid}" in plain.stdout and "note #" in plain.stdout
    snoozed = cli(cfg, "signal", "snooze", sid, "--until", "2d")
    assert snoozed.returncode == 0 and "snoozed until" in snoozed.stdout
    assert json.loads(cli(cfg, "signals", "--json").stdout)["signals"] == []
    assert cli(cfg, "signal", "new", sid).returncode == 0  # a snoozed one goes back to new first
    assert cli(cfg, "signal", "dismiss", sid).returncode == 0
    again = cli(cfg, "signal", "dismiss", sid)
    assert again.returncode == 1 and again.stderr.startswith("memtui: INVALID_ARGUMENT")
    assert "Traceback" not in again.stderr
    assert cli(cfg, "signal", "dismiss", "999").stderr.startswith("memtui: NOT_FOUND")
    bad = cli(cfg, "signal", "snooze", sid, "--until", "someday")
    assert bad.returncode == 1 and "--until" in bad.stderr and "snooze_until" not in bad.stderr
    listed = json.loads(cli(cfg, "signals", "--status", "all", "--json").stdout)["signals"]
    assert [s["status"] for s in listed] == ["dismissed"]
    with Memory(cfg) as memory:
        memory.inferences.mint("C", "S", 0.5, confirmed=True, evidence_note_ids=[fact.id])
        memory.notes.delete(fact.id, by="person")
    stale = cli(cfg, "inferences", "--status", "stale")
    assert "stale" in stale.stdout and "deleted" in stale.stdout
    assert json.loads(cli(cfg, "inferences", "--json").stdout)["inferences"][0]["status"] == (
        "stale"
    )


def test_a_stale_inference_confirmed_again_or_dropped(cfg: Config) -> None:
    with Memory(cfg) as memory:
        a = memory.notes.save("Fact A", "cold cache on Mondays", "past", by="person").note
        b = memory.notes.save("Fact B", "deploys on Mondays", "past", by="person").note
        minted = memory.inferences.mint(
            "Mondays", "both", 0.5, confirmed=True, evidence_note_ids=[a.id, b.id]
        )
        memory.notes.update(a.id, body="warm cache on Mondays", by="person")
    iid = str(minted.id)
    kept = cli(cfg, "inference", "confirm", iid)
    assert kept.returncode == 0 and f"inference #{iid} is active" in kept.stdout, kept.stderr
    asked = cli(cfg, "inference", "drop", iid)  # no terminal to ask on: refused
    assert asked.returncode == 1 and "NOT_CONFIRMED" in asked.stderr
    dropped = cli(cfg, "inference", "drop", iid, "--yes")
    assert dropped.returncode == 0 and f"inference #{iid} dropped" in dropped.stdout
    assert json.loads(cli(cfg, "inferences", "--json").stdout)["inferences"] == []
    assert cli(cfg, "inference", "confirm", iid).stderr.startswith("memtui: NOT_FOUND")
