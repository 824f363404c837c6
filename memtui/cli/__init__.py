"""The `memtui` command: a thin front end over the engine, one module a family of commands.

history.py: search, show, projects, sessions, files, fixes · notes.py: notes, note, rules,
export, import · signals.py: signals, signal, inferences, inference · upkeep.py: index,
stats, reindex, doctor, forget · serve.py: mcp · hooks.py: hook. Each module declares its
commands with their options beside their handlers (base.py shows how); `build_parser` gathers
them, so adding a command is one decorated function in one family module.

Nothing is imported here at load: a hook runs before any parser is built, and `--help`
loads no engine beyond its data types.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # as typing's, to mypy; importing typing costs a hook 10 ms of its start

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from memtui.cli.base import Command, Parser


def main(argv: Sequence[str] | None = None) -> None:
    os.umask(0o077)  # everything memtui writes holds someone's conversations
    given = list(sys.argv[1:] if argv is None else argv)
    if len(given) == 2 and given[0] == "hook":
        from memtui.cli import hook_run

        if hook_run.run(given[1]):  # before the parser and its imports: a session waits
            return
    try:
        args = build_parser().parse_args(given)
    except SystemExit as exc:
        if given[:1] == ["hook"] and exc.code == 2:
            raise SystemExit(1) from None  # Claude Code blocks the prompt or tool call on 2
        raise
    from memtui.errors import MemtuiError

    try:
        run(args)
    except MemtuiError as exc:
        from memtui.cli.say import error_line, fail

        fail(error_line(exc))
    except BrokenPipeError:
        # The reader went away (`memtui show ... | head -1`): stop quietly, as cat does.
        drop_stdout()
        raise SystemExit(141) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None


def drop_stdout() -> None:
    """Point stdout at /dev/null once its reader has gone: the interpreter's last flush
    then has nowhere to fail (a BrokenPipeError traceback at exit)."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def build_parser() -> Parser:
    from memtui import __version__
    from memtui.cli import history, hooks, notes, serve, signals, upkeep
    from memtui.cli.base import Parser, whole

    parser = Parser(
        prog="memtui", description="A local memory for Claude Code and your other coding agents."
    )
    parser.add_argument("--version", action="version", version=f"memtui {__version__}")
    parser.add_argument(
        "--demo", action="store_true", help="open the TUI on a bundled demo archive (throw-away)"
    )
    parser.add_argument(
        "--no-mcp", action="store_true", help="TUI: do not serve MCP over HTTP while it runs"
    )
    parser.add_argument(
        "--port",
        type=whole(1, 65535),
        default=10013,
        help="TUI: the loopback port of its MCP HTTP server (default 10013)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    declared: dict[str, Command] = {}
    parsers: dict[str, argparse.ArgumentParser] = {}
    actions: dict[str, argparse._SubParsersAction[Parser]] = {}
    for family in (upkeep, history, notes, signals, serve, hooks):
        for command in family.family.commands:
            parent, _, name = command.name.rpartition(" ")
            if parent and parent not in actions:
                actions[parent] = parsers[parent].add_subparsers(
                    dest=f"{parent}_action",
                    metavar=declared[parent].actions,
                    parser_class=Parser,
                    required=declared[parent].run is None,
                )
            made = (actions[parent] if parent else sub).add_parser(
                name, help=command.help, description=command.help
            )
            for option in command.options:
                option.add_to(made)
            made.set_defaults(declared=command)
            declared[command.name] = command
            parsers[command.name] = made
    return parser


def run(args: argparse.Namespace) -> None:
    command: Command | None = getattr(args, "declared", None)
    if command is None:
        run_tui(args)
        return
    assert command.run is not None  # a group's parser requires one of its actions
    if not command.store:
        command.run(args)
        return
    from memtui import config
    from memtui.cli.say import with_progress
    from memtui.engine import Memory

    cfg = config.load()
    config.setup_logging(cfg.log_dir)
    with Memory(cfg, upgrade=False) as memory:
        if memory.unfinished():  # an archive from before masking, or a forget cut short
            with_progress(memory.finish_interrupted)
        command.run(memory, args)


def run_tui(args: argparse.Namespace) -> None:
    """No command: the terminal UI (imported here, so the other commands never load Textual)."""
    from memtui.tui.main import run as tui

    tui(demo=args.demo, mcp_port=None if args.no_mcp else args.port)
