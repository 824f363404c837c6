"""The README is the user's manual: every command, option and setting memtui has is in it."""

from __future__ import annotations

import argparse
import ast
import re
from collections.abc import Iterator
from pathlib import Path

from memtui.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
# Read from the environment, but not settings of memtui's: the import path handed to its own
# reader processes, and whether it runs inside tmux.
NOT_SETTINGS = {"PYTHONPATH", "TMUX"}


def commands(
    parser: argparse.ArgumentParser, path: str = "memtui"
) -> Iterator[tuple[str, list[str]]]:
    """Each command as typed (`memtui note add`) with its options (`--title`, ...)."""
    options = [
        flag
        for action in parser._actions
        for flag in action.option_strings
        if flag.startswith("--") and flag not in ("--help", "--version")
    ]
    yield path, options
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from commands(sub, f"{path} {name}")


def rows(command: str) -> str:
    """The README's lines that show `command` being typed (`memtui note` is not in
    `memtui notes`)."""
    typed = re.compile(rf"`{re.escape(command)}(?![\w-])")
    return "\n".join(line for line in README.splitlines() if typed.search(line))


def test_every_command_and_option_is_in_the_readme() -> None:
    listed = list(commands(build_parser()))
    assert len(listed) > 20
    for command, options in listed:
        shown = rows(command)
        assert shown, f"{command} is not in the README"
        missing = [flag for flag in options if flag not in shown]
        assert not missing, f"{command}: {missing} not in its README lines"


def environment_variables() -> set[str]:
    """The names memtui reads from the environment, from its source: `os.environ.get(N)`,
    `os.getenv(N)`, `os.environ[N]`, config's `_env(N, ...)`, a reader's `environ.get(N)`
    (where an agent keeps its files), and any `MEMTUI_...` string."""
    names: set[str] = set()
    for path in (ROOT / "memtui").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if re.fullmatch(r"MEMTUI_[A-Z0-9_]+", node.value):
                    names.add(node.value)
            elif isinstance(node, ast.Call) and node.args:
                called = ast.unparse(node.func)
                first = node.args[0]
                if called in ("os.environ.get", "os.getenv", "_env", "environ.get") and isinstance(
                    first, ast.Constant
                ):
                    names.add(first.value)
            elif (
                isinstance(node, ast.Subscript)
                and ast.unparse(node.value) == "os.environ"
                and isinstance(node.slice, ast.Constant)
            ):
                names.add(node.slice.value)
    return names - NOT_SETTINGS


def test_every_environment_variable_is_in_the_readme() -> None:
    names = environment_variables()
    assert {"MEMTUI_DATA_DIR", "MEMTUI_SIMILAR_DIST", "CLAUDE_CONFIG_DIR", "EDITOR"} <= names
    missing = sorted(name for name in names if not re.search(rf"\b{name}\b", README))
    assert not missing, f"not in the README: {missing}"
