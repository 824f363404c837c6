"""Notes, house rules, export and import: the person's side (no guard binds the CLI)."""

from __future__ import annotations

import os
import sys
import tempfile
from argparse import Namespace
from pathlib import Path
from typing import TYPE_CHECKING

from memtui.cli.base import JSON, Family, arg, id_of, limit, text, yes
from memtui.cli.say import ask, confirm, error_line, fail, print_json, say, when
from memtui.engine import FORMATS, LAYERS, MAX_BODY_BYTES, ON_CONFLICT, short_id, to_dict
from memtui.errors import InvalidArgument, MemtuiError, NotFound
from memtui.words import counted, plural

if TYPE_CHECKING:
    from memtui.engine import Memory, Note, UpdatedNote

family = Family()
NOTE_ID = id_of("note")
# An edited note is its front matter, then its body: room for the longest front matter.
EDITED_BYTES = 2 * MAX_BODY_BYTES


@family.command(
    "notes",
    "list notes, the last updated first",
    arg("--folder", type=text, help="only this folder (-: the notes in none, as listed)"),
    arg("--tag", type=text, help="only notes with this tag"),
    arg("--layer", choices=LAYERS, help="only this layer"),
    limit(1000, 100),
    JSON,
)
def notes(memory: Memory, args: Namespace) -> None:
    folder = "" if args.folder == "-" else args.folder  # the list's word for no folder
    found = memory.notes.list(folder=folder, tag=args.tag, layer=args.layer, limit=args.limit)
    total = memory.notes.count(folder=folder, tag=args.tag, layer=args.layer)
    if args.json:
        print_json({"notes": to_dict(found), "total": total})
        return
    asked = [
        f"{name} {value!r}"
        for name, value in (("folder", args.folder), ("tag", args.tag), ("layer", args.layer))
        if value is not None
    ]
    if not found and asked:
        said = " and ".join(asked) + (" (a folder from its top)" if folder else "")
        say(f"no note has {said}: memtui notes lists all", file=sys.stderr)
    elif not found:
        say("no notes here yet: memtui note add --title T --layer past FILE", file=sys.stderr)
    wide = max((len(n.folder or "-") for n in found), default=0)  # the titles in one column
    for n in found:
        say(f"{n.id:>5}  {when(n.updated)}  {n.layer:<5}  {n.folder or '-':<{wide}}  {_title(n)}")
    if total > len(found):
        say(f"{len(found):,} of {total:,} (--limit shows more)", file=sys.stderr)


def _title(n: Note) -> str:
    """A listed title; one that looks like another note's (confusable letters) says which."""
    return n.title if n.looks_like is None else f"{n.title}  ⚠ looks like #{n.looks_like}"


family.group("note", "show, add, edit or delete one note")


@family.command(
    "note show",
    "print one note, its links and backlinks",
    arg("id", type=NOTE_ID),
    JSON,
)
def note_show(memory: Memory, args: Namespace) -> None:
    detail = memory.notes.get(args.id)
    if args.json:
        print_json(to_dict(detail))
        return
    n = detail.note
    say(f"# {n.title}\n")
    if n.looks_like is not None:
        say(f"⚠ its title looks like note #{n.looks_like}'s\n")
    say(_note_fields(n))
    if detail.source is not None:
        where = detail.source.project or "no longer archived"
        say(f"source   session {detail.source.session_id} ({where})")
    if n.body.strip():
        say(f"\n{n.body.rstrip()}")
    if detail.links:
        say("\nLinks")
        for link in detail.links:
            target = f"#{link.note_id}" if link.note_id is not None else "(no such note yet)"
            say(f"  [[{link.target}]] → {target}")
    if detail.backlinks:
        say("\nReferenced by")
        for ref in detail.backlinks:
            say(f"  #{ref.id} {ref.title}")


