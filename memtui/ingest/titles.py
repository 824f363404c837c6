"""A prompt as a session's title. Apart from the parser: the hooks and the engine name sessions
by their first prompt, and must not load the JSON parser to do it."""

from __future__ import annotations

import re

from memtui.store.markers import cut

# Text Claude Code or an editor adds to a prompt: never a session's title.
_SYSTEM_BLOCKS = re.compile(
    r"<(ide_selection|ide_opened_file|system-reminder|user-prompt-submit-hook|"
    r"local-command-stdout|local-command-stderr|bash-stdout|bash-stderr)>.*?(</\1>|\Z)",
    re.DOTALL,
)
_COMMAND = re.compile(r"<command-name>\s*(.*?)\s*</command-name>", re.DOTALL)
_COMMAND_ARGS = re.compile(r"<command-args>\s*(.*?)\s*</command-args>", re.DOTALL)
_BASH_INPUT = re.compile(r"<bash-input>\s*(.*?)\s*</bash-input>", re.DOTALL)
_NOT_TITLES = ("Caveat:", "[Request interrupted by user", "This session is being continued")
_WARMUP = "Warmup"  # what Claude Code sends a subagent before its task: never a title
TITLE_LIMIT = 200
# What opens a session but says nothing of it: a command that only steers Claude Code, a
# nudge to go on. The next prompt titles the session instead.
_STEERING = frozenset(
    {
        "/clear",
        "/resume",
        "/continue",
        "/compact",
        "/exit",
        "/quit",
        "/login",
        "/logout",
        "/model",
        "/config",
        "/cost",
        "/status",
        "/help",
        "/doctor",
        "/permissions",
        "/memory",
        "/mcp",
        "/hooks",
        "/agents",
        "/ide",
        "/vim",
        "/theme",
        "/context",
        "/usage",
        "/export",
        "/rewind",
    }
)
_NUDGES = frozenset(
    {
        "continue",
        "go on",
        "keep going",
        "go ahead",
        "proceed",
        "yes",
        "ok",
        "okay",
        "y",
        "please continue",
        "continue please",
        "carry on",
        "next",
    }
)


def prompt_title(text: str) -> str | None:
    """What a prompt says as a session's title, or None when it is not the person's words:
    `/init` for a command's markup, the typed part of a prompt an IDE added a selection
    to, nothing for hook output, caveats, interruptions, a subagent's "Warmup", a command
    that only steers Claude Code (`/clear`) or a nudge (`continue`)."""
    command = _COMMAND.search(text)
    if command:
        args = _COMMAND_ARGS.search(text)
        title = f"{command.group(1)} {args.group(1) if args else ''}"
    elif bash := _BASH_INPUT.search(text):
        title = "! " + bash.group(1)
    else:
        title = _SYSTEM_BLOCKS.sub(" ", text)
    title = " ".join(title.split())
    if not title or title == _WARMUP or title.startswith(_NOT_TITLES):
        return None
    if title in _STEERING or title.casefold().rstrip(".!") in _NUDGES:
        return None
    return cut(title, TITLE_LIMIT)
