"""Export and import (engine/transfer.py) on the real store, indexes and model, in process;
and the front matter reader and writer they use."""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memtui.config import Config
from memtui.engine import frontmatter
from memtui.engine.memory import Memory
from memtui.engine.notes_types import Note
from memtui.engine.transfer import (
    _note_from_markdown,
    _read_jsonl,
    edited_note,
    file_name,
    note_for_editing,
    note_markdown,
)
from memtui.errors import InvalidArgument

# -- front matter -----------------------------------------------------------------------------

words = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)


@given(
    title=words,
    folder=words,
    tags=st.lists(words, max_size=4),
    body=st.text(st.characters(exclude_categories=("Cs",)), max_size=200),
)
def test_front_matter_round_trips_any_text(
    title: str, folder: str, tags: list[str], body: str
) -> None:
    text = frontmatter.dump({"title": title, "folder": folder, "tags": tags, "id": 7}, body)
    parsed = frontmatter.split(text)
    assert parsed == ({"title": title, "folder": folder, "tags": tags, "id": "7"}, body)


@pytest.mark.parametrize(
    "value", ["yes", "No", "null", "~", "12", "1.5", "-3", "1e3", "0x1f", ".inf", "true"]
)
def test_words_yaml_would_retype_are_quoted(value: str) -> None:
    assert frontmatter.dump({"title": value}, "").splitlines()[1] == f'title: "{value}"'


def test_front_matter_as_people_and_obsidian_write_it() -> None:
    text = (
        "---\n"
        "title: 'It''s: a plan'  # a comment\n"
        "# a comment line\n"
        "\n"
        "tags: [ci, \"a,b\", '#x']  # tags\n"
        "aliases:\n"
        "  - Plan\n"
        "- 'Other'\n"
        "cssclasses:\n"
        "---\n"
        "Body with [[Link]]\n"
    )
    fields, body = frontmatter.split(text) or ({}, "")
    assert fields == {
        "title": "It's: a plan",
        "tags": ["ci", "a,b", "#x"],
        "aliases": ["Plan", "Other"],
        "cssclasses": None,
    }
    assert body == "Body with [[Link]]\n"
    assert frontmatter.split("no front matter\n---\n") is None


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("---\ntitle: x\n", "no closing"),
        ("---\ntitle: x\nthis is not a field\n---\n", "line 3"),
        ("---\ntitle: x\ntitle: y\n---\n", "line 3: 'title' is given twice"),
        ('---\ntitle: "unclosed\n---\n', "line 2: a broken quoted string"),
        ("---\nmap: {a: 1}\n---\n", "line 2"),
        ("---\ntags: [a, b\n---\n", "line 2"),
    ],
)
def test_front_matter_errors_name_the_line(text: str, says: str) -> None:
    with pytest.raises(InvalidArgument, match=says):
        frontmatter.split(text)


def test_file_names_keep_the_title_where_they_can() -> None:
    assert file_name("Checkout flake") == "Checkout flake"
    assert file_name("a/b: c? [[d]] #e") == "a b c d e"
    assert file_name("...hidden") == "hidden"
    assert file_name("../../x/ESCAPED") == "x ESCAPED"
    assert file_name(". .") == "untitled"
    assert file_name("CON") == "CON (note)"
    assert file_name("[[]]") == "untitled"
    assert len(file_name("é" * 300).encode()) <= 200


# -- export and import over the real engine ---------------------------------------------------


def other(cfg: Config, tmp_path: Path, name: str) -> Config:
    return Config(data_dir=tmp_path / name, claude_dir=cfg.claude_dir, log_dir=cfg.log_dir)


