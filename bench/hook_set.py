"""Labelled prompts for the prompt hook, over a 200k-message archive: does it speak when the
past answers, name a conversation that does, and stay quiet when nothing is behind a prompt?

    python bench/hook_set.py [--work /tmp/memtui-hooks] [--messages 200000] [--grid]
        [--timed 100] [--timed-only]

The archive: bench/corpus.py's 200,000 generated messages (8 projects), bench/quality.py's
needles and natural conversations in them, and bench/session_set.py's stories (six prose
histories, two Claude Code projects), indexed once under `--work` and kept.

- `answered`: prompts whose answer is in an earlier conversation, each asked as a new session
  in its conversation's project: the stories' and projects' questions (prose, technical,
  several sessions), the natural questions and the lexical ones of bench/quality.py (a
  person's words about a past change). Their paraphrases are scored apart: written not to
  share the answer's words, they are what the lean path's full text cannot find.
- `unrelated`: ordinary coding requests with nothing behind them, asked in every project of
  the archive in turn (the generated projects' talk shares their vocabulary: auth, caching,
  migrations, React...).

Each is split into a tuning and a held-back part (the stories whole, the others by their
sets' split, the requests every other one); `--grid` tries the gate's thresholds on the
tuning part and prints the best; the report gives both parts. A prompt speaks when the gate
passes a hit; it is right when a conversation shown holds the answer. Then `--timed` prompts
(answered and unrelated, alternately) are run as Claude Code runs the hooks, `memtui hook
prompt`, `tool` and `session-start` as processes with the JSON on stdin, each in a session of
its own, first alone and then with a `memtui mcp` serving the data dir: p50 / p95 from process
start to exit (targets at 200k: p95 <= 150 ms for the prompt hook and the session start, 100
ms for the tool hook).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import natural_set
import quality
import quality_sessions
import session_set
from quality_set import HELD_BACK, NEEDLES

from memtui.engine import recall

MESSAGES = 200_000
KINDS = ("story", "project", "natural", "lexical", "paraphrase", "unrelated")
ANSWERED = ("story", "project", "natural", "lexical")

UNRELATED = (
    "add a --dry-run flag to the export command that prints what it would write",
    "the navbar overlaps the page title on small screens, fix the css",
    "write a unit test for the slugify helper with unicode input",
    "rename the UserCard component to ProfileCard and update the imports",
    "bump the eslint config to the flat config format",
    "can you add pagination to the admin orders table? 50 per page",
    "make the CSV importer skip the header row when it starts with a BOM",
    "add a health check endpoint that returns the git commit of the build",
    "convert this callback-based file reader to async/await",
    "the dark mode toggle forgets its state after a reload, store it in localStorage",
    "add type hints to the geometry module and make mypy pass",
    "write a Makefile target that runs the linters and the tests",
    "replace moment.js with date-fns in the calendar widget",
    "add an index on orders.customer_email, lookups by email are slow",
    "generate an OpenAPI spec for the newsletter endpoints",
    "the progress bar jumps back to zero when a chunk upload retries",
    "split the 900-line utils file into modules by topic",
    "add a Dockerfile for the docs site with nginx serving the static build",
    "implement a debounce on the search box, 300 ms",
    "the thumbnail generator crops portrait photos badly, keep the faces centred",
    "add a CONTRIBUTING.md that explains how to run the project locally",
    "write a script that finds unused translation keys in the locale files",
    "why is the bundle 4 MB? find the biggest dependencies",
    "add keyboard shortcuts for next and previous image in the gallery",
    "make the retry decorator accept a list of exceptions to retry on",
    "the footer links open in the same tab, make external ones open a new tab",
    "add a cron job that deletes expired password reset links every night",
    "write a migration that splits full_name into first_name and last_name",
    "set up pre-commit with black, isort and a trailing whitespace check",
    "the weather widget shows Fahrenheit for users in Germany, use their locale",
    "add an ETag header to the product images endpoint",
    "refactor the shopping cart reducer to use immer",
    "write a benchmark for the markdown renderer with a 1 MB document",
    "add a loading skeleton to the profile page instead of the spinner",
    "the PDF export cuts the last table row across pages, keep rows whole",
    "implement soft delete for comments with a deleted_at column",
    "add a GitHub Actions workflow that publishes the package on a tag",
    "the chat messages are not escaped, a message with <b> renders bold",
    "add an environment variable to choose the log format, json or text",
    "make the sidebar collapsible and remember it per user",
    "write a CLI command that exports the audit log as CSV for a date range",
    "add rate limiting to the contact form, 5 submissions an hour per IP",
    "the image upload accepts SVG files, reject them for security",
    "add Storybook stories for the Button and Modal components",
    "port the bash deploy script to Python with argparse",
    "the search results page flickers when the query changes, keep the old results until the "
    "new ones arrive",
    "add an option to sort the product list by rating",
    "write an integration test for the signup flow with a fake mail server",
    "show a confirmation dialog before deleting a project",
    "add support for .yml as well as .yaml config files",
    "the invoice total rounds wrong for 3 items at 0.1 each, use decimals",
    "add a /version route to the API that returns the package version",
    "create a seed script that fills the dev database with 100 fake users",
    "make the table header sticky when scrolling",
    "add a copy-to-clipboard button to the code blocks in the docs",
    "the timezone dropdown lists 400 zones, group them by region",
    "write a GraphQL resolver for the author field of a post",
    "add an .editorconfig with 4 spaces for Python and 2 for JS",
    "the email template looks broken in Outlook, use tables for the layout",
    "convert the settings page from class components to hooks",
    "add a feature flag to hide the beta reports tab",
    "the file watcher misses files created in new subfolders",
    "add a progress percentage to the video transcoding job status",
    "write a function that merges two sorted linked lists",
    "the map markers overlap at low zoom, cluster them",
    "add a README badge for the test coverage",
    "make the avatar upload resize images to 256x256 before saving",
    "add OpenTelemetry tracing to the checkout handler",
    "the autocomplete dropdown closes when I click its scrollbar",
    "write a data class for the shipping address with validation",
    "add a print stylesheet for the recipe pages",
    "implement undo for the last delete in the notes app",
    "the leaderboard query does a full table scan, look at the plan",
    "add a changelog generator from conventional commits",
    "make the modal close on escape and trap focus inside it",
    "add Spanish translations for the onboarding screens",
    "write a parser for the vendor's fixed-width bank statement format",
    "the cookie banner shows again on every page, remember the choice",
    "add a webhook that posts to Slack when a build on main fails",
    "replace the hand-written SQL in the reports module with the query builder",
    "the countdown timer drifts by a second every minute",
    "add a sitemap.xml generated from the blog posts",
    "make the tests run in random order and fix the ones that depend on order",
    "add two-factor setup with TOTP and recovery codes",
    "the drag and drop reordering does not work on touch devices",
    "write a small LRU cache class with a max size and tests",
    "add infinite scroll to the activity feed",
    "the build fails on Windows because of the path separator in the copy script",
    "add an API endpoint to upload a profile banner image",
    "create a dashboard chart of signups per week",
    "make the password field show a strength meter",
    "add a graceful shutdown that finishes in-flight jobs on SIGTERM",
    "the calendar shows Sunday first, make Monday the first day for EU users",
    "write docs for the plugin system with one example plugin",
    "add an admin action to impersonate a user, logged in the audit trail",
    "the scroll position resets when going back to the list, restore it",
    "add fuzz tests for the URL parser",
    "make the tooltip position flip when it would go off screen",
    "add a nightly job that vacuums the analytics tables",
    "convert the config from INI to TOML and keep reading the old file for a release",
    "add a 'remember me' checkbox to the login form with a 30 day session",
    "the game loop stutters when many sprites are on screen, profile it",
    "add a search filter for tags on the bookmarks page",
    "write a script to rotate the log files older than a week into gzip",
    "show the number of unread notifications in the browser tab title",
    "add an accessibility audit to CI with axe",
    "the music player skips the last second of each track",
    "add unit tests for the tax calculation with edge cases at bracket limits",
    "implement a simple feature to export a board as PNG",
    "make the API return 404 instead of 500 when a slug is unknown",
    "add a typing indicator to the chat window",
)


@dataclass(frozen=True, slots=True)
class Prompt:
    kind: str
    text: str
    cwd: str
    targets: tuple[str, ...]  # uuids of the answering messages
    sessions: tuple[str, ...]  # the sessions holding them (empty: looked up in the store)
    held_back: bool


def prompts() -> list[Prompt]:
    out = []
    for q in session_set.questions(quality_sessions.STORIES):
        out.append(Prompt(q.kind, q.text, q.cwd, q.targets, q.sessions, q.held_back))
    for needle in NEEDLES:
        held = needle.key in HELD_BACK
        for kind in ("lexical", "paraphrase"):
            for text in quality.queries(needle, kind):
                out.append(Prompt(kind, text, needle.cwd, (quality.target_uuid(needle),), (), held))
    for i, conv in enumerate(natural_set.CONVERSATIONS):
        for text, turn in conv.questions:
            target = natural_set.turn_uuid(conv, turn)
            out.append(Prompt("natural", text, conv.cwd, (target,), (), bool(i % 2)))
    return out


def unrelated(cwds: list[str]) -> list[Prompt]:
    return [
        Prompt("unrelated", text, cwds[i % len(cwds)], (), (), bool(i % 2))
        for i, text in enumerate(UNRELATED)
    ]


def build(work: Path, messages: int) -> Path:
    """The archive's data dir, indexed once (its index log marks it finished)."""
    data = work / f"data-{messages}"
    if (data / "built").exists():
        return data
    projects = quality.haystack(work, messages, 0)
    quality.add_needles(projects)
    natural_set.add_conversations(projects, 0)
    session_set.add_stories(projects, quality_sessions.STORIES)
    subprocess.run(
        [sys.executable, "-m", "memtui", "index", "--source", str(projects)],
        env={**os.environ, "MEMTUI_DATA_DIR": str(data)},
        check=True,
    )
    (data / "built").write_text("")
    return data


