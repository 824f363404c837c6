"""What a person does with a session: resume it in the agent that wrote it, copy it, export
it.

The checks are plain functions so the messages a person sees are tested on their own.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from memtui.engine import AGENT_NAMES, SessionInfo, resume_argv, short_id


class CannotResume(Exception):
    """Why the agent's resume (`claude --resume`, `codex resume` …) cannot start: shown as
    it is."""


@dataclass(frozen=True, slots=True)
class ResumePlan:
    argv: list[str]
    cwd: Path


def resume_plan(info: SessionInfo) -> ResumePlan:
    """How to reopen the session in the agent that wrote it, in its project."""
    argv = resume_argv(info.agent, info.session_id)
    name = AGENT_NAMES[info.agent]
    program = shutil.which(argv[0])
    if program is None:  # the command on a line of its own: no backtick wraps alone
        raise CannotResume(
            f"`{argv[0]}` is not on PATH: install {name}, or run this where it is:\n"
            f"cd {shlex.quote(info.project)} && {shlex.join(argv)}"
        )
    cwd = Path(info.project)
    if not cwd.is_dir():
        raise CannotResume(
            f"{info.project} is gone: {name} resumes a session in its own directory "
            "(restore or recreate it, then resume again)"
        )
    return ResumePlan([program, *argv[1:]], cwd)


def export_name(info: SessionInfo) -> str:
    """A file name a person recognises: the title's words and the id's start."""
    words = re.sub(r"[^A-Za-z0-9]+", "-", info.title.lower()).strip("-")[:48].rstrip("-")
    return f"{words or 'session'}-{short_id(info.session_id)}.md"


def export_folder() -> Path:
    """Where an export goes unless told: the Downloads folder, else the home folder. Never
    the current directory: memtui launched from a repository would write a session's text
    into it."""
    downloads = Path(platformdirs.user_downloads_dir())
    return downloads if downloads.is_dir() else Path.home()


def export_target(typed: str, info: SessionInfo) -> Path:
    """Where an export goes: a folder (one that exists, or a path ending in `/`) gets a file
    named after the session; anything else is the file itself."""
    path = Path(typed).expanduser()
    if typed.endswith(("/", os.sep)) or path.is_dir():
        return path / export_name(info)
    return path


def export(markdown: str, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(markdown, encoding="utf-8")
    return target


def tmux_clipboard() -> str | None:
    """Under tmux, why a copy may never reach the system clipboard (tmux passes the
    terminal's clipboard sequence on only with `set-clipboard` on or external); None when
    not under tmux or when tmux passes it."""
    if not os.environ.get("TMUX") or shutil.which("tmux") is None:
        return None
    try:
        shown = subprocess.run(
            ["tmux", "show-options", "-gv", "set-clipboard"],
            capture_output=True,
            text=True,
            timeout=2,
            check=False,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        shown = ""
    if shown in ("on", "external"):
        return None
    return f"tmux's set-clipboard is {shown or 'unknown'}"


def tmux_buffer(text: str) -> bool:
    """Put `text` in tmux's paste buffer (prefix ] pastes it); whether that worked."""
    try:
        done = subprocess.run(
            ["tmux", "load-buffer", "-"], input=text, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0