@pytest.fixture
def filled(memory: Memory) -> Memory:
    """Notes in every layer and folder shape, linked to each other and to a missing title."""
    notes = memory.notes
    notes.save(
        "Checkout flake",
        "The webhook fixture uses a fixed timestamp. See [[Payments plan|the plan]].",
        "past",
        by="person",
        folder="projects/shop",
        tags=["ci", "flaky"],
    )
    notes.save(
        "Payments plan",
        "Move to the new provider. Links [[Checkout flake]] and [[Not written yet]].",
        "state",
        by="person",
        folder="projects/shop",
    )
    notes.save("Use uv", "Always run Python through `uv run`.", "rule", by="person")
    notes.save("Answer in French", "Reply in French.", "rule", by="agent", tags=["lang"])
    odd = "---\nnot front matter\n---\nbody\r\nline"
    notes.save("Top level: odd/name?", odd, "past", by="person")
    return memory


def snapshot(memory: Memory) -> list[tuple[Note, list[tuple[str, int | None]], list[int]]]:
    """Every note with its links and backlinks, as comparable values."""
    out = []
    for note in memory.notes.export_all():
        detail = memory.notes.get(note.id)
        links = [(link.target, link.note_id) for link in detail.links]
        out.append((note, links, sorted(ref.id for ref in detail.backlinks)))
    return out


@pytest.fixture
def empty(cfg: Config, tmp_path: Path) -> Iterator[Memory]:
    mem = Memory(other(cfg, tmp_path, "empty"))
    yield mem
    mem.close()


@pytest.mark.parametrize("fmt", ["jsonl", "markdown"])
def test_round_trip_into_an_empty_data_dir(
    filled: Memory, empty: Memory, tmp_path: Path, fmt: str
) -> None:
    target = tmp_path / ("notes.jsonl" if fmt == "jsonl" else "vault")
    report = filled.transfer.export(target, fmt)  # type: ignore[arg-type]
    assert report.notes == 5
    summary = empty.transfer.import_(target)
    assert (summary.format, summary.added, summary.overwritten, summary.skipped) == (fmt, 5, 0, 0)
    assert snapshot(empty) == snapshot(filled)
    statuses = {r.title: r.status for r in empty.notes.rules()}
    assert statuses == {"Use uv": "approved", "Answer in French": "provisional"}
    hits = empty.notes.search("webhook fixture timestamp", mode="fts").results
    assert hits and hits[0].note.title == "Checkout flake"  # indexed, not only stored


def test_jsonl_records_have_a_type_and_a_header(filled: Memory, tmp_path: Path) -> None:
    target = tmp_path / "notes.jsonl"
    filled.transfer.export(target)
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert lines[0]["type"] == "memtui-export" and lines[0]["version"] == 1
    assert {line["type"] for line in lines[1:]} == {"note"}
    flake = next(line for line in lines if line.get("title") == "Checkout flake")
    assert flake["folder"] == "projects/shop" and flake["tags"] == ["ci", "flaky"]
    assert flake["created"].endswith("+00:00") and flake["author"] == "person"