@dataclass(slots=True)
class Asked:
    prompt: Prompt
    hits: list[recall.Hit]
    answers: set[str]  # sessions holding an answer


def ask_all(data: Path, asked: list[Prompt]) -> list[Asked]:
    """Every prompt's candidates, from the hook's own search, in one process."""
    from memtui.engine.places import projects_at
    from memtui.store import db, fts

    conn = db.read_only(data / "memtui.db", 1000)
    index = fts.FullText(data / "index" / fts.FTS_DIR, fts.FTS_PARTITIONS)
    out = []
    for p in asked:
        session = str(uuid.uuid4())
        hits = recall.candidates(conn, index, p.text, p.cwd, {session})
        answers = set(p.sessions)
        if not answers and p.targets:
            marks = ",".join("?" * len(p.targets))
            answers = {
                r[0]
                for r in conn.execute(
                    f"SELECT session_id FROM messages WHERE uuid IN ({marks})", p.targets
                )
            }
        assert p.kind == "unrelated" or answers, p
        assert projects_at(conn, p.cwd), p.cwd
        out.append(Asked(p, hits, answers))
    return out


def score(asked: list[Asked], cover: float, evidence: float, others: float) -> dict[str, tuple]:
    """Per kind: (prompts, spoke, right when it spoke)."""
    recall.COVER, recall.EVIDENCE, recall.OTHERS = cover, evidence, others
    out: dict[str, list[int]] = {}
    for a in asked:
        chosen = recall.gate(a.hits, set())
        row = out.setdefault(a.prompt.kind, [0, 0, 0])
        row[0] += 1
        if chosen:
            row[1] += 1
            row[2] += any(h.session_id in a.answers for h in chosen)
    return {k: tuple(v) for k, v in out.items()}