def _note_fields(n: Note) -> str:
    status = f" ({n.status})" if n.status else ""
    lines = [
        f"id       {n.id}",
        f"layer    {n.layer}{status}",
        f"folder   {n.folder or '-'}",
        f"tags     {', '.join(n.tags) or '-'}",
        f"created  {n.created} by {n.author}",
        f"updated  {n.updated}",
    ]
    return "\n".join(lines)


@family.command(
    "note add",
    "save a note; its body from FILE, or stdin (- or a pipe)",
    arg("--title", type=text, required=True),
    arg("--layer", choices=LAYERS, required=True),
    arg("--folder", type=text, default="", help="e.g. projects/shop"),
    arg("--tag", type=text, action="append", default=[], help="repeatable"),
    arg("file", nargs="?", metavar="FILE|-", help="the Markdown body (- or none: stdin)"),
)
def note_add(memory: Memory, args: Namespace) -> None:
    body = _read_body(args.file) if args.file else _piped()
    result = memory.notes.save(
        args.title, body, args.layer, by="person", folder=args.folder, tags=args.tag
    )
    n = result.note
    say(f"saved note #{n.id} {n.title!r} ({n.layer}{', ' + n.folder if n.folder else ''})")
    if n.looks_like is not None:
        say(f"⚠ its title looks like note #{n.looks_like}'s", file=sys.stderr)
    for similar in result.similar:
        say(
            f"  similar: #{similar.note.id} {similar.note.title!r} "
            f"(similarity {1 - similar.distance:.2f}: update it instead? memtui note edit "
            f"{similar.note.id})"
        )
    for back in result.flashbacks.notes:
        say(
            f"  flashback: #{back.note.id} {back.note.title!r}, {back.age_days} days older, "
            f"similarity {1 - back.distance:.2f}"
        )
    for past in result.flashbacks.sessions:
        say(
            f"  flashback: {past.project}, "
            f"session {short_id(past.session_id)}#{past.message_index}, "
            f"{past.age_days} days ago, similarity {1 - past.distance:.2f}"
        )


def _piped() -> str:
    """The body piped in when no FILE is given. At a terminal nobody meant to type it
    (that is `-`): refuse rather than wait, or save an empty note."""
    if sys.stdin is None:  # closed: nothing was piped
        return ""
    if sys.stdin.isatty():
        fail(
            "INVALID_ARGUMENT: no body: give FILE, - to type it on stdin, "
            "or pipe it in (echo text | memtui note add ...)"
        )
    return _read_body("-")


def _read_body(source: str) -> str:
    """The body from a file or stdin (`-`): UTF-8, at most the notes' limit (read no further)."""
    name = "stdin" if source == "-" else source
    data = _read_capped(source, f"body ({name})", MAX_BODY_BYTES)
    try:
        return data.decode()
    except UnicodeDecodeError:
        fail(f"INVALID_ARGUMENT: body ({name}) is not UTF-8 text")


def _read_capped(source: str | Path, what: str, cap: int) -> bytes:
    """A file's bytes (stdin's for `-`), reading no further than `cap` (a device or a huge
    file is refused at once, not read into memory); InvalidArgument when it is longer or
    cannot be read."""
    try:
        if source == "-":
            data = sys.stdin.buffer.read(cap + 1)
        else:
            with open(source, "rb") as file:
                data = file.read(cap + 1)
    except OSError as exc:
        name = "stdin" if source == "-" else source
        raise InvalidArgument(f"cannot read {name}: {exc.strerror or exc}") from None
    if len(data) > cap:
        raise InvalidArgument(f"{what} is over {cap // 1024} KB")
    return data


