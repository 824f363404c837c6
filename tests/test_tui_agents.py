"""The TUI over an archive of all five agents' conversations, as a new user meets it at 80
columns: the sidebar's counts per agent, the agent key, resume, and each agent's messages
(issue 28's new-user pass). The files are written by the readers' own fixtures."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widgets._footer import FooterKey
from textual.widgets._toast import Toast

from memtui.config import Config
from memtui.engine.memory import Memory
from memtui.ingest.sources import registry
from memtui.ingest.sources.codex import SOURCE as CODEX
from memtui.tui.app import MemtuiApp
from memtui.tui.browse import BrowseScreen, ProjectList, SessionList
from memtui.tui.session import MessageBlock, SessionScreen
from tests.agents import codex_files as cf
from tests.agents import copilot_files as cp
from tests.agents import gemini_files as gm
from tests.agents import opencode_files as oc
from tests.fake_agent import only
from tests.lines import assistant, text, user
from tests.tui_support import choose_session, filters_fit, until

WEATHER = cf.PROJECT  # every agent's sessions are in this project
OTHERS = 6  # Claude Code projects beside it: the sidebar needs its scrollbar at 80x24
COPILOT = "5f0c2a4e-1b7d-4c3a-9e21-7a9d3c1b0e22"


def claude_session(claude_dir: Path, session: str, cwd: str, prompt: str) -> None:
    folder = claude_dir / cwd.replace("/", "-")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{session}.jsonl").write_bytes(
        user(f"{session}-u", prompt, session, cwd=cwd)
        + assistant(f"{session}-a", f"msg_{session}", text("done"), session, cwd=cwd)
    )


def five_agents(root: Path) -> dict[str, str]:
    """One session of each agent in WEATHER (two of Claude Code's), Claude Code's alone in
    OTHERS more projects; the environment that reads them."""
    claude = root / "claude"
    claude_session(claude, "cc-1", WEATHER, "the forecast endpoint returns 500")
    claude_session(claude, "cc-2", WEATHER, "add a Redis cache in front of the provider")
    for n in range(OTHERS):
        claude_session(claude, f"cc-p{n}", f"/home/dev/p{n}", f"project {n}'s question")
    codex = root / "codex"
    cf.write(cf.rollout_path(codex, cf.PARENT), cf.parent_rollout(cf.Clock()))
    gemini = root / "gemini"
    chats = gemini / "tmp" / "weather" / "chats"
    gm.append(
        chats / "session-2026-11-03T10-00-9e000001.jsonl",
        gm.jsonl("9e000001", gm.conversation("w"), root=WEATHER),
    )
    (gemini / "tmp" / "weather" / ".project_root").write_text(WEATHER)
    (gemini / "projects.json").write_text(json.dumps({"projects": {WEATHER: "weather"}}))
    opencode = root / "opencode"
    conn = oc.open_db(opencode)
    oc.write_db(conn, *oc.conversation(oc.Ids(7), WEATHER))
    conn.close()
    copilot = root / "copilot"
    events = cp.Events("a0000002")
    cp.start(events, COPILOT, WEATHER)
    cp.prompt(events, "the docker image for weather is 1.9 GB, make it smaller")
    events.add("assistant.message", {"messageId": "m1", "content": "A multi-stage build: 180 MB."})
    folder = copilot / "session-state" / COPILOT
    cp.append(folder / "events.jsonl", cp.lines(events.events))
    cp.workspace(folder, COPILOT, WEATHER, "Docker image too large")
    return only(
        CLAUDE=str(claude),
        CODEX=str(codex),
        GEMINI=str(gemini),
        OPENCODE=str(opencode),
        COPILOT=str(copilot),
    )


@pytest.fixture(scope="module")
def five(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    root = tmp_path_factory.mktemp("five")
    environ = five_agents(root)
    with pytest.MonkeyPatch.context() as patch:
        # The Codex reader as on main, whatever a module fixture of test_agents.py left there
        patch.setitem(registry.SOURCES, CODEX.agent, CODEX)
        config = Config(root / "data", root / "claude", root / "logs", environ=environ)
        with Memory(config) as memory:
            memory.upkeep.ingest()
            yield memory


def shown_lines(listing: ProjectList) -> list[str]:
    """The project list's lines as they are on the screen."""
    region = Region(0, 0, listing.size.width, listing.size.height)
    return [strip.text.rstrip() for strip in listing.render_lines(region)]


def test_the_archive_holds_every_agent_in_one_project(five: Memory) -> None:
    assert five.history.project_agents()[WEATHER] == {
        "claude-code": 2,
        "codex": 1,
        "gemini": 1,
        "opencode": 1,
        "copilot": 1,
    }


async def counted_sidebar(
    pilot: Pilot[None], app: MemtuiApp
) -> tuple[BrowseScreen, ProjectList, list[str]]:
    """The main screen once every agent is counted, its project list, and the list's ids."""
    browse = app.screen
    assert isinstance(browse, BrowseScreen)
    listing = browse.query_one(ProjectList)
    await until(pilot, lambda: len(browse.by_agent) == OTHERS + 1)
    return browse, listing, [listing.get_option_at_index(i).id for i in range(listing.option_count)]


async def test_the_highlighted_project_shows_every_agents_count(five: Memory) -> None:
    """At 80x24 the sidebar's scrollbar comes after the highlighted project's lines were
    measured: its path must not wrap then, or the last agent's count is cut off."""
    app = MemtuiApp(five, upkeep=False)
    async with app.run_test(size=(80, 24)) as pilot:
        browse, listing, ids = await counted_sidebar(pilot, app)
        below = ids[ids.index(WEATHER) + 1]  # a project of one agent: no scrollbar there
        await pilot.press("escape", *["down"] * ids.index(below))
        await until(pilot, lambda: browse.project == below and not listing.show_vertical_scrollbar)
        await pilot.press("up")
        await until(pilot, lambda: browse.project == WEATHER)
        each = ["claude 2", "codex 1", "gemini 1", "opencode 1", "copilot 1"]

        def all_shown() -> bool:
            lines = shown_lines(listing)
            return all(any(count in line for line in lines) for count in each)

        await until(pilot, lambda: listing.show_vertical_scrollbar)
        await pilot.pause()
        assert all_shown(), (shown_lines(listing), listing._heights)
        assert any(line.strip().startswith(WEATHER) for line in shown_lines(listing))


async def test_the_agent_key_steps_through_the_lists_agents_in_the_sidebars_order(
    five: Memory,
) -> None:
    """`a` shows each agent of the chosen project's sessions in the order the sidebar counts
    them, then all again; a project without the chosen agent's sessions shows every agent's,
    never an empty list."""
    app = MemtuiApp(five, upkeep=False)
    async with app.run_test(size=(80, 24)) as pilot:
        browse, listing, ids = await counted_sidebar(pilot, app)
        listing.highlighted = ids.index(WEATHER)
        await until(pilot, lambda: browse.project == WEATHER and len(browse.sessions) == 6)
        sidebar = list(browse.by_agent[WEATHER])
        assert sidebar == ["claude-code", "codex", "copilot", "gemini", "opencode"]
        for agent in [*sidebar, None]:
            await pilot.press("a")

            def shown(agent: str | None = agent) -> bool:
                agents = {s.agent for s in browse.sessions.values()}
                return browse.agent == agent and agents == ({agent} if agent else set(sidebar))

            await until(pilot, shown)
        await pilot.press("a", "a")
        await until(pilot, lambda: browse.agent == "codex" and len(browse.sessions) == 1)
        listing.highlighted = ids.index(WEATHER) + 1  # Claude Code's sessions alone
        await until(pilot, lambda: browse.project == ids[ids.index(WEATHER) + 1])
        await until(pilot, lambda: browse.agent is None and len(browse.sessions) == 1)
        await pilot.press("a", "a")  # claude, then all: the only agent here
        await until(pilot, lambda: browse.agent is None and len(browse.sessions) == 1)


async def test_cannot_resume_says_the_command_with_its_folder(
    five: Memory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The agent is not installed here: the message names the command to run elsewhere, in
    the session's folder, and reads at 80 columns (no backtick alone on a line)."""
    monkeypatch.setenv("PATH", str(tmp_path))
    app = MemtuiApp(five, upkeep=False)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await choose_session(pilot, COPILOT)
        await pilot.press("r")
        await until(pilot, lambda: bool(app.screen.query(Toast)))
        toast = app.screen.query_one(Toast)
        await until(pilot, lambda: toast.outer_size.width > 0)
        region = Region(0, 0, *toast.outer_size)
        lines = [strip.text.strip("▌ ") for strip in toast.render_lines(region)]
        said = "".join("".join(lines).split())  # the words, wherever the lines break them
        assert f"cd{WEATHER}&&copilot--resume{COPILOT}" in said, lines
        assert "`" not in lines, lines


def footer(app: MemtuiApp) -> dict[str, tuple[str, Region]]:
    return {k.key: (k.description, k.region) for k in app.screen.query(FooterKey)}


async def test_the_footers_and_the_palette_say_what_a_does_on_each_screen(five: Memory) -> None:
    """The main screen's `a` keeps to one agent, a session's folds its subagents: each
    footer shows its own, whole at 80 columns, and the palette says what each does."""
    app = MemtuiApp(five, upkeep=False)
    async with app.run_test(size=(80, 24)) as pilot:
        browse = app.screen
        assert isinstance(browse, BrowseScreen)
        await until(pilot, lambda: len(browse.by_agent) == OTHERS + 1)

        def laid_out() -> bool:  # an unplaced key's region is 0 wide and fits anything
            keys = footer(app)
            return {"a", "slash"} <= set(keys) and all(r.width > 0 for _, r in keys.values())

        await until(pilot, laid_out)
        keys = footer(app)
        assert keys["a"][0] == "Agent"
        assert all(region.right <= 80 for _, region in keys.values())
        assert keys["slash"][0] == "Search"  # the last key, whole
        palette = {c.title for c in app.get_system_commands(browse)}
        assert "Show one agent's sessions at a time" in palette
        table = browse.query_one(SessionList)
        parent = next(s for s in table.sessions if s.agent == "opencode")
        table.highlighted = table.sessions.index(parent)
        table.focus()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, SessionScreen) and "a" in footer(app))
        assert footer(app)["a"][0] == "Subagents"
        palette = {c.title for c in app.get_system_commands(app.screen)}
        assert "Fold or open each subagent's messages" in palette


