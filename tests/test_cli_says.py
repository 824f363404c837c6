"""What the CLI says, as a person reads it: its own commands and options in its errors (never
an MCP tool's or argument's name), one similarity scale, counts that read right, columns that
line up, and hit headers a pipe gets whole."""

from __future__ import annotations

import ast
import json
import re
import shutil
from pathlib import Path

import pytest

from memtui import errors
from memtui.cli.say import NAMES as CLI_NAMES
from memtui.config import Config
from memtui.engine import Memory
from memtui.tui.format import NAMES as TUI_NAMES
from tests.cli_run import memtui, one_line_error
from tests.lines import assistant, text, user, write

MCP_NAMES = re.compile(r"get_signals|list_inferences|snooze_until|note_id|on_conflict")


def test_errors_name_the_cli_commands_and_options(cfg: Config) -> None:
    with Memory(cfg) as memory:
        memory.notes.save("Fact", "See [[Runbook]].", "past", by="person")
        past = memory.notes.save("Old", "a past note", "past", by="person").note
    (signal,) = json.loads(memtui(cfg, "signals", "--json").stdout)["signals"]
    missing = memtui(cfg, "signal", "dismiss", "999")
    assert one_line_error(missing) and "NOT_FOUND" in missing.stderr
    assert "memtui signals" in missing.stderr
    when = memtui(cfg, "signal", "snooze", str(signal["id"]), "--until", "tomorrow")
    assert one_line_error(when) and "--until" in when.stderr
    rule = memtui(cfg, "rules", "approve", str(past.id))
    assert one_line_error(rule) and f"note {past.id} is a past note" in rule.stderr
    gone = memtui(cfg, "inference", "confirm", "999")
    assert one_line_error(gone) and "memtui inferences" in gone.stderr
    for said in (missing, when, rule, gone):
        assert not MCP_NAMES.search(said.stderr), said.stderr


