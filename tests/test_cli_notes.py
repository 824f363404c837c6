"""`memtui notes`, `note show|add|edit|rm`, `rules`, `export` and `import` as a person runs
them: real subprocesses over the real store, indexes and model (and, for the questions
asked at a terminal, `main` in process with a terminal's stdin)."""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from memtui import cli
from memtui.config import Config
from memtui.engine.memory import Memory
from tests import lines
from tests.cli_run import env_for, one_line_error


def run(
    cfg: Config, *args: str | bytes, stdin: str | bytes = b"", **extra: str
) -> subprocess.CompletedProcess[str]:
    """`memtui ARGS` with `stdin` as its input (a pipe: never a terminal)."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    result = subprocess.run(
        [sys.executable, "-m", "memtui", *args],
        env=env_for(cfg, **extra),
        input=data,
        capture_output=True,
        timeout=180,
        cwd="/",
    )
    return subprocess.CompletedProcess(
        result.args, result.returncode, result.stdout.decode(), result.stderr.decode()
    )


def listed(cfg: Config) -> list[dict[str, object]]:
    result = run(cfg, "notes", "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["notes"]


@pytest.fixture
def noted(cfg: Config) -> Config:
    """Two notes by the person (one linking the other), a provisional rule by an agent."""
    with Memory(cfg) as memory:
        memory.notes.save(
            "Checkout flake",
            "The fixture's timestamp is fixed. Plan: [[Payments plan]].",
            "past",
            by="person",
            folder="projects/shop",
            tags=["ci"],
        )
        memory.notes.save("Payments plan", "Move providers.", "state", by="person", tags=["pay"])
        memory.notes.save("Answer in French", "Reply in French.", "rule", by="agent")
    return cfg


# -- listing and reading ----------------------------------------------------------------------


def test_notes_lists_newest_first_with_filters(noted: Config) -> None:
    text = run(noted, "notes")
    assert text.returncode == 0
    lines = text.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["3", "2", "1"]
    assert "projects/shop" in lines[2] and "Checkout flake" in lines[2]
    titles = ["Answer in French", "Payments plan", "Checkout flake"]
    assert len({line.index(title) for line, title in zip(lines, titles, strict=True)}) == 1
    assert [
        n["title"] for n in json.loads(run(noted, "notes", "--tag", "CI", "--json").stdout)["notes"]
    ] == ["Checkout flake"]
    doc = json.loads(run(noted, "notes", "--folder", "projects", "--json").stdout)
    assert doc["total"] == 1 and doc["notes"][0]["folder"] == "projects/shop"
    assert json.loads(run(noted, "notes", "--layer", "rule", "--json").stdout)["total"] == 1
    assert "Checkout flake" in run(noted, "notes", "--folder", "Projects/SHOP").stdout
    none = run(noted, "notes", "--folder", "elsewhere")
    assert none.returncode == 0 and none.stdout == ""
    assert "no note has folder 'elsewhere' (a folder from its top)" in none.stderr
    # The list says `-` for no folder, and takes it back (found by a break-it pass)
    unfiled = run(noted, "notes", "--folder", "-").stdout.splitlines()
    assert [line.split()[0] for line in unfiled] == ["3", "2"]
    odd = run(noted, "notes", "--tag", "nope").stderr
    assert "no note has tag 'nope': " in odd, "a tag is no folder"


def test_notes_when_there_are_none(cfg: Config) -> None:
    result = run(cfg, "notes")
    assert result.returncode == 0 and result.stdout == ""
    assert "memtui note add" in result.stderr


def test_note_show_text_and_json(noted: Config) -> None:
    shown = run(noted, "note", "show", "1")
    assert shown.returncode == 0
    assert shown.stdout.startswith("# Checkout flake\n")
    assert "folder   projects/shop" in shown.stdout and "[[Payments plan]] → #2" in shown.stdout
    target = run(noted, "note", "show", "2").stdout
    assert "Referenced by\n  #1 Checkout flake" in target
    doc = json.loads(run(noted, "note", "show", "1", "--json").stdout)
    assert doc["note"]["tags"] == ["ci"] and doc["links"][0]["note_id"] == 2


# -- adding -----------------------------------------------------------------------------------


def test_note_add_from_a_file_and_from_stdin(cfg: Config, tmp_path: Path) -> None:
    body = tmp_path / "body.md"
    body.write_text("Decided: keep [[Stdin note]] short.\n")
    added = run(
        cfg, "note", "add", "--title", "From a file", "--layer", "past", "--folder", "a/b",
        "--tag", "one", "--tag", "#two", str(body),
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert added.stdout.startswith("saved note #1 'From a file' (past, a/b)")
    piped = run(cfg, "note", "add", "--title", "Stdin note", "--layer", "state", "-", stdin="hi")
    assert piped.returncode == 0, piped.stderr
    no_file = run(cfg, "note", "add", "--title", "Piped rule", "--layer", "rule", stdin="Be brief.")
    assert no_file.returncode == 0, no_file.stderr
    title_only = run(cfg, "note", "add", "--title", "No body", "--layer", "past")
    assert title_only.returncode == 0, title_only.stderr
    notes = {n["title"]: n for n in listed(cfg)}
    assert notes["From a file"]["tags"] == ["one", "two"]
    assert notes["Stdin note"]["body"] == "hi" and notes["No body"]["body"] == ""
    assert notes["Piped rule"]["body"] == "Be brief."
    assert notes["Piped rule"]["status"] == "approved"  # the person's own rule
    doc = json.loads(run(cfg, "note", "show", "1", "--json").stdout)
    assert doc["links"][0]["note_id"] == notes["Stdin note"]["id"]


@pytest.mark.parametrize("stdin", ["", " \n\t\n"])
def test_note_add_refuses_a_rule_with_no_text(cfg: Config, stdin: str) -> None:
    result = run(cfg, "note", "add", "--title", "Empty rule", "--layer", "rule", stdin=stdin)
    assert one_line_error(result), result.stderr
    assert "INVALID_ARGUMENT: body is empty" in result.stderr
    assert listed(cfg) == []


@pytest.mark.parametrize("layer", ["past", "rule"])
def test_note_add_with_no_file_at_a_terminal_refuses(cfg: Config, layer: str) -> None:
    """Nobody types a body they were not asked for: no FILE at a terminal is a mistake, not
    an empty note (a real pseudo-terminal on stdin, nothing typed)."""
    primary, secondary = pty.openpty()
    try:
        result = subprocess.run(
            [sys.executable, "-m", "memtui", "note", "add", "--title", "zz", "--layer", layer],
            env=env_for(cfg),
            stdin=secondary,
            capture_output=True,
            text=True,
            timeout=180,
            cwd="/",
        )
    finally:
        os.close(secondary)
        os.close(primary)
    assert one_line_error(result), result.stderr
    err = result.stderr
    assert "INVALID_ARGUMENT" in err and "FILE" in err and "- " in err and "pipe" in err
    assert listed(cfg) == []


def test_note_add_warns_of_a_similar_note(noted: Config) -> None:
    result = run(
        noted, "note", "add", "--title", "Checkout flake again", "--layer", "past", "-",
        stdin="The fixture's timestamp is fixed. Plan: [[Payments plan]].",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "similar: #1 'Checkout flake'" in result.stdout


BIG = "x" * (100 * 1024 + 1)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--title", "", "--layer", "past"), "title"),
        (("--title", "  \t ", "--layer", "past"), "title"),
        (("--title", "T", "--layer", "someday"), "--layer"),
        (("--title", "[[]]", "--layer", "past"), "title"),
        (("--title", "bell\x07", "--layer", "past"), "title"),
        (("--title", "T", "--layer", "past", "--tag", "two words"), "tag"),
        (("--title", "T", "--layer", "past", "--tag", "a,b"), "tag"),
        (("--title", "T", "--layer", "past", "--folder", "a/../b"), "folder"),
        (("--title", "T", "--layer", "past", "-"), "body (stdin) is over 100 KB"),
        (("--title", "T", "--layer", "past", "/no/such/file.md"), "cannot read /no/such"),
        (("--title", "T", "--layer", "past", "--bogus"), "unrecognized"),
        (("--layer", "past"), "--title"),
    ],
)
def test_note_add_bad_input(cfg: Config, args: tuple[str, ...], says: str) -> None:
    result = run(cfg, "note", "add", *args, stdin=BIG if "-" in args else "body")
    assert one_line_error(result), result.stderr
    assert says in result.stderr and result.stdout == ""
    assert listed(cfg) == []  # nothing partly written


def test_note_add_bytes_that_are_not_utf8(cfg: Config, tmp_path: Path) -> None:
    latin = tmp_path / "latin1.md"
    latin.write_bytes("café".encode("latin-1"))
    result = run(cfg, "note", "add", "--title", "T", "--layer", "past", str(latin))
    assert one_line_error(result) and "not UTF-8" in result.stderr
    nul = run(cfg, "note", "add", "--title", "T", "--layer", "past", "-", stdin="a\x00b")
    assert one_line_error(nul) and "body" in nul.stderr
    title = run(cfg, "note", "add", "--title", b"caf\xe9", "--layer", "past")
    assert one_line_error(title) and "not valid UTF-8" in title.stderr
    assert listed(cfg) == []


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("note", "show", "99"), "NOT_FOUND"),
        (("note", "edit", "99"), "NOT_FOUND"),
        (("note", "rm", "99", "--yes"), "NOT_FOUND"),
        (("rules", "approve", "99"), "NOT_FOUND"),
        (("rules", "approve", "1"), "INVALID_ARGUMENT"),  # a past note, not a rule
        (("note", "show", "abc"), "a note id is a whole number"),
        (("note", "show", "0"), "a note id is a whole number"),
        (("note", "frob", "1"), "invalid choice"),
        (("note",), "required"),
    ],
)
def test_unknown_ids_and_bad_commands(noted: Config, args: tuple[str, ...], code: str) -> None:
    result = run(noted, *args)
    assert one_line_error(result), result.stderr
    assert code in result.stderr and result.stdout == ""


# -- editing ----------------------------------------------------------------------------------


def editor(tmp_path: Path, code: str) -> str:
    """A fake $EDITOR: a Python script run on the file's path (`path`, `text` are given)."""
    script = tmp_path / "fake_editor.py"
    script.write_text(
        f"#!{sys.executable}\nimport sys, pathlib, os, subprocess\n"
        "path = pathlib.Path(sys.argv[1])\ntext = path.read_text()\n" + code
    )
    script.chmod(0o755)
    return str(script)


