"""Questions whose answer is a conversation, for bench/quality.py: "which conversation was it?".

Each story is one project's long history of sessions, written the way its people talk:

- friends chatting over months about their lives (the style of LoCoMo's dialogues), two
  people, one of them written as the user and the other as the assistant, some with each
  turn led by the speaker's name ("Nadia: ...");
- a person talking with Claude about their life, plans and errands over many sessions (the
  style of LongMemEval's chat histories);
- a developer's Claude Code sessions on one codebase over weeks, each session a task
  (bench/session_projects.py).

A session is made of its events (a few turns that carry facts: the answers) and, around them,
each speaker's everyday talk (`themes`: the subjects they return to in every session, so a
question's words recur in sessions that do not answer it) drawn with a fixed seed. A question
names the turns that answer it ("event" or "event.N" for the event's Nth turn); its answer at
the session level is any session holding one of them. Questions are 5-12 words, often a
question as a person or Claude would type it; the answers are planted, nothing else in the
haystack knows them. Stories are split whole: the held-back ones are never looked at while
tuning (`held_back`). Everything here was written for memtui; nothing is copied from a
benchmark.
"""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import corpus

NS = uuid.UUID("6a0c9a57-2b1e-4d8f-93a4-51c0e7f2d8b6")
MANIFEST = "stories.json"
VERSION = "2.1.9"
TURN_GAP_MS = 50_000


@dataclass(frozen=True, slots=True)
class Event:
    key: str
    session: int  # which session of the story holds it
    first: int  # who speaks first: 0 or 1 (`Story.people`)
    turns: tuple[str, ...]  # alternating from `first`


@dataclass(frozen=True, slots=True)
class Story:
    key: str
    cwd: str  # the project: one story, one project
    people: tuple[str, str]  # (the user's side, the assistant's side)
    named: bool  # each turn starts with its speaker's name
    start: date
    sessions: int
    themes: tuple[tuple[str, ...], tuple[str, ...]]  # each side's everyday talk
    events: tuple[Event, ...]
    questions: tuple[tuple[str, tuple[str, ...]], ...]  # (question, answering turns)
    held_back: bool
    kind: str = "story"  # "story" (prose) or "project" (Claude Code work)
    # Later mentions of an event (its key, a line its first speaker says in a later session):
    # the subject comes back without the answer, as it does when people talk for months.
    echoes: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Question:
    kind: str
    story: str
    text: str
    cwd: str
    targets: tuple[str, ...]  # uuids of the answering messages
    sessions: tuple[str, ...]  # the sessions holding them
    held_back: bool


def _id(*parts: object) -> str:
    return str(uuid.uuid5(NS, "/".join(map(str, parts))))


def session_id(story: Story, n: int) -> str:
    return _id(story.key, "session", n)


def turn_uuid(story: Story, event: str, turn: int) -> str:
    return _id(story.key, "event", event, turn)


def _targets(story: Story, ref: str) -> tuple[str, int]:
    """(uuid, session) of "event" (its first turn) or "event.N"."""
    key, _, turn = ref.partition(".")
    event = next((e for e in story.events if e.key == key), None)
    if event is None:
        raise ValueError(f"{story.key}: no event {key!r}")
    n = int(turn or 0)
    if not 0 <= n < len(event.turns):
        raise ValueError(f"{story.key}: {ref!r} has no such turn")
    return turn_uuid(story, key, n), event.session


def questions(stories: tuple[Story, ...]) -> list[Question]:
    out = []
    for story in stories:
        for text, refs in story.questions:
            found = [_targets(story, r) for r in refs]
            sessions = tuple(dict.fromkeys(session_id(story, s) for _, s in found))
            out.append(
                Question(
                    story.kind,
                    story.key,
                    text,
                    story.cwd,
                    tuple(u for u, _ in found),
                    sessions,
                    story.held_back,
                )
            )
    return out


def check(stories: tuple[Story, ...]) -> None:
    """Every reference resolves, every event has a session, questions are 4-14 words."""
    for story in stories:
        keys = [e.key for e in story.events]
        if len(set(keys)) != len(keys):
            raise ValueError(f"{story.key}: an event key twice")
        for e in story.events:
            if not 0 <= e.session < story.sessions:
                raise ValueError(f"{story.key}/{e.key}: session {e.session} out of range")
        for text, refs in story.questions:
            if not 4 <= len(text.split()) <= 14:
                raise ValueError(f"{story.key}: {text!r} is not 4-14 words")
            for ref in refs:
                _targets(story, ref)
        for key, _ in story.echoes:
            _targets(story, key)


