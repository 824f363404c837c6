"""`memtui hook EVENT` and `memtui recalls`: Claude Code's hooks as commands of the parser
(`main` runs a hook before it builds one: hook_run.py) and what they told Claude."""

from __future__ import annotations

import argparse

from memtui import config
from memtui.cli import hook_run
from memtui.cli.base import JSON, Family, limit

family = Family()
family.group("hook", "Claude Code hooks (see `memtui mcp --print-config`)", actions="EVENT")


@family.command("hook session-start", "print the project's context", store=False)
def session_start(args: argparse.Namespace) -> None:
    hook_run.run("session-start")


@family.command(
    "hook prompt", "print the past conversations that answer a prompt, if any", store=False
)
def prompt(args: argparse.Namespace) -> None:
    hook_run.run("prompt")


@family.command(
    "hook tool",
    "before an Edit, Write, MultiEdit or Bash call: what the file or command went through",
    store=False,
)
def tool(args: argparse.Namespace) -> None:
    hook_run.run("tool")


@family.command(
    "recalls",
    "what the hooks told Claude: time, hook, session, text, size",
    limit(10_000, 20, "how many, the newest first"),
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
