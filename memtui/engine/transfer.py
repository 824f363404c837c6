"""Export and import: the notes as one JSONL file, or as a folder of Obsidian-compatible
Markdown notes, and back.

JSONL: a header line `{"type": "memtui-export", "version": 1, ...}`, then one record a line,
each with a `type`: `note`, `signal` (a decision on a signal: dismissed, snoozed or
synthesized, by its fingerprint) and `inference` (with its evidence as minted); a reader
skips, and counts, the types it does not know. Markdown: one `.md` a note under its folder,
the fields as YAML front matter, the body as written (`[[links]]` included); it carries the
notes only.

An import reads and checks the whole file first, then hands every note to the notes service
in one transaction: a bad line, or a bad file in a folder, names where it is and nothing is
imported. An export never overwrites a file or a non-empty folder unless asked, and writes
each file whole (a temporary file renamed into place).
"""

from __future__ import annotations

import dataclasses
import os
import re
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import orjson

from memtui.engine import frontmatter
from memtui.engine.inferences import Portable
from memtui.engine.notes_types import FORMATS, ON_CONFLICT, Format, ImportReport, Note, OnConflict
from memtui.engine.signal_types import SIGNAL_STATUSES, SIGNAL_TYPES
from memtui.errors import InvalidArgument
from memtui.store.signals import EvidenceRow, InferenceRow, SignalRow
from memtui.words import counted

if TYPE_CHECKING:
    from memtui.engine.inferences import Inferences
    from memtui.engine.notes import Notes

HEADER = "memtui-export"
VERSION = 1
MAX_ID = 2**63 - 1  # SQLite's largest integer
MAX_LINE_BYTES = 1024 * 1024  # a note record is at most ~100 KB of body and its fields

# Characters a file name may not hold on Windows or macOS, or that break an Obsidian link.
_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|#^\[\]]+')
_RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(10))}
_RESERVED |= {f"LPT{i}" for i in range(10)}
MAX_NAME_BYTES = 200  # well under the 255 bytes most file systems take, with room for " (id)"


@dataclass(slots=True)
class ExportReport:
    path: str
    format: str
    notes: int
    written: int  # files written (Markdown: an unchanged note's file is left as it was)
    removed: list[str] = field(default_factory=list)  # earlier exports' notes, since deleted


@dataclass(slots=True)
class ImportSummary:
    path: str
    format: str
    added: int
    overwritten: int
    skipped: int
    ignored: dict[str, int] = field(default_factory=dict)  # records of types not known here
    newer_kept: int = 0  # of the skipped: overwrite kept a stored note updated after the file's
    signals: int = 0  # decisions on signals brought in
    inferences: tuple[int, int, int] = (0, 0, 0)  # added, overwritten, skipped