@family.command(
    "note edit",
    "edit a note in $VISUAL or $EDITOR",
    arg("id", type=NOTE_ID),
    arg(
        "--from",
        dest="source",
        metavar="FILE",
        help="take the edited note (front matter and body) from FILE instead of an editor",
    ),
)
def note_edit(memory: Memory, args: Namespace) -> None:
    before = memory.notes.get(args.id).note
    if args.source is not None:
        data = _read_capped(args.source, f"the edited note ({args.source})", EDITED_BYTES)
        _saved(before.id, _save_edit(memory, before, _utf8(data)))
        return
    from memtui.engine import note_for_editing

    original = note_for_editing(before)
    fd, name = tempfile.mkstemp(prefix=f"memtui-note-{before.id}-", suffix=".md")
    draft = Path(name)
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as file:
        file.write(original)
    while True:
        problem = _run_editor(draft)
        try:
            data = _read_capped(draft, "the edited note", EDITED_BYTES)
        except InvalidArgument as exc:
            if not draft.exists():
                fail(f"INVALID_ARGUMENT: the editor left no file at {draft}: nothing saved")
            fail(f"{error_line(exc)}; nothing saved, your edit is kept in {draft}")
        if data == original.encode():  # nothing to lose: the draft goes
            draft.unlink()
            if problem:
                fail(f"{problem}: nothing saved")
            say("no changes", file=sys.stderr)
            return
        if problem:
            fail(f"{problem}: nothing saved, your edit is kept in {draft}")
        try:
            saved = _save_edit(memory, before, _utf8(data))
        except MemtuiError as exc:
            # Editing again mends a mistake in the text, not a note changed or deleted meanwhile.
            meanwhile = _meanwhile(memory, before)
            if not meanwhile and ask(f"{error_line(exc)}\nedit again? [Y/n] ", default=True):
                continue
            kept = f"{error_line(exc)}; nothing saved, your edit is kept in {draft}"
            if meanwhile == "deleted":
                fail(kept)
            then = "to save it over that version" if meanwhile else "fix it, then"
            fail(f"{kept} ({then}: memtui note edit {before.id} --from {draft})")
        draft.unlink()
        _saved(before.id, saved)
        return


def _utf8(data: bytes) -> str:
    try:
        return data.decode()
    except UnicodeDecodeError as exc:
        raise InvalidArgument(
            f"the edited note is not UTF-8 text (byte {exc.start:,})",
            "save it as UTF-8",
        ) from None


def _save_edit(memory: Memory, before: Note, text: str) -> UpdatedNote | None:
    """Save an edited note (the engine refuses it when someone else changed the note since
    it was opened); None when the edit changed nothing."""
    from memtui.engine import edited_note

    fields = edited_note(text)
    changed = {k: v for k, v in fields.items() if v != getattr(before, k)}
    if not changed:
        return None
    return memory.notes.update(before.id, by="person", expected_updated=before.updated, **changed)


def _meanwhile(memory: Memory, before: Note) -> str | None:
    """What happened to the note elsewhere while it was edited: "changed", "deleted", or
    None for nothing."""
    try:
        now = memory.notes.get(before.id).note
    except NotFound:
        return "deleted"
    return "changed" if now.updated != before.updated else None


def _saved(note_id: int, saved: UpdatedNote | None) -> None:
    """Say the edit is saved and, after a rename, in how many other notes the notes service
    rewrote the [[links]] to it."""
    say(f"saved note #{note_id}")
    if saved is not None and saved.relinked:
        many = f"{saved.relinked:,} other {plural(saved.relinked, 'note')}"
        say(f"  the links in {many} now read [[{saved.title}]]")


def _run_editor(path: Path) -> str:
    """Open `path` in the person's editor; what went wrong, or "" when it exited cleanly.
    An editor that exits non-zero (vim's :cq) is how a person says "do not save"."""
    import shlex
    import subprocess

    command = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        code = subprocess.run([*shlex.split(command), str(path)], check=False).returncode
    except (OSError, ValueError) as exc:
        return f"INVALID_ARGUMENT: cannot start the editor {command!r} ($VISUAL/$EDITOR): {exc}"
    return f"NOT_CONFIRMED: the editor {command!r} exited with status {code}" if code else ""


