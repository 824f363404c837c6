"""The OpenCode reader against the Claude Code reader on the same conversations.

    python bench/bench_opencode.py [--exchanges 1000] [--short] [--mask] [--profile READER]
    valgrind --tool=callgrind python bench/bench_opencode.py --once READER  # and --once none

Writes the same conversations once as Claude Code JSONL (one line per content block, the tool
result with its `toolUseResult` copy as Claude Code writes it; --lean: without the copy) and
once as an OpenCode `opencode.db` (tests/agents/opencode_files.py's layout: a user message with
its text part, an answer with step markers, reasoning, text and a completed tool, then the
closing answer), then reads each cold through its reader, masking off unless --mask. The figure
is CPU seconds (`time.process_time`: steadier than wall time on a shared machine), each
reader's best of --runs taken in turns, and the records a second it gives; both readers yield
the same records, six an exchange. Long texts (the default): prompts of 1-3 KB, answers of
several KB of prose and code, tool outputs of 10-50 KB; --short: a few hundred bytes.

On a machine too busy for steady CPU times, count instructions instead: --once reads with one
reader once (`none`: only the setup, to subtract) under callgrind.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import shutil
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memtui.ingest import reader
from memtui.ingest.sources import opencode
from memtui.store.archive import FileBatch
from memtui.store.mask import Masker
from tests.agents import opencode_files as oc

_PROSE = (
    "the checkout test reads wall clock before fixture freezes time so retries pass locally "
    "but fail under load because scheduler delays worker queue session cache token refresh "
    "handler returns stale value when database connection pool drains after migration runs"
)
_WORDS = _PROSE.split()
_SESSIONS = 40


def prose(rng: random.Random, size: int) -> str:
    out: list[str] = []
    length = 0
    while length < size:
        sentence = " ".join(rng.choices(_WORDS, k=rng.randint(6, 18))).capitalize() + ". "
        out.append(sentence)
        length += len(sentence)
    return "".join(out)


def code(rng: random.Random, size: int) -> str:
    lines: list[str] = []
    length = 0
    while length < size:
        a, b = rng.sample(_WORDS, 2)
        line = rng.choice(
            (
                f"def {a}_{b}(value: int) -> int:",
                f"    return {a}.get('{b}', value) + {rng.randint(0, 999)}",
                f"    if {a} is None:  # {b}",
                f'        raise ValueError("{a} {b}")',
                f"{a} = {{'{b}': [{rng.randint(0, 99)}, {rng.randint(0, 99)}]}}",
            )
        )
        lines.append(line)
        length += len(line) + 1
    return "\n".join(lines)


def answer(rng: random.Random, size: int) -> str:
    if size < 1000:
        return prose(rng, size)
    half = size // 2
    return f"{prose(rng, half)}\n\n```python\n{code(rng, half)}\n```\n{prose(rng, 200)}"


def tool_output(rng: random.Random, size: int) -> str:
    rows = []
    length = 0
    while length < size:
        row = f"tests/test_{rng.choice(_WORDS)}.py:{rng.randint(1, 900)}: {prose(rng, 60)}"
        rows.append(row)
        length += len(row) + 1
    return "\n".join(rows)


def exchanges(n: int, long: bool, seed: int = 7) -> list[dict[str, str]]:
    rng = random.Random(seed)
    sizes = (
        {"prompt": (1000, 3000), "thinking": (1000, 3000), "text": (3000, 8000),
         "output": (10_000, 50_000), "final": (2000, 5000)}
        if long
        else {"prompt": (80, 300), "thinking": (100, 400), "text": (100, 500),
              "output": (200, 2000), "final": (100, 400)}
    )  # fmt: skip
    out = []
    for _ in range(n):
        size = {k: rng.randint(*v) for k, v in sizes.items()}
        out.append(
            {
                "prompt": prose(rng, size["prompt"]),
                "thinking": prose(rng, size["thinking"]),
                "text": answer(rng, size["text"]),
                "command": f"pytest tests/test_{rng.choice(_WORDS)}.py -x",
                "output": tool_output(rng, size["output"]),
                "final": answer(rng, size["final"]),
            }
        )
    return out


# -- Claude Code JSONL -------------------------------------------------------------------------


class _Transcript:
    """One Claude Code session's lines, each chained to the one before."""

    def __init__(self, session: str, first: int) -> None:
        self.session, self.n = session, first
        self.parent: str | None = None
        self.lines: list[str] = []

    def line(self, kind: str, message: dict[str, object], **extra: object) -> None:
        self.n += 1
        uuid = f"{self.n:08x}-1111-4111-8111-111111111111"
        d = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": "/work/shop",
            "sessionId": self.session,
            "version": "2.0.14",
            "gitBranch": "main",
            "type": kind,
            "message": message,
            **extra,
            "uuid": uuid,
            "timestamp": time.strftime(
                "%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(1_750_000_000 + self.n)
            ),
        }
        self.lines.append(json.dumps(d, separators=(",", ":")))
        self.parent = uuid

    def assistant(self, msg_id: str, block: dict[str, object]) -> None:
        message: dict[str, object] = {
            "model": "claude-sonnet-4-5",
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 4, "output_tokens": 900},
        }
        self.line("assistant", message, requestId=f"req_{msg_id}")