def test_note_edit_saves_fields_and_body(noted: Config, tmp_path: Path) -> None:
    fake = editor(
        tmp_path,
        "assert text.startswith('---\\ntitle: Payments plan\\nlayer: state\\n'), text\n"
        "assert '# note 2 · created' in text and text.endswith('---\\nMove providers.')\n"
        "text = text.replace('title: Payments plan', 'title: Billing plan')\n"
        "text = text.replace('  - pay', '  - pay\\n  - billing')\n"
        "text = text.replace('folder: \"\"', 'folder: work')\n"
        "path.write_text(text + ' Soon.')\n",
    )
    result = run(noted, "note", "edit", "2", EDITOR=fake, VISUAL="")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "saved note #2"
    doc = json.loads(run(noted, "note", "show", "2", "--json").stdout)
    note = doc["note"]
    assert (note["title"], note["folder"], note["tags"]) == (
        "Billing plan",
        "work",
        ["pay", "billing"],
    )
    assert note["body"] == "Move providers. Soon."
    assert [ref["id"] for ref in doc["backlinks"]] == [1]  # the rename kept the link
    assert not list(Path(os.environ.get("TMPDIR", "/tmp")).glob("memtui-note-2-*.md"))


def test_visual_wins_over_editor_and_no_change_saves_nothing(noted: Config, tmp_path: Path) -> None:
    result = run(noted, "note", "edit", "1", VISUAL=editor(tmp_path, "pass\n"), EDITOR="false")
    assert result.returncode == 0 and "no changes" in result.stderr
    before = json.loads(run(noted, "note", "show", "1", "--json").stdout)["note"]
    assert before["updated"] == before["created"]


