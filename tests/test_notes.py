"""memory.notes on the real store, Tantivy, hnswlib and model: every behaviour and bad input."""

from __future__ import annotations

import dataclasses
import logging
import shutil
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memtui.config import Config
from memtui.engine import (
    MAX_BODY_BYTES,
    InvalidArgument,
    Memory,
    Note,
    NotFound,
    PastImmutable,
    RuleUserOnly,
    house_rules,
)
from memtui.engine.lookalike import skeleton
from tests import lines

PERSON = "person"
AGENT = "agent"


def ago(days: int) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).isoformat(timespec="microseconds")


def old_note(note_id: int, title: str, body: str, folder: str, days: int) -> Note:
    t = ago(days)
    return Note(note_id, title, body, "past", folder, [], t, t, PERSON)


def test_save_and_get(memory: Memory) -> None:
    saved = memory.notes.save(
        " Use Postgres ",
        "We chose Postgres.",
        "past",
        by=AGENT,
        folder="/decisions/db/",
        tags=["#db", "Backend", "DB"],
    )
    note = saved.note
    assert (note.title, note.folder, note.tags) == (
        "Use Postgres",
        "decisions/db",
        ["db", "Backend"],
    )
    assert note.author == AGENT and note.status is None and note.created == note.updated
    got = memory.notes.get(note.id)
    assert got.note == note and got.links == [] and got.backlinks == [] and got.source is None


def test_layers_rule_status_and_guards(memory: Memory) -> None:
    past = memory.notes.save("Chose Redis", "We picked Redis for the cache.", "past", by=AGENT)
    with pytest.raises(PastImmutable) as refused:
        memory.notes.update(past.note.id, by=AGENT, body="We picked Memcached.")
    draft = refused.value.suggestion
    assert refused.value.code == "PAST_IMMUTABLE"
    assert draft.title == "[Amendment] Chose Redis" and draft.layer == "past"
    assert "[[Chose Redis]]" in draft.body and "Memcached" in draft.body
    amendment = memory.notes.save(draft.title, draft.body, draft.layer, by=AGENT)
    assert [b.id for b in memory.notes.get(past.note.id).backlinks] == [amendment.note.id]
    with pytest.raises(PastImmutable) as again:
        memory.notes.update(past.note.id, by=AGENT, title="x")
    assert again.value.suggestion.title == "[Amendment 2] Chose Redis"
    with pytest.raises(PastImmutable):
        memory.notes.delete(past.note.id, by=AGENT)
    assert memory.notes.get(past.note.id).note.body == "We picked Redis for the cache."

    rule = memory.notes.save("Tests first", "Run the tests before a commit.", "rule", by=AGENT)
    assert rule.note.status == "provisional"
    for attempt in (
        lambda: memory.notes.update(rule.note.id, by=AGENT, body="never mind"),
        lambda: memory.notes.delete(rule.note.id, by=AGENT),
        lambda: memory.notes.approve(rule.note.id, by=AGENT),
    ):
        with pytest.raises(RuleUserOnly) as exc:
            attempt()
        assert exc.value.code == "RULE_USER_ONLY"

    state = memory.notes.save("Current plan", "Ship v2 on Friday.", "state", by=AGENT)
    with pytest.raises(RuleUserOnly):
        memory.notes.update(state.note.id, by=AGENT, layer="rule")
    updated = memory.notes.update(state.note.id, by=AGENT, body="Ship v2 on Monday.")
    assert updated.body == "Ship v2 on Monday." and updated.updated > updated.created

    person = memory.notes.update(past.note.id, by=PERSON, body="We picked Redis (7.2).")
    assert person.body == "We picked Redis (7.2)."
    assert memory.notes.save("Mine", "a rule of mine", "rule", by=PERSON).note.status == "approved"
    memory.notes.delete(rule.note.id, by=PERSON)
    with pytest.raises(NotFound):
        memory.notes.get(rule.note.id)


def test_provisional_rule_approved_then_in_house_rules(memory: Memory, cfg: Config) -> None:
    rule = memory.notes.save("Small commits", "Commit small, say why.", "rule", by=AGENT)
    assert house_rules(cfg).text == ""
    assert [r.id for r in memory.notes.rules()] == [rule.note.id]
    assert [r.id for r in memory.notes.rules("provisional")] == [rule.note.id]
    assert memory.notes.rules("approved") == []
    with pytest.raises(InvalidArgument, match="status"):
        memory.notes.rules("maybe")  # type: ignore[arg-type]
    approved = memory.notes.approve(rule.note.id)
    assert approved.status == "approved"
    rules = house_rules(cfg)
    assert rules.text == "## House rules\n\n### Small commits\nCommit small, say why.\n"
    assert rules.included == [rule.note.id] and memory.notes.house_rules() == rules
    assert house_rules(dataclasses.replace(cfg, inject_rules=False)).text == ""
    plain = memory.notes.save("A plan", "x", "state", by=PERSON)
    with pytest.raises(InvalidArgument, match="not a rule"):
        memory.notes.approve(plain.note.id)


