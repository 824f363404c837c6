"""memtui as a Claude Code plugin (.claude-plugin/), through the real Claude Code CLI: the
manifests pass its validation, an install from this checkout into a throw-away HOME sets up
the MCP server and the three hooks, and end to end, with a model stand-in on 127.0.0.1
(tests/model_standin.py) logging what Claude Code sends: a prompt in a project with a past
goes out with memtui's blocks, a prompt with none goes out with nothing of memtui's.

The CLI is `$MEMTUI_TEST_CLAUDE`, else `claude` on PATH, else where the team's machines keep
it; without one the tests that need it are skipped and say why. It always runs with its
network switches off, and the only address it is given is the stand-in's.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import corpus
import pytest

from memtui.cli.hooks import family
from memtui.config import Config
from memtui.engine import Memory
from tests import lines
from tests.model_standin import serving

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / ".claude-plugin"
LAUNCHER = PLUGIN / "memtui"
KNOWN_CLI = Path("/work/tools/claude/node_modules/.bin/claude")
OFFLINE = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
}


def find_cli() -> str | None:
    return (
        os.environ.get("MEMTUI_TEST_CLAUDE")
        or shutil.which("claude")
        or (str(KNOWN_CLI) if os.access(KNOWN_CLI, os.X_OK) else None)
    )


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
    )


def script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


# The launcher Claude Code runs for the server and the hooks: no CLI needed.


def launch(args: list[str], path: str, home: Path, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        ["/bin/sh", str(LAUNCHER), *args],
        input=stdin,
        env={"PATH": path, "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_the_launcher_runs_the_memtui_on_path_and_a_hook_never_fails(tmp_path: Path) -> None:
    # Exit status 2 is argparse's, and a hook's 2 blocks the prompt: an older memtui, without
    # the hook asked for, must not stop the session.
    bin_dir = tmp_path / "bin"
    script(bin_dir / "memtui", 'echo "memtui $*"; cat; exit 2')
    path = f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin"
    prompt = launch(["hook", "prompt"], path, tmp_path, stdin='{"prompt": "hi"}')
    assert (prompt.returncode, prompt.stdout) == (0, 'memtui hook prompt\n{"prompt": "hi"}')
    server = launch(["mcp"], path, tmp_path)
    assert (server.returncode, server.stdout) == (2, "memtui mcp\n")


def test_the_launcher_finds_memtui_in_local_bin(tmp_path: Path) -> None:
    """pipx and uv tool put memtui in ~/.local/bin, which a desktop app's PATH often lacks."""
    script(tmp_path / ".local" / "bin" / "memtui", 'echo "local memtui $*"')
    done = launch(["mcp"], str(tmp_path / "empty"), tmp_path)
    assert (done.returncode, done.stdout) == (0, "local memtui mcp\n")