def test_a_bad_edit_says_what_is_wrong_and_keeps_the_text(noted: Config, tmp_path: Path) -> None:
    fake = editor(
        tmp_path,
        "path.write_text(text.replace('layer: past', 'layer: someday') + '\\nMy long edit.')\n",
    )
    result = run(noted, "note", "edit", "1", EDITOR=fake, VISUAL="")
    assert one_line_error(result), result.stderr
    assert "INVALID_ARGUMENT: layer" in result.stderr and "nothing saved" in result.stderr
    kept = Path(result.stderr.split("your edit is kept in ")[1].split(" ")[0])
    assert kept.read_text().endswith("My long edit.")
    assert json.loads(run(noted, "note", "show", "1", "--json").stdout)["note"]["layer"] == "past"
    # Fixed by hand, the kept file goes in with --from.
    kept.write_text(kept.read_text().replace("layer: someday", "layer: past"))
    fixed = run(noted, "note", "edit", "1", "--from", str(kept))
    assert fixed.returncode == 0, fixed.stderr
    assert json.loads(run(noted, "note", "show", "1", "--json").stdout)["note"]["body"].endswith(
        "My long edit."
    )
    kept.unlink()


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ("text.replace('---\\n', '', 1)", "front matter is gone"),
        ("text.replace('title: Checkout flake', 'title: \"\"')", "title"),
        ("text.replace('title: Checkout flake', 'title: \"[[]]\"')", "title"),
        ("text.replace('title: Checkout flake', 'colour: red')", "unknown field 'colour'"),
        ("text.replace('  - ci', '  - two words')", "tags"),
        ("text.replace('folder: projects/shop', 'folder: ../up')", "folder"),
        ("text.replace('title: Checkout flake', 'title: Payments PLAN')", "taken"),
        ("text + 'x' * 102400", "body"),
        ("text.replace('layer: past', 'layer: [a, b]')", "layer must be one value"),
    ],
)
def test_bad_edits(noted: Config, tmp_path: Path, change: str, says: str) -> None:
    fake = editor(tmp_path, f"path.write_text({change})\n")
    result = run(noted, "note", "edit", "1", EDITOR=fake, VISUAL="")
    assert one_line_error(result), result.stderr
    assert says in result.stderr
    Path(result.stderr.split("your edit is kept in ")[1].split(" ")[0]).unlink()