# -- writing the sessions -------------------------------------------------------------------


def _echo_sessions(story: Story) -> dict[int, list[tuple[int, str]]]:
    """For each session, the echoes said in it (speaker, line): each in a later session than
    its event, picked with a fixed seed."""
    rng = random.Random(f"{story.key}/echoes")
    events = {e.key: e for e in story.events}
    out: dict[int, list[tuple[int, str]]] = {}
    for key, line in story.echoes:
        event = events[key]
        later = range(event.session + 1, story.sessions)
        if later:
            out.setdefault(rng.choice(later), []).append((event.first, line))
    return out


def _turns(story: Story, n: int, rng: random.Random) -> list[tuple[str, int, str]]:
    """Session n's turns: (uuid, speaker, text), alternating from the user's side. Each event
    comes with some everyday talk before it, and the session's echoes come among it; a theme
    line is used once a session."""
    used: set[str] = set()
    out: list[tuple[str, int, str]] = []
    echoes = _echo_sessions(story).get(n, [])

    def theme(speaker: int) -> None:
        echo = next((e for e in echoes if e[0] == speaker), None)
        if echo is not None and rng.random() < 0.5:
            echoes.remove(echo)
            out.append((_id(story.key, n, "echo", len(out)), speaker, echo[1]))
            return
        pool = [t for t in story.themes[speaker] if t not in used]
        line = rng.choice(pool or list(story.themes[speaker]))
        used.add(line)
        out.append((_id(story.key, n, "theme", len(out)), speaker, line))

    for _ in range(2):
        theme(0)
        theme(1)
    for event in (e for e in story.events if e.session == n):
        for _ in range(rng.randint(1, 2)):
            theme(len(out) % 2)
            theme(len(out) % 2)
        if len(out) % 2 != event.first:
            theme(len(out) % 2)
        for i, text in enumerate(event.turns):
            out.append((turn_uuid(story, event.key, i), (event.first + i) % 2, text))
    while echoes:  # the echoes not said yet, before the goodbyes
        theme(len(out) % 2)
    while len(out) % 2:
        theme(1)
    theme(0)
    theme(1)
    return out


def _iso(epoch_ms: int) -> str:
    moment = datetime.fromtimestamp(epoch_ms / 1000, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def session_lines(story: Story, n: int, start_ms: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(f"{seed}/{story.key}/{n}")
    sid = session_id(story, n)
    lines: list[dict[str, Any]] = []
    for i, (uid, speaker, text) in enumerate(_turns(story, n, rng)):
        said = f"{story.people[speaker]}: {text}" if story.named else text
        head = {
            "parentUuid": lines[-1]["uuid"] if lines else None,
            "isSidechain": False,
            "userType": "external",
            "cwd": story.cwd,
            "sessionId": sid,
            "version": VERSION,
            "gitBranch": "main",
            "uuid": uid,
            "timestamp": _iso(start_ms + TURN_GAP_MS * i),
        }
        if speaker == 0:
            lines.append({**head, "type": "user", "message": {"role": "user", "content": said}})
        else:
            message = {
                "model": "claude-sonnet-4-5-20250929",
                "id": "msg_01" + _id(uid, "msg").replace("-", "")[:22],
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": said}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 4, "output_tokens": 90},
            }
            lines.append({**head, "type": "assistant", "message": message})
    return lines


def add_stories(projects: Path, stories: tuple[Story, ...], seed: int = 0) -> None:
    """Write every session of every story as a file in its project's folder (every run)."""
    manifest = projects / MANIFEST
    if manifest.exists():
        for old in json.loads(manifest.read_text()):
            (projects / old).unlink(missing_ok=True)
    written = []
    for story in stories:
        rng = random.Random(f"{seed}/{story.key}/dates")
        day = datetime(story.start.year, story.start.month, story.start.day, tzinfo=UTC)
        at = int(day.timestamp() * 1000)
        folder = corpus.encode_project_dir(story.cwd)
        for n in range(story.sessions):
            at += rng.randint(3, 12) * 86_400_000
            start = at + rng.randint(8, 21) * 3_600_000
            rel = f"{folder}/{session_id(story, n)}.jsonl"
            path = projects / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            lines = session_lines(story, n, start, seed)
            path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines))
            written.append(rel)
    projects.mkdir(parents=True, exist_ok=True)
    manifest.write_text(json.dumps(written))