def test_every_name_an_engine_error_gives_has_the_cli_and_tui_words() -> None:
    """An error's message names MCP tools and arguments in backticks: each front end says
    them in its own words (a name missing here would reach the person as `snake_case`)."""
    named = set()
    package = Path(errors.__file__).parent
    for path in [*(package / "engine").rglob("*.py"), *(package / "store").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            made = isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            if isinstance(node, ast.Raise) or (made and node.func.id[0].isupper()):
                for text in ast.walk(node):
                    if isinstance(text, ast.Constant) and isinstance(text.value, str):
                        named.update(re.findall(r"`([a-z_]+)`", text.value))
    assert named >= {"get_signals", "snooze_until"}  # the scan finds them
    assert named <= CLI_NAMES.keys() and named <= TUI_NAMES.keys()
    assert not any("`" in words or "_" in words for words in TUI_NAMES.values())


def test_an_import_conflict_names_on_conflict(cfg: Config, tmp_path: Path) -> None:
    with Memory(cfg) as memory:
        note = memory.notes.save("Plan", "first", "state", by="person").note
    export = f"{tmp_path}/notes.jsonl"
    assert memtui(cfg, "export", export).returncode == 0
    with Memory(cfg) as memory:
        memory.notes.update(note.id, body="second", by="person")
    clash = memtui(cfg, "import", export)
    assert one_line_error(clash) and "--on-conflict skip" in clash.stderr, clash.stderr
    assert not MCP_NAMES.search(clash.stderr)


def test_inferences_of_a_status_none_has_say_so(cfg: Config) -> None:
    assert "no inferences yet" in memtui(cfg, "inferences").stderr
    with Memory(cfg) as memory:
        fact = memory.notes.save("Fact", "cold on Mondays", "past", by="person").note
        memory.inferences.mint("Mondays", "cold", 0.5, confirmed=True, evidence_note_ids=[fact.id])
    stale = memtui(cfg, "inferences", "--status", "stale")
    assert stale.returncode == 0 and stale.stdout == ""
    assert "no stale inferences (1 active)" in stale.stderr, stale.stderr


def test_a_similar_note_is_said_as_similarity(cfg: Config) -> None:
    body = "Deploys go out on Tuesday mornings after the checkout tests pass."
    with Memory(cfg) as memory:
        memory.notes.save("Deploy day", body, "state", by="person")
    saved = memtui(cfg, "note", "add", "--title", "Deploys", "--layer", "state", "-", stdin=body)
    assert saved.returncode == 0, saved.stderr
    said = re.search(r"similarity (\d\.\d\d)", saved.stdout)
    assert said and float(said.group(1)) > 0.9 and "distance" not in saved.stdout, saved.stdout


def test_stats_counts_notes_signals_and_inferences(cfg: Config) -> None:
    with Memory(cfg) as memory:
        fact = memory.notes.save("Fact", "See [[Runbook]].", "past", by="person").note
        memory.notes.save("Lint", "Lint first.", "rule", by="agent")
        memory.inferences.mint("M", "cold", 0.5, confirmed=True, evidence_note_ids=[fact.id])
    memtui(cfg, "signals")  # detection runs when signals are listed
    plain = memtui(cfg, "stats").stdout
    assert re.search(r"^notes +2 \(1 past, 1 rule\)", plain, re.M), plain
    assert re.search(r"^messages +0$", plain, re.M), plain  # no empty "()" of kinds
    assert re.search(r"^signals +1 new", plain, re.M), plain
    assert re.search(r"^inferences +1 \(1 active\)", plain, re.M), plain
    doc = json.loads(memtui(cfg, "stats", "--json").stdout)
    assert doc["notes"] == {"past": 1, "rule": 1}
    assert doc["signals"] == {"new": 1}
    assert doc["inferences"] == {"active": 1}


def archive(cfg: Config, project: str) -> str:
    session = "dddd5555-long"
    write(
        cfg.claude_dir / "-long" / f"{session}.jsonl",
        user("l1", "the flamingo checkout question", session, cwd=project)
        + assistant("l2", "msg_l2", text("the flamingo answer"), session, cwd=project),
    )
    assert memtui(cfg, "index").returncode == 0
    return session


def test_counts_read_as_words(cfg: Config) -> None:
    archive(cfg, "/home/dev/one")
    line = memtui(cfg, "projects").stdout
    assert " 1 session " in line and "1 sessions" not in line, line
    assert " 2 messages " in line


def test_one_of_a_count_reads_singular(cfg: Config) -> None:
    """`1 entry skipped`, `1 skipped line`, `1 session`: index and stats say one as one."""
    session = archive(cfg, "/home/dev/one")
    write(cfg.claude_dir / "-long" / f"{session}.jsonl", b"not json\n")
    (cfg.claude_dir / "-odd" / "folder.jsonl").mkdir(parents=True)  # named like a transcript
    said = memtui(cfg, "index").stderr
    assert "1 skipped line," in said, said
    assert "1 entry skipped" in said, said
    stats = memtui(cfg, "stats").stdout
    assert "(1 skipped line)" in stats and "1 entry at the last ingest" in stats, stats


def test_piped_hit_headers_are_never_wrapped(cfg: Config) -> None:
    project = "/home/dev/" + "a-very-long-project-folder-name/" * 4 + "shop"
    session = archive(cfg, project)
    out = memtui(cfg, "search", "flamingo", "--mode", "fts").stdout
    headers = [line for line in out.splitlines() if line.startswith(session[:8])]
    assert len(headers) == 2 and all(project in h and h.endswith("fts") for h in headers), out


@pytest.fixture
def indexed(cfg: Config) -> Config:
    archive(cfg, "/home/dev/one")
    return cfg


def test_doctor_lines_up_and_fails_with_a_code(indexed: Config) -> None:
    healthy = memtui(indexed, "doctor")
    assert healthy.returncode == 0, healthy.stderr
    columns = {line.index(" ok") for line in healthy.stdout.splitlines() if line.endswith(" ok")}
    assert len(columns) == 1, healthy.stdout
    shutil.rmtree(indexed.index_dir / "vectors")
    broken = memtui(indexed, "doctor")
    assert broken.returncode == 1
    assert broken.stderr.startswith("memtui: INDEX_DAMAGED: ") and "--repair" in broken.stderr
    assert len(broken.stderr.strip().splitlines()) == 1, broken.stderr