def summary(rows: dict[str, tuple]) -> tuple[float, float, float]:
    """(speaks on answered, right when it speaks, speaks on unrelated)."""
    n = sum(rows[k][0] for k in ANSWERED if k in rows)
    spoke = sum(rows[k][1] for k in ANSWERED if k in rows)
    right = sum(rows[k][2] for k in ANSWERED if k in rows)
    un = rows.get("unrelated", (1, 0, 0))
    return spoke / max(n, 1), right / max(spoke, 1), un[1] / max(un[0], 1)


def report(label: str, rows: dict[str, tuple]) -> None:
    print(f"\n{label}")
    print("| kind | prompts | speaks | right when it speaks |")
    print("| --- | ---: | ---: | ---: |")
    for kind in KINDS:
        if kind in rows:
            n, spoke, right = rows[kind]
            print(f"| {kind} | {n} | {spoke / n:.0%} | {right / max(spoke, 1):.0%} |")
    speak, right, noise = summary(rows)
    print(f"answered sets together: speaks {speak:.1%}, right {right:.1%}; unrelated {noise:.1%}")


def timed(data: Path, asked: list[Prompt], count: int) -> None:
    """The three hooks as Claude Code runs them, a process each with the JSON on stdin: wall
    time from process start to exit, and CPU; first with no memtui running (the hook works
    alone), then with a `memtui mcp` serving the data dir (the hook asks it,
    engine/hookline.py). `count` prompts, answered and unrelated in turn, each in a session
    of its own; the tool hook (an Edit) and the session start in the prompts' projects."""
    answered = [p for p in asked if p.kind in ANSWERED]
    others = [p for p in asked if p.kind == "unrelated"]
    picked = [p for pair in zip(answered[::3], others, strict=False) for p in pair][:count]
    # Bytecode cached, as an installed package has it (a sandbox may set
    # PYTHONDONTWRITEBYTECODE: then every start compiles memtui again, 70 ms of it).
    env = {
        **os.environ,
        "MEMTUI_DATA_DIR": str(data),
        "PYTHONPYCACHEPREFIX": str(data.parent / "pycache"),
    }
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    bare = []
    for _ in range(20):  # the interpreter's own start on this machine now, for scale
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare.append((time.perf_counter() - start) * 1000)
    bare.sort()
    print(f"\n`python -c pass`: p50 {bare[10]:.0f} ms, p95 {bare[19]:.0f} ms", end="")
    print(f"; load average {os.getloadavg()[0]:.1f}")
    _time_hooks("no memtui running", picked, env)
    with _serving(env, data.parent / "serving-home"):
        _time_hooks("a `memtui mcp` serving the data dir", picked, env)


