"""Signals and inferences on the real store, indexes and model: each detector fires on a
constructed set and stays quiet on near misses; triage and staleness behave."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memtui.config import Config
from memtui.engine import InvalidArgument, Memory, Note, NotFound, detect, errortext
from memtui.engine.errortext import signatures
from memtui.engine.signal_types import SIGNAL_TYPES
from memtui.errors import NotConfirmed
from memtui.store import db
from tests import lines


def ago(days: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).isoformat(timespec="microseconds")


def note(
    note_id: int,
    title: str,
    body: str,
    *,
    folder: str = "",
    days: float = 0,
    layer: str = "past",
    tags: list[str] | None = None,
    source: str | None = None,
) -> Note:
    t = ago(days)
    status = "approved" if layer == "rule" else None
    return Note(note_id, title, body, layer, folder, tags or [], t, t, "person", status, source)


def types(memory: Memory, status: str | None = "new") -> dict[str, list[set[int]]]:
    out: dict[str, list[set[int]]] = {}
    for s in memory.signals.list(status=status).signals:
        out.setdefault(s.type, []).append({n.id for n in s.notes})
    return out


def test_dangling_link_fires_and_resolves(memory: Memory) -> None:
    memory.notes.save("Deploy plan", "See [[Rollback runbook]] first.", "state", by="person")
    found = memory.signals.list(type="dangling_link").signals
    assert [s.title for s in found] == ["[[Rollback runbook]] has no note"]
    memory.notes.save("Rollback runbook", "Steps to roll back.", "state", by="person")
    assert memory.signals.list(type="dangling_link").signals == []


def test_stale_state_needs_age_and_later_activity(memory: Memory) -> None:
    memory.notes.import_notes(
        [
            note(1, "Q3 plan", "ship the importer", layer="state", folder="plans", days=45),
            note(2, "Alone and old", "nothing newer beside it", layer="state", folder="x", days=45),
            note(3, "Young plan", "fresh", layer="state", folder="y", days=3),
            note(4, "Later note", "newer work", folder="plans", days=2),
            note(5, "Later beside young", "newer", folder="y", days=1),
        ]
    )
    assert types(memory)["stale_state"] == [{1}]


def test_stale_state_when_its_project_has_newer_sessions(memory: Memory, claude_dir: Path) -> None:
    """No newer note beside it, but its project moved on: newer sessions in the project of
    the session it came from. A state note from a project with nothing newer stays quiet."""
    for sid, days, project in (("st-old", 50, "shop"), ("st-new", 5, "shop"), ("qt", 50, "calm")):
        ts = (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        lines.write(
            claude_dir / f"-{project}" / f"{sid}.jsonl",
            lines.user(f"{sid}-u", "plan the importer", sid, ts, f"/w/{project}"),
        )
    memory.upkeep.ingest()
    memory.notes.import_notes(
        [
            note(
                1,
                "Shop plan",
                "ship the importer",
                layer="state",
                folder="a",
                days=45,
                source="st-old",
            ),
            note(2, "Calm plan", "nothing moves", layer="state", folder="b", days=45, source="qt"),
        ]
    )
    (found,) = memory.signals.list(type="stale_state").signals
    assert [n.id for n in found.notes] == [1]
    assert "1 newer sessions in its project" in found.detail
    assert "folder" not in found.detail


def test_tag_burst_against_the_weeks_before(memory: Memory) -> None:
    memory.notes.import_notes(
        [
            note(1, "a", "x", tags=["perf"], days=1),
            note(2, "b", "x", tags=["perf"], days=2),
            note(3, "c", "x", tags=["perf"], days=3),
            # steady: 3 this week, but 3 a week before as well
            *[note(10 + i, f"s{i}", "x", tags=["steady"], days=i % 7 + 0.5) for i in range(3)],
            *[note(20 + i, f"t{i}", "x", tags=["steady"], days=8 + i * 2) for i in range(24)],
            note(50, "d", "x", tags=["rare"], days=1),  # only once
        ]
    )
    bursts = memory.signals.list(type="tag_burst").signals
    assert [s.title for s in bursts] == ["#perf is suddenly busy"]
    assert {n.id for n in bursts[0].notes} == {1, 2, 3}


ARC = [
    "The checkout webhook retries fail when the payment provider times out",
    "Payment provider timeouts make checkout webhook retries fail again",
    "Checkout webhook retry failures after the payment provider timed out",
]


def test_hidden_arc_across_folders_not_linked(memory: Memory) -> None:
    memory.notes.import_notes(
        [
            note(1, "Webhook 1", ARC[0], folder="billing", days=30),
            note(2, "Webhook 2", ARC[1], folder="ops", days=10),
            note(3, "Webhook 3", ARC[2], folder="billing", days=1),
            note(4, "Garden", "Tomatoes need more sun on the balcony this summer", days=5),
            note(5, "Fonts", "The terminal font renders ligatures badly in tmux", days=5),
        ]
    )
    arcs = types(memory).get("hidden_arc", [])
    assert arcs == [{1, 2, 3}]
    (arc,) = memory.signals.list(type="hidden_arc").signals
    # its note first: two arcs side by side on a narrow screen differ from the first words
    assert arc.title.startswith("'Webhook ") and arc.title.endswith(
        " and 2 notes like it, unlinked"
    )


def test_a_recurring_errors_title_never_ends_in_a_cut_word() -> None:
    said = "connect to the database server at port <n> failed as the connection pool was exhausted"
    signature = errortext._signature("OperationalError", said)
    rest = signature.partition(": ")[2]
    assert rest == said[:80] and said[80] != " ", "the signature (its identity) is as it was"
    title = detect._error_title(signature)
    assert title.endswith(" …")
    words = title.removeprefix("OperationalError: ").removesuffix(" …").split()
    assert words == said.split()[: len(words)] and len(words) == len(rest.split()) - 1
    assert detect._error_title("ZeroDivisionError: division by zero") == (
        "ZeroDivisionError: division by zero"
    )


def test_hidden_arc_quiet_when_linked_or_covered(memory: Memory) -> None:
    memory.notes.import_notes(
        [
            note(1, "Webhook 1", ARC[0] + " [[Webhook 2]]", folder="billing", days=30),
            note(2, "Webhook 2", ARC[1] + " [[Webhook 3]]", folder="ops", days=10),
            note(3, "Webhook 3", ARC[2] + " [[Webhook 1]]", folder="billing", days=1),
        ]
    )
    assert "hidden_arc" not in types(memory)


def test_hidden_arc_needs_its_notes_unlinked_pairwise(memory: Memory) -> None:
    """One link between two of three close notes (neither the seed's) ties the set: with
    only three, no arc; a fourth close note makes one of the two linked, the third and it."""
    memory.notes.import_notes(
        [
            note(1, "Webhook 1", ARC[0] + " [[Webhook 2]]", folder="billing", days=30),
            note(2, "Webhook 2", ARC[1], folder="ops", days=10),
            note(3, "Webhook 3", ARC[2], folder="billing", days=1),
        ]
    )
    assert "hidden_arc" not in types(memory)
    memory.notes.save(
        "Webhook 4",
        "Checkout webhook retries keep failing when the payment provider times out",
        "past",
        by="person",
        folder="support",
    )
    (arc,) = types(memory)["hidden_arc"]
    assert len(arc) == 3 and {3, 4} <= arc and len(arc & {1, 2}) == 1


def test_hidden_arc_quiet_when_an_inference_covers_it(memory: Memory) -> None:
    memory.notes.import_notes(
        [
            note(1, "Webhook 1", ARC[0], folder="billing", days=30),
            note(2, "Webhook 2", ARC[1], folder="ops", days=10),
            note(3, "Webhook 3", ARC[2], folder="billing", days=1),
            note(4, "Garden", "Tomatoes need more sun on the balcony this summer", days=5),
        ]
    )
    assert types(memory)["hidden_arc"] == [{1, 2, 3}]
    # An inference whose evidence note is gone ties nothing (and breaks nothing).
    memory.inferences.mint("Sun", "more", 0.5, confirmed=True, evidence_note_ids=[1, 4])
    memory.notes.delete(4, by="person")
    assert types(memory)["hidden_arc"] == [{1, 2, 3}]
    memory.inferences.mint(
        "Checkout retries fail on provider timeouts",
        "Seen in billing and ops.",
        0.7,
        confirmed=True,
        evidence_note_ids=[1, 2],
    )
    # Notes 1 and 2 are one inference's evidence now: tied, so 1, 2, 3 is no longer news
    # (the mint alone, with no note changed, is enough for hidden_arc to run again).
    assert "hidden_arc" not in types(memory)


def test_hidden_arc_quiet_in_one_folder_within_days(memory: Memory) -> None:
    memory.notes.import_notes(
        [note(i + 1, f"Webhook {i}", ARC[i], folder="billing", days=i + 1) for i in range(3)]
    )
    assert "hidden_arc" not in types(memory)


def test_error_signatures_normalise_paths_numbers_ids() -> None:
    a = signatures("Traceback ...\nKeyError: 'user_42' in /srv/app/models.py line 12")
    b = signatures("KeyError: 'order_7' in /home/x/app/models.py line 99")
    assert a == b == ["KeyError: <name>"], "a KeyError's message is its key: the rest is about it"
    prose = "the test reproduces KeyError: 'DATABASE_URL' without the fix"
    assert signatures(prose, said=True) == signatures("KeyError: 'DATABASE_URL'")
    assert signatures("ValueError: Unable to configure handler 'file'") == [
        "ValueError: Unable to configure handler <name>"
    ]
    assert signatures("FAILED tests/test_api.py::test_refund[case-3] - assert 1") == [
        "FAILED tests/test_api.py::test_refund"
    ]
    assert signatures("error[E0502]: cannot borrow") == ["E0502"]
    openssl = "Error: error:0308010C ERR_OSSL_EVP_UNSUPPORTED"
    assert "ERR_OSSL_EVP_UNSUPPORTED" in signatures(openssl)
    assert signatures("all green, 42 passed") == []


def test_error_signatures_keep_a_bracket_whose_partner_they_keep() -> None:
    """`[Errno 28]` reads as written, not `Errno <n>]`; a stray bracket around it still goes."""
    assert signatures("OSError: [Errno 28] No space left on device") == [
        "OSError: [Errno <n>] No space left on device"
    ]
    assert signatures("RuntimeError: build failed (exit 2).") == [
        "RuntimeError: build failed (exit <n>)"
    ]
    assert signatures("ValueError: bad value)") == ["ValueError: bad value"]


def _error_sessions(claude_dir: Path, error: str, days: list[int], project: str = "shop") -> None:
    for i, d in enumerate(days):
        ts = (datetime.now(UTC) - timedelta(days=d)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        sid = f"{project}-err-{i}"
        lines.write(
            claude_dir / f"-{project}" / f"{sid}.jsonl",
            lines.user(f"{sid}-u", f"the tests broke again:\n{error}", sid, ts, f"/w/{project}"),
        )


def test_recurring_error_across_sessions(memory: Memory, claude_dir: Path) -> None:
    _error_sessions(claude_dir, "ModuleNotFoundError: No module named 'psycopg2'", [20, 12, 2])
    _error_sessions(claude_dir, "ZeroDivisionError: division by zero", [3, 2, 1], "calc")
    _error_sessions(claude_dir, "TimeoutError: read timed out", [30, 2], "net")
    memory.upkeep.ingest()
    found = memory.signals.list(type="recurring_error").signals
    assert [s.title for s in found] == [
        "ModuleNotFoundError: No module named <name> keeps coming back"
    ]
    assert len(found[0].messages) == 3
    assert {m.project for m in found[0].messages} == {"/w/shop"}
    # Once a note mentions it, it is no news.
    memory.notes.save(
        "psycopg2 missing",
        "ModuleNotFoundError: No module named psycopg2 — install psycopg2-binary",
        "past",
        by="person",
    )
    assert memory.signals.list(type="recurring_error").signals == []


def test_recurring_error_across_projects(memory: Memory, claude_dir: Path) -> None:
    error = "ConnectionRefusedError: [Errno 111] Connection refused"
    for project, day in (("api", 20), ("worker", 11), ("web", 2)):
        _error_sessions(claude_dir, error, [day], project)
    _error_sessions(claude_dir, "RecursionError: maximum recursion depth", [9], "api")
    _error_sessions(claude_dir, "RecursionError: maximum recursion depth", [8], "web")
    memory.upkeep.ingest()
    (found,) = memory.signals.list(type="recurring_error").signals
    assert found.title.startswith("ConnectionRefusedError")
    assert "in 3 projects" in found.detail and "over 18 days" in found.detail
    assert {m.project for m in found.messages} == {"/w/api", "/w/worker", "/w/web"}


def test_error_signatures_only_where_raised_or_reported() -> None:
    code = (
        "class ParseError(Exception):\n"
        "    pass\n"
        "try:\n"
        "    data = json.loads(raw)\n"
        "except (ValueError, AttributeError):\n"
        '    raise FileNotFoundError(f"no {path}")\n'
        "STATUS = {\n"
        "    ValueError: 400,\n"
        "}\n"
    )
    assert signatures(code) == [] == signatures(code, said=True)
    docstring = '    """Load it.\n\n    Raises:\n        ValueError: If the path is bad.\n    """'
    assert signatures(docstring) == [] == signatures(docstring, said=True)
    log = "2026-01-12T12:00:07Z ERROR   [ab12cd34] TypeError: Cannot read properties"
    assert signatures(log) == ["TypeError: Cannot read properties"]
    # The person's words report an error anywhere in a line; a command's output, at its start.
    said = "hmm, still getting KeyError: 'sku' again"
    assert signatures(said, said=True) == ["KeyError: <name>"]  # "again" is about it
    assert signatures(said) == []
    assert signatures("what does `except ValueError: pass` do?", said=True) == []
    # What follows the error's sentence is words about it, not the error.
    hint = "AttributeError: 'Row' object has no attribute 'sku'. Did you mean: 'skus'?"
    assert signatures(hint) == ["AttributeError: <name> object has no attribute <name>"]
    traceback = (
        "collected 3 items\n"
        "Traceback (most recent call last):\n"
        '  File "/w/app.py", line 3, in <module>\n'
        "    raise ValueError\n"
        "ValueError\n"
    )
    assert signatures(traceback) == ["ValueError"]
    pytest_e = "    def test_x():\n>       load()\nE       KeyError: 'sku'\n"
    assert signatures(pytest_e) == ["KeyError: <name>"]
    assert signatures("src/x.ts(3,7): error TS2345: bad\nnpm ERR! code ERESOLVE") == [
        "TS2345",
        "ERESOLVE",
    ]


def _record(kind: str, uuid: str, sid: str, ts: str, project: str, message: dict) -> bytes:
    record = {
        "type": kind,
        "uuid": uuid,
        "parentUuid": None,
        "sessionId": sid,
        "cwd": f"/w/{project}",
        "timestamp": ts,
        "isSidechain": False,
        "message": message,
    }
    return json.dumps(record).encode() + b"\n"


def _tool_sessions(
    claude_dir: Path, project: str, days: list[int], rounds: list[tuple[str, str, str]]
) -> None:
    """Sessions `days` ago in which the assistant calls each (tool, argument) of `rounds`
    at once, in one message, and their outputs follow in order."""
    for i, d in enumerate(days):
        ts = (datetime.now(UTC) - timedelta(days=d)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        sid = f"{project}-tools-{i}"
        uses = [
            {"type": "tool_use", "id": f"toolu_{i}_{n}", "name": tool, "input": {"x": arg}}
            for n, (tool, arg, _) in enumerate(rounds)
        ]
        data = lines.user(f"{sid}-u", "look at the loader", sid, ts, f"/w/{project}")
        data += _record(
            "assistant", f"{sid}-a", sid, ts, project, {"id": f"msg_{sid}", "content": uses}
        )
        for n, (_, _, output) in enumerate(rounds):
            result = {"type": "tool_result", "tool_use_id": f"toolu_{i}_{n}", "content": output}
            data += _record("user", f"{sid}-r{n}", sid, ts, project, {"content": [result]})
        lines.write(claude_dir / f"-{project}" / f"{sid}.jsonl", data)


_SOURCE = (
    "import json\n\n\nclass LoadError(Exception):\n    pass\n\n\ndef load(path):\n"
    "    try:\n        return json.loads(open(path).read())\n"
    "    except (ValueError, AttributeError):\n"
    '        raise FileNotFoundError(f"no transcript at {path}")\n'
    "    except json.JSONDecodeError as exc:\n        raise TypeError(exc) from exc\n"
)


def test_errors_in_code_a_tool_showed_do_not_recur(memory: Memory, claude_dir: Path) -> None:
    numbered = "\n".join(f"{n:6}→{line}" for n, line in enumerate(_SOURCE.split("\n"), 1))
    grep = "ValueError: not a transcript\nTypeError: bad line"  # a log file's lines, shown
    rounds = [
        ("Read", "/w/shop/loader.py", numbered),
        ("Grep", "Error", grep),
        ("Bash", "cat loader.py", _SOURCE),
    ]
    _tool_sessions(claude_dir, "shop", [20, 12, 2], rounds)
    memory.upkeep.ingest()
    assert memory.signals.list(type="recurring_error").signals == []


def test_tracebacks_from_commands_recur_with_their_line(memory: Memory, claude_dir: Path) -> None:
    ran = (
        "============ test session starts ============\n"
        "platform linux -- Python 3.12.1, pytest-8.3.2\n"
        "collected 12 items\n\n"
        "Traceback (most recent call last):\n"
        '  File "/w/shop/loader.py", line 10, in load\n'
        "    return json.loads(open(path).read())\n"
        "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n"
        "FAILED tests/test_loader.py::test_load - json.decoder.JSONDecodeError\n"
    )
    numbered = "\n".join(f"{n:6}→{line}" for n, line in enumerate(_SOURCE.split("\n"), 1))
    _tool_sessions(
        claude_dir,
        "shop",
        [15, 8, 1],
        [("Read", "/w/shop/loader.py", numbered), ("Bash", "pytest -x", ran)],
    )
    memory.upkeep.ingest()
    found = memory.signals.list(type="recurring_error").signals
    assert sorted(s.title for s in found) == [
        "FAILED tests/test_loader.py::test_load keeps coming back",
        "JSONDecodeError: Expecting value: line <n> column <n> (char <n>) keeps coming back",
    ]
    error = next(s for s in found if s.title.startswith("JSONDecodeError"))
    assert len(error.messages) == 3
    for m in error.messages:
        assert m.snippet.split("\n") == [
            "return json.loads(open(path).read())",
            "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
            "FAILED tests/test_loader.py::test_load - json.decoder.JSONDecodeError",
        ]


def test_inferences_are_pull_only_in_searches(memory: Memory, claude_dir: Path) -> None:
    """An inference's words are in no note search or history search: only the inference
    tools show it."""
    _error_sessions(claude_dir, "KeyError: 'cache'", [1])
    memory.upkeep.ingest()
    fact = memory.notes.save("Cache fact", "the cache is cold on Mondays", "past", by="person")
    memory.inferences.mint(
        "Quokka deploys hit a cold cache",
        "Every quokka rollout lands on a Monday.",
        0.6,
        confirmed=True,
        evidence_note_ids=[fact.note.id],
    )
    assert memory.history.search("quokka rollout", "fts").results == []
    hybrid = memory.history.search("quokka rollout", "hybrid")
    assert hybrid.results == []  # nothing has the words or is near: only the nearest, apart
    assert hybrid.nearest and all("quokka" not in r.snippet.casefold() for r in hybrid.nearest)
    hits = memory.notes.search("quokka rollout Monday").results
    assert all("quokka" not in f"{h.note.title} {h.snippet}".casefold() for h in hits)
    assert [i.title for i in memory.inferences.list()] == ["Quokka deploys hit a cold cache"]


def test_fingerprints_stable_and_dismissed_stays(memory: Memory) -> None:
    memory.notes.save("A", "[[Missing one]]", "past", by="person")
    first = memory.signals.list().signals
    memory.signals.detect(force=True)
    again = memory.signals.list().signals
    assert [s.id for s in first] == [s.id for s in again]
    memory.signals.update_status(first[0].id, "dismissed")
    memory.notes.save("Unrelated", "nothing linked", "past", by="person")
    assert memory.signals.list().signals == []
    assert [s.id for s in memory.signals.list(status="dismissed").signals] == [first[0].id]
    memory.upkeep.reindex()
    memory.signals.detect(force=True)
    assert memory.signals.list().signals == []
    # New evidence (another note linking the same missing title) is a new signal.
    memory.notes.save("B", "[[missing ONE]] again", "past", by="person")
    assert len(memory.signals.list().signals) == 1


@pytest.mark.parametrize("status", ["dismissed", "snoozed"])
def test_a_decided_signal_on_less_of_its_evidence_stays_decided(
    memory: Memory, status: str
) -> None:
    """A note of a dismissed or snoozed pattern deleted (a session forgotten) leaves the
    pattern on part of its evidence: a new fingerprint, but the person's decision stands."""
    a = memory.notes.save("A", "[[Missing one]]", "past", by="person").note
    memory.notes.save("B", "[[Missing one]] too", "past", by="person")
    (signal,) = memory.signals.list().signals
    decided = memory.signals.update_status(signal.id, status, "7d" if status == "snoozed" else None)
    memory.notes.delete(a.id, by="person")
    assert memory.signals.list().signals == [], "not new again"
    (kept,) = memory.signals.list(status=status).signals
    assert {n.title for n in kept.notes} == {"B"}
    assert kept.snooze_until == decided.snooze_until
    memory.notes.save("C", "and [[Missing one]] again", "past", by="person")
    assert len(memory.signals.list().signals) == 1, "new evidence is new"


def test_a_decision_follows_the_pattern_not_older_decisions_nor_another_state(
    memory: Memory,
) -> None:
    """The newest signal of a pattern holding the evidence decides: a person who reopened it
    keeps it open; a forget (which blanks the title) keeps a dismissal; a state note updated
    since, stale again, is a new pattern."""
    a, b, c = (
        memory.notes.save(t, f"see [[Missing one]] ({t})", "past", by="person").note
        for t in ("A", "B", "C")
    )
    (signal,) = memory.signals.list().signals
    memory.signals.update_status(signal.id, "dismissed")
    memory.notes.delete(c.id, by="person")
    (kept,) = memory.signals.list(status="dismissed").signals
    memory.signals.update_status(kept.id, "new")  # reopened on A and B
    memory.notes.delete(b.id, by="person")
    assert [{n.title for n in x.notes} for x in memory.signals.list().signals] == [{"A"}]
    (left,) = memory.signals.list().signals
    memory.signals.update_status(left.id, "dismissed")
    memory.notes.save("D", "see [[Missing one]]", "past", by="person")
    (grown,) = memory.signals.list().signals  # A and D: new evidence
    memory.signals.update_status(grown.id, "dismissed")
    memory.forget(note_id=memory.notes.list(limit=10)[0].id, confirmed=True)  # D, blanked
    assert memory.signals.list().signals == [], "a forget keeps the dismissal"
    assert a.id in {n.id for n in memory.signals.list(status="dismissed").signals[0].notes}


def test_a_state_note_stale_again_after_an_update_is_new(memory: Memory) -> None:
    memory.notes.import_notes(
        [
            note(1, "Plan", "ship v1 first", layer="state", folder="proj", days=90),
            note(2, "Newer", "something else", folder="proj", days=2),
        ]
    )
    (stale,) = memory.signals.list(type="stale_state").signals
    memory.signals.update_status(stale.id, "dismissed")
    memory.notes.update(1, by="person", body="ship v2 first now")
    with db.Writer(memory.config.db_path).transaction() as conn:  # and 45 days go by
        conn.execute("UPDATE notes SET updated = ? WHERE id = 1", (ago(45),))
    memory.notes.save("Newer still", "more work", "past", folder="proj", by="person")
    memory.signals.detect(force=True)
    assert [s.type for s in memory.signals.list(type="stale_state").signals] == ["stale_state"]


def test_snooze_expires_and_transitions(memory: Memory) -> None:
    memory.notes.save("A", "[[Gone]]", "past", by="person")
    (signal,) = memory.signals.list().signals
    snoozed = memory.signals.update_status(signal.id, "snoozed", "7d")
    assert snoozed.status == "snoozed" and snoozed.snooze_until
    assert memory.signals.list().signals == []
    memory.signals.update_status(signal.id, "new")
    memory.signals.update_status(signal.id, "dismissed")
    with pytest.raises(InvalidArgument, match="is dismissed"):
        memory.signals.update_status(signal.id, "dismissed")
    memory.signals.update_status(signal.id, "new")
    memory.signals.update_status(signal.id, "snoozed", ago(-0.000005))  # in 0.4 s
    time.sleep(0.6)
    assert [s.id for s in memory.signals.list().signals] == [signal.id]
    # A snooze that has run out is new: it can be dismissed straight away.
    assert memory.signals.update_status(signal.id, "dismissed").status == "dismissed"
    memory.signals.update_status(signal.id, "new")
    with pytest.raises(InvalidArgument, match="snooze_until"):
        memory.signals.update_status(signal.id, "snoozed")
    with pytest.raises(InvalidArgument, match="in the future"):
        memory.signals.update_status(signal.id, "snoozed", "2001-01-01")
    with pytest.raises(InvalidArgument, match="no time at all"):
        memory.signals.update_status(signal.id, "snoozed", "0d")  # as a past date is refused
    with pytest.raises(InvalidArgument, match="status"):
        memory.signals.update_status(signal.id, "synthesized")
    with pytest.raises(NotFound):
        memory.signals.update_status(9999, "dismissed")


@pytest.mark.parametrize(
    ("path", "impossible"),
    [
        (["dismissed"], ("snoozed", "7d")),
        (["dismissed"], ("dismissed", None)),
        ([], ("new", None)),
        (["snoozed"], ("dismissed", None)),
        (["snoozed"], ("snoozed", "2d")),
    ],
)
def test_impossible_transitions_are_invalid_argument(
    memory: Memory, path: list[str], impossible: tuple[str, str | None]
) -> None:
    """new → dismissed | snoozed; snoozed → new; dismissed → new: nothing else by hand."""
    memory.notes.save("A", "[[Gone]]", "past", by="person")
    (signal,) = memory.signals.list().signals
    for status in path:
        memory.signals.update_status(signal.id, status, "7d" if status == "snoozed" else None)
    before = memory.signals.get(signal.id)
    with pytest.raises(InvalidArgument) as refused:
        memory.signals.update_status(signal.id, *impossible)
    assert refused.value.code == "INVALID_ARGUMENT"
    assert f"is {before.status}" in str(refused.value)
    after = memory.signals.get(signal.id)
    assert (after.status, after.snooze_until) == (before.status, before.snooze_until)


@pytest.mark.parametrize("confirmed", [None, "yes", 1, False, "true"])
def test_mint_refused_without_boolean_true(memory: Memory, confirmed: object) -> None:
    saved = memory.notes.save("Evidence", "a fact", "past", by="person").note
    with pytest.raises(NotConfirmed):
        memory.inferences.mint(
            "Conclusion", "because", 0.7, confirmed=confirmed, evidence_note_ids=[saved.id]
        )
    assert memory.inferences.list() == []


def test_mint_staleness_provenance_keep_and_drop(memory: Memory) -> None:
    a = memory.notes.save("Fact A", "the cache is cold on Mondays", "past", by="person").note
    b = memory.notes.save("Fact B", "[[Nowhere]] deploys happen on Mondays", "past", by="person")
    (signal,) = memory.signals.list().signals
    minted = memory.inferences.mint(
        "Monday deploys hit a cold cache",
        "Both happen on Mondays.",
        0.78,
        confirmed=True,
        evidence_note_ids=[a.id, b.note.id],
        signal_id=signal.id,
    )
    assert minted.status == "active"
    cited = f"[Inference #{minted.id}, conf 0.78, from notes #{a.id}, #{b.note.id}]"
    assert minted.citation == cited
    assert memory.signals.get(signal.id).status == "synthesized"
    with pytest.raises(InvalidArgument, match="synthesized"):
        memory.signals.update_status(signal.id, "new")
    memory.notes.update(a.id, body="the cache is warm on Mondays now", by="person")
    memory.notes.delete(b.note.id, by="person")
    (stale,) = memory.inferences.list(status="stale")
    states = {e.ref: e.state for e in stale.evidence}
    assert states == {str(a.id): "changed", str(b.note.id): "deleted"}
    full = memory.inferences.get_inference(minted.id)
    (changed,) = [e for e in full.evidence if e.state == "changed"]
    assert "-the cache is cold on Mondays" in (changed.diff or "")
    assert memory.signals.counts().stale_inferences == 1
    # Its person keeps it on its evidence as it reads now (the deleted note leaves it) ...
    kept = memory.inferences.keep(minted.id)
    assert kept.status == "active" and [e.ref for e in kept.evidence] == [str(a.id)]
    assert memory.signals.counts().stale_inferences == 0
    memory.notes.delete(a.id, by="person")
    with pytest.raises(InvalidArgument, match="no evidence left"):
        memory.inferences.keep(minted.id)
    with pytest.raises(NotFound):
        memory.inferences.keep(minted.id + 1)
    # ... or drops it, and the signal it came from is new again.
    assert memory.inferences.drop(minted.id).id == minted.id
    assert memory.inferences.list() == []
    assert memory.signals.get(signal.id).status == "new"
    with pytest.raises(NotFound):
        memory.inferences.drop(minted.id)


def test_mint_bad_evidence_writes_nothing(memory: Memory) -> None:
    with pytest.raises(NotFound, match="note 77"):
        memory.inferences.mint("T", "S", 0.5, confirmed=True, evidence_note_ids=[77])
    with pytest.raises(InvalidArgument, match="both empty"):
        memory.inferences.mint("T", "S", 0.5, confirmed=True)
    with pytest.raises(InvalidArgument, match="confidence"):
        memory.inferences.mint("T", "S", 1.5, confirmed=True, evidence_note_ids=[1])
    assert memory.inferences.list() == []


def test_mint_from_messages(memory: Memory, claude_dir: Path) -> None:
    _error_sessions(claude_dir, "KeyError: 'sku'", [1])
    memory.upkeep.ingest()
    uuids = ["shop-err-0-u"]
    minted = memory.inferences.mint(
        "SKU lookups fail", "seen once", 0.4, confirmed=True, evidence_message_uuids=uuids
    )
    assert minted.status == "active" and "messages shop-err" in minted.citation


def test_mint_from_a_signal_rests_on_its_evidence_unless_given(
    memory: Memory, claude_dir: Path
) -> None:
    """Minted from a signal with no evidence named: the signal's notes and messages, as the
    TUI's mint form offers them."""
    _error_sessions(claude_dir, "KeyError: 'sku'", [20, 9, 1])
    memory.upkeep.ingest()
    a = memory.notes.save("A", "See [[Nowhere]].", "past", by="person").note
    (link,) = memory.signals.list(type="dangling_link").signals
    (error,) = memory.signals.list(type="recurring_error").signals
    by_notes = memory.inferences.mint("T", "S", 0.5, confirmed=True, signal_id=link.id)
    assert [(e.kind, e.ref) for e in by_notes.evidence] == [("note", str(a.id))]
    by_messages = memory.inferences.mint("U", "S", 0.5, confirmed=True, signal_id=error.id)
    assert sorted(e.ref for e in by_messages.evidence) == sorted(m.uuid for m in error.messages)
    assert memory.signals.get(error.id).status == "synthesized"


def test_unchanged_corpus_costs_a_read(memory: Memory) -> None:
    memory.notes.save("A", "[[B]]", "past", by="person")
    memory.signals.list()
    conn = memory.signals._conn()
    assert not memory.signals._dirty(conn, datetime.now(UTC).date().isoformat())


def test_only_the_detectors_whose_inputs_changed_run_again(
    memory: Memory, claude_dir: Path
) -> None:
    memory.notes.import_notes(
        [
            note(1, "Webhook 1", ARC[0], folder="billing", days=30),
            note(2, "Webhook 2", ARC[1], folder="ops", days=10),
            note(3, "Webhook 3", ARC[2], folder="billing", days=1),
        ]
    )
    (arc,) = memory.signals.list(type="hidden_arc").signals
    today = datetime.now(UTC).date().isoformat()
    due = memory.signals._dirty
    conn = memory.signals._conn()
    # New messages: the errors' incremental pass and stale_state's sessions, no note vectors.
    _error_sessions(claude_dir, "KeyError: 'sku'", [1])
    memory.upkeep.ingest()
    assert due(conn, today) == {"recurring_error", "stale_state"}
    memory.signals.detect()
    assert not due(conn, today)
    assert [s.id for s in memory.signals.list(type="hidden_arc").signals] == [arc.id]
    # A new day: the detectors that count days.
    with sqlite3.connect(memory.config.db_path) as raw:
        raw.execute("UPDATE meta SET value = '2001-01-01' WHERE key = 'signals_day'")
    assert due(conn, today) == {"stale_state", "tag_burst"}
    memory.signals.detect()
    # A minted inference: hidden_arc. A note: every detector (errors: is it mentioned now?).
    memory.inferences.mint("C", "S", 0.5, confirmed=True, evidence_note_ids=[1])
    assert due(conn, today) == {"hidden_arc"}
    memory.notes.save("D", "nothing", "past", by="person")
    assert due(conn, today) == set(SIGNAL_TYPES)


def test_new_error_rules_scan_every_message_again(memory: Memory, claude_dir: Path) -> None:
    _error_sessions(claude_dir, "KeyError: 'sku'", [1])
    memory.upkeep.ingest()
    memory.signals.list()
    # What older rules found in code: gone once the rules change, what these find kept.
    with sqlite3.connect(memory.config.db_path) as raw:
        (message,) = raw.execute("SELECT id FROM messages WHERE kind = 'prompt'").fetchone()
        raw.execute("INSERT INTO error_sightings VALUES ('ParseError', ?, 's', 0)", (message,))
        raw.execute("UPDATE meta SET value = '1' WHERE key = 'errors_scan'")
    assert "recurring_error" in memory.signals._dirty(memory.signals._conn(), "x")
    memory.signals.detect()
    with sqlite3.connect(memory.config.db_path) as raw:
        found = raw.execute("SELECT signature FROM error_sightings").fetchall()
    assert found == [("KeyError: <name>",)]


def test_a_signal_dismissed_under_older_rules_stays_dismissed(
    memory: Memory, claude_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ERROR_SCAN 3 keeps `[Errno <n>]` whole; a signal dismissed when its title read
    `Errno <n>]` keeps its fingerprint, so it stays dismissed and reads right."""
    _error_sessions(
        claude_dir, "ConnectionRefusedError: [Errno 111] Connection refused", [20, 9, 1]
    )
    memory.upkeep.ingest()
    monkeypatch.setattr(detect, "ERROR_SCAN", 2)
    monkeypatch.setattr(errortext, "_trim", lambda rest: rest.strip(" .,:;()[]"))
    (old,) = memory.signals.list(type="recurring_error").signals
    assert old.title.startswith("ConnectionRefusedError: Errno <n>]")
    memory.signals.update_status(old.id, "dismissed")
    monkeypatch.undo()
    assert memory.signals.list(type="recurring_error").signals == []
    (now,) = memory.signals.list(type="recurring_error", status=None).signals
    assert (now.id, now.status) == (old.id, "dismissed")
    assert now.title.startswith("ConnectionRefusedError: [Errno <n>] Connection refused")


def test_export_import_carries_triage_and_inferences(
    memory: Memory, tmp_path: Path, claude_dir: Path
) -> None:
    a = memory.notes.save("A", "[[Nowhere]] and the cache", "past", by="person").note
    memory.notes.save("B", "[[Elsewhere]]", "past", by="person")
    first, second = memory.signals.list().signals
    memory.signals.update_status(first.id, "dismissed")
    minted = memory.inferences.mint(
        "Cache", "why", 0.6, confirmed=True, evidence_note_ids=[a.id], signal_id=second.id
    )
    path = tmp_path / "out.jsonl"
    memory.transfer.export(path)
    kinds = [json.loads(line)["type"] for line in path.read_text().splitlines()]
    assert kinds.count("signal") == 2 and kinds.count("inference") == 1
    other = Config(data_dir=tmp_path / "other", claude_dir=claude_dir, log_dir=tmp_path / "logs")
    with Memory(other) as fresh:
        summary = fresh.transfer.import_(path)
        assert (summary.signals, summary.inferences) == (2, (1, 0, 0))
        assert fresh.signals.list().signals == []  # dismissed stays dismissed, minted stays so
        statuses = {s.title: s.status for s in fresh.signals.list(status=None).signals}
        assert statuses == {first.title: "dismissed", second.title: "synthesized"}
        (back,) = fresh.inferences.list()
        assert (back.id, back.status, back.signal_id) == (minted.id, "active", second.id)
        again = fresh.transfer.import_(path)
        assert again.inferences == (0, 0, 1)


def test_drop_leaves_a_signal_another_inference_holds(memory: Memory, tmp_path: Path) -> None:
    """An import can bring a second inference on one signal (an export from before a drop
    and a mint again): dropping one of them leaves the signal synthesized."""
    a = memory.notes.save("A", "[[Nowhere]] and the cache", "past", by="person").note
    (signal,) = memory.signals.list().signals
    first = memory.inferences.mint(
        "Cache", "why", 0.6, confirmed=True, evidence_note_ids=[a.id], signal_id=signal.id
    )
    path = tmp_path / "out.jsonl"
    memory.transfer.export(path)
    memory.inferences.drop(first.id)
    second = memory.inferences.mint("Cache again", "why", 0.7, confirmed=True, signal_id=signal.id)
    assert memory.transfer.import_(path).inferences == (1, 0, 0)
    assert {i.signal_id for i in memory.inferences.list()} == {signal.id}
    memory.inferences.drop(second.id)
    assert memory.signals.get(signal.id).status == "synthesized"
    memory.inferences.drop(first.id)
    assert memory.signals.get(signal.id).status == "new"


def test_an_inference_dropped_meanwhile_is_not_dropped_twice(memory: Memory, cfg: Config) -> None:
    """Two processes drop one inference at once: the one that waited for the other's write
    finds it gone (NOT_FOUND), not 'dropped' a second time."""
    from memtui.store import signals as signals_store

    note = memory.notes.save("A", "the cache", "past", by="person").note
    minted = memory.inferences.mint(
        "Cache", "why", 0.6, confirmed=True, evidence_note_ids=[note.id]
    )
    outcome: list[object] = []

    def drop() -> None:
        try:
            outcome.append(memory.inferences.drop(minted.id))
        except NotFound as exc:
            outcome.append(exc)

    with Memory(cfg) as other, other.inferences._writer.transaction() as conn:
        waiting = threading.Thread(target=drop)
        waiting.start()  # it reads the inference, then waits for this write to end
        time.sleep(0.5)
        signals_store.drop_inference(conn, minted.id)
    waiting.join(timeout=30)
    assert len(outcome) == 1 and isinstance(outcome[0], NotFound), outcome


def test_import_bad_inference_line_imports_nothing(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    note = {"type": "note", "id": 1, "title": "T", "layer": "past", "body": "x"}
    bad = {"type": "inference", "id": 1, "title": "I", "summary": "s", "confidence": 2}
    path.write_text(json.dumps(note) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(InvalidArgument, match="line 2"):
        memory.transfer.import_(path)
    assert memory.notes.list() == []


def test_ids_past_sqlites_integers_are_refused(memory: Memory) -> None:
    for call in (
        lambda: memory.signals.get(2**63),
        lambda: memory.inferences.get_inference(2**64),
        lambda: memory.notes.get(2**63),
    ):
        with pytest.raises(InvalidArgument, match="whole number"):
            call()


def test_a_forget_while_detection_reads_leaves_nothing_of_the_session(
    memory: Memory, cfg: Config, claude_dir: Path
) -> None:
    """Another process forgets a session while this one's detection is reading its messages:
    what the detection read must not be written back after the forget (the session's error
    sightings, signals citing its messages)."""
    _error_sessions(claude_dir, "ModuleNotFoundError: No module named 'psycopg2'", [20, 12, 9, 2])
    memory.upkeep.ingest()
    gone = "shop-err-0"
    other = Memory(cfg)  # another process's engine: its own connections
    reader = memory._readers.get()  # the connection this thread's detection reads on
    state = {"scanning": False, "forgotten": False}

    def traced(sql: str) -> None:
        state["scanning"] = state["scanning"] or "tool_output FROM messages" in sql

    def progress() -> int:
        if state["scanning"] and not state["forgotten"]:
            state["forgotten"] = True
            other.forget(session_id=gone, confirmed=True)
        return 0

    reader.set_trace_callback(traced)
    reader.set_progress_handler(progress, 1)
    try:
        found = memory.signals.list(type="recurring_error").signals
    finally:
        reader.set_progress_handler(None, 1)
        reader.set_trace_callback(None)
        other.close()
    assert state["forgotten"]
    with sqlite3.connect(cfg.db_path) as conn:
        left = conn.execute(
            "SELECT count(*) FROM error_sightings WHERE session_id = ?", (gone,)
        ).fetchone()[0]
        kept = {r[0] for r in conn.execute("SELECT id FROM messages")}
        cited = [json.loads(r[0]) for r in conn.execute("SELECT message_ids FROM signals")]
    assert left == 0
    assert all(set(ids) <= kept for ids in cited)
    assert [len(s.messages) for s in found] == [3]  # the three sessions not forgotten