class Transfer:
    """`memory.transfer`: export and import over the notes service."""

    def __init__(self, notes: Notes, inferences: Inferences) -> None:
        self._notes = notes
        self._inferences = inferences

    def export(self, path: Path, fmt: Format = "jsonl", overwrite: bool = False) -> ExportReport:
        """Write every note to `path`: a JSONL file, or a folder of Markdown notes."""
        if fmt not in FORMATS:
            raise InvalidArgument(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
        notes = self._notes.export_all()
        try:
            if fmt == "jsonl":
                triage, found = self._inferences.dump()
                extra = [signal_record(r) for r in triage] + [inference_record(i) for i in found]
                return export_jsonl(path, notes, overwrite, extra)
            return _export_markdown(path, notes, overwrite)
        except OSError as exc:
            raise InvalidArgument(f"cannot write {path}: {exc.strerror or exc}") from None

    def import_(
        self, path: Path, on_conflict: OnConflict = "error", fmt: Format | None = None
    ) -> ImportSummary:
        """Read `path` (a folder: Markdown; a file: JSONL, unless `fmt` says) and import
        every note in it, or none."""
        if on_conflict not in ON_CONFLICT:
            raise InvalidArgument(
                f"on_conflict must be one of {', '.join(ON_CONFLICT)}, not {on_conflict!r}"
            )
        if fmt is not None and fmt not in FORMATS:
            raise InvalidArgument(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
        if not path.exists():
            raise InvalidArgument(f"{path} does not exist")
        fmt = fmt or ("markdown" if path.is_dir() else "jsonl")
        try:
            if fmt == "markdown":
                if not path.is_dir():
                    raise InvalidArgument(f"{path} is not a folder of Markdown notes")
                notes, where, changed = _read_markdown(path)
                ignored: dict[str, int] = {}
                triage: list[SignalRow] = []
                found: list[Portable] = []
            else:
                if path.is_dir():
                    raise InvalidArgument(
                        f"{path} is a folder", "import a folder with --format markdown"
                    )
                notes, ignored, where, triage, found = _read_jsonl(path)
                changed = []
        except OSError as exc:
            raise InvalidArgument(f"cannot read {path}: {exc.strerror or exc}") from None
        _check_unique(notes, where)
        report, newer = self._import(notes, on_conflict, where, changed)
        inferences = self._inferences.load(triage, found, on_conflict)
        return ImportSummary(
            str(path),
            fmt,
            report.added,
            report.overwritten,
            report.skipped,
            ignored,
            newer,
            len(triage),
            inferences,
        )

    def _import(
        self, notes: list[Note], on_conflict: OnConflict, where: list[str], changed: list[str]
    ) -> tuple[ImportReport, int]:
        """Hand the notes over in one call (one transaction), and say how many stored notes
        newer than the file's were kept. A note stored exactly as given (an export imported
        again) is skipped before: it is not a conflict. A note without an id (a plain
        Markdown file) gets the id of the stored note of its title, or one after every id in
        use. A Markdown note that differs from the stored one but claims no later update was
        edited outside memtui (in Obsidian, say): it is as new as its file (`changed`, a time
        a note). Overwriting never goes back in time: a stored note updated after the
        file's copy of it is kept (and counted as skipped)."""
        stored = {n.id: n for n in self._notes.export_all()}
        titled = {n.title.casefold(): n.id for n in stored.values()}
        next_id = max([*stored, *(n.id for n in notes)], default=0) + 1
        for note in notes:
            if note.id == 0:  # the stored note of that title, if any: a conflict, not a twin
                note.id = titled.get(note.title.strip().casefold(), next_id)
                next_id += note.id == next_id
        same = {
            i
            for i, n in enumerate(notes)
            if _content(n, all_fields=True) == _content(stored.get(n.id), all_fields=True)
        }
        for i, when in enumerate(changed):
            old = stored.get(notes[i].id)
            if i not in same and old is not None and notes[i].updated <= old.updated < when:
                notes[i].updated = when
        newer: set[int] = set()
        if on_conflict == "overwrite":
            newer = {
                i
                for i, n in enumerate(notes)
                if i not in same and n.id in stored and stored[n.id].updated > n.updated
            }
        kept = [i for i in range(len(notes)) if i not in same | newer]
        try:
            report = self._notes.import_notes([notes[i] for i in kept], on_conflict)
        except InvalidArgument as exc:
            item = getattr(exc, "item", None)
            if isinstance(item, int) and 0 <= item < len(kept):
                message = re.sub(r"^notes\[\d+\]:\s*", "", str(exc.args[0]))
                raise InvalidArgument(f"{where[kept[item]]}: {message}", exc.hint) from exc
            raise
        report.skipped += len(same) + len(newer)
        return report, len(newer)


def _check_unique(notes: list[Note], where: list[str]) -> None:
    """Two records of one import may not share an id, or a title (letter case aside)."""
    ids: dict[int, int] = {}
    titles: dict[str, int] = {}
    for i, note in enumerate(notes):
        if note.id in ids:
            raise InvalidArgument(f"{where[i]}: id {note.id} is also at {where[ids[note.id]]}")
        title = note.title.strip().casefold()
        if title in titles:
            raise InvalidArgument(
                f"{where[i]}: title {note.title!r} is also at {where[titles[title]]}"
            )
        if note.id:
            ids[note.id] = i
        if title:
            titles[title] = i


# -- JSONL ------------------------------------------------------------------------------------


def note_record(note: Note) -> dict[str, Any]:
    """A note as its JSONL record (the body last: the fields stay readable in a pager)."""
    source = None
    if note.source_session_id is not None:
        source = {"session_id": note.source_session_id, "message_uuid": note.source_message_uuid}
    return {
        "type": "note",
        "id": note.id,
        "title": note.title,
        "layer": note.layer,
        "folder": note.folder,
        "tags": note.tags,
        "created": note.created,
        "updated": note.updated,
        "author": note.author,
        "status": note.status,
        "source": source,
        "body": note.body,
    }


def export_jsonl(
    path: Path, notes: list[Note], overwrite: bool, extra: list[dict[str, Any]]
) -> ExportReport:
    if path.is_dir():
        raise InvalidArgument(f"{path} is a folder", "give a file name, e.g. notes.jsonl")
    if path.exists() and not overwrite:
        raise InvalidArgument(
            f"{path} exists", "choose another path, or overwrite it (`memtui export --force`)"
        )
    header = {"type": HEADER, "version": VERSION, "exported": _now(), "notes": len(notes)}
    lines = [orjson.dumps(header)] + [orjson.dumps(note_record(n)) for n in notes]
    lines += [orjson.dumps(record) for record in extra]
    _write_whole(path, b"\n".join(lines) + b"\n")
    return ExportReport(str(path), "jsonl", len(notes), 1)


def _read_jsonl(
    path: Path,
) -> tuple[list[Note], dict[str, int], list[str], list[SignalRow], list[Portable]]:
    """Every record of the file, checked; raises naming the first bad line."""
    triage: list[SignalRow] = []
    found: list[Portable] = []
    notes: list[Note] = []
    where: list[str] = []
    ignored: dict[str, int] = {}
    with path.open("rb") as file:
        number = 0
        while raw := file.readline(MAX_LINE_BYTES + 1):  # a line of a gigabyte is not read whole
            number += 1
            at = f"{path.name} line {number}"
            if len(raw) > MAX_LINE_BYTES:
                raise InvalidArgument(f"{at}: longer than {MAX_LINE_BYTES:,} bytes")
            if number == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")  # a byte order mark, from Windows
            if not raw.strip():
                continue
            try:
                record = orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                raise InvalidArgument(f"{at}: not JSON ({exc})") from None
            if not isinstance(record, dict) or not isinstance(record.get("type"), str):
                raise InvalidArgument(f'{at}: not a record with a "type"')
            kind = record["type"]
            if kind == HEADER:
                _check_header(record, at)
            elif kind == "note":
                notes.append(_note_from_record(record, at))
                where.append(at)
            elif kind == "signal":
                triage.append(signal_from_record(Fields(record, at)))
            elif kind == "inference":
                found.append(inference_from_record(Fields(record, at)))
            else:
                ignored[kind] = ignored.get(kind, 0) + 1
    return notes, ignored, where, triage, found


def _check_header(record: Mapping[str, Any], at: str) -> None:
    version = record.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise InvalidArgument(f'{at}: the header\'s "version" is not a whole number')
    if version > VERSION:
        raise InvalidArgument(
            f"{at}: written by a newer memtui (format {version}, this one reads {VERSION})",
            "upgrade memtui to import it",
        )


def _note_from_record(record: Mapping[str, Any], at: str) -> Note:
    def text(name: str, default: str | None = None) -> str:
        value = record.get(name, default)
        if not isinstance(value, str):
            missing = name not in record or value is None
            raise InvalidArgument(
                f'{at}: "{name}" is ' + ("missing" if missing else "not a string")
            )
        return value

    def optional(name: str, value: object) -> str | None:
        if value is not None and not isinstance(value, str):
            raise InvalidArgument(f'{at}: "{name}" is not a string')
        return value

    note_id = record.get("id")
    if note_id is not None and (
        not isinstance(note_id, int) or isinstance(note_id, bool) or not 1 <= note_id <= MAX_ID
    ):
        raise InvalidArgument(f'{at}: "id" is not a whole number from 1 to {MAX_ID:,}')
    tags = record.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise InvalidArgument(f'{at}: "tags" is not a list of strings')
    source = record.get("source")
    if source is not None and (
        not isinstance(source, dict) or not isinstance(source.get("session_id"), str)
    ):
        raise InvalidArgument(f'{at}: "source" is not {{"session_id": ..., "message_uuid": ...}}')
    created = _timestamp(text("created", _now()), f'{at}: "created"')
    return _complete(
        Note(
            id=note_id or 0,
            title=text("title"),
            body=text("body", ""),
            layer=text("layer"),
            folder=text("folder", ""),
            tags=list(tags),
            created=created,
            updated=_timestamp(text("updated", created), f'{at}: "updated"'),
            author=text("author", "person"),
            status=optional("status", record.get("status")),
            source_session_id=source["session_id"] if source else None,
            source_message_uuid=optional(
                "source.message_uuid", source.get("message_uuid") if source else None
            ),
        )
    )


def _complete(note: Note) -> Note:
    """A rule without a status is approved when the person wrote it (they bring it in),
    provisional when an agent did; a note of another layer has none."""
    if note.layer != "rule":
        note.status = None
    elif note.status is None:
        note.status = "approved" if note.author == "person" else "provisional"
    return note


def _timestamp(value: str, what: str) -> str:
    """An ISO 8601 date or date-time as the store keeps times: UTC, to the microsecond (a
    time without an offset is taken as UTC). A stored time comes back as the same text."""
    try:
        when = datetime.fromisoformat(value)
        return (
            when.replace(tzinfo=when.tzinfo or UTC).astimezone(UTC).isoformat("T", "microseconds")
        )
    except (ValueError, OverflowError):  # OverflowError: year 1 moved back past its start
        raise InvalidArgument(f"{what} is not an ISO 8601 date-time: {value[:40]!r}") from None


def _now() -> str:
    return datetime.now(UTC).isoformat("T", "microseconds")


# -- signals and inferences -----------------------------------------------------------------


def signal_record(row: SignalRow) -> dict[str, Any]:
    return {
        "type": "signal",
        "signal_type": row.type,
        "fingerprint": row.fingerprint,
        "title": row.title,
        "detail": row.detail,
        "status": row.status,
        "snooze_until": row.snooze_until,
        "note_ids": row.note_ids,
        "created": row.created,
        "updated": row.updated,
    }


def inference_record(item: Portable) -> dict[str, Any]:
    row = item.inference
    return {
        "type": "inference",
        "id": row.id,
        "title": row.title,
        "summary": row.summary,
        "confidence": row.confidence,
        "signal": item.signal,
        "created": row.created,
        "evidence": [
            {"kind": e.kind, "ref": e.ref, "title": e.title, "text": e.text, "hash": e.hash}
            for e in item.evidence
        ],
    }


@dataclass(slots=True)
class Fields:
    """A record's fields, each read with its type checked and the line named if it is wrong."""

    record: Mapping[str, Any]
    at: str

    def get(self, name: str, kind: type | tuple[type, ...], optional: bool = False) -> Any:
        value = self.record.get(name)
        if value is None and optional:
            return None
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            missing = name not in self.record or value is None
            raise InvalidArgument(f'{self.at}: "{name}" is ' + ("missing" if missing else "wrong"))
        return value

    def ids(self, name: str) -> list[int]:
        values = self.get(name, list)
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in values):
            raise InvalidArgument(f'{self.at}: "{name}" is not a list of ids')
        return values


def signal_from_record(f: Fields) -> SignalRow:
    status = f.get("status", str)
    if status not in SIGNAL_STATUSES or f.get("signal_type", str) not in SIGNAL_TYPES:
        raise InvalidArgument(f'{f.at}: "signal_type" or "status" is not one memtui knows')
    until = f.get("snooze_until", str, optional=True)
    return SignalRow(
        0,
        f.get("signal_type", str),
        f.get("fingerprint", str),
        f.get("title", str),
        f.get("detail", str),
        f.ids("note_ids"),
        [],
        status,
        _timestamp(until, f'{f.at}: "snooze_until"') if until else None,
        _timestamp(f.get("created", str), f'{f.at}: "created"'),
        _timestamp(f.get("updated", str), f'{f.at}: "updated"'),
    )


def inference_from_record(f: Fields) -> Portable:
    confidence = f.get("confidence", (int, float))
    inference_id = f.get("id", int)
    if not 0 <= confidence <= 1 or not 1 <= inference_id <= MAX_ID:
        raise InvalidArgument(f'{f.at}: "id" or "confidence" is out of range')
    evidence = []
    for item in f.get("evidence", list):
        e = Fields(item if isinstance(item, dict) else {}, f"{f.at} evidence")
        if e.get("kind", str) not in ("note", "message"):
            raise InvalidArgument(f'{e.at}: "kind" is not note or message')
        evidence.append(
            EvidenceRow(
                e.get("kind", str),
                e.get("ref", str),
                e.get("title", str),
                e.get("text", str),
                e.get("hash", str),
            )
        )
    row = InferenceRow(
        inference_id,
        f.get("title", str),
        f.get("summary", str),
        float(confidence),
        None,
        _timestamp(f.get("created", str), f'{f.at}: "created"'),
    )
    return Portable(row, evidence, f.get("signal", str, optional=True))


# -- Markdown ---------------------------------------------------------------------------------


def note_markdown(note: Note, name: str | None = None, folder: str | None = None) -> str:
    """A note as an Obsidian Markdown file: every field in the front matter (`aliases` holds
    the title when the file's `name` could not, `folder` the folder when the file's `folder`
    could not), the body as written, and a newline that ends the file (a body need not end
    with one; reading the file takes it off again)."""
    fields: dict[str, frontmatter.Value] = {
        "title": note.title,
        "layer": note.layer,
        "folder": note.folder if folder is not None and folder != note.folder else None,
        "tags": note.tags,
        "id": note.id,
        "created": note.created,
        "updated": note.updated,
        "author": note.author,
        "status": note.status,
        "source_session_id": note.source_session_id,
        "source_message_uuid": note.source_message_uuid,
    }
    if name is not None and name != note.title:
        fields["aliases"] = [note.title]
    return frontmatter.dump(fields, note.body) + "\n"


def file_name(title: str) -> str:
    """A file name (without `.md`) for a note's title: the title, less what a file system or
    an Obsidian link cannot hold."""
    # No leading dot: an import, as Obsidian, leaves hidden files and folders out.
    name = " ".join(_UNSAFE.sub(" ", title).split()).lstrip(". ")
    while len(name.encode()) > MAX_NAME_BYTES:
        name = name[:-1]
    name = name.rstrip(" .") or "untitled"
    if name.split(".")[0].upper() in _RESERVED:
        name += " (note)"
    return name


def folder_path(folder: str) -> PurePosixPath:
    """Where a note's folder goes: each part named as a file would be (no leading dot)."""
    return PurePosixPath(*(file_name(part) for part in folder.split("/") if part))


def _planned(notes: list[Note]) -> dict[PurePosixPath, Note]:
    """Where each note goes: `folder/name.md`, a second note of the same name (letter case
    aside, for macOS and Windows) in one folder with its id added."""
    taken: set[str] = set()
    plan: dict[PurePosixPath, Note] = {}
    for note in sorted(notes, key=lambda n: n.id):
        folder = folder_path(note.folder)
        name = file_name(note.title)
        if str(folder / name).casefold() in taken:
            name = f"{name} ({note.id})"
        taken.add(str(folder / name).casefold())
        plan[folder / f"{name}.md"] = note
    return plan


def _export_markdown(root: Path, notes: list[Note], overwrite: bool) -> ExportReport:
    if root.exists() and not root.is_dir():
        raise InvalidArgument(
            f"{root} is a file", "give a folder for --format markdown (it is made if missing)"
        )
    if root.is_dir() and any(root.iterdir()) and not overwrite:
        raise InvalidArgument(
            f"{root} is a folder with files in it",
            "choose a new or empty folder, or update an earlier export (`memtui export --force`:"
            " notes are rewritten, deleted ones removed, other files left alone)",
        )
    plan = _planned(notes)
    earlier = dict(_memtui_files(root)) if overwrite else {}
    _check_not_edited(root, earlier, notes)
    written = 0
    for relative, note in plan.items():
        target = root / relative
        folder = "" if relative.parent == PurePosixPath() else relative.parent.as_posix()
        text = note_markdown(note, relative.stem, folder).encode()
        if target.is_file() and target.read_bytes() == text:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        _write_whole(target, text, sync=False)
        written += 1
    removed = sorted(earlier.keys() - {str(p) for p in plan})
    for relative_name in removed:
        (root / relative_name).unlink()
    _prune_empty(root)
    return ExportReport(str(root), "markdown", len(notes), written, removed)


def _markdown_files(root: Path) -> Iterator[Path]:
    """The `.md` files under `root`, in order, leaving out hidden files and folders
    (`.obsidian`, `.git`, `.trash`)."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".md") and not name.startswith("."):
                yield Path(folder) / name


def _memtui_files(root: Path) -> Iterator[tuple[str, Note]]:
    """The Markdown files under `root` an export wrote (front matter with an id, a layer and
    a created time), each as its relative path and the note it holds. A file of the
    person's own, or one that cannot be read, is not one."""
    for path in _markdown_files(root):
        relative = path.relative_to(root)
        try:
            text = path.read_bytes().decode()  # as written: "\r\n" in a body stays
            parts = frontmatter.split(text)
            if parts and {"id", "layer", "created"} <= parts[0].keys():
                yield relative.as_posix(), _note_from_markdown(text, relative, path.stat().st_mtime)
        except (OSError, UnicodeDecodeError, InvalidArgument):
            continue


def _check_not_edited(root: Path, earlier: Mapping[str, Note], notes: list[Note]) -> None:
    """Refuse to write over an earlier export whose files were changed outside memtui (in
    Obsidian, say) after memtui last saved their notes: those edits are not in memtui yet."""
    stored = {n.id: n for n in notes}
    edited: list[str] = []
    for relative, note in earlier.items():
        now = stored.get(note.id)
        if now is None or _content(note) == _content(now):
            continue
        if _modified((root / relative).stat().st_mtime) > now.updated:
            edited.append(relative)
    if edited:
        shown = ", ".join(edited[:3]) + (" …" if len(edited) > 3 else "")
        raise InvalidArgument(
            f"{counted(len(edited), 'file')} in {root} changed since memtui wrote "
            f"{'it' if len(edited) == 1 else 'them'}:"
            f" {shown}",
            f"import them first (`memtui import {root} --on-conflict overwrite`), or move them"
            " away; nothing was written",
        )


def _content(note: Note | None, all_fields: bool = False) -> object:
    """What a person edits in a note's file (its times and author are memtui's), or with
    `all_fields` all of it: to compare a note read from a file with the one stored. The body
    without a last newline: an export before every file ended with one wrote a body's own
    last newline as the file's, and reading a file takes one off."""
    if note is None:
        return None
    body = note.body.removesuffix("\n")
    if all_fields:
        return dataclasses.replace(note, body=body)
    return (note.title, body, note.layer, note.folder, note.tags, note.status)


def _prune_empty(root: Path) -> None:
    for folder, dirs, files in os.walk(root, topdown=False):
        path = Path(folder)
        if path != root and not dirs and not files and not path.name.startswith("."):
            path.rmdir()


def _read_markdown(root: Path) -> tuple[list[Note], list[str], list[str]]:
    """Every `.md` file under `root` as a note, checked, where each is and when its file
    was last changed; raises naming the first bad file. A file without front matter (a
    plain Obsidian note) is a `past` note named after it."""
    notes: list[Note] = []
    where: list[str] = []
    changed: list[str] = []
    for path in _markdown_files(root):
        relative = path.relative_to(root)
        try:
            with path.open(encoding="utf-8", newline="") as file:
                text = file.read()
        except UnicodeDecodeError:
            raise InvalidArgument(f"{relative.as_posix()}: not UTF-8 text") from None
        try:
            mtime = path.stat().st_mtime
            notes.append(_note_from_markdown(text, relative, mtime))
        except InvalidArgument as exc:
            raise InvalidArgument(f"{relative.as_posix()}: {exc}") from None
        where.append(relative.as_posix())
        changed.append(_modified(mtime))
    return notes, where, changed


def _modified(mtime: float) -> str:
    return _timestamp(datetime.fromtimestamp(mtime, UTC).isoformat(), "the file's time")


def _one(fields: Mapping[str, frontmatter.Read], name: str) -> str | None:
    """A field that holds one value; None when it is not there or empty."""
    value = fields.get(name)
    if isinstance(value, list):
        raise InvalidArgument(f"{name} must be one value, not a list")
    return None if value is None else str(value)


def _tags(fields: Mapping[str, frontmatter.Read]) -> list[str]:
    tags = fields.get("tags") or []
    if isinstance(tags, str):  # `tags: one` or Obsidian's older `tags: a, b`
        tags = [t for t in re.split(r"[,\s]+", tags) if t]
    return [str(t).lstrip("#") for t in tags]


def _note_from_markdown(text: str, relative: Path, mtime: float) -> Note:
    """A note from its file: the front matter's fields, else the file's name, folder and
    modification time."""
    parts = frontmatter.split(text)
    fields, body = parts if parts is not None else ({}, text)

    def one(name: str, default: str | None = None) -> str | None:
        value = _one(fields, name)
        return default if value is None else value

    note_id = one("id")
    if note_id is not None and not (
        note_id.isascii() and note_id.isdigit() and 1 <= int(note_id) <= MAX_ID
    ):
        raise InvalidArgument(f"id must be a whole number from 1 to {MAX_ID:,}, not {note_id!r}")
    if note_id is not None:  # a file memtui wrote: it ended the file with a newline of its own
        body = body.removesuffix("\n")
    modified = _modified(mtime)
    created = _timestamp(one("created", modified) or modified, "created")
    folder = one("folder") or relative.parent.as_posix()
    note = _complete(
        Note(
            id=int(note_id) if note_id else 0,
            title=one("title") or relative.stem,
            body=body,
            layer=one("layer", "past") or "past",
            folder="" if folder == "." else folder,
            tags=_tags(fields),
            created=created,
            updated=_timestamp(one("updated", created) or created, "updated"),
            author=one("author", "person") or "person",
            status=one("status"),
            source_session_id=one("source_session_id"),
            source_message_uuid=one("source_message_uuid"),
        )
    )
    return note


EDIT_FIELDS = ("title", "layer", "folder", "tags")


def note_for_editing(n: Note) -> str:
    """A note as a person edits it in a text editor: the fields they may change as front
    matter (the others as comments), the body below."""
    fields: dict[str, frontmatter.Value] = {
        "title": n.title,
        "layer": n.layer,
        "folder": n.folder,
        "tags": n.tags,
    }
    status = f" ({n.status})" if n.status else ""
    comments = [
        f"note {n.id}{status} · created {n.created} by {n.author} · updated {n.updated}",
        "change title, layer, folder or tags here; the body follows the closing ---",
    ]
    return frontmatter.dump(fields, n.body, comments)


def edited_note(text: str) -> dict[str, Any]:
    """The title, layer, folder, tags and body of `note_for_editing`'s text as edited, for
    `Notes.update`; InvalidArgument names what is wrong."""
    parts = frontmatter.split(text)
    if parts is None:
        raise InvalidArgument(
            "the front matter is gone", "keep the fields between two lines of ---"
        )
    fields, body = parts
    unknown = sorted(set(fields) - set(EDIT_FIELDS))
    if unknown:
        raise InvalidArgument(
            f"unknown field {unknown[0]!r} in the front matter",
            f"the fields are {', '.join(EDIT_FIELDS)}",
        )
    if "title" not in fields:
        raise InvalidArgument("title is missing from the front matter")
    return {
        "title": _one(fields, "title") or "",
        "layer": _one(fields, "layer") or "",
        "folder": _one(fields, "folder") or "",
        "tags": _tags(fields),
        "body": body,
    }


# -- files ------------------------------------------------------------------------------------


def _write_whole(path: Path, data: bytes, sync: bool = True) -> None:
    """Write `path` through a temporary file beside it: a reader, or a crash, never sees
    half of it. `sync=False` skips the fsync: a folder of thousands of notes would wait
    for the disk once a file (20 s for 2,000 under load), and a rename over the old file
    keeps either the old text or the new."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            if sync:
                file.flush()
                os.fsync(file.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