def test_an_edit_never_saves_over_a_change_made_meanwhile(noted: Config, tmp_path: Path) -> None:
    """Someone else saves the note while the editor is open: the edit is kept, not saved
    over theirs."""
    theirs = tmp_path / "theirs.md"
    theirs.write_text("---\ntitle: Checkout flake\nlayer: past\n---\ntheir body")
    fake = editor(
        tmp_path,
        "subprocess.run([sys.executable, '-m', 'memtui', 'note', 'edit', '1', '--from', "
        f"{str(theirs)!r}], check=True)\n"
        "path.write_text(text + ' mine')\n",
    )
    result = run(noted, "note", "edit", "1", EDITOR=fake, VISUAL="")
    assert one_line_error(result) and "changed elsewhere" in result.stderr, result.stderr
    assert json.loads(run(noted, "note", "show", "1", "--json").stdout)["note"]["body"] == (
        "their body"
    )
    Path(result.stderr.split("your edit is kept in ")[1].split(" ")[0]).unlink()


def test_an_edit_of_a_note_deleted_meanwhile_is_kept(noted: Config, tmp_path: Path) -> None:
    fake = editor(
        tmp_path,
        "subprocess.run([sys.executable, '-m', 'memtui', 'note', 'rm', '2', '--yes'], check=True)\n"
        "path.write_text(text + ' mine')\n",
    )
    result = run(noted, "note", "edit", "2", EDITOR=fake, VISUAL="")
    assert one_line_error(result) and "NOT_FOUND" in result.stderr, result.stderr
    assert "--from" not in result.stderr  # no command that could only fail again
    kept = Path(result.stderr.split("your edit is kept in ")[1].strip())
    assert kept.read_text().endswith(" mine")
    kept.unlink()


