"""Every agent's conversations in one archive (issue 28): the pipeline reads each agent that
is on through its Source, the store knows each session's agent, and every front end can
filter by it. A fake second agent (tests/fake_agent.py) stands in for the real readers."""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import shutil
import sqlite3
import sys
import threading
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client
from textual.widgets import Select, Static

from memtui import cli
from memtui.config import Config
from memtui.engine import AGENT_NAMES, AGENTS, hook, resume_argv, short_id
from memtui.engine.memory import Memory
from memtui.engine.sessions import resolve
from memtui.errors import InvalidArgument, NotFound
from memtui.ingest import pipeline
from memtui.ingest.sources import registry
from memtui.ingest.sources.claude_code import SOURCE as CLAUDE_CODE
from memtui.ingest.sources.codex import SOURCE as CODEX
from memtui.mcp import setup
from memtui.mcp.engine import Engine
from memtui.mcp.server import build_server
from memtui.store import db
from memtui.tui import actions, demo
from memtui.tui.app import MemtuiApp
from memtui.tui.browse import BrowseScreen, ProjectList, SessionList
from memtui.tui.format import agent_label, who
from memtui.tui.results import ResultList
from memtui.tui.search import SearchScreen
from memtui.tui.session import MessageBlock, SessionScreen
from tests.agents import codex_files as cf
from tests.fake_agent import only, registered, write_chat
from tests.lines import exchange
from tests.tui_support import choose_session, settled, until, whole_query_answered

SHOP = "/home/dev/shop-api"


@pytest.fixture
def codex_dir(tmp_path: Path) -> Path:
    return tmp_path / "codex"  # the `two` archive's


def two_agents(root: Path) -> Memory:
    """An archive of one Claude Code session and one of the other agent's, same project,
    under `root` (projects/, codex/, data/), the fake reader registered."""
    claude_dir, codex_dir = root / "projects", root / "codex"
    (claude_dir / "-home-dev-shop-api").mkdir(parents=True)
    (claude_dir / "-home-dev-shop-api" / "s-1.jsonl").write_bytes(exchange(1))
    write_chat(
        codex_dir,
        "c-1",
        SHOP,
        ("user", "why does the refund queue stall"),
        ("assistant", "the refund worker holds a lock"),
    )
    environ = only(CLAUDE=str(claude_dir), CODEX=str(codex_dir))
    memory = Memory(Config(root / "data", claude_dir, root / "logs", environ=environ))
    memory.upkeep.ingest()
    return memory


@pytest.fixture
def two(tmp_path: Path, claude_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Memory]:
    """An archive of its own, for a test that changes it."""
    registered(monkeypatch)
    with two_agents(tmp_path) as memory:
        yield memory


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    """One archive for the tests that only read it."""
    with pytest.MonkeyPatch.context() as patch:
        registered(patch)
        with two_agents(tmp_path_factory.mktemp("two")) as memory:
            yield memory


def sessions(memory: Memory) -> dict[str, int]:
    """Each session's message count as committed: read on a connection of its own, since the
    writer's connection would show a follower's batch half written."""
    conn = sqlite3.connect(memory.config.db_path)
    try:
        return dict(conn.execute("SELECT id, message_count FROM sessions").fetchall())
    finally:
        conn.close()


def test_every_agent_that_is_on_is_read_into_one_project(shared: Memory) -> None:
    assert sessions(shared) == {"s-1": 2, "c-1": 2}
    projects = shared.history.list_projects()
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
    (claude_dir / "-p").mkdir()
    (claude_dir / "-p" / "s-1.jsonl").write_bytes(exchange(1))
    environ = only(CLAUDE=str(claude_dir))
    cfg = Config(tmp_path / "data", claude_dir, tmp_path / "logs", environ=environ)
    with Memory(cfg) as memory:
        assert [agent for agent, _ in memory.upkeep.folders()] == ["claude-code"]
        memory.upkeep.ingest(index=False)
        assert list(sessions(memory)) == ["s-1"]
    # Claude Code off (MEMTUI_CLAUDE_DIR=off), Codex on: Codex's only.
    environ = only(CLAUDE="OFF", CODEX=str(codex_dir))
    cfg = Config(tmp_path / "data2", claude_dir, tmp_path / "logs", environ=environ)
    with Memory(cfg) as memory:
        assert memory.upkeep.folders() == [("codex", codex_dir)]
        memory.upkeep.ingest(index=False)
        assert list(sessions(memory)) == ["c-1"]


