"""Every agent's conversations in one archive (issue 28): the pipeline reads each agent that
is on through its Source, the store knows each session's agent, and every front end can
filter by it. A fake second agent (tests/fake_agent.py) stands in for the real readers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memtui.config import Config
from memtui.engine.memory import Memory
from memtui.ingest.sources.claude_code import SOURCE as CLAUDE_CODE
from tests.fake_agent import registered, write_chat
from tests.lines import exchange

SHOP = "/home/dev/shop-api"


@pytest.fixture
def codex_dir(tmp_path: Path) -> Path:
    return tmp_path / "codex"


@pytest.fixture
def two(
    tmp_path: Path, claude_dir: Path, codex_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Memory]:
    """An archive of one Claude Code session and one of the other agent's, same project."""
    registered(monkeypatch)
    (claude_dir / "-home-dev-shop-api").mkdir()
    (claude_dir / "-home-dev-shop-api" / "s-1.jsonl").write_bytes(exchange(1))
    write_chat(
        codex_dir,
        "c-1",
        SHOP,
        ("user", "why does the refund queue stall"),
        ("assistant", "the refund worker holds a lock"),
    )
    environ = {"MEMTUI_CLAUDE_DIR": str(claude_dir), "MEMTUI_CODEX_DIR": str(codex_dir)}
    cfg = Config(tmp_path / "data", claude_dir, tmp_path / "logs", environ=environ)
    with Memory(cfg) as memory:
        memory.upkeep.ingest()
        yield memory


def sessions(memory: Memory) -> dict[str, int]:
    conn = memory._archive.conn
    return dict(conn.execute("SELECT id, message_count FROM sessions").fetchall())


def test_every_agent_that_is_on_is_read_into_one_project(two: Memory) -> None:
    assert sessions(two) == {"s-1": 2, "c-1": 2}
    projects = two.history.list_projects()
    assert [(p.project, p.sessions) for p in projects] == [(SHOP, 2)]


def test_a_new_line_of_either_agent_is_read_once(two: Memory, codex_dir: Path) -> None:
    with (codex_dir / "c-1.chat").open("a") as f:
        f.write("user\tand the retry?\n")
    report = two.upkeep.ingest()
    assert report is not None and report.messages == 1
    assert sessions(two) == {"s-1": 2, "c-1": 3}


def test_an_agent_turned_off_is_not_read(
    tmp_path: Path, claude_dir: Path, codex_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registered(monkeypatch)
    write_chat(codex_dir, "c-1", SHOP, ("user", "hello"))
    environ = {"MEMTUI_CODEX_DIR": "off"}
    cfg = Config(tmp_path / "data", claude_dir, tmp_path / "logs", environ=environ)
    with Memory(cfg) as memory:
        assert [agent for agent, _ in memory.upkeep.folders()] == ["claude-code"]
        memory.upkeep.ingest()
        assert sessions(memory) == {}


def test_source_reads_claude_code_alone(two: Memory, claude_dir: Path, codex_dir: Path) -> None:
    write_chat(codex_dir, "c-2", SHOP, ("user", "a new question"))
    assert two.upkeep.folders(claude_dir) == [("claude-code", claude_dir)]
    two.upkeep.ingest(claude_dir)
    assert "c-2" not in sessions(two)


def test_a_file_gone_archives_only_its_agents_session(two: Memory, codex_dir: Path) -> None:
    (codex_dir / "c-1.chat").unlink()
    report = two.upkeep.ingest()
    assert report is not None and report.archived == 1
    conn = two._archive.conn
    assert dict(conn.execute("SELECT id, archived FROM sessions")) == {"s-1": 0, "c-1": 1}


def test_claude_code_folder_as_claude_code_finds_it(tmp_path: Path) -> None:
    assert CLAUDE_CODE.root({"CLAUDE_CONFIG_DIR": str(tmp_path)}) == tmp_path / "projects"
    assert CLAUDE_CODE.root({"MEMTUI_CLAUDE_DIR": str(tmp_path / "x")}) == tmp_path / "x"
    assert CLAUDE_CODE.root({"MEMTUI_CLAUDE_DIR": "off"}) is None
    assert CLAUDE_CODE.root({}) == Path.home() / ".claude" / "projects"
    assert CLAUDE_CODE.resume("abc") == ["claude", "--resume", "abc"]