def test_an_editor_that_fails_or_is_missing(noted: Config) -> None:
    failed = run(noted, "note", "edit", "1", EDITOR="false", VISUAL="")
    assert one_line_error(failed), failed.stderr
    assert "memtui: NOT_CONFIRMED: the editor 'false' exited with status 1" in failed.stderr
    assert "nothing saved" in failed.stderr
    missing = run(noted, "note", "edit", "1", EDITOR="/no/such/editor", VISUAL="")
    assert one_line_error(missing) and "cannot start the editor" in missing.stderr


def test_an_editor_that_deletes_its_file_saves_nothing_in_one_line(
    noted: Config, tmp_path: Path
) -> None:
    fake = editor(tmp_path, "path.unlink()\n")
    result = run(noted, "note", "edit", "1", EDITOR=fake, VISUAL="")
    assert one_line_error(result), result.stderr
    assert "the editor left no file at" in result.stderr and "nothing saved" in result.stderr
    assert "kept in" not in result.stderr, "nothing is left to keep"


@pytest.mark.parametrize("how", ["editor", "from"])
def test_an_edit_too_large_is_refused_unread(noted: Config, tmp_path: Path, how: str) -> None:
    """A device or a huge file given by mistake is refused at once, not read into memory."""
    if how == "from":
        result = run(noted, "note", "edit", "1", "--from", "/dev/zero")
        assert "the edited note (/dev/zero) is over 200 KB" in result.stderr
    else:
        fake = editor(tmp_path, "path.write_text(text + 'x' * 300_000)\n")
        result = run(noted, "note", "edit", "1", EDITOR=fake, VISUAL="")
        kept = Path(result.stderr.split("your edit is kept in ")[1].strip())
        assert kept.stat().st_size > 300_000
        kept.unlink()
    assert one_line_error(result) and "INVALID_ARGUMENT" in result.stderr, result.stderr


# -- deleting and rules -----------------------------------------------------------------------


def test_note_rm_refuses_without_a_terminal_and_deletes_with_yes(noted: Config) -> None:
    refused = run(noted, "note", "rm", "2", stdin="y\n")
    assert (
        one_line_error(refused) and "NOT_CONFIRMED" in refused.stderr and "--yes" in refused.stderr
    )
    assert len(listed(noted)) == 3
    done = run(noted, "note", "rm", "2", "--yes")
    assert done.returncode == 0 and "deleted note #2 'Payments plan'" in done.stdout
    doc = json.loads(run(noted, "note", "show", "1", "--json").stdout)
    assert doc["links"] == [{"target": "Payments plan", "shown": None, "note_id": None}]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("answer", "deleted"), [("y\n", True), ("\n", False), ("no\n", False)])
def test_note_rm_asks_at_a_terminal(
    noted: Config,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    answer: str,
    deleted: bool,
) -> None:
    monkeypatch.setattr(sys, "stdin", Terminal(answer))
    try:
        cli.main(["note", "rm", "2"])
    except SystemExit as exit_:
        assert not deleted and exit_.code == 1
    err = capsys.readouterr().err
    assert "delete note #2 'Payments plan' (state, linked from 1 note)? [y/N]" in err
    assert (len(listed(noted)) == 2) is deleted


def test_rules_list_and_approve(noted: Config) -> None:
    with Memory(noted) as memory:
        memory.notes.save("Use uv", "Run Python with uv.", "rule", by="person")
    text = run(noted, "rules")
    assert text.returncode == 0
    assert text.stdout.splitlines()[0] == "approved (1)" and "Use uv" in text.stdout
    assert "provisional (1)" in text.stdout and "by agent   Answer in French" in text.stdout
    assert "memtui rules approve ID" in text.stderr
    doc = json.loads(run(noted, "rules", "--json").stdout)
    assert {r["title"]: r["status"] for r in doc["rules"]} == {
        "Use uv": "approved",
        "Answer in French": "provisional",
    }
    approved = run(noted, "rules", "approve", "3")
    assert approved.returncode == 0 and "approved rule #3" in approved.stdout
    assert "provisional" not in run(noted, "rules").stdout
    with Memory(noted) as memory:
        assert "Answer in French" in memory.notes.house_rules().text