def write_claude(root: Path, convo: list[dict[str, str]], copies: bool) -> list[Path]:
    folder = root / "-work-shop"
    folder.mkdir(parents=True)
    files = []
    per = len(convo) // _SESSIONS
    n = 0
    for s in range(_SESSIONS):
        t = _Transcript(f"5e55{s:04d}-0000-4000-8000-000000000000", n)
        for e in convo[s * per : (s + 1) * per]:
            t.line("user", {"role": "user", "content": e["prompt"]})
            msg, call = f"msg_{t.n:020d}", f"toolu_{t.n:020d}"
            t.assistant(msg, {"type": "thinking", "thinking": e["thinking"], "signature": "x" * 40})
            t.assistant(msg, {"type": "text", "text": e["text"]})
            command = {"command": e["command"]}
            t.assistant(msg, {"type": "tool_use", "id": call, "name": "Bash", "input": command})
            result = {"type": "tool_result", "tool_use_id": call, "content": e["output"]}
            tur = {"stdout": e["output"], "stderr": "", "interrupted": False, "isImage": False}
            extra = {"toolUseResult": tur} if copies else {}
            t.line("user", {"role": "user", "content": [result]}, **extra)
            t.assistant(f"msg_{t.n:020d}", {"type": "text", "text": e["final"]})
        n = t.n
        path = folder / f"{t.session}.jsonl"
        path.write_text("\n".join(t.lines) + "\n")
        files.append(path)
    return files


# -- OpenCode's database -----------------------------------------------------------------------


def write_opencode(root: Path, convo: list[dict[str, str]]) -> Path:
    ids = oc.Ids()
    sessions = []
    per = len(convo) // _SESSIONS
    at = oc.T0
    for s in range(_SESSIONS):
        session = oc.Session(ids("ses"), "/work/shop", f"Session {s}", created=at, updated=at)
        for e in convo[s * per : (s + 1) * per]:
            at += 10_000
            command = {"command": e["command"]}
            m = oc.user(ids, session, at, oc.text(e["prompt"]))
            oc.assistant(
                ids,
                session,
                at + 1000,
                m,
                oc.step_start(),
                oc.reasoning(e["thinking"], at + 1100),
                oc.text(e["text"], at + 1200),
                oc.tool("bash", f"toolu_{at}", command, "completed", at + 1300, e["output"]),
                oc.step_finish(),
            )
            oc.assistant(
                ids,
                session,
                at + 2000,
                m,
                oc.step_start(),
                oc.text(e["final"], at + 2100),
                oc.step_finish(),
            )
        session.updated = at
        sessions.append(session)
    conn = oc.open_db(root)
    oc.write_db(conn, *sessions)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return root / "opencode.db"


# -- timing ------------------------------------------------------------------------------------


def read_all(
    read_file: Callable[..., Iterable[object]], root: Path, paths: list[Path], masker: Masker
) -> int:
    records = 0
    for path in paths:
        for batch in read_file(root, path, None, masker):
            assert isinstance(batch, FileBatch), batch
            records += sum(1 for number, _ in batch.records if number)
    return records


def best(runs: int, *readers: Callable[[], int]) -> list[tuple[float, int]]:
    """Each reader's least CPU seconds over `runs` and its records; the readers take turns,
    so a busy moment on a shared machine weighs on both."""
    times: list[list[float]] = [[] for _ in readers]
    records = [0] * len(readers)
    for _ in range(runs):
        for i, work in enumerate(readers):
            started = time.process_time()
            records[i] = work()
            times[i].append(time.process_time() - started)
    return [(min(t), n) for t, n in zip(times, records, strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exchanges", type=int, default=1000)
    parser.add_argument("--short", action="store_true", help="short texts")
    parser.add_argument("--mask", action="store_true", help="mask secrets (off by default)")
    parser.add_argument(
        "--lean", action="store_true", help="Claude Code's tool results without toolUseResult"
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", choices=("claude", "opencode"))
    parser.add_argument("--once", choices=("claude", "opencode", "none"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/memtui-bench-opencode"))
    args = parser.parse_args()

    texts = "short" if args.short else "long"
    tree = args.work / f"{texts}-{args.exchanges}{'-lean' if args.lean else ''}"
    claude_root, opencode_root = tree / "claude", tree / "opencode"
    if not (tree / "done").exists():
        shutil.rmtree(tree, ignore_errors=True)
        convo = exchanges(args.exchanges, not args.short)
        write_claude(claude_root, convo, copies=not args.lean)
        write_opencode(opencode_root, convo)
        (tree / "done").touch()
    claude_files = sorted(claude_root.glob("*/*.jsonl"))
    database = opencode_root / "opencode.db"
    masker = Masker(b"k" * 32) if args.mask else Masker(enabled=False)

    def claude() -> int:
        return read_all(reader.read_file, claude_root, claude_files, masker)

    def opencode_db() -> int:
        return read_all(opencode.read_file, opencode_root, [database], masker)

    if args.once:
        readers = {"claude": claude, "opencode": opencode_db, "none": lambda: 0}
        print(f"{args.once}: {readers[args.once]():,} records")
        return
    if args.profile:
        work = claude if args.profile == "claude" else opencode_db
        profile = cProfile.Profile()
        profile.runcall(work)
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)
        return

    size = sum(p.stat().st_size for p in claude_files) / 1e6
    print(
        f"{args.exchanges} exchanges, {texts} texts{' (lean)' if args.lean else ''}, masking "
        f"{'on' if args.mask else 'off'}; Claude JSONL {size:.0f} MB, "
        f"opencode.db {database.stat().st_size / 1e6:.0f} MB; CPU s, best of {args.runs}"
    )
    (c_seconds, c_records), (o_seconds, o_records) = best(args.runs, claude, opencode_db)
    c_rate, o_rate = c_records / c_seconds, o_records / o_seconds
    print(f"claude-code: {c_seconds:.3f} s, {c_records:,} records, {c_rate:,.0f}/s")
    print(
        f"opencode:    {o_seconds:.3f} s, {o_records:,} records, {o_rate:,.0f}/s "
        f"({o_rate / c_rate:.0%} of Claude Code's)"
    )


if __name__ == "__main__":
    main()
