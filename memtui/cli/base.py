"""How a command is declared: its options beside its handler, in its family's module.

    family = Family()

    @family.command("stats", "counts, sizes, last ingest, index health", JSON)
    def stats(memory: Memory, args: Namespace) -> None: ...

`memtui.cli.build_parser` adds every family's commands to one argparse parser. A name with a
space (`"note add"`) is an action of the command before it; `store=False` handlers are given
the arguments alone and open what they need themselves (the MCP server, the hook, doctor).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from memtui.engine.validate import MAX_ID


class Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line on stderr, with SPEC's code, and exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"memtui: INVALID_ARGUMENT: {self.prog}: {message} (see {self.prog} --help)\n")


@dataclass(frozen=True, slots=True)
class Arg:
    """One `add_argument` call."""

    flags: tuple[str, ...]
    options: dict[str, Any]

    def add_to(self, parser: argparse.ArgumentParser | argparse._MutuallyExclusiveGroup) -> None:
        parser.add_argument(*self.flags, **self.options)


@dataclass(frozen=True, slots=True)
class OneOf:
    """Arguments of which one at most (`required`: exactly one) may be given."""

    args: tuple[Arg, ...]
    required: bool = False

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        group = parser.add_mutually_exclusive_group(required=self.required)
        for one in self.args:
            one.add_to(group)


Option = Arg | OneOf


def arg(*flags: str, **options: Any) -> Arg:
    return Arg(flags, options)


def one_of(*args: Arg, required: bool = False) -> OneOf:
    return OneOf(args, required)


@dataclass(frozen=True, slots=True)
class Command:
    name: str  # "note add": the action `add` of `note`
    help: str
    options: tuple[Option, ...]
    # (memory, args) when `store`, else (args); None: a group that only holds its actions
    run: Callable[..., None] | None
    store: bool = True
    actions: str = "ACTION"  # a group's word for its actions, as its usage names them


@dataclass(slots=True)
class Family:
    """The commands of one module, in the order `memtui --help` lists them."""

    commands: list[Command] = field(default_factory=list)

    def command(
        self, name: str, help: str, *options: Option, store: bool = True
    ) -> Callable[[Callable[..., None]], Callable[..., None]]:
        def declare(handler: Callable[..., None]) -> Callable[..., None]:
            self.commands.append(Command(name, help, options, handler, store))
            return handler

        return declare

    def group(self, name: str, help: str, actions: str = "ACTION") -> None:
        """A command that is only its actions (`note show|add|edit|rm`)."""
        self.commands.append(Command(name, help, (), None, actions=actions))


# -- what an argument may be -------------------------------------------------------------------

JSON = arg("--json", action="store_true", help="one JSON document on stdout")


def limit(high: int, default: int, help: str = "how many at most") -> Arg:
    return arg("--limit", type=whole(1, high), default=default, help=f"{help} ({default})")


def yes(help: str = "do not ask first") -> Arg:
    return arg("--yes", action="store_true", help=help)


def text(value: str) -> str:
    """A text argument as typed; a byte that is not UTF-8 is a usage error, not a crash."""
    try:
        value.encode()
    except UnicodeEncodeError:
        shown = value.encode(errors="backslashreplace").decode()
        raise argparse.ArgumentTypeError(f"{shown!r} is not valid UTF-8") from None
    return value


def project(value: str) -> str:
    """A project as typed; `.`, `..`, `./x`, `../x` and `~/x` are folders from here, as a shell
    reads them (a project is named by its absolute folder, or a unique part of it)."""
    value = text(value)
    if value in (".", "..") or value.startswith(("./", "../", "~")):
        return os.path.abspath(os.path.expanduser(value))
    return value


def existing_dir(value: str) -> Path:
    path = Path(value).expanduser()
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{value!r} is not a directory")
    return path


def whole(low: int, high: int) -> Callable[[str], int]:
    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            number = low - 1
        if not low <= number <= high:
            raise argparse.ArgumentTypeError(
                f"expected a whole number from {low:,} to {high:,}, got {value!r}"
            )
        return number

    return parse


def id_of(what: str) -> Callable[[str], int]:
    """The id of a note, signal or inference: any id SQLite can hold (one past it is refused
    here; one that is not there, NOT_FOUND from the engine)."""

    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            number = 0
        if not 1 <= number <= MAX_ID:
            raise argparse.ArgumentTypeError(f"a {what} id is a whole number from 1, not {value!r}")
        return number

    return parse