def test_the_launcher_never_starts_itself(tmp_path: Path) -> None:
    """A copy of the launcher on PATH, and a link to it in ~/.local/bin: skipped, the real
    memtui after them runs (it started itself for ever: break-it pass)."""
    first, real = tmp_path / "first", tmp_path / "real"
    first.mkdir()
    (first / "memtui").write_bytes(LAUNCHER.read_bytes())
    (first / "memtui").chmod(0o755)
    (tmp_path / ".local" / "bin").mkdir(parents=True)
    (tmp_path / ".local" / "bin" / "memtui").symlink_to(LAUNCHER)
    script(real / "memtui", 'echo "real memtui $*"')
    copied = subprocess.run(
        ["/bin/sh", str(first / "memtui"), "mcp"],
        env={"PATH": f"{first}{os.pathsep}{real}", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert (copied.returncode, copied.stdout) == (0, "real memtui mcp\n"), copied.stderr
    linked = launch(["hook", "prompt"], str(tmp_path / "empty"), tmp_path, stdin="{}")
    assert (linked.returncode, linked.stdout) == (0, ""), linked.stderr


def test_without_memtui_the_hooks_say_nothing_but_the_session_start_tells_the_person(
    tmp_path: Path,
) -> None:
    empty = str(tmp_path / "empty")
    for hook in ("prompt", "tool"):
        done = launch(["hook", hook], empty, tmp_path, stdin="{}")
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    start = launch(["hook", "session-start"], empty, tmp_path, stdin="{}")
    assert start.returncode == 0
    assert "pipx install" in json.loads(start.stdout)["systemMessage"]
    server = launch(["mcp"], empty, tmp_path)
    assert server.returncode == 1 and "neither on PATH" in server.stderr


def test_the_plugins_version_is_the_packages() -> None:
    manifest = json.loads((PLUGIN / "plugin.json").read_text())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert manifest["version"] == project["version"]


# Through the real CLI.


@dataclass
class Install:
    cli: str
    home: Path
    env: dict[str, str]

    def claude(
        self, *args: str, cwd: Path | None = None, **env: str
    ) -> subprocess.CompletedProcess:
        return run([self.cli, *args], {**self.env, **env}, cwd or self.home)


@pytest.fixture(scope="module")
def install(tmp_path_factory: pytest.TempPathFactory) -> Install:
    """The plugin installed as the README says, from this checkout, into a throw-away HOME,
    with a `memtui` on PATH that runs this checkout's code."""
    cli = find_cli()
    if cli is None:
        pytest.skip(
            "the Claude Code CLI is not installed: set MEMTUI_TEST_CLAUDE to it, put `claude` "
            f"on PATH, or install it at {KNOWN_CLI} (npm install @anthropic-ai/claude-code)"
        )
    base = tmp_path_factory.mktemp("plugin")
    home, tmp = base / "home", base / "tmp"
    home.mkdir()
    tmp.mkdir()
    shim = script(base / "bin" / "memtui", f'exec {shlex.quote(sys.executable)} -m memtui "$@"')
    env = {
        "PATH": f"{shim.parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(ROOT),
        "XDG_STATE_HOME": os.environ["XDG_STATE_HOME"],  # conftest's: no user log is touched
        "MEMTUI_DATA_DIR": str(base / "data"),
        "MEMTUI_CLAUDE_DIR": str(base / "projects"),
        **OFFLINE,
    }
    done = Install(cli, home, env)
    for step in (["marketplace", "add", str(ROOT)], ["install", "memtui@memtui"]):
        added = done.claude("plugin", *step)
        assert added.returncode == 0, added.stdout + added.stderr
    return done


def test_the_manifests_pass_the_clis_validation(install: Install) -> None:
    for target in (ROOT, PLUGIN / "plugin.json"):
        done = install.claude("plugin", "validate", "--strict", str(target))
        assert done.returncode == 0 and "Validation passed" in done.stdout, done.stdout


def test_an_install_sets_up_the_server_and_the_three_hooks(install: Install) -> None:
    listed = json.loads(install.claude("plugin", "list", "--json").stdout)
    assert [(p["id"], p["enabled"]) for p in listed] == [("memtui@memtui", True)]
    servers = install.claude("mcp", "list")
    assert re.search(r"^plugin:memtui:memtui: .*mcp - ✔ Connected$", servers.stdout, re.M), (
        servers.stdout + servers.stderr
    )
    details = install.claude("plugin", "details", "memtui").stdout
    assert "Hooks (3)  SessionStart, UserPromptSubmit, PreToolUse" in details, details
    always_on = re.search(r"Always-on: +~([\d,]+) tok", details)
    assert always_on, details
    readme = (ROOT / "README.md").read_text()
    assert f"projects ~{always_on[1]} tokens" in readme  # the figure the README gives


# End to end: Claude Code, the plugin, memtui's hooks and a model stand-in.

PAST = "the refund webhook returns 500 when Stripe retries a charge"
ONLY_IN_THE_PAST = "duplicate key value violates unique constraint"


@dataclass
class Projects:
    with_a_past: Path
    without: Path


@pytest.fixture(scope="module")
def projects(install: Install) -> Projects:
    """shop-api has a past: a conversation on the refund webhook (begun with another request,
    so what the session start says of it is not the answer), then a newer one; blank has
    none. Other projects' conversations make the archive large enough for a word's rarity to
    mean something."""
    data = Path(install.env["MEMTUI_DATA_DIR"])
    transcripts = Path(install.env["MEMTUI_CLAUDE_DIR"])
    work = data.parent / "work"
    shop, blank, other = (work / name for name in ("shop-api", "blank", "inventory"))
    for path in (shop, blank, other):
        path.mkdir(parents=True)
        (transcripts / corpus.encode_project_dir(str(path))).mkdir(parents=True)
    for n in range(6):
        folder = transcripts / corpus.encode_project_dir(str(other))
        corpus.append_session_lines(folder / f"filler-{n}.jsonl", 60, f"filler-{n}", str(other), n)
    cwd = str(shop)
    lines.write(
        transcripts / corpus.encode_project_dir(cwd) / "past-refund.jsonl",
        lines.user("r-1", "look at the payments service logs", "past-refund", at(9, 0), cwd)
        + lines.assistant(
            "r-2", "msg_r2", lines.text("Three refunds failed."), "past-refund", at(9, 1), cwd
        )
        + lines.user(
            "r-3", f"{PAST}: {ONLY_IN_THE_PAST} refunds_charge_id_key", "past-refund", at(9, 5), cwd
        )
        + lines.assistant(
            "r-4",
            "msg_r4",
            lines.text("The webhook now stores Stripe's event id and skips a retried event."),
            "past-refund",
            at(9, 6),
            cwd,
        ),
    )
    lines.write(
        transcripts / corpus.encode_project_dir(cwd) / "past-dark.jsonl",
        lines.user(
            "d-1", "add a dark mode toggle to the settings page", "past-dark", at(11, 0), cwd
        )
        + lines.assistant("d-2", "msg_d2", lines.text("Added it."), "past-dark", at(11, 1), cwd),
    )
    config = Config(data_dir=data, claude_dir=transcripts, log_dir=data.parent / "logs")
    with Memory(config) as memory:
        memory.upkeep.ingest()
    return Projects(shop, blank)


def at(hour: int, minute: int) -> str:
    return f"2026-10-02T{hour:02}:{minute:02}:00.000Z"


def asked(install: Install, project: Path, prompt: str, log: Path) -> str:
    """What Claude Code sent the model for one `claude -p` in `project`, as one text."""
    with serving(log) as standin:
        done = install.claude(
            "-p",
            prompt,
            cwd=project,
            ANTHROPIC_BASE_URL=standin.url,
            ANTHROPIC_API_KEY="standin-" + "x" * 8,
        )
        sent = [r for r in standin.requests() if r["path"].startswith("/v1/messages")]
    assert done.returncode == 0 and done.stdout.strip() == "Done.", done.stdout + done.stderr
    assert sent, "Claude Code sent the stand-in nothing"
    return json.dumps([r["body"] for r in sent], ensure_ascii=False)


@pytest.fixture(scope="module")
def with_a_past(
    install: Install, projects: Projects, tmp_path_factory: pytest.TempPathFactory
) -> str:
    prompt = f"{PAST} again, what did we do about it?"
    log = tmp_path_factory.mktemp("standin") / "requests.jsonl"
    return asked(install, projects.with_a_past, prompt, log)


@pytest.fixture(scope="module")
def without_a_past(
    install: Install, projects: Projects, tmp_path_factory: pytest.TempPathFactory
) -> str:
    prompt = "rename the variable tmp to buffer in parser.c"
    log = tmp_path_factory.mktemp("standin") / "requests.jsonl"
    return asked(install, projects.without, prompt, log)


def test_a_session_with_a_past_starts_with_its_context(with_a_past: str) -> None:
    # Claude Code puts what a hook printed before the model as "<event> hook success: ...".
    assert "SessionStart:startup hook success: " in with_a_past
    assert "look at the payments service logs" in with_a_past
    assert "add a dark mode toggle to the settings page" in with_a_past


def test_a_prompt_with_a_past_goes_out_with_memtuis_recall(with_a_past: str) -> None:
    if "hook prompt" not in {command.name for command in family.commands}:
        pytest.skip("prompt hook not built")
    assert "UserPromptSubmit hook success: " in with_a_past
    # Neither the prompt nor the session start holds these words: the recall of the message does.
    recall = with_a_past.split("UserPromptSubmit hook success: ", 1)[1]
    assert ONLY_IN_THE_PAST in recall
    assert "past-ref" in recall  # the conversation to open


def test_a_prompt_without_a_past_goes_out_with_nothing_of_memtuis(without_a_past: str) -> None:
    assert "hook success" not in without_a_past  # no hook of memtui's said anything
    for said in ("refund", "Stripe", "payments service", "dark mode", "past-ref", "past-dar"):
        assert said not in without_a_past