def test_house_rules_cut_at_a_note_boundary_and_logged(
    memory: Memory, cfg: Config, caplog: pytest.LogCaptureFixture
) -> None:
    ids = [
        memory.notes.save(f"Rule {i}", "word " * 40, "rule", by=PERSON).note.id for i in range(5)
    ]
    small = dataclasses.replace(cfg, rules_max_chars=500)
    with caplog.at_level(logging.WARNING):
        rules = house_rules(small)
    assert len(rules.text) <= 500 and rules.text.endswith("\n")
    assert rules.included == ids[: len(rules.included)] and rules.included
    assert rules.dropped == ids[len(rules.included) :] and rules.dropped
    assert "Rule 4" in caplog.text and "Rule 4" not in rules.text
    assert house_rules(cfg, max_chars=500) == rules
    assert house_rules(cfg, max_chars=10) == type(rules)("", [], ids)


def test_house_rules_read_sqlite_only(tmp_path: Path, cfg: Config) -> None:
    """No data dir yet: nothing, and nothing created. With rules: no index is opened."""
    assert house_rules(cfg).text == "" and not cfg.data_dir.exists()
    with Memory(cfg) as memory:
        memory.notes.save("R", "do it", "rule", by=PERSON)
    shutil.rmtree(cfg.index_dir)
    assert "### R\ndo it" in house_rules(cfg).text
    assert not cfg.index_dir.exists()


def test_links_dangling_resolve_rename_delete(memory: Memory) -> None:
    a = memory.notes.save("Alpha", "See [[beta]] and [[Gamma|the third]].", "state", by=PERSON)
    links = memory.notes.get(a.note.id).links
    assert [(lk.target, lk.shown, lk.note_id) for lk in links] == [
        ("beta", None, None),
        ("Gamma", "the third", None),
    ]
    b = memory.notes.save("Beta", "b", "state", by=PERSON)  # the dangling link resolves
    assert memory.notes.get(a.note.id).links[0].note_id == b.note.id
    assert [r.id for r in memory.notes.get(b.note.id).backlinks] == [a.note.id]

    memory.notes.update(b.note.id, by=PERSON, title="Beta two")  # rename keeps the link
    after = memory.notes.get(a.note.id)
    assert after.links[0].note_id == b.note.id and "[[Beta two]]" in after.note.body
    assert after.note.updated == a.note.updated  # the rewrite is not an edit
    assert [r.id for r in memory.notes.get(b.note.id).backlinks] == [a.note.id]

    g = memory.notes.save("gamma", "g", "past", by=PERSON)
    memory.notes.update(g.note.id, by=PERSON, title="Gamma ray")
    assert "[[Gamma ray|the third]]" in memory.notes.get(a.note.id).note.body

    memory.notes.delete(b.note.id, by=PERSON)  # delete: dangling again
    assert memory.notes.get(a.note.id).links[0].note_id is None
    again = memory.notes.save("Beta two", "back", "state", by=PERSON)
    assert memory.notes.get(a.note.id).links[0].note_id == again.note.id


def test_list_folders_tags(memory: Memory) -> None:
    n1 = memory.notes.save("one", "1", "past", by=PERSON, folder="work", tags=["a"])
    n2 = memory.notes.save("two", "2", "state", by=PERSON, folder="work/api", tags=["a", "b"])
    n3 = memory.notes.save("three", "3", "state", by=PERSON, tags=["B"])
    assert [n.id for n in memory.notes.list()] == [n3.note.id, n2.note.id, n1.note.id]
    assert [n.id for n in memory.notes.list(folder="work")] == [n2.note.id, n1.note.id]
    assert [n.id for n in memory.notes.list(folder="work/api")] == [n2.note.id]
    # A folder filter is any case, as a tag is; a folder's name is not a prefix of another's.
    assert [n.id for n in memory.notes.list(folder="Work/API")] == [n2.note.id]
    assert memory.notes.count(folder="WORK") == 2
    assert memory.notes.list(folder="wor") == []
    found = memory.notes.search("two", folder="Work", mode="fts").results
    assert [h.note.id for h in found] == [n2.note.id]
    assert [n.id for n in memory.notes.list(tag="b")] == [n3.note.id, n2.note.id]
    assert [n.id for n in memory.notes.list(layer="past")] == [n1.note.id]
    assert [n.id for n in memory.notes.list(limit=1, offset=1)] == [n2.note.id]
    assert memory.notes.count(folder="work") == 2
    memory.notes.update(n1.note.id, by=PERSON, body="edited")
    assert memory.notes.list()[0].id == n1.note.id
    assert [(f.folder, f.count) for f in memory.notes.folders()] == [
        ("", 1),
        ("work", 1),
        ("work/api", 1),
    ]
    assert [(t.tag, t.count) for t in memory.notes.tags()] == [("a", 2), ("b", 2)]
    assert memory.notes.titles("t") == ["three", "two"]


