"""Shared fixtures: a private data dir and transcripts folder per test, real parts only."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# Hypothesis's 200 ms per-example deadline measures the machine, not the code: a loaded CI
# machine missed it. What an example must do is each test's assertion.
settings.register_profile("memtui", deadline=None)
settings.load_profile("memtui")

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "transcripts"
OTHER_AGENTS = ("CODEX", "GEMINI", "OPENCODE", "COPILOT")
sys.path.insert(0, str(ROOT / "bench"))  # the corpus generator lives beside the benchmarks

from memtui.config import Config  # noqa: E402
from memtui.engine.memory import Memory  # noqa: E402


@pytest.fixture(autouse=True, scope="session")
def private_logs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """platformdirs' log dir sits under XDG_STATE_HOME: point it, for this process and every
    `memtui` it starts, at a temp dir, so tests never write to the user's logs."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))
        # Nor read the other agents' files this machine has: a test names the agents it reads.
        for agent in OTHER_AGENTS:
            patch.setenv(f"MEMTUI_{agent}_DIR", "off")
        yield


@pytest.fixture
def claude_dir(tmp_path: Path) -> Path:
    path = tmp_path / "projects"
    path.mkdir()
    return path


@pytest.fixture
def cfg(tmp_path: Path, claude_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Config:
    monkeypatch.setenv("MEMTUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("MEMTUI_CLAUDE_DIR", str(claude_dir))
    return Config(data_dir=tmp_path / "data", claude_dir=claude_dir, log_dir=tmp_path / "logs")


@pytest.fixture
def memory(cfg: Config) -> Iterator[Memory]:
    mem = Memory(cfg)
    yield mem
    mem.close()


@pytest.fixture
def shared() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared/transcripts is not beside this checkout")
    return SHARED