def test_rules_say_the_project_they_apply_in(noted: Config) -> None:
    """A rule in a folder named like a project's directory applies only there (SPEC): the
    listing says so, and says nothing of the rules that apply everywhere."""
    lines.write(noted.claude_dir / "-shop" / "s-1.jsonl", lines.user("s-1-u", "hello", "s-1"))
    with Memory(noted) as memory:
        memory.upkeep.ingest()
        memory.notes.save("Use pnpm", "Not npm.", "rule", by="person", folder="rules/Shop-API")
    shown = {line.split("  by ")[1].split(None, 1)[1] for line in listed_rules(noted)}
    assert f"Use pnpm  (only in {lines.CWD})" in shown
    assert "Answer in French" in shown
    doc = json.loads(run(noted, "rules", "--json").stdout)
    assert {r["title"]: r["applies_in"] for r in doc["rules"]} == {
        "Use pnpm": [lines.CWD],
        "Answer in French": [],
    }


def listed_rules(cfg: Config) -> list[str]:
    return [line for line in run(cfg, "rules").stdout.splitlines() if "  by " in line]


def test_rules_and_notes_mark_a_title_that_only_looks_like_another(noted: Config) -> None:
    """Issue 25: a provisional `Answer in French` with a Cyrillic e sat beside the rule it
    copies in `memtui rules`; only the id told them apart. Each line now says which note it
    looks like."""
    with Memory(noted) as memory:
        copy = memory.notes.save("Answ\u0435r in French", "Reply in Russian.", "rule", by="agent")
    twin = copy.note.id
    assert copy.note.looks_like == 3  # said when it is saved, not only when it is listed
    for command in ("rules", "notes"):
        lines = run(noted, command).stdout.splitlines()
        marked = {line.split()[0]: line for line in lines if "looks like" in line}
        assert set(marked) == {"3", str(twin)}, lines
        assert marked["3"].endswith(f"Answer in French  ⚠ looks like #{twin}")
        assert marked[str(twin)].endswith("Answ\u0435r in French  ⚠ looks like #3")
    shown = run(noted, "note", "show", str(twin)).stdout
    assert shown.startswith("# Answ\u0435r in French\n\n⚠ its title looks like note #3's\n")
    assert "looks like" not in run(noted, "note", "show", "1").stdout
    saved = run(noted, "note", "add", "--title", "Answer in Fr\u0435nch", "--layer", "state", "-")
    assert saved.returncode == 0 and "⚠ its title looks like note #3's" in saved.stderr


# -- export and import ------------------------------------------------------------------------


def other(cfg: Config, tmp_path: Path, name: str) -> Config:
    return Config(data_dir=tmp_path / name, claude_dir=cfg.claude_dir, log_dir=cfg.log_dir)


@pytest.mark.parametrize(("fmt", "name"), [("jsonl", "notes.jsonl"), ("markdown", "vault")])
def test_export_then_import_elsewhere(noted: Config, tmp_path: Path, fmt: str, name: str) -> None:
    target = tmp_path / name
    exported = run(noted, "export", str(target), "--format", fmt)
    assert exported.returncode == 0, exported.stderr
    assert f"exported 3 notes to {target} ({fmt}" in exported.stderr
    fresh = other(noted, tmp_path, "fresh")
    imported = run(fresh, "import", str(target))
    assert imported.returncode == 0, imported.stderr
    assert f"({fmt}): 3 added, 0 overwritten, 0 skipped" in imported.stderr
    assert listed(fresh) == listed(noted)
    assert json.loads(run(fresh, "rules", "--json").stdout)["rules"][0]["status"] == "provisional"
    again = run(fresh, "import", str(target))  # the default --on-conflict error: nothing differs
    assert again.returncode == 0 and "0 added, 0 overwritten, 3 skipped" in again.stderr