def test_a_folder_set_one_level_off_is_named_not_read_as_no_history(
    tmp_path: Path,
    claude_dir: Path,
    codex_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """MEMTUI_CODEX_DIR=~/.codex/sessions (the folder inside the one it names) found nothing
    and said nothing: `memtui index` now names the setting and what its folder holds."""
    registered(monkeypatch)
    write_chat(codex_dir, "c-1", SHOP, ("user", "hello"))
    (claude_dir / "-p").mkdir()
    (claude_dir / "-p" / "s-1.jsonl").write_bytes(exchange(1))
    inside = codex_dir / "sessions"
    inside.mkdir()
    environ = only(CLAUDE=str(claude_dir), CODEX=str(inside))
    for name, value in {**environ, "MEMTUI_DATA_DIR": str(tmp_path / "data")}.items():
        monkeypatch.setenv(name, value)
    cli.main(["index"])
    said = capsys.readouterr().err
    assert f"MEMTUI_CODEX_DIR={inside} holds no conversation" in said
    assert "`sessions/` (as ~/.codex)" in said and "MEMTUI_CLAUDE_DIR" not in said
    monkeypatch.setenv("MEMTUI_CODEX_DIR", str(codex_dir / "gone"))
    cli.main(["index"])
    assert f"MEMTUI_CODEX_DIR={codex_dir / 'gone'} does not exist" in capsys.readouterr().err
    monkeypatch.setenv("MEMTUI_CODEX_DIR", str(codex_dir / "c-1.chat"))
    cli.main(["index"])
    assert "c-1.chat is not a folder: name the folder where" in capsys.readouterr().err
    monkeypatch.setenv("MEMTUI_CODEX_DIR", str(codex_dir))  # named right: nothing to say
    cli.main(["index"])
    assert "holds no conversation" not in capsys.readouterr().err


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


def test_the_store_keeps_each_sessions_agent(shared: Memory) -> None:
    page = shared.history.get_session("c-1")
    assert page.session.agent == "codex"
    assert shared.history.get_session("s-1").session.agent == "claude-code"
    assert {s.session_id: s.agent for s in shared.history.recent_sessions().sessions} == {
        "s-1": "claude-code",
        "c-1": "codex",
    }
    assert shared.history.agents() == {"claude-code": 1, "codex": 1}


def test_an_older_archive_is_claude_codes(cfg: Config, claude_dir: Path) -> None:
    (claude_dir / "-p").mkdir()
    (claude_dir / "-p" / "s-1.jsonl").write_bytes(exchange(1))
    with Memory(cfg) as memory:
        memory.upkeep.ingest(index=False)
    conn = sqlite3.connect(cfg.db_path)
    conn.execute("ALTER TABLE sessions DROP COLUMN agent")
    conn.execute("ALTER TABLE signals DROP COLUMN pattern")  # a later migration's
    agents = next(i for i, m in enumerate(db.MIGRATIONS) if "ADD COLUMN agent" in m)
    conn.execute(f"PRAGMA user_version = {agents}")
    conn.commit()
    conn.close()
    with Memory(cfg) as memory:
        assert [s.agent for s in memory.history.recent_sessions().sessions] == ["claude-code"]


@pytest.mark.parametrize("mode", ["fts", "vector", "hybrid"])
def test_search_keeps_to_one_agent(shared: Memory, mode: str) -> None:
    asked = {"codex": "why does the refund queue stall", "claude-code": "checkout test question"}
    for agent, query in asked.items():
        assert agent in {r.agent for r in shared.history.search(query, mode, limit=20).results}
        for filtered in asked:
            found = shared.history.search(query, mode, agent=filtered, limit=20).results
            assert {r.agent for r in found} <= {filtered}
        assert shared.history.search(query, mode, agent=agent, limit=20).results
    by_session = shared.history.search(asked["codex"], mode, agent="codex", by="session")
    assert [h.session.agent for h in by_session.sessions] == ["codex"]
    assert not shared.history.search("refund", mode, agent="gemini").results


def test_listings_keep_to_one_agent(shared: Memory) -> None:
    assert [s.session_id for s in shared.history.recent_sessions(agent="codex").sessions] == ["c-1"]
    listed = shared.history.list_sessions(SHOP, agent="claude-code")
    assert [s.session_id for s in listed] == ["s-1"]
    assert shared.history.count_sessions(SHOP, agent="codex") == (1, 0)


def test_an_unknown_agent_names_the_known_ones(shared: Memory) -> None:
    for call in (
        lambda: shared.history.search("refund", agent="cursor"),
        lambda: shared.history.recent_sessions(agent="cursor"),
        lambda: shared.history.list_sessions(agent="cursor"),
    ):
        with pytest.raises(InvalidArgument) as caught:
            call()
        assert "claude-code, codex, gemini, opencode, copilot" in caught.value.line()


def test_search_keeps_to_the_agent_with_more_sessions(two: Memory, codex_dir: Path) -> None:
    """The full-text filter lists the other agents' sessions when they are fewer."""
    write_chat(codex_dir, "c-2", SHOP, ("user", "the checkout test question again"))
    two.upkeep.ingest()
    found = two.history.search("checkout test question", "fts", agent="codex").results
    assert [r.session_id for r in found] == ["c-2"]
    found = two.history.search("checkout test question", "fts", agent="claude-code").results
    assert {r.session_id for r in found} == {"s-1"}


async def test_mcp_filters_by_agent_and_each_answer_says_its_agent(shared: Memory) -> None:
    server = build_server(Engine(memory=shared))
    async with Client(server, mode="legacy") as client:
        found = await client.call_tool(
            "search_history", {"query": "refund queue", "mode": "fts", "agent": "codex"}
        )
        assert found.structured_content is not None
        assert [(r["session_id"], r["agent"]) for r in found.structured_content["results"]] == [
            ("c-1", "codex"),
            ("c-1", "codex"),
        ]
        text = await client.call_tool(
            "search_history",
            {"query": "refund queue", "mode": "fts", "response_format": "markdown"},
        )
        assert f"{SHOP} · codex ·" in str(text.content[0])
        recent = await client.call_tool("get_recent_sessions", {"agent": "claude-code"})
        assert recent.structured_content is not None
        assert [(s["session_id"], s["agent"]) for s in recent.structured_content["sessions"]] == [
            ("s-1", "claude-code")
        ]
        bad = await client.call_tool("search_history", {"query": "x", "agent": "cursor"})
        assert bad.is_error
        message = str(bad.content[0])
        assert "INVALID_ARGUMENT" in message and "'codex'" in message and "'copilot'" in message


def test_cli_agent_filter_and_labels(
    shared: Memory, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert shared.config.environ is not None
    monkeypatch.setenv("MEMTUI_DATA_DIR", str(shared.config.data_dir))
    monkeypatch.setenv("MEMTUI_CLAUDE_DIR", shared.config.environ["MEMTUI_CLAUDE_DIR"])
    monkeypatch.setenv("MEMTUI_CODEX_DIR", shared.config.environ["MEMTUI_CODEX_DIR"])
    monkeypatch.setenv("COLUMNS", "200")
    cli.main(["search", "refund", "--mode", "fts", "--agent", "codex", "--json"])
    found = json.loads(capsys.readouterr().out)["results"]
    assert {(r["session_id"], r["agent"]) for r in found} == {("c-1", "codex")}
    cli.main(["search", "refund", "question", "--mode", "fts"])
    out = capsys.readouterr().out
    assert f"{SHOP} codex" in out and f"{SHOP} claude-code" not in out
    cli.main(["sessions", "--agent", "claude-code"])
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()] == ["s-1"]
    cli.main(["sessions"])
    listed = capsys.readouterr().out
    assert "codex  why does the refund queue stall" in listed
    with pytest.raises(SystemExit):
        cli.main(["sessions", "--agent", "cursor"])
    err = capsys.readouterr().err
    assert err.startswith("memtui: INVALID_ARGUMENT") and "'codex'" in err
    cli.main(["sessions", "--agent", "gemini"])  # a filter that keeps nothing is no empty archive
    said = capsys.readouterr()
    assert said.out == "" and said.err.strip() == "no sessions of gemini in the archive"


async def test_tui_names_the_agent_of_each_row_and_hit(shared: Memory) -> None:
    app = MemtuiApp(shared, upkeep=False)
    async with app.run_test(size=(80, 24)) as pilot:
        browse = app.screen
        assert isinstance(browse, BrowseScreen)
        await until(pilot, lambda: {"s-1", "c-1"} <= set(browse.sessions))
        table = browse.query_one(SessionList)
        width = table.scrollable_content_region.width
        rows = {s.session_id: table.row(s, width).plain for s in table.sessions}
        assert " codex " in rows["c-1"] and " claude " in rows["s-1"]
        assert "why does the refund" in rows["c-1"]  # the title still reads at 80 columns
        assert "Agent" in table.header(width).plain
        await pilot.press("slash", *"refund queue")
        await whole_query_answered(pilot)
        listing = app.screen.query_one("#results", ResultList)
        await until(pilot, lambda: bool(listing.hits))
        # the agent before the day and the project: 80 columns never cut it
        assert all("codex" in listing.heading(h).plain[:18] for h in listing.hits)
        listing.highlighted = next(i for i, h in enumerate(listing.hits) if h.role == "assistant")
        listing.focus()
        preview = app.screen.query_one("#preview-text", Static)  # the answer is the agent's
        await until(pilot, lambda: "◆ codex" in str(preview.render()))
        await pilot.press("enter")

        def blocks() -> list[MessageBlock]:
            return list(app.screen.query(MessageBlock))

        await until(pilot, lambda: isinstance(app.screen, SessionScreen) and bool(blocks()))
        heads = [b._head().plain for b in blocks()]
        assert any(head.startswith("codex") for head in heads), heads


def test_each_projects_sessions_per_agent_in_one_query(shared: Memory) -> None:
    assert shared.history.project_agents() == {SHOP: {"claude-code": 1, "codex": 1}}


async def test_tui_sidebar_counts_and_filters_by_agent(shared: Memory) -> None:
    """The highlighted project says its sessions per agent; `a` shows every agent's
    sessions, then each agent's alone, and the title says whose."""
    app = MemtuiApp(shared, upkeep=False)
    async with app.run_test(size=(80, 24)) as pilot:
        browse = app.screen
        assert isinstance(browse, BrowseScreen)
        await until(pilot, lambda: {"s-1", "c-1"} <= set(browse.sessions))
        projects = browse.query_one(ProjectList)

        def line(index: int) -> str:
            return str(projects.get_option_at_index(index).prompt)

        # under the highlighted line (its path on as many lines as it takes); at 80 columns
        # one agent a line, none cut
        each = ["claude 1", "codex 1"]
        await until(pilot, lambda: line(0).split("\n")[1:] == each)  # all projects
        assert "codex" not in line(1)
        projects.highlighted = 1
        await until(pilot, lambda: line(1).split("\n")[-2:] == each and "codex" not in line(0))
        assert any(b.key == "a" for _, b, on, _ in browse.active_bindings.values() if on)
        title = browse.query_one("#sessions-title", Static)
        cycle = [("claude-code", {"s-1"}), ("codex", {"c-1"}), (None, {"s-1", "c-1"})]
        for agent, ids in cycle:
            await pilot.press("a")

            def shown(agent: str | None = agent, ids: set[str] = ids) -> bool:
                return browse.agent == agent and set(browse.sessions) == ids

            await until(pilot, shown)
            named = f"{agent_label(agent)} only" if agent else "only"
            assert (named in str(title.render())) == (agent is not None)


async def test_tui_search_filters_by_agent(shared: Memory) -> None:
    app = MemtuiApp(shared, upkeep=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("slash", *"refund queue")
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        choice = screen.query_one("#agent", Select)
        await until(pilot, lambda: choice.display)
        await whole_query_answered(pilot)
        listing = screen.query_one("#results", ResultList)
        assert {h.agent for h in listing.hits} >= {"codex"}
        choice.value = "claude-code"
        await until(pilot, lambda: screen._shown is not None and screen._shown.agent is not None)
        assert listing.hits and {h.agent for h in listing.hits} == {"claude-code"}


async def test_tui_claude_code_alone_has_no_agent_key(tmp_path: Path, claude_dir: Path) -> None:
    (claude_dir / "-home-dev-shop-api").mkdir()
    (claude_dir / "-home-dev-shop-api" / "s-1.jsonl").write_bytes(exchange(1))
    environ = only(CLAUDE=str(claude_dir))
    config = Config(tmp_path / "data", claude_dir, tmp_path / "logs", environ=environ)
    with Memory(config) as memory:
        memory.upkeep.ingest()
        app = MemtuiApp(memory, upkeep=False)
        async with app.run_test(size=(80, 24)) as pilot:
            browse = app.screen
            assert isinstance(browse, BrowseScreen)
            await until(pilot, lambda: bool(browse.sessions))
            await settled(pilot)
            assert browse.check_action("agent", ()) is False
            await pilot.press("a")
            await settled(pilot)
            assert browse.agent is None


async def test_resume_opens_the_session_in_its_agent(
    two: Memory, tmp_path: Path, codex_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    write_chat(codex_dir, "c-live", str(work), ("user", "a live one"))
    two.upkeep.ingest()
    info = two.history.get_session("c-live").session
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    with pytest.raises(actions.CannotResume) as caught:
        actions.resume_plan(info)
    assert str(caught.value) == (
        "`codex` is not on PATH: install Codex CLI, or run this where it is:\n"
        f"cd {work} && codex resume c-live"
    )
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "codex-ran.json"
    fake = bin_dir / "codex"
    fake.write_text(
        f"#!{sys.executable}\nimport json, os, sys\n"
        f"json.dump({{'argv': sys.argv[1:], 'cwd': os.getcwd()}}, open({str(record)!r}, 'w'))\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    app = MemtuiApp(two, upkeep=False)
    async with app.run_test(size=(80, 24)) as pilot:
        browse = app.screen
        assert isinstance(browse, BrowseScreen)
        await until(pilot, lambda: "c-live" in browse.sessions)
        # An archive from before readers refused such ids can still hold one: said, not run.
        app.resume(dataclasses.replace(info, session_id="--dangerously-bypass"))
        await until(pilot, lambda: bool(app._notifications))
        (refused,) = [n.message for n in app._notifications]
        assert refused.startswith("INVALID_ARGUMENT: session id '--dangerously-bypass'")
        assert not record.exists()  # the test failed before this fix: codex ran with it
        await choose_session(pilot, "c-live")
        await pilot.press("r")
        await until(pilot, record.exists)
    assert json.loads(record.read_text()) == {"argv": ["resume", "c-live"], "cwd": str(work)}


def test_resume_refuses_an_id_that_would_be_an_option() -> None:
    for agent in ("claude-code", "codex", "gemini", "opencode", "copilot"):
        with pytest.raises(InvalidArgument) as caught:
            resume_argv(agent, "--dangerously-bypass-approvals-and-sandbox")
        assert caught.value.line().startswith(  # the test failed before this fix
            "INVALID_ARGUMENT: session id '--dangerously-bypass-approvals-and-sandbox' starts "
            f"with '-': {AGENT_NAMES[agent]} would take it as an option"
        )
    assert resume_argv("gemini", "g-1") == ["gemini", "--resume", "g-1"]


def test_print_config_sets_up_every_agent_that_speaks_mcp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = str(tmp_path / "my data")  # a space: quoted for the shell, escaped in TOML
    for name in [k for k in os.environ if k.startswith("MEMTUI_")]:
        monkeypatch.delenv(name)  # every setting set is passed on: the data dir alone here
    monkeypatch.setenv("MEMTUI_DATA_DIR", data)
    start = setup.command()
    text = setup.other_agents()
    blocks = {b.splitlines()[0]: "\n".join(b.splitlines()[1:]) for b in text.split("\n\n")}
    codex = next(v for k, v in blocks.items() if k.startswith("# Codex"))
    add, _, toml = codex.partition("\n# or in ~/.codex/config.toml:\n")
    assert shlex.split(add) == [
        "codex",
        "mcp",
        "add",
        f"--env=MEMTUI_DATA_DIR={data}",
        "memtui",
        "--",
        *start,
    ]
    server = tomllib.loads(toml)["mcp_servers"]["memtui"]
    assert server == {"command": start[0], "args": start[1:], "env": {"MEMTUI_DATA_DIR": data}}
    gemini = json.loads(next(v for k, v in blocks.items() if k.startswith("# Gemini")))
    assert gemini["mcpServers"]["memtui"] == server
    opencode = json.loads(next(v for k, v in blocks.items() if k.startswith("# OpenCode")))
    assert opencode["mcp"]["memtui"] == {
        "type": "local",
        "command": start,
        "enabled": True,
        "environment": {"MEMTUI_DATA_DIR": data},
    }
    copilot = json.loads(next(v for k, v in blocks.items() if k.startswith("# Copilot")))
    assert copilot["mcpServers"]["memtui"] == {"type": "local", **server, "tools": ["*"]}


def test_follow_reads_a_change_in_any_agents_folder(two: Memory, codex_dir: Path) -> None:
    stop = threading.Event()
    follower = threading.Thread(target=two.upkeep.follow, kwargs={"stop": stop}, daemon=True)
    follower.start()
    try:
        # Before the watches are in place or after: the first rescan or the watch reads it;
        # the next change only the watch.
        for session in ("c-2", "c-3"):
            write_chat(codex_dir, session, SHOP, ("user", "a change to follow"))
            deadline = time.monotonic() + 20
            while session not in sessions(two) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert sessions(two)[session] == 1
    finally:
        stop.set()
        follower.join(timeout=10)
    assert not follower.is_alive()


def test_every_listed_reader_is_an_agent_spec_names() -> None:
    """A reader merged with a typo in its agent or its variable would go unnoticed."""
    assert registry.SOURCES["claude-code"] is CLAUDE_CODE
    for agent, source in registry.SOURCES.items():
        assert agent == source.agent and agent in AGENTS
        assert source.env == f"MEMTUI_{agent.split('-')[0].upper()}_DIR"
        assert source.root({source.env: "off"}) is None


def test_another_agents_answers_are_its_own(shared: Memory) -> None:
    markdown = shared.history.session_markdown("c-1")
    assert "- agent: Codex CLI" in markdown and "] Codex CLI ·" in markdown
    assert "Claude" not in markdown
    claude = shared.history.session_markdown("s-1")
    assert "- agent:" not in claude and "] Claude ·" in claude
    hits = shared.history.search("refund worker lock", "fts", agent="codex").results
    assert who(hits[0].role, hits[0].kind, hits[0].agent) == "codex"


def real_codex(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Codex reader as on main, whatever an earlier test's module fixture (`shared`,
    which keeps the fake registered while it lives) left in the registry."""
    monkeypatch.setitem(registry.SOURCES, CODEX.agent, CODEX)


def test_the_demo_holds_three_agents_in_one_project_and_reads_nothing_else(
    tmp_path: Path, claude_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The archive `memtui --demo` opens, prepared as it does: Claude Code, Codex and Gemini
    CLI sessions in the same projects, found by one search; the person's own Claude Code and
    Codex folders (named in their environment) are not read."""
    real_codex(monkeypatch)
    own = claude_dir / "-home-dev-shop-api" / "s-1.jsonl"
    own.parent.mkdir()
    own.write_bytes(exchange(1))
    home = tmp_path / "codex-home"
    cf.write(cf.rollout_path(home, cf.PARENT), cf.parent_rollout(cf.Clock()))
    environ = only(CLAUDE=str(claude_dir), CODEX=str(home))
    cfg = Config(tmp_path / "data", claude_dir, tmp_path / "logs", environ=environ)
    shown, root = demo.prepare(cfg)
    try:
        with Memory(shown) as memory:
            assert memory.upkeep.folders() == [
                ("claude-code", root / "projects"),
                ("codex", root / "codex"),
                ("gemini", root / "gemini"),
            ]
            memory.upkeep.ingest()
            assert set(memory.history.agents()) == {"claude-code", "codex", "gemini"}
            ids = {s.session_id for s in memory.history.list_sessions(limit=500)}
            assert "s-1" not in ids and cf.PARENT not in ids
            hits = memory.history.search("refresh token rotation", "fts", limit=50).results
            agents = {agent: {h.project for h in hits if h.agent == agent} for agent in AGENTS}
            together = agents["claude-code"] & agents["codex"] & agents["gemini"]
            assert together == {"/home/dev/work/payments-api"}
    finally:
        shutil.rmtree(root)


@pytest.mark.parametrize("parallel", [False, True], ids=["in process", "reader process"])
def test_a_real_readers_files_reach_the_store_as_its_agent(
    tmp_path: Path, claude_dir: Path, parallel: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Codex reader (registered as on main), read in this process or by the reader
    process, which finds it by the agent's name."""
    real_codex(monkeypatch)
    home = tmp_path / "codex-home"
    cf.write(cf.rollout_path(home, cf.PARENT), cf.parent_rollout(cf.Clock()))
    environ = only(CLAUDE=str(claude_dir), CODEX=str(home))
    cfg = Config(tmp_path / "data", claude_dir, tmp_path / "logs", environ=environ)
    with Memory(cfg) as memory:
        report = pipeline.ingest(
            memory._archive, home, parallel=parallel, source=registry.SOURCES["codex"]
        )
        assert report.messages > 0 and not report.unreadable
        memory.upkeep.ingest()  # the rest of the archive's upkeep: indexes
        hits = memory.history.search("forecast cache expire", "fts", agent="codex").results
        assert hits and {(h.session_id, h.agent, h.project) for h in hits} == {
            (cf.PARENT, "codex", cf.PROJECT)
        }


def test_the_session_start_hook_names_the_agent_of_a_past_session(shared: Memory) -> None:
    """Claude reads the hook: a Codex session among its project's is said to be one."""
    said = hook.session_start(shared.config, {"session_id": "new", "cwd": SHOP})
    assert "with Codex CLI" in said
    assert "with Claude Code" not in said


def test_short_ids_tell_apart_sessions_begun_close_together() -> None:
    """OpenCode's `ses_…` and Codex's UUID v7 begin with the time: their first 8 characters
    were one short id for sessions begun minutes apart (`show ses_0000` was AMBIGUOUS)."""
    opencode = ["ses_0000006acfc1" + tail for tail in ("ZqZqZqZqZqZqZq", "AbCdEfGhIjKlMn")]
    codex = ["019a1b2c-3d4e-7f00-8000-00000000abcd", "019a1b2c-3d4e-7f00-8000-00000000ef01"]
    claude = "6f1c2a9e-1b2c-4d3e-9f00-123456789abc"
    ids = [*opencode, *codex, claude]
    shorts = [short_id(i) for i in ids]
    assert len(set(shorts)) == len(ids) and short_id(claude) == "6f1c2a9e"
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY)")
    conn.executemany("INSERT INTO sessions VALUES (?)", [(i,) for i in ids])
    assert [resolve(conn, s) for s in shorts] == ids
    assert resolve(conn, "ses_0000006acfc1Zq") == opencode[0]  # a prefix, as before
    with pytest.raises(NotFound):
        resolve(conn, "abcd")  # too short to be taken as an end


async def test_an_empty_archive_says_where_each_agent_was_looked_for(
    tmp_path: Path, claude_dir: Path, codex_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It named Claude Code's folder alone, with every agent on."""
    registered(monkeypatch)
    environ = only(CLAUDE=str(claude_dir), CODEX=str(codex_dir))
    cfg = Config(tmp_path / "data", claude_dir, tmp_path / "logs", environ=environ)
    with Memory(cfg) as memory:
        app = MemtuiApp(memory, upkeep=False)
        async with app.run_test(size=(160, 48)) as pilot:
            browse = app.screen
            assert isinstance(browse, BrowseScreen)
            await until(pilot, lambda: browse.loaded)
            shown = " ".join(str(browse.query_one("#empty", Static).render()).split())
            assert f"Claude Code in {claude_dir}, Codex CLI in {codex_dir}" in shown
            assert "MEMTUI_<AGENT>_DIR" in shown
