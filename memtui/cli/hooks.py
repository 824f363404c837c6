"""`memtui hook EVENT`: Claude Code's hooks. A session waits for them, so `main` runs one
before it builds the parser (`run_early`), and this module loads no more than they need:
SQLite, Tantivy and the engine's data types, never numpy, the vectors, the model, MCP or
Textual. engine/recall.py decides what a hook says; this only reads stdin and prints."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping

from memtui import config
from memtui.cli.base import JSON, Family, arg, whole

family = Family()
family.group("hook", "Claude Code hooks (see `memtui mcp --print-config`)", actions="EVENT")


def _never_fail(name: str, say: Callable[[config.Config, Mapping[str, object]], str]) -> None:
    """A Claude Code hook must never fail the session: whatever goes wrong (a bad setting,
    a broken or locked data dir) prints nothing, exits 0 and leaves the reason in the log."""
    import logging

    from memtui.engine import recall

    config.setup_logging(config.log_dir())
    try:
        text = say(config.load(), recall.payload(sys.stdin.read(recall.MAX_INPUT)))
    except Exception:
        logging.getLogger("memtui.hook").exception("%s hook printed nothing", name)
        return
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # no one reads: nothing to say, and no traceback at exit
        from memtui.cli import drop_stdout

        drop_stdout()


@family.command("hook session-start", "print the project's context", store=False)
def session_start(args: argparse.Namespace) -> None:
    from memtui.engine import hook

    _never_fail("session-start", hook.session_start)


@family.command(
    "hook prompt", "print the past conversations that answer a prompt, if any", store=False
)
def prompt(args: argparse.Namespace) -> None:
    from memtui.engine import recall

    _never_fail("prompt", recall.prompt)


@family.command(
    "hook tool",
    "before an Edit, Write, MultiEdit or Bash call: what the file or command went through",
    store=False,
)
def tool(args: argparse.Namespace) -> None:
    from memtui.engine import recall

    _never_fail("tool", recall.tool)


@family.command(
    "recalls",
    "what the hooks told Claude: time, hook, session, text, size",
    arg("--limit", type=whole(1, 10_000), default=20, help="how many, the newest first (20)"),
    JSON,
    store=False,
)
def recalls(args: argparse.Namespace) -> None:
    from memtui.cli.say import print_json, say
    from memtui.engine import recall
    from memtui.engine.types import to_dict

    said = recall.recent(config.load(), args.limit)
    if args.json:
        print_json([to_dict(r) for r in said])
        return
    if not said:
        say("no recalls yet: the hooks have said nothing (see `memtui mcp --print-config`)")
    for r in said:
        hook = recall.HOOK_NAMES.get(r.hook, r.hook)
        say(f"{r.at}  {hook:<13}  session {r.session_id}  {r.chars:,} characters")
        say("".join(f"    {line}\n" for line in r.text.rstrip("\n").splitlines()))


def run_early(event: str) -> bool:
    """Run the hook for `event` (`memtui hook EVENT`, nothing more given); False when there
    is none (the parser then says so)."""
    for command in family.commands:
        if command.name == f"hook {event}" and command.run is not None:
            command.run(argparse.Namespace())
            return True
    return False