def test_folders_that_differ_only_in_case_are_one(memory: Memory) -> None:
    """As a filter takes them: one folder, counted once, written as its oldest note writes
    it, each part of it apart; "" is the notes in no folder, not every note."""
    for n, folder in enumerate(["work", "Work", "WORK/Plans", "work/plans", "", "Ärger"]):
        memory.notes.save(f"note {n}", "body", "past", by=PERSON, folder=folder)
    assert [(f.folder, f.count) for f in memory.notes.folders()] == [
        ("", 1),
        ("work", 2),
        ("work/Plans", 2),
        ("Ärger", 1),
    ]
    assert memory.notes.count(folder="wOrK") == 4 and memory.notes.count(folder="ärger") == 1
    assert [n.title for n in memory.notes.list(folder="")] == ["note 4"]
    assert memory.notes.count() == 6


@pytest.fixture
def with_messages(memory: Memory, claude_dir: Path) -> Memory:
    """An archive with messages (an old one in another project) beside the notes."""
    old = (datetime.now(UTC) - timedelta(days=200)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    lines.write(
        claude_dir / "-old-proj" / "s-old.jsonl",
        lines.user(
            "u-old",
            "We decided to use hexagonal architecture ports and adapters for the billing service",
            "s-old",
            ts=old,
            cwd="/home/dev/old-proj",
        ),
    )
    lines.write(
        claude_dir / "-shop" / "s-new.jsonl",
        lines.user("u-new", "the kubernetes ingress keeps timing out", "s-new"),
    )
    memory.upkeep.ingest()
    return memory


def test_search_is_notes_only_and_filters(with_messages: Memory) -> None:
    memory = with_messages
    memory.notes.save("Ingress", "kubernetes ingress timeout fix", "past", by=PERSON, tags=["k8s"])
    memory.notes.save("Plan", "kubernetes upgrade next week", "state", by=PERSON, folder="ops")
    hits = memory.notes.search("kubernetes ingress")
    assert [h.note.title for h in hits.results][:1] == ["Ingress"]
    assert all(h.note.title in ("Ingress", "Plan") for h in hits.results)
    assert "**kubernetes**" in hits.results[0].snippet
    messages = memory.history.search("kubernetes ingress timeout", "hybrid")
    assert {r.session_id for r in messages.results} <= {"s-new", "s-old"}  # never a note
    assert memory.history.search("upgrade week", "fts").results == []
    assert messages.results[0].session_id == "s-new"
    assert [h.note.title for h in memory.notes.search("kubernetes", layer="state").results] == [
        "Plan"
    ]
    assert [h.note.title for h in memory.notes.search("kubernetes", folder="ops").results] == [
        "Plan"
    ]
    assert [h.note.title for h in memory.notes.search("kubernetes", tag="K8S").results] == [
        "Ingress"
    ]
    today = datetime.now(UTC).date().isoformat()
    assert len(memory.notes.search("kubernetes", date_from=today, date_to=today).results) == 2
    assert memory.notes.search("kubernetes", date_to="2020-01-01").results == []
    # The ends of the calendar bound nothing (a day after 9999-12-31 overflowed: INTERNAL_ERROR).
    far = memory.notes.search(
        "kubernetes", date_from="0001-01-01T00:00+01:00", date_to="9999-12-31"
    )
    assert len(far.results) == 2
    # ...and past them, bound everything out (they bounded nothing: every note came back).
    for edge in ({"date_to": "0001-01-01T00:30+01:00"}, {"date_from": "9999-12-31T23:00-05:00"}):
        assert memory.notes.search("kubernetes", **edge).results == [], edge
    compact = today.replace("-", "")  # a date in its basic form is a whole day too
    assert len(memory.notes.search("kubernetes", date_to=compact).results) == 2
    fts = memory.notes.search("kubernetes", mode="fts")
    assert fts.mode == "fts" and all(h.found_by == ["fts"] for h in fts.results)
    assert memory.notes.search("kubernetes", mode="vector").results
    with pytest.raises(InvalidArgument, match="date_from"):
        memory.notes.search("x", date_from="yesterday")
    with pytest.raises(InvalidArgument, match="mode"):
        memory.notes.search("x", mode="nope")
    # What search_history refuses, a notes search refuses too, with nothing searched.
    for nothing in ("   ", "\U0001f525\U0001f525", "?!"):
        with pytest.raises(InvalidArgument, match="nothing to search for"):
            memory.notes.search(nothing)
    with pytest.raises(InvalidArgument, match="words of 256 bytes or more"):
        memory.notes.search("Qz" * 128)
    with pytest.raises(InvalidArgument, match="swap them"):
        memory.notes.search("kubernetes", date_from="2026-05-02", date_to="2026-05-01")
    with pytest.raises(NotFound, match="no note is in a folder 'opz'"):
        memory.notes.search("kubernetes", folder="opz")
    with pytest.raises(NotFound):  # a folder is matched whole, never a part of its name
        memory.notes.search("kubernetes", folder="op")


@pytest.mark.parametrize("mode", ["hybrid", "fts", "vector"])
def test_note_pages_neither_repeat_nor_skip(memory: Memory, mode: str) -> None:
    """Every page of a notes search is cut from one order, however large and wherever it
    starts, past the first 100 too."""
    for n in range(130):
        body = f"the kafka consumer lag, seen again on broker {n} during the nightly batch"
        memory.notes.save(f"Lag {n}", body, "past", by=PERSON)

    def paged(size: int) -> list[int]:
        out: list[int] = []
        for offset in range(0, 140, size):
            page = memory.notes.search("kafka lag", mode=mode, offset=offset, limit=size)
            out += [h.note.id for h in page.results]
            assert page.total == len(set(out)) or offset + size < page.total
        return out

    sevens = paged(7)
    assert len(sevens) == len(set(sevens)) and paged(30) == sevens


def test_flashbacks_from_old_notes_and_other_projects(with_messages: Memory) -> None:
    memory = with_messages
    memory.notes.import_notes(
        [
            old_note(
                100,
                "Billing design",
                "hexagonal architecture with ports and adapters for billing",
                "archive",
                300,
            ),
            old_note(
                101,
                "Recent billing",
                "hexagonal architecture ports adapters billing",
                "archive",
                10,
            ),
            old_note(
                102, "Same folder", "hexagonal architecture ports and adapters billing", "arch", 300
            ),
        ]
    )
    saved = memory.notes.save(
        "Billing service layout",
        "Use hexagonal architecture: ports and adapters for the billing service.",
        "past",
        by=AGENT,
        folder="arch",
        project=lines.CWD,
    )
    notes = saved.flashbacks.notes
    assert [f.note.title for f in notes] == ["Billing design"]
    assert notes[0].age_days >= 299 and 0 <= notes[0].distance <= 0.4
    sessions = saved.flashbacks.sessions
    assert [(s.session_id, s.message_uuid, s.message_index) for s in sessions] == [
        ("s-old", "u-old", 0)
    ]
    assert sessions[0].project == "/home/dev/old-proj" and sessions[0].age_days >= 199
    # The project itself is not a flashback.
    same = memory.notes.flashbacks(saved.note.id, project="/home/dev/old-proj")
    assert same.sessions == [] and [f.note.id for f in same.notes] == [100]
    found = memory.notes.search("hexagonal billing service layout", folder="arch")
    assert found.results[0].note.id == saved.note.id
    assert [f.note.id for f in found.flashbacks.notes] == [100]


def test_flashbacks_look_away_from_the_callers_project(
    with_messages: Memory, claude_dir: Path
) -> None:
    """The caller's project (MCP: the server's folder; TUI: the note's source session's) has
    no flashbacks; with neither, any project's, as long as it is old enough."""
    memory = with_messages
    topic = "We decided to use hexagonal architecture ports and adapters for the billing service"
    recent = (datetime.now(UTC) - timedelta(days=10)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    lines.write(
        claude_dir / "-fresh" / "s-fresh.jsonl",
        lines.user("u-fresh", topic, "s-fresh", ts=recent, cwd="/home/dev/fresh"),
    )
    memory.upkeep.ingest()

    def projects(title: str, **kwargs: str) -> list[str]:
        saved = memory.notes.save(title, topic, "past", by=PERSON, **kwargs)
        return [s.project for s in saved.flashbacks.sessions]

    assert projects("Anywhere") == ["/home/dev/old-proj"]  # not the fresh one: too recent
    assert projects("From there", source_session_id="s-old") == []
    assert projects("Said there", project="/home/dev/old-proj/") == []
    assert projects("Said elsewhere", source_session_id="s-old", project="/x") == [
        "/home/dev/old-proj"
    ]


def test_similar_on_save_and_find_duplicates(memory: Memory) -> None:
    first = memory.notes.save(
        "Deploy", "deploy with blue green to production servers", "past", by=PERSON
    )
    second = memory.notes.save(
        "Deploy 2", "deploy with blue green to the production servers", "state", by=PERSON
    )
    assert [s.note.id for s in second.similar] == [first.note.id]
    assert second.similar[0].distance < 0.5
    other = memory.notes.save("Lunch", "sandwiches and soup", "state", by=PERSON)
    assert other.similar == []
    dupes = memory.notes.find_duplicates(note_id=first.note.id, threshold=0.9)
    assert [d.note.id for d in dupes] == [second.note.id]
    assert [
        d.note.id
        for d in memory.notes.find_duplicates(text="blue green deploy production", threshold=0.7)
    ][:1] in (
        [first.note.id],
        [second.note.id],
    )
    for bad in (0.5, 0.99, True, "0.8"):
        with pytest.raises(InvalidArgument, match="threshold"):
            memory.notes.find_duplicates(note_id=first.note.id, threshold=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="exactly one"):
        memory.notes.find_duplicates()
    with pytest.raises(InvalidArgument, match="exactly one"):
        memory.notes.find_duplicates(note_id=1, text="x")
    with pytest.raises(NotFound):
        memory.notes.find_duplicates(note_id=999)


BAD_SAVES = [
    ({"title": ""}, "title is empty"),
    ({"title": "   "}, "title is empty"),
    ({"title": "[[]]"}, "title may not contain"),
    ({"title": "a\nb"}, "title holds a control"),
    ({"title": "x" * 301}, "title has"),
    ({"layer": "later"}, "layer must be one of"),
    ({"body": "x" * (MAX_BODY_BYTES + 1)}, "body is"),
    ({"body": "é" * (MAX_BODY_BYTES // 2 + 1)}, "body is"),
    ({"body": "nul \x00 here"}, "body holds a control"),
    ({"layer": "rule", "body": ""}, "body is empty: a rule needs its text"),
    ({"layer": "rule", "body": " \n\t "}, "body is empty: a rule needs its text"),
    ({"tags": ["two words"]}, r"tags\[0\]"),
    ({"tags": ["ok", "a,b"]}, r"tags\[1\]"),
    ({"tags": ["bell\x07"]}, r"tags\[0\]"),
    ({"tags": "a"}, "tags must be a list"),
    ({"folder": "a/../b"}, "folder may not contain"),
    ({"folder": ".."}, "folder may not contain"),
    ({"folder": "a//b"}, "folder has an empty part"),
    ({"folder": "a\tb"}, "folder holds a control"),
    ({"by": "robot"}, "by must be one of"),
    ({"source_message_uuid": "u1"}, "source_message_uuid needs"),
]


def test_merge_is_one_write_with_its_links_and_indexes(memory: Memory) -> None:
    notes = memory.notes
    into = notes.save("Token policy", "Short-lived tokens.", "state", by=PERSON, tags=["auth"])
    new = notes.save("Rotation", "Rotate zebrafish tokens.", "past", by=PERSON, tags=["AUTH", "t"])
    linking = notes.save("Overview", "See [[rotation|how we rotate]].", "state", by=PERSON)
    merged = notes.merge(new.note.id, into.note.id, by=PERSON)
    assert merged.body == "Short-lived tokens.\n\n## Rotation\n\nRotate zebrafish tokens.\n"
    assert merged.tags == ["auth", "t"] and notes.get(into.note.id).note == merged
    with pytest.raises(NotFound):
        notes.get(new.note.id)
    overview = notes.get(linking.note.id)
    assert overview.note.body == "See [[Token policy|how we rotate]]."
    assert [link.note_id for link in overview.links] == [into.note.id]
    assert [r.id for r in notes.get(into.note.id).backlinks] == [linking.note.id]
    for mode in ("fts", "vector"):
        found = notes.search("zebrafish tokens", mode=mode, flashbacks=False)
        assert found.results[0].note.id == into.note.id, mode
        assert new.note.id not in {h.note.id for h in found.results}, mode


def test_a_merge_that_cannot_finish_writes_nothing(memory: Memory) -> None:
    notes = memory.notes
    big = "x" * (MAX_BODY_BYTES // 2 + 10)
    into = notes.save("Big one", big, "state", by=PERSON).note
    new = notes.save("Big two", big, "state", by=PERSON).note
    past = notes.save("Decided", "We decided.", "past", by=PERSON).note
    linking = notes.save("Index", "[[Big two]] [[Decided]]", "state", by=PERSON).note
    stored = {n.id: notes.get(n.id) for n in (into, new, past, linking)}
    with pytest.raises(InvalidArgument, match="body is"):
        notes.merge(new.id, into.id, by=PERSON)  # too long together
    with pytest.raises(PastImmutable):
        notes.merge(past.id, linking.id, by=AGENT)  # an agent may not delete a past note
    with pytest.raises(InvalidArgument, match="itself"):
        notes.merge(into.id, into.id, by=PERSON)
    with pytest.raises(NotFound):
        notes.merge(new.id, 999, by=PERSON)
    assert {n.id: notes.get(n.id) for n in (into, new, past, linking)} == stored
    assert notes.merge(linking.id, into.id, by=AGENT).body.endswith("[[Big two]] [[Decided]]\n")


@pytest.mark.parametrize(("change", "message"), BAD_SAVES)
def test_bad_save_names_the_field_and_writes_nothing(
    memory: Memory, change: dict, message: str
) -> None:
    args = {"title": "T", "body": "b", "layer": "past", "by": PERSON, **change}
    with pytest.raises(InvalidArgument, match=message):
        memory.notes.save(**args)
    assert memory.notes.count() == 0 and memory.notes.export_all() == []


def test_bad_ids_and_updates(memory: Memory) -> None:
    n = memory.notes.save("T", "b", "state", by=PERSON)
    memory.notes.save("Taken", "b", "state", by=PERSON)
    for call in (
        lambda: memory.notes.get(999),
        lambda: memory.notes.update(999, by=PERSON, body="x"),
        lambda: memory.notes.delete(999, by=PERSON),
        lambda: memory.notes.approve(999),
    ):
        with pytest.raises(NotFound, match="note 999"):
            call()
    for bad in (0, -1, True, "1"):
        with pytest.raises(InvalidArgument, match="note_id"):
            memory.notes.get(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="nothing to change"):
        memory.notes.update(n.note.id, by=PERSON)
    with pytest.raises(InvalidArgument, match="taken by note"):
        memory.notes.update(n.note.id, by=PERSON, title="TAKEN")
    with pytest.raises(InvalidArgument, match="taken by note"):
        memory.notes.save("taken", "dup", "past", by=PERSON)
    with pytest.raises(InvalidArgument, match=r"tags\[0\]"):
        memory.notes.update(n.note.id, by=PERSON, body="new", tags=["a b"])
    assert memory.notes.get(n.note.id).note.body == "b"  # nothing partly written
    rule = memory.notes.save("A rule", "Say why.", "rule", by=PERSON).note
    untitled = memory.notes.save("Title only", "", "state", by=PERSON).note
    for call in (
        lambda: memory.notes.update(rule.id, by=PERSON, body="  \n"),
        lambda: memory.notes.update(untitled.id, by=PERSON, layer="rule"),
    ):
        with pytest.raises(InvalidArgument, match="body is empty"):
            call()
    assert memory.notes.get(rule.id).note.body == "Say why."
    assert memory.notes.get(untitled.id).note.layer == "state"
    with pytest.raises(NotFound):
        memory.notes.save("S", "b", "past", by=PERSON, source_session_id="nope")


def test_source_session_and_message(with_messages: Memory) -> None:
    memory = with_messages
    saved = memory.notes.save(
        "From chat", "b", "past", by=AGENT, source_session_id="s-ne", source_message_uuid="u-new"
    )
    assert saved.note.source_session_id == "s-new"
    source = memory.notes.get(saved.note.id).source
    assert source is not None
    assert (source.session_id, source.message_uuid, source.message_index) == ("s-new", "u-new", 0)
    assert source.project == lines.CWD


def test_a_merge_keeps_the_conversation_the_merged_note_came_from(with_messages: Memory) -> None:
    notes = with_messages.notes
    into = notes.save("Ingress notes", "What we know.", "state", by=PERSON)
    said = notes.save(
        "Ingress timeout",
        "b",
        "past",
        by=PERSON,
        source_session_id="s-new",
        source_message_uuid="u-new",
    )
    merged = notes.merge(said.note.id, into.note.id, by=PERSON)
    assert (merged.source_session_id, merged.source_message_uuid) == ("s-new", "u-new")
    source = notes.get(into.note.id).source
    assert source is not None and source.session_id == "s-new"
    # a note that has a conversation of its own keeps it
    other = notes.save("Old decision", "c", "past", by=PERSON, source_session_id="s-old")
    again = notes.merge(other.note.id, into.note.id, by=PERSON)
    assert again.source_session_id == "s-new"


def test_an_update_of_a_note_changed_since_it_was_read_is_refused(memory: Memory) -> None:
    notes = memory.notes
    read = notes.save("Plan", "one", "state", by=PERSON).note
    notes.update(read.id, by=PERSON, body="two, from elsewhere")
    with pytest.raises(InvalidArgument, match=r"note \d+ was changed elsewhere \(.+\) while you"):
        notes.update(read.id, by=PERSON, body="mine", expected_updated=read.updated)
    assert notes.get(read.id).note.body == "two, from elsewhere"
    now = notes.get(read.id).note
    done = notes.update(read.id, by=PERSON, body="mine", expected_updated=now.updated)
    assert done.body == "mine" and done.relinked == 0


def test_a_rename_says_how_many_notes_links_it_rewrote(memory: Memory) -> None:
    notes = memory.notes
    target = notes.save("Runbook", "steps", "state", by=PERSON).note
    for title in ("Deploy", "Rollback"):
        notes.save(title, "See [[Runbook]].", "state", by=PERSON)
    notes.save("Unrelated", "no links", "state", by=PERSON)
    assert notes.update(target.id, by=PERSON, title="Release runbook").relinked == 2
    assert notes.update(target.id, by=PERSON, body="more steps").relinked == 0


def test_the_change_marker_moves_on_every_commit_whoever_made_it(
    memory: Memory, cfg: Config
) -> None:
    before = memory.changes()
    assert memory.changes() == before  # a read is no change
    memory.notes.list()
    assert memory.changes() == before
    memory.notes.save("Here", "b", "state", by=PERSON)  # this process's writer
    after_own = memory.changes()
    assert after_own != before
    with Memory(cfg) as another:  # another process's, as Claude's MCP server is
        another.notes.save("There", "b", "state", by=AGENT)
    assert memory.changes() != after_own


@pytest.fixture
def other_memory(tmp_path: Path, claude_dir: Path) -> Iterator[Memory]:
    cfg = Config(data_dir=tmp_path / "other", claude_dir=claude_dir, log_dir=tmp_path / "logs")
    with Memory(cfg) as memory:
        yield memory


def test_export_import_round_trip(memory: Memory, other_memory: Memory) -> None:
    a = memory.notes.save("A", "links [[B]] and [[Nowhere]]", "past", by=AGENT, tags=["x"])
    memory.notes.save("B", "b", "rule", by=AGENT)
    memory.notes.save("C", "c", "rule", by=PERSON, folder="f/g")
    memory.notes.delete(memory.notes.save("D", "d", "state", by=PERSON).note.id, by=PERSON)
    exported = memory.notes.export_all()
    report = other_memory.notes.import_notes(list(reversed(exported)))
    assert (report.added, report.overwritten, report.skipped) == (3, 0, 0)
    assert other_memory.notes.export_all() == exported
    got = other_memory.notes.get(a.note.id)
    assert [(lk.target, lk.note_id is not None) for lk in got.links] == [
        ("B", True),
        ("Nowhere", False),
    ]
    assert other_memory.notes.search("links").results[0].note.id == a.note.id
    new = other_memory.notes.save("E", "e", "state", by=PERSON)
    assert new.note.id > max(n.id for n in exported)  # ids never reused


def test_import_all_or_nothing_and_conflicts(memory: Memory) -> None:
    stored = memory.notes.save("Kept", "original", "state", by=PERSON).note
    t = ago(1)
    good = Note(50, "New", "n", "state", "", [], t, t, PERSON)
    bads = [
        dataclasses.replace(good, id=51, title=""),
        dataclasses.replace(good, id=51, layer="rule"),  # a rule needs a status
        dataclasses.replace(good, id=51, created="last week"),
        dataclasses.replace(good, id=51, author="bot"),
        dataclasses.replace(good, id=50, title="Other"),  # the same id twice
    ]
    for bad in bads:
        with pytest.raises(InvalidArgument) as exc:
            memory.notes.import_notes([good, bad])
        assert exc.value.item == 1 and str(exc.value).startswith("notes[1]: ")  # type: ignore[attr-defined]
    assert [n.id for n in memory.notes.export_all()] == [stored.id]
    clash = dataclasses.replace(good, id=stored.id, title="Kept", body="imported")
    with pytest.raises(InvalidArgument, match="conflicts") as exc:
        memory.notes.import_notes([good, clash])
    assert exc.value.item == 1  # type: ignore[attr-defined]
    assert [n.id for n in memory.notes.export_all()] == [stored.id]
    report = memory.notes.import_notes([good, clash], on_conflict="skip")
    assert (report.added, report.skipped) == (1, 1)
    assert memory.notes.get(stored.id).note.body == "original"
    renamed = dataclasses.replace(clash, id=77, title="kept", body="imported")
    report = memory.notes.import_notes([renamed], on_conflict="overwrite")
    assert report.overwritten == 1
    assert memory.notes.get(77).note.body == "imported"
    with pytest.raises(NotFound):
        memory.notes.get(stored.id)
    with pytest.raises(InvalidArgument, match="on_conflict"):
        memory.notes.import_notes([], on_conflict="merge")  # type: ignore[arg-type]


def test_reindex_and_doctor_cover_notes(memory: Memory, cfg: Config) -> None:
    for i in range(20):
        memory.notes.save(f"Note {i}", f"body about topic {i} and zebras", "state", by=PERSON)
    assert memory.upkeep.doctor().ok
    index = memory._note_index()
    index.fts.write([], delete_ids=[1, 2])
    index.vectors.remove([3])
    report = memory.upkeep.doctor()
    assert not report.ok
    assert report.differences["notes full text"] == ({1, 2}, set())
    assert report.differences["notes vectors"][0] == {3}
    assert memory.upkeep.doctor(repair=True).ok
    assert memory.upkeep.reindex()
    assert memory.upkeep.doctor().ok
    assert len(memory.notes.search("zebras", mode="fts", limit=50).results) == 20


def test_deleted_note_leaves_indexes_and_new_process_catches_up(
    memory: Memory, cfg: Config
) -> None:
    n = memory.notes.save("Walrus", "walrus facts", "state", by=PERSON)
    memory.notes.delete(n.note.id, by=PERSON)
    assert memory.notes.search("walrus").results == []
    memory.notes.save("Otter", "otter facts", "state", by=PERSON)
    with Memory(cfg) as again:
        assert [h.note.title for h in again.notes.search("otter").results] == ["Otter"]
        assert again.upkeep.doctor().ok


def test_house_rules_import_nothing_heavy() -> None:
    probe = (
        "import sys; from memtui.engine import house_rules, Note, PastImmutable; "
        "print([m for m in ('numpy', 'tantivy', 'hnswlib', 'model2vec', "
        "'memtui.engine.memory', 'memtui.store.indexes') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_deleted_note_indexes_are_rebuilt_by_the_next_process(cfg: Config) -> None:
    with Memory(cfg) as memory:
        ids = [
            memory.notes.save(f"Heron {i}", "heron wading", "past", by=PERSON).note.id
            for i in range(5)
        ]
    shutil.rmtree(cfg.index_dir / "notes")
    with Memory(cfg) as memory:
        found = memory.notes.search("heron", mode="fts", limit=10).results
        assert sorted(h.note.id for h in found) == ids
        assert len(memory.notes.search("heron wading", mode="vector").results) == 5
        assert memory.upkeep.doctor().ok


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Deploy rule", "Deploy rul\u0435"),  # Cyrillic e
        ("Ops checklist", "\u039fps checklist"),  # Greek capital omicron
        ("Use uv", "Use  uv"),  # two spaces
        ("API keys", "\uff21PI keys"),  # fullwidth A (NFKC)
        ("Deploy rule", "Deploy\u200b rule"),  # a zero-width space
        ("Scope", "\u0405\u0441\u043ep\u0435"),  # Cyrillic S, c, o, e
        ("Release 1.0", "Release l.O"),  # digits and letters
    ],
)
def test_look_alike_titles_have_one_skeleton(one: str, other: str) -> None:
    assert skeleton(one) == skeleton(other)


@pytest.mark.parametrize(
    ("one", "other"), [("Deploy rule", "Deploy rules"), ("résumé", "resume"), ("Ops", "Opps")]
)
def test_different_titles_have_different_skeletons(one: str, other: str) -> None:
    assert skeleton(one) != skeleton(other)


def test_titles_that_only_look_alike_are_marked(memory: Memory) -> None:
    """Issue 25: a provisional rule titled `Deploy rule` with a Cyrillic e (U+0435) sat beside
    the approved `Deploy rule`, and only the ids told them apart. Each now names the other
    (`looks_like`) in the listings and in a note read alone; a title that differs by a real
    letter does not."""
    notes = memory.notes
    real = notes.save("Deploy rule", "Deploy from main only.", "rule", by=PERSON).note
    fake = notes.save("Deploy rul\u0435", "Deploy from any branch.", "rule", by=AGENT).note
    other = notes.save("Deploy rules", "Not a look-alike.", "state", by=PERSON).note
    assert {r.id: r.looks_like for r in notes.rules()} == {real.id: fake.id, fake.id: real.id}
    assert {n.id: n.looks_like for n in notes.list()} == {
        real.id: fake.id,
        fake.id: real.id,
        other.id: None,
    }
    assert notes.get(fake.id).note.looks_like == real.id
    notes.update(fake.id, by=PERSON, title="Deploy from any branch")
    assert notes.get(real.id).note.looks_like is None
    assert [r.looks_like for r in notes.rules()] == [None, None]