async def test_a_message_of_reasoning_alone_says_so_while_thinking_is_hidden(
    five: Memory,
) -> None:
    """Codex writes its reasoning as a message of its own: with thinking hidden it says what
    it holds and how to see it, never an empty block under its header."""
    app = MemtuiApp(five, upkeep=False)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(SessionScreen(cf.PARENT))
        await until(pilot, lambda: bool(app.screen.query(MessageBlock)))
        block = next(
            b
            for b in app.screen.query(MessageBlock)
            if b.message.thinking and not b.message.text and not b.folds
        )

        def said() -> str:
            return "\n".join(strip.text for strip in block.lines(block.content_region.width))

        assert "(thinking only — t shows it)" in said()
        await pilot.press("t")
        await until(pilot, lambda: "Reading the cache" in said())
        assert "t shows it" not in said()


async def test_an_opencode_subagents_header_is_one_line_at_80_columns(five: Memory) -> None:
    """A child session's id is 30 characters: its header says a short end of it, as a
    Claude Code subagent's says its agentId, on one line."""
    app = MemtuiApp(five, upkeep=False)
    async with app.run_test(size=(80, 24)) as pilot:
        browse = app.screen
        assert isinstance(browse, BrowseScreen)
        await until(pilot, lambda: bool(browse.sessions))
        parent = next(s for s in browse.sessions.values() if s.agent == "opencode")
        app.push_screen(SessionScreen(parent.session_id))
        await until(pilot, lambda: bool(app.screen.query(".-sidechain")))
        for block in app.screen.query(".-sidechain").results(MessageBlock):
            child = block.message.agent_id or ""
            head = block.lines(block.content_region.width)[0].text
            assert f"subagent …{child[-8:]} " in head and child not in head, head
            assert f"#{block.message.message_index}" in head  # not wrapped to a second line


async def test_the_filter_row_fits_with_the_agent_filter(five: Memory) -> None:
    """The agent filter is a fourth box: below 100 columns the dates' labels shorten to `≥`
    and `<`, below 67 who and agent give way, or the row ran past the screen's edge (up to
    99 columns; and at 80 with the keys panel open: a new user's pass)."""
    for width in (50, 63, 66, 67, 69, 70, 74, 80, 90, 99, 100, 160):
        assert await filters_fit(five, width), f"at {width} columns"
    for width in (70, 80, 100, 160):
        assert await filters_fit(five, width, keys=True), f"at {width}, keys shown"
