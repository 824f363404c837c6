"""Helpers shared by the benchmarks: a cached generated corpus and measured child processes."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import corpus

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent


def cached_corpus(root: Path, messages: int, seed: int = 0) -> tuple[Path, dict[str, int]]:
    """Generate once per (size, seed); the stats file marks a finished tree."""
    tree = root / f"corpus-{messages}-{seed}"
    stats_file = tree / "stats.json"
    if not stats_file.exists():
        stats = corpus.generate(tree / "projects", messages=messages, seed=seed)
        stats_file.write_text(json.dumps(dataclasses.asdict(stats)))
    return tree / "projects", json.loads(stats_file.read_text())


def run_child(code: str, env: dict[str, str]) -> dict[str, float]:
    """Run `code` in a fresh interpreter; it prints one JSON object. Adds its peak RSS in MB,
    and the largest of its own children's (the ingest's reader process)."""
    wrapped = textwrap.dedent(code) + textwrap.dedent(
        """
        import json as _json, resource as _resource
        RESULT["peak_rss_mb"] = _resource.getrusage(_resource.RUSAGE_SELF).ru_maxrss / 1024
        RESULT["child_rss_mb"] = _resource.getrusage(_resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(_json.dumps(RESULT))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", wrapped],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def timed(env: dict[str, str], *args: str) -> tuple[float, float]:
    """`memtui ARGS` from spawn to exit: (wall seconds, CPU seconds it used). CPU time barely
    moves with the machine's load, where wall time on a shared machine does."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "memtui", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"memtui {' '.join(args)} failed ({proc.returncode})")
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def text_of(content: object) -> str:
    """A Claude Code message's content as text: a string, or its text blocks joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""