def _events(p: Prompt) -> dict[str, dict[str, object]]:
    """What Claude Code sends each hook in a new session of `p`'s project."""
    base = {
        "session_id": str(uuid.uuid4()),
        "transcript_path": "/tmp/none.jsonl",
        "cwd": p.cwd,
        "permission_mode": "default",
    }
    return {
        "prompt": {**base, "hook_event_name": "UserPromptSubmit", "prompt": p.text},
        "tool": {
            **base,
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "tool_input": {"file_path": f"{p.cwd}/src/app.py"},
        },
        "session-start": {**base, "hook_event_name": "SessionStart", "source": "startup"},
    }


def _time_hooks(label: str, picked: list[Prompt], env: dict) -> None:
    events = [_events(p) for p in picked]  # new sessions: a hook says a thing once in each
    print(f"{label}, {len(events)} runs a hook:")
    for hook in ("prompt", "tool", "session-start"):
        times, cpu, spoke = [], [], 0
        for event in events:
            used = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "memtui", "hook", hook],
                input=json.dumps(event[hook]),
                capture_output=True,
                text=True,
                env=env,
                check=True,
            )
            times.append((time.perf_counter() - start) * 1000)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append((after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime) * 1000)
            spoke += bool(done.stdout)
        times.sort()
        cpu.sort()
        p95 = min(len(times) - 1, int(len(times) * 0.95))
        print(
            f"  hook {hook}: wall p50 {times[len(times) // 2]:.0f} / p95 {times[p95]:.0f} ms;"
            f" CPU p50 {cpu[len(cpu) // 2]:.0f} / p95 {cpu[p95]:.0f} ms; {spoke} spoke"
        )


@contextmanager
def _serving(env: dict, home: Path) -> Iterator[None]:
    """A `memtui mcp` on the data dir, as a Claude Code window runs one, until its socket
    answers; its HOME empty, so that it follows no agent's files while it is timed."""
    home.mkdir(exist_ok=True)
    data = Path(env["MEMTUI_DATA_DIR"])
    server = subprocess.Popen(
        [sys.executable, "-m", "memtui", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        env={**env, "HOME": str(home)},
    )
    try:
        while not (data / "hooks" / f"{server.pid}.sock").exists():
            if server.poll() is not None:
                raise SystemExit("memtui mcp ended before it served the hooks")
            time.sleep(0.05)
        yield
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(60)


def _cwds(data: Path) -> list[str]:
    from memtui.store import db

    conn = db.read_only(data / "memtui.db", 1000)
    return sorted(r[0] for r in conn.execute("SELECT path FROM projects"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--work", type=Path, default=Path("/tmp/memtui-hooks"))
    parser.add_argument("--messages", type=int, default=MESSAGES)
    parser.add_argument("--grid", action="store_true")
    parser.add_argument("--timed", type=int, default=100)
    parser.add_argument("--timed-only", action="store_true", help="skip the labelled scoring")
    args = parser.parse_args()
    data = build(args.work, args.messages)
    if args.timed_only:
        timed(data, [*prompts(), *unrelated(_cwds(data))], args.timed)
        return
    asked = ask_all(data, [*prompts(), *unrelated(_cwds(data))])
    tuning = [a for a in asked if not a.prompt.held_back]
    held = [a for a in asked if a.prompt.held_back]
    chosen = (recall.COVER, recall.EVIDENCE, recall.OTHERS)
    if args.grid:
        best = None
        for cover, evidence, others in itertools.product(
            (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8),
            (8.0, 10.0, 12.0, 14.0, 16.0, 18.0, 20.0, 24.0),
            (0.7, 0.8, 0.85, 0.9, 1.0, 9.0),
        ):
            speak, right, noise = summary(score(tuning, cover, evidence, others))
            if right >= 0.85 and noise <= 0.05:
                key = (speak, right, -noise)
                if best is None or key > best[0]:
                    best = (key, (cover, evidence, others))
        print("best on the tuning part (right >= 85 %, unrelated <= 5 %):", best)
    report(f"tuning part, gate {chosen}", score(tuning, *chosen))
    report(f"held-back part, gate {chosen}", score(held, *chosen))
    report(f"both parts, gate {chosen}", score(asked, *chosen))
    timed(data, [a.prompt for a in asked], args.timed)


if __name__ == "__main__":
    main()