def test_markdown_is_a_folder_of_obsidian_notes(filled: Memory, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    filled.transfer.export(vault, "markdown")
    files = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
    assert files == [
        "Answer in French.md",
        "Top level odd name.md",
        "Use uv.md",
        "projects/shop/Checkout flake.md",
        "projects/shop/Payments plan.md",
    ]
    text = (vault / "projects/shop/Checkout flake.md").read_text()
    assert text.startswith("---\ntitle: Checkout flake\nlayer: past\ntags:\n  - ci\n  - flaky\n")
    assert "author: person\n---\nThe webhook fixture" in text
    assert text.endswith("See [[Payments plan|the plan]].\n")
    odd = (vault / "Top level odd name.md").read_text()
    assert 'aliases:\n  - "Top level: odd/name?"' in odd  # Obsidian finds the title


def test_old_timestamps_and_sources_are_kept(empty: Memory, tmp_path: Path) -> None:
    source = tmp_path / "old.jsonl"
    record = {
        "type": "note",
        "id": 40,
        "title": "Old decision",
        "layer": "past",
        "body": "We chose Postgres.",
        "created": "2024-03-01T09:00:00Z",
        "updated": "2024-03-02",
        "source": {"session_id": "aaaa1111-gone", "message_uuid": "u-1"},
    }
    source.write_text(json.dumps(record) + "\n")
    empty.transfer.import_(source)
    note = empty.notes.get(40).note
    assert note.created == "2024-03-01T09:00:00.000000+00:00"
    assert note.updated == "2024-03-02T00:00:00.000000+00:00"
    assert (note.source_session_id, note.source_message_uuid) == ("aaaa1111-gone", "u-1")
    assert note.author == "person" and note.folder == "" and note.tags == []


def test_a_note_from_the_calendars_first_days_is_found_with_its_flashbacks(
    empty: Memory, tmp_path: Path
) -> None:
    """Found by a break-it pass: a search whose first hit was a note imported as created on
    0001-01-01 failed with INTERNAL_ERROR (its flashbacks looked 90 days before it)."""
    source = tmp_path / "ancient.jsonl"
    record = {
        "type": "note",
        "id": 7,
        "title": "Zebra boundary",
        "layer": "past",
        "body": "zebra boundary notes",
        "created": "0001-01-01T00:00:00Z",
    }
    source.write_text(json.dumps(record) + "\n")
    empty.transfer.import_(source)
    found = empty.notes.search("zebra boundary")
    assert [h.note.id for h in found.results] == [7]
    assert found.flashbacks.notes == [] and found.flashbacks.sessions == []


GOOD = (
    '{"type": "note", "id": 1, "title": "One", "layer": "past", "body": "b", '
    '"created": "2026-01-01T00:00:00+00:00"}'
)


@pytest.mark.parametrize(
    ("bad", "says"),
    [
        ("{not json", "line 3: not JSON"),
        ('["a list"]', 'line 3: not a record with a "type"'),
        ('{"type": "note", "title": "T"}', 'line 3: "layer" is missing'),
        ('{"type": "note", "title": "T", "layer": "past", "id": "7"}', '"id" is not a whole'),
        ('{"type": "note", "title": "T", "layer": "past", "tags": "a"}', '"tags" is not a list'),
        ('{"type": "note", "title": "T", "layer": "past", "created": "soon"}', '"created" is not'),
        ('{"type": "note", "title": "   ", "layer": "past"}', "line 3: title"),
        ('{"type": "note", "title": "T", "layer": "someday"}', "line 3: layer"),
        ('{"type": "note", "title": "T", "layer": "past", "tags": ["a b"]}', "line 3: tags"),
        ('{"type": "note", "title": "T", "layer": "past", "folder": "a/../b"}', "line 3: folder"),
        ('{"type": "note", "title": "[[]]", "layer": "past"}', "line 3: title"),
        ('{"type": "note", "title": "T\\u0007", "layer": "past"}', "line 3: title"),
        ('{"type": "note", "title": "one", "layer": "past"}', "line 3: title 'one' is also"),
        ('{"type": "memtui-export", "version": 99}', "line 3: written by a newer memtui"),
    ],
)
def test_a_bad_line_is_named_and_nothing_is_imported(
    empty: Memory, tmp_path: Path, bad: str, says: str
) -> None:
    source = tmp_path / "bad.jsonl"
    after = GOOD.replace('"id": 1, "title": "One"', '"id": 2, "title": "Two"')
    source.write_text(f"{GOOD}\n\n{bad}\n{after}\n")
    with pytest.raises(InvalidArgument, match=f"bad.jsonl.*{says}"):
        empty.transfer.import_(source)
    assert empty.notes.export_all() == []


def test_a_body_over_100_kb_is_refused(empty: Memory, tmp_path: Path) -> None:
    source = tmp_path / "big.jsonl"
    big = {"type": "note", "title": "Big", "layer": "past", "body": "x" * (100 * 1024 + 1)}
    source.write_text(GOOD + "\n" + json.dumps(big) + "\n")
    with pytest.raises(InvalidArgument, match="line 2: body"):
        empty.transfer.import_(source)
    assert empty.notes.export_all() == []


def test_unknown_record_types_are_left_out_and_counted(empty: Memory, tmp_path: Path) -> None:
    source = tmp_path / "later.jsonl"
    source.write_text(
        '{"type": "memtui-export", "version": 1}\n'
        + GOOD
        + '\n{"type": "insight", "title": "x"}\n{"type": "signal_triage"}\n'
    )
    summary = empty.transfer.import_(source)
    assert summary.added == 1 and summary.ignored == {"insight": 1, "signal_triage": 1}


def conflicting(tmp_path: Path) -> Path:
    """An export whose note 1 is changed and whose note 9 takes the title of note 2."""
    source = tmp_path / "incoming.jsonl"
    records = [
        {"type": "note", "id": 1, "title": "Checkout flake", "layer": "past", "body": "new body"},
        {"type": "note", "id": 9, "title": "payments PLAN", "layer": "state", "body": "theirs"},
        {"type": "note", "id": 20, "title": "Fresh", "layer": "state", "body": "fresh"},
    ]
    source.write_text("".join(json.dumps(r) + "\n" for r in records))
    return source


def test_conflicts_skip(filled: Memory, tmp_path: Path) -> None:
    summary = filled.transfer.import_(conflicting(tmp_path), "skip")
    assert (summary.added, summary.overwritten, summary.skipped) == (1, 0, 2)
    assert filled.notes.get(1).note.body.startswith("The webhook fixture")
    assert filled.notes.get(20).note.body == "fresh"


def test_conflicts_overwrite(filled: Memory, tmp_path: Path) -> None:
    summary = filled.transfer.import_(conflicting(tmp_path), "overwrite")
    assert (summary.added, summary.overwritten, summary.skipped) == (1, 2, 0)
    assert filled.notes.get(1).note.body == "new body"
    assert filled.notes.get(9).note.body == "theirs"
    assert [n.title for n in filled.notes.export_all()].count("Payments plan") == 0


def test_conflicts_error_imports_nothing(filled: Memory, tmp_path: Path) -> None:
    before = filled.notes.export_all()
    with pytest.raises(InvalidArgument, match=re.escape("incoming.jsonl line 1")):
        filled.transfer.import_(conflicting(tmp_path))
    assert filled.notes.export_all() == before


def test_importing_the_same_export_again_changes_nothing(filled: Memory, tmp_path: Path) -> None:
    for fmt, target in (("jsonl", tmp_path / "n.jsonl"), ("markdown", tmp_path / "vault")):
        filled.transfer.export(target, fmt)  # type: ignore[arg-type]
        before = snapshot(filled)
        summary = filled.transfer.import_(target)  # on_conflict="error": nothing conflicts
        assert (summary.added, summary.overwritten, summary.skipped) == (0, 0, 5)
        assert snapshot(filled) == before


def test_export_never_overwrites_unless_asked(filled: Memory, tmp_path: Path) -> None:
    target = tmp_path / "notes.jsonl"
    target.write_text("mine\n")
    with pytest.raises(InvalidArgument, match=r"exists.*--force"):
        filled.transfer.export(target)
    assert target.read_text() == "mine\n"
    filled.transfer.export(target, overwrite=True)
    assert target.read_text().startswith('{"type":"memtui-export"')

    vault = tmp_path / "vault"
    (vault / ".git").mkdir(parents=True)
    (vault / "README.md").write_text("my own notes about this folder\n")
    with pytest.raises(InvalidArgument, match="folder with files in it"):
        filled.transfer.export(vault, "markdown")
    filled.transfer.export(vault, "markdown", overwrite=True)
    filled.notes.delete(filled.notes.export_all()[-1].id, by="person")
    report = filled.transfer.export(vault, "markdown", overwrite=True)
    assert report.removed == ["Top level odd name.md"] and report.written == 0
    assert (vault / "README.md").read_text() == "my own notes about this folder\n"
    assert (vault / ".git").is_dir()


def test_a_plain_obsidian_vault_imports(empty: Memory, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / ".obsidian" / "ignored.md").write_text("settings")
    (vault / "work" / "shop").mkdir(parents=True)
    (vault / "work" / "shop" / "Deploy steps.md").write_text("Run [[Checklist]] first.\n")
    checklist = "---\ntags: [ops, '#deploy']\nlayer: state\ndue date: 2026-12-01\n---\n- [ ] a\n"
    (vault / "Checklist.md").write_text(checklist)
    summary = empty.transfer.import_(vault)
    assert summary.added == 2
    notes = {n.title: n for n in empty.notes.export_all()}
    assert notes["Deploy steps"].folder == "work/shop" and notes["Deploy steps"].layer == "past"
    assert notes["Checklist"].tags == ["ops", "deploy"] and notes["Checklist"].layer == "state"
    links = empty.notes.get(notes["Deploy steps"].id).links
    assert [(link.target, link.note_id) for link in links] == [("Checklist", notes["Checklist"].id)]


def test_a_bad_markdown_file_is_named_and_nothing_is_imported(
    empty: Memory, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    (vault / "a").mkdir(parents=True)
    (vault / "Good.md").write_text("fine\n")
    (vault / "a" / "Bad.md").write_text("---\nlayer: someday\n---\n")
    with pytest.raises(InvalidArgument, match=re.escape("a/Bad.md: layer")):
        empty.transfer.import_(vault)
    (vault / "a" / "Bad.md").write_text("---\nlayer: past\ntitle: x\nnonsense\n---\n")
    with pytest.raises(InvalidArgument, match=re.escape("a/Bad.md: front matter line 4")):
        empty.transfer.import_(vault)
    (vault / "a" / "Bad.md").write_bytes(b"\xff\xfe not utf-8")
    with pytest.raises(InvalidArgument, match=re.escape("a/Bad.md: not UTF-8")):
        empty.transfer.import_(vault)
    assert empty.notes.export_all() == []


def test_markdown_body_is_kept_byte_for_byte() -> None:
    for text in ("---\nx: y\n---\r\n\nend", "ends\r\n", "ends\n\n", ""):
        at = "2026-01-05T10:00:00+00:00"
        note = Note(1, "T", text, "past", "", [], at, at, "person")
        assert _note_from_markdown(note_markdown(note), Path("T.md"), 0.0).body == text


def test_titles_that_make_one_file_name_get_two_files(
    memory: Memory, empty: Memory, tmp_path: Path
) -> None:
    memory.notes.save("Plan: A", "colon", "state", by="person")
    memory.notes.save("Plan A", "plain", "state", by="person")
    vault = tmp_path / "vault"
    memory.transfer.export(vault, "markdown")
    assert sorted(p.name for p in vault.iterdir()) == ["Plan A (2).md", "Plan A.md"]
    empty.transfer.import_(vault)
    assert snapshot(empty) == snapshot(memory)


def test_a_byte_order_mark_is_not_a_malformed_line(empty: Memory, tmp_path: Path) -> None:
    source = tmp_path / "bom.jsonl"
    source.write_bytes(b"\xef\xbb\xbf" + GOOD.encode() + b"\r\n")
    assert empty.transfer.import_(source).added == 1


# -- no input crashes the readers: a bad file is one InvalidArgument ---------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | words,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(words, inner, max_size=3),
    max_leaves=8,
)
record_keys = st.sampled_from(
    ["type", "id", "title", "layer", "body", "folder", "tags", "created", "updated", "author",
     "status", "source", "version"]
)  # fmt: skip
records = st.dictionaries(record_keys, json_values | st.just("note"), max_size=8)


@given(lines=st.lists(st.binary(max_size=60) | records.map(lambda r: json.dumps(r).encode())))
def test_any_jsonl_is_read_or_refused_in_one_line(lines: list[bytes]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.jsonl"
        path.write_bytes(b"\n".join(line.replace(b"\n", b" ") for line in lines))
        try:
            _read_jsonl(path)
        except InvalidArgument as exc:
            assert "fuzz.jsonl line " in str(exc) and "\n" not in exc.line().strip()


@given(text=st.text(max_size=300), fields=st.dictionaries(record_keys, words, max_size=6))
def test_any_markdown_is_read_or_refused(text: str, fields: dict[str, str]) -> None:
    for candidate in (text, "---\n" + text, frontmatter.dump(dict(fields), text)):
        with contextlib.suppress(InvalidArgument):
            _note_from_markdown(candidate, Path("a/Some note.md"), 0.0)


def test_a_line_too_long_is_refused_unread(empty: Memory, tmp_path: Path) -> None:
    source = tmp_path / "long.jsonl"
    source.write_text(GOOD + "\n" + "x" * (2 * 1024 * 1024) + "\n")
    with pytest.raises(InvalidArgument, match=r"long\.jsonl line 2: longer than 1,048,576 bytes"):
        empty.transfer.import_(source)
    assert empty.notes.export_all() == []


def test_a_note_edited_in_obsidian_comes_back_newer(filled: Memory, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    filled.transfer.export(vault, "markdown")
    page = vault / "projects/shop/Payments plan.md"
    page.write_text(page.read_text() + "\nEdited in Obsidian.")
    os.utime(page, (2_000_000_000, 2_000_000_000))  # 2033: later than any save here
    before = filled.notes.get(2).note
    with pytest.raises(InvalidArgument, match=re.escape("projects/shop/Payments plan.md")):
        filled.transfer.import_(vault)  # a conflict: the default imports nothing
    summary = filled.transfer.import_(vault, "overwrite")
    assert (summary.added, summary.overwritten, summary.skipped) == (0, 1, 4)
    after = filled.notes.get(2).note
    assert after.body.endswith("\nEdited in Obsidian.")
    assert after.updated == "2033-05-18T03:33:20.000000+00:00" and after.created == before.created


@given(
    title=words.filter(str.strip),
    tags=st.lists(st.text(st.characters(exclude_categories=("Cs",)), min_size=1), max_size=3),
)
def test_a_yaml_library_reads_the_front_matter_the_same(title: str, tags: list[str]) -> None:
    """What memtui writes is YAML: PyYAML (a YAML 1.1 reader, the strictest about plain
    words) reads back the same strings (it is here for this test only)."""
    yaml = pytest.importorskip("yaml")
    text = frontmatter.dump({"title": title, "tags": tags}, "body")
    assert yaml.safe_load(text.split("---\n")[1]) == {"title": title, "tags": tags}


def test_export_force_never_writes_over_edits_made_outside(filled: Memory, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    filled.transfer.export(vault, "markdown")
    filled.notes.update(1, by="person", body="Changed in memtui.")  # newer than its file
    page = vault / "projects/shop/Payments plan.md"
    page.write_text(page.read_text() + "\nEdited in Obsidian.")
    os.utime(page, (2_000_000_000, 2_000_000_000))  # later than memtui's last save of it
    with pytest.raises(
        InvalidArgument, match=r"1 file in \S+ changed since memtui wrote it: .*Payments plan.md"
    ):
        filled.transfer.export(vault, "markdown", overwrite=True)
    assert page.read_text().endswith("Edited in Obsidian.")
    assert "Changed in memtui." not in (vault / "projects/shop/Checkout flake.md").read_text()
    summary = filled.transfer.import_(vault, "overwrite")  # never back in time:
    assert (summary.overwritten, summary.newer_kept) == (1, 1)  # memtui's newer change kept
    assert filled.notes.get(1).note.body == "Changed in memtui."
    report = filled.transfer.export(vault, "markdown", overwrite=True)
    assert report.written == 2  # Checkout flake's change; Payments plan's new `updated`
    assert (vault / "projects/shop/Checkout flake.md").read_text().endswith("Changed in memtui.\n")
    assert page.read_text().endswith("Edited in Obsidian.\n")


def test_titles_and_folders_that_start_with_a_dot_round_trip(
    memory: Memory, empty: Memory, tmp_path: Path
) -> None:
    """The import leaves out hidden files and folders (`.obsidian`): the export writes none."""
    memory.notes.save("../../x/ESCAPED", "escaped", "past", by="person")
    memory.notes.save(". .dots", "dots", "past", by="person")
    memory.notes.save("In hidden", "hidden", "state", by="person", folder=".hidden/.deeper")
    memory.notes.save("Plain", "plain", "state", by="person", folder="hidden")
    vault = tmp_path / "vault"
    report = memory.transfer.export(vault, "markdown")
    written = [p.relative_to(vault) for p in vault.rglob("*")]
    assert not [p for p in written if any(part.startswith(".") for part in p.parts)]
    assert report.written == 4
    summary = empty.transfer.import_(vault)
    assert summary.added == 4
    assert snapshot(empty) == snapshot(memory)


def test_an_edited_note_reads_its_fields_as_an_import_does() -> None:
    """`memtui note edit`'s front matter is read by the same code as a Markdown import: tags
    written Obsidian's older way split alike, a list where one value goes refused alike."""
    text = note_for_editing(Note(3, "T", "body\n", "past", "f", ["a"], "t", "t", "person"))
    assert edited_note(text) == {
        "title": "T",
        "layer": "past",
        "folder": "f",
        "tags": ["a"],
        "body": "body\n",
    }
    assert edited_note(text.replace("tags:\n  - a", "tags: a, b"))["tags"] == ["a", "b"]
    bad = text.replace("layer: past", "layer: [a, b]")
    with pytest.raises(InvalidArgument, match="layer must be one value"):
        edited_note(bad)
    with pytest.raises(InvalidArgument, match="layer must be one value"):
        _note_from_markdown(bad, Path("T.md"), 0.0)


def test_every_markdown_file_ends_with_a_newline_and_bodies_round_trip(
    filled: Memory, empty: Memory, tmp_path: Path
) -> None:
    """Each exported file ends with a newline (a body need not): read back, each body is as
    stored, with or without its own last newline."""
    filled.notes.save("Ends in a newline", "two lines\nhere\n", "past", by="person")
    vault = tmp_path / "vault"
    filled.transfer.export(vault, "markdown")
    files = sorted(vault.rglob("*.md"))
    assert len(files) == 6 and all(f.read_bytes().endswith(b"\n") for f in files)
    assert (vault / "Ends in a newline.md").read_bytes().endswith(b"\nhere\n\n")
    empty.transfer.import_(vault)
    assert snapshot(empty) == snapshot(filled)


def test_an_export_made_before_files_ended_with_a_newline_is_still_the_same(
    filled: Memory, tmp_path: Path
) -> None:
    """Files written as an older memtui did (the body as stored, nothing added) are taken
    for what they hold: imported again they change nothing, and updating them is not
    refused as edits made outside memtui."""
    filled.notes.save("Ends in a newline", "two lines\nhere\n", "past", by="person")
    vault = tmp_path / "vault"
    filled.transfer.export(vault, "markdown")
    for path in vault.rglob("*.md"):
        path.write_bytes(path.read_bytes().removesuffix(b"\n"))  # as an older export wrote it
    before = snapshot(filled)
    summary = filled.transfer.import_(vault)
    assert (summary.added, summary.overwritten, summary.skipped) == (0, 0, 6)
    assert snapshot(filled) == before
    report = filled.transfer.export(vault, "markdown", overwrite=True)
    assert report.written == 6