@family.command("note rm", "delete a note (asks first)", arg("id", type=NOTE_ID), yes("do not ask"))
def note_rm(memory: Memory, args: Namespace) -> None:
    detail = memory.notes.get(args.id)
    n = detail.note
    count = len(detail.backlinks)
    linked = f", linked from {counted(count, 'note')}" if count else ""
    confirm(
        args.yes,
        f"delete note #{n.id} {n.title!r} ({n.layer}{linked})?",
        refused=f"deleting note {n.id} needs a yes",
        declined=f"note {n.id} kept",
    )
    memory.notes.delete(n.id, by="person")
    say(f"deleted note #{n.id} {n.title!r}")


@family.command("rules", "house rules, approved and provisional", JSON)
def rules(memory: Memory, args: Namespace) -> None:
    found = memory.notes.rules()
    where = memory.notes.applies_in(found)
    if args.json:
        print_json({"rules": [{**to_dict(r), "applies_in": where[r.id]} for r in found]})
        return
    if not found:
        say("no house rules yet: memtui note add --layer rule --title T FILE", file=sys.stderr)
    for status in ("approved", "provisional"):
        listed = [r for r in found if r.status == status]
        if listed:
            say(f"{status} ({len(listed)})")
        for r in listed:
            only = f"  (only in {', '.join(where[r.id])})" if where[r.id] else ""
            say(f"{r.id:>5}  {when(r.updated)}  by {r.author:<6}  {_title(r)}{only}")
    if any(r.status == "provisional" for r in found):
        say("provisional rules are not given to Claude: memtui rules approve ID", file=sys.stderr)


@family.command("rules approve", "approve a provisional rule", arg("id", type=NOTE_ID))
def rules_approve(memory: Memory, args: Namespace) -> None:
    n = memory.notes.approve(args.id, by="person")
    say(f"approved rule #{n.id} {n.title!r}: it goes into the house rules")


@family.command(
    "export",
    "write every note to a JSONL file or Markdown folder",
    arg("path", type=text, metavar="PATH"),
    arg("--format", choices=FORMATS, default="jsonl"),
    arg(
        "--force",
        action="store_true",
        help="replace an existing file; Markdown: update an earlier export in that folder",
    ),
)
def export(memory: Memory, args: Namespace) -> None:
    report = memory.transfer.export(Path(args.path), args.format, overwrite=args.force)
    detail = report.format
    if report.format == "markdown":
        detail += f": {report.written:,} files written"
        if report.removed:
            detail += f", {len(report.removed):,} removed (notes deleted since)"
    say(f"exported {report.notes:,} notes to {report.path} ({detail})", file=sys.stderr)


@family.command(
    "import",
    "import notes from an export (all or nothing)",
    arg("path", type=text, metavar="PATH"),
    arg(
        "--on-conflict",
        choices=ON_CONFLICT,
        default="error",
        help="a note that exists with other content: keep it, replace it (unless it was"
        " updated after the file's copy), or import nothing (default)",
    ),
    arg("--format", choices=FORMATS, help="default: a folder is markdown, else jsonl"),
)
def import_(memory: Memory, args: Namespace) -> None:
    report = memory.transfer.import_(Path(args.path), args.on_conflict, args.format)
    say(
        f"imported {report.path} ({report.format}): {report.added:,} added, "
        f"{report.overwritten:,} overwritten, {report.skipped:,} skipped",
        file=sys.stderr,
    )
    if report.newer_kept:
        say(
            f"kept {report.newer_kept:,} stored notes updated after the file's copies of them",
            file=sys.stderr,
        )
    if report.signals or any(report.inferences):
        added, overwritten, skipped = report.inferences
        say(
            f"and {report.signals:,} decisions on signals; inferences: {added:,} added, "
            f"{overwritten:,} overwritten, {skipped:,} skipped",
            file=sys.stderr,
        )
    if report.ignored:
        kinds = ", ".join(f"{n:,} {kind}" for kind, n in sorted(report.ignored.items()))
        say(f"left out records this memtui does not know: {kinds}", file=sys.stderr)