def test_export_refuses_to_overwrite_unless_forced(noted: Config, tmp_path: Path) -> None:
    target = tmp_path / "notes.jsonl"
    target.write_text("precious\n")
    refused = run(noted, "export", str(target))
    assert one_line_error(refused) and "--force" in refused.stderr
    assert target.read_text() == "precious\n"
    assert run(noted, "export", str(target), "--force").returncode == 0
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "mine.txt").write_text("keep")
    refused = run(noted, "export", str(vault), "--format", "markdown")
    assert one_line_error(refused) and "--force" in refused.stderr
    forced = run(noted, "export", str(vault), "--format", "markdown", "--force")
    assert forced.returncode == 0 and "3 files written" in forced.stderr
    assert (vault / "mine.txt").read_text() == "keep"


def test_import_a_malformed_line_imports_nothing(cfg: Config, tmp_path: Path) -> None:
    source = tmp_path / "broken.jsonl"
    good = {"type": "note", "id": 1, "title": "Fine", "layer": "past", "body": "ok"}
    source.write_text(json.dumps(good) + "\n" + '{"type": "note", "title": \n')
    result = run(cfg, "import", str(source))
    assert one_line_error(result), result.stderr
    assert "broken.jsonl line 2: not JSON" in result.stderr
    assert listed(cfg) == []


@pytest.mark.parametrize(
    ("mode", "outcome", "body"),
    [
        ("skip", "1 added, 0 overwritten, 1 skipped", "The fixture's"),
        ("overwrite", "1 added, 1 overwritten, 0 skipped", "imported"),
        ("error", None, "The fixture's"),
    ],
)
def test_import_conflicts(
    noted: Config, tmp_path: Path, mode: str, outcome: str | None, body: str
) -> None:
    source = tmp_path / "in.jsonl"
    records = [
        {"type": "note", "id": 1, "title": "Checkout flake", "layer": "past", "body": "imported"},
        {"type": "note", "id": 7, "title": "New one", "layer": "state", "body": "new"},
    ]
    source.write_text("".join(json.dumps(r) + "\n" for r in records))
    result = run(noted, "import", str(source), "--on-conflict", mode)
    if outcome is None:
        assert one_line_error(result) and "in.jsonl line 1" in result.stderr, result.stderr
        assert len(listed(noted)) == 3
    else:
        assert result.returncode == 0 and outcome in result.stderr, result.stderr
        assert len(listed(noted)) == 4
    shown = json.loads(run(noted, "note", "show", "1", "--json").stdout)
    assert shown["note"]["body"].startswith(body)


@pytest.mark.parametrize(
    "args",
    [
        ("import", "/no/such/file.jsonl"),
        ("import", "/tmp", "--format", "jsonl"),
        ("import", "x.jsonl", "--on-conflict", "merge"),
        ("export", "x.jsonl", "--format", "csv"),
        ("export", "/no/such/dir/notes.jsonl"),
    ],
)
def test_export_import_bad_input(cfg: Config, args: tuple[str, ...]) -> None:
    result = run(cfg, *args)
    assert one_line_error(result), result.stderr


