"""A second agent for tests, before the real readers land: `<session>.chat` files whose first
line is the working directory and each further line `role<TAB>text`. It stands in for
Codex (a SPEC name, so filters take it), read through the same Source interface."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from memtui.ingest.reader import Unreadable
from memtui.ingest.sources import Source, registry
from memtui.store.archive import FileBatch, FileState
from memtui.store.mask import Masker
from memtui.store.records import Kind, Message

AGENT = "codex"
ENV = "MEMTUI_CODEX_DIR"


def _discover(root: Path) -> tuple[list[Path], list[str]]:
    return sorted(root.glob("*.chat")), []


def _read_file(
    root: Path, path: Path, previous: FileState | None, masker: Masker | None
) -> Iterator[FileBatch | Unreadable]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        yield Unreadable(str(path), exc.strerror or str(exc))
        return
    lines = data.decode().splitlines()
    start = previous.line if previous else 0
    cwd, session = lines[0], path.stem
    records: list[tuple[int, Message]] = []
    for number in range(max(start, 1), len(lines)):
        role, text = lines[number].split("\t", 1)
        kind = Kind.PROMPT if role == "user" else Kind.ASSISTANT
        stamp = f"2026-10-0{number % 9 + 1}T12:00:00Z"
        records.append(
            (
                number,
                Message(
                    f"{session}:{number}",
                    session,
                    role,
                    kind,
                    stamp,
                    cwd,
                    None,
                    text=masker.mask(text) if masker else text,
                    epoch=1_790_000_000 + number,
                    title=text if kind is Kind.PROMPT else None,
                ),
            )
        )
    state = FileState(str(path), offset=len(data), line=len(lines))
    yield FileBatch(state, records, cwd, agent=AGENT)


SOURCE = Source(
    agent=AGENT,
    env=ENV,
    holds="`sessions/` (as ~/.codex)",
    default_root=lambda environ: Path(environ.get("HOME", "/nonexistent")) / ".fake-codex",
    discover=_discover,
    read_file=_read_file,
    resume=lambda session_id: ["codex", "resume", session_id],
)


def only(**dirs: str) -> dict[str, str]:
    """An environment that reads the agents named (`CLAUDE=…`, `CODEX=…`, or `off`) and
    turns every other reader off: no test reads the agents' folders this machine has."""
    off = {source.env: "off" for source in registry.SOURCES.values()}
    return off | {f"MEMTUI_{name}_DIR": value for name, value in dirs.items()}


def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake reader listed beside Claude Code's."""
    monkeypatch.setitem(registry.SOURCES, AGENT, SOURCE)


def write_chat(root: Path, session: str, cwd: str, *turns: tuple[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    path = root / f"{session}.chat"
    body = "".join(f"{role}\t{text}\n" for role, text in turns)
    path.write_text(f"{cwd}\n{body}")
    os.utime(path)
    return path