def test_a_bad_edit_at_a_terminal_opens_the_editor_again(
    noted: Config,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The first save names the mistake and asks; Enter opens the same text again."""
    fake = editor(
        tmp_path,
        "if 'layer: someday' in text:\n"
        "    path.write_text(text.replace('layer: someday', 'layer: state'))\n"
        "else:\n"
        "    path.write_text(text.replace('layer: past', 'layer: someday') + ' more')\n",
    )
    monkeypatch.setenv("VISUAL", fake)
    monkeypatch.setattr(sys, "stdin", Terminal("\n"))
    cli.main(["note", "edit", "1"])
    out = capsys.readouterr()
    assert "INVALID_ARGUMENT: layer" in out.err and "edit again? [Y/n]" in out.err
    assert out.out == "saved note #1\n"
    note = json.loads(run(noted, "note", "show", "1", "--json").stdout)["note"]
    assert note["layer"] == "state" and note["body"].endswith(" more")


def test_an_edit_at_a_terminal_changed_meanwhile_is_kept_not_edited_again(
    noted: Config,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Editing again cannot help when the note changed meanwhile: no question, the edit is
    kept in a file and the line says how to save it over the other version."""
    theirs = tmp_path / "theirs.md"
    theirs.write_text("---\ntitle: Checkout flake\nlayer: past\n---\ntheir body")
    fake = editor(
        tmp_path,
        "subprocess.run([sys.executable, '-m', 'memtui', 'note', 'edit', '1', '--from', "
        f"{str(theirs)!r}], check=True)\n"
        "path.write_text(text + ' mine')\n",
    )
    monkeypatch.setenv("VISUAL", fake)
    monkeypatch.setattr(sys, "stdin", Terminal("n\n"))
    with pytest.raises(SystemExit):
        cli.main(["note", "edit", "1"])
    err = capsys.readouterr().err
    assert "edit again?" not in err and len(err.strip().splitlines()) == 1, err
    assert "INVALID_ARGUMENT: note 1 was changed elsewhere" in err
    kept = Path(err.split("your edit is kept in ")[1].split(" ")[0])
    assert kept.read_text().endswith(" mine")
    assert f"to save it over that version: memtui note edit 1 --from {kept}" in err
    kept.unlink()


def test_help_lists_the_commands_and_loads_no_engine(cfg: Config) -> None:
    help_text = run(cfg, "--help").stdout
    for command in ("notes", "note", "rules", "export", "import"):
        assert f"    {command} " in help_text
    probe = (
        "import sys, memtui.cli; "
        "print([m for m in ('numpy', 'tantivy', 'memtui.engine.memory') if m in sys.modules])"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env_for(cfg), cwd="/"
    )
    assert loaded.stdout.strip() == "[]", loaded.stderr


def test_an_edit_saved_in_another_encoding_is_kept(noted: Config, tmp_path: Path) -> None:
    fake = editor(tmp_path, "path.write_bytes(text.replace('Plan', 'Café').encode('latin-1'))\n")
    result = run(noted, "note", "edit", "1", EDITOR=fake, VISUAL="")
    assert one_line_error(result) and "not UTF-8" in result.stderr, result.stderr
    kept = Path(result.stderr.split("your edit is kept in ")[1].split(" ")[0])
    assert "Café".encode("latin-1") in kept.read_bytes()
    kept.unlink()


def test_an_editor_that_fails_after_changes_keeps_them(noted: Config, tmp_path: Path) -> None:
    fake = editor(tmp_path, "path.write_text(text + ' half done')\nsys.exit(3)\n")
    result = run(noted, "note", "edit", "1", EDITOR=fake, VISUAL="")
    assert one_line_error(result) and "NOT_CONFIRMED: the editor" in result.stderr, result.stderr
    assert "exited with status 3" in result.stderr
    kept = Path(result.stderr.split("your edit is kept in ")[1].strip())
    assert kept.read_text().endswith(" half done")
    kept.unlink()
    assert not json.loads(run(noted, "note", "show", "1", "--json").stdout)["note"][
        "body"
    ].endswith(" half done")


def test_a_rename_says_which_links_it_rewrote(noted: Config, tmp_path: Path) -> None:
    """Renaming a note rewrites the [[links]] to it in other notes: the edit says so."""
    edited = tmp_path / "renamed.md"
    edited.write_text("---\ntitle: Provider move\nlayer: state\ntags: [pay]\n---\nMove providers.")
    renamed = run(noted, "note", "edit", "2", "--from", str(edited))
    assert renamed.returncode == 0, renamed.stderr
    assert renamed.stdout.splitlines() == [
        "saved note #2",
        "  the links in 1 other note now read [[Provider move]]",
    ]
    assert (
        "[[Provider move]]"
        in json.loads(run(noted, "note", "show", "1", "--json").stdout)["note"]["body"]
    )
    edited.write_text("---\ntitle: Provider move\nlayer: state\n---\nMove them.")
    quiet = run(noted, "note", "edit", "2", "--from", str(edited))
    assert quiet.stdout == "saved note #2\n", quiet.stdout
