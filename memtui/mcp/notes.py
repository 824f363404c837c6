"""Notes over MCP: nine tools, two resources and the `save-session` prompt.

The caller is always an agent: every write says `by="agent"`, and the engine's guards decide
(a `past` note cannot be changed or deleted: the refusal carries the amendment to save instead;
a `rule` is the person's; a rule saved here waits for the person's approval). Argument rules
live in the signatures, as in history.py; each body is one engine call.
"""

from __future__ import annotations

import json
import os
from typing import Annotated, TypedDict

from mcp.types import CallToolResult
from pydantic import Field, StrictFloat, StrictInt, StrictStr, create_model

from memtui.engine import (
    FolderCount,
    InvalidArgument,
    Layer,
    Note,
    NoteDetail,
    NoteSearchResponse,
    PastImmutable,
    SaveResult,
    SimilarNote,
    TagCount,
    to_dict,
)
from memtui.mcp.args import MAX_QUERY, MAX_TEXT, Limit, Text, When
from memtui.mcp.tools import Server, failure, output_model, resource, structured

MAX_CONTENT = 100_000  # the engine counts UTF-8 bytes; this stops a megabyte before it

NoteId = Annotated[StrictInt, Field(ge=1)]
Title = Annotated[StrictStr, Field(min_length=1, max_length=300)]
Content = Annotated[StrictStr, Field(max_length=MAX_CONTENT, description="Markdown")]
Folder = Annotated[StrictStr, Field(max_length=MAX_TEXT, description="e.g. projects/shop")]
Tags = Annotated[list[Annotated[StrictStr, Field(max_length=100)]], Field(max_length=20)]

SaveOutput = create_model(
    "SaveResult",
    __base__=output_model(SaveResult),
    approval=(str | None, Field(None, description="Set when the note waits for the user")),
)
APPROVAL = (
    "Not in force yet: a rule Claude saves waits for the user's approval. Tell the user; they "
    "approve it in memtui (Notes, key R) or with `memtui rules approve {id}`."
)
DetailOutput = output_model(NoteDetail)
SearchOutput = output_model(NoteSearchResponse)


class NoteList(TypedDict):
    notes: list[dict[str, object]]
    total: int


class TagList(TypedDict):
    tags: list[TagCount]


class FolderList(TypedDict):
    folders: list[FolderCount]


class Duplicates(TypedDict):
    duplicates: list[SimilarNote]


class Deleted(TypedDict):
    deleted: dict[str, object]


def caller_project() -> str | None:
    """The caller's project: Claude Code starts `memtui mcp` in the project's folder, and a
    conversation held there is no flashback for it."""
    try:
        return os.getcwd()
    except OSError:  # the folder was removed under the server
        return None


def register(server: Server) -> None:
    engine = server.engine
    here = caller_project()

    @server.engine_tool(title="Save a note", read_only=False)
    def save_note(
        title: Title,
        content: Content,
        layer: Layer,
        folder: Folder = "",
        tags: Tags | None = None,
        source_session_id: Annotated[
            Text | None, Field(description="The session it came from")
        ] = None,
    ) -> Annotated[CallToolResult, SaveOutput]:
        """Keep a note for later sessions. First call list_tags and list_folders, and reuse
        those. layer: "past" for what happened or was decided (the default when in doubt),
        "state" for what is true now, "rule" only when the user asks for one. Link with
        [[Title]]; if it names similar notes, update one instead."""
        saved = engine().notes.save(
            title,
            content,
            layer,
            by="agent",
            folder=folder,
            tags=tags or (),
            source_session_id=source_session_id,
            project=here,
        )
        if saved.note.status != "provisional":
            return structured(saved)
        return structured({**to_dict(saved), "approval": APPROVAL.format(id=saved.note.id)})

    @server.engine_tool(title="Search notes")
    def search_notes(
        query: Annotated[StrictStr, Field(min_length=1, max_length=MAX_QUERY)],
        limit: Limit = 10,
        category: Annotated[Text | None, Field(description="A folder")] = None,
        tag: Text | None = None,
        date_from: When | None = None,
        date_to: When | None = None,
    ) -> Annotated[CallToolResult, SearchOutput]:
        """Search the notes (decisions, current state, the user's rules) by words and
        meaning, with older related notes and conversations as flashbacks."""
        found = engine().notes.search(
            query,
            limit=limit,
            folder=category,
            tag=tag,
            date_from=date_from,
            date_to=date_to,
            project=here,
        )
        return structured(found)

    @server.engine_tool(title="List notes")
    def list_notes(
        limit: Limit = 20, folder: Text | None = None, tag: Text | None = None
    ) -> Annotated[CallToolResult, NoteList]:
        """Notes, most recently updated first, optionally in a folder (and its subfolders)
        or with a tag."""
        notes = engine().notes
        listed = notes.list(folder=folder, tag=tag, limit=limit)
        shown = ("id", "title", "layer", "folder", "tags", "updated", "status")
        refs = [
            {k: v for k, v in to_dict(n).items() if k in shown or (k == "looks_like" and v)}
            for n in listed
        ]
        total = notes.count(folder=folder, tag=tag)
        return structured(NoteList(notes=refs, total=total))

    @server.engine_tool(title="List tags")
    def list_tags() -> Annotated[CallToolResult, TagList]:
        """Every tag with its note count, most used first."""
        return structured(TagList(tags=engine().notes.tags()))

    @server.engine_tool(title="List folders")
    def list_folders() -> Annotated[CallToolResult, FolderList]:
        """Every folder with its note count."""
        return structured(FolderList(folders=engine().notes.folders()))

    @server.engine_tool(title="Read a note")
    def get_note(id: NoteId) -> Annotated[CallToolResult, DetailOutput]:
        """One note in full, with its links, the notes linking to it and its source."""
        return structured(engine().notes.get(id))

    @server.engine_tool(title="Update a note", read_only=False)
    def update_note(
        id: NoteId,
        title: Title | None = None,
        content: Content | None = None,
        tags: Tags | None = None,
    ) -> Annotated[CallToolResult, DetailOutput]:
        """Change a `state` note. A `past` note is refused with an [Amendment] note to save
        instead; rules are the user's."""
        notes = engine().notes
        try:
            notes.update(id, by="agent", title=title, body=content, tags=tags)
        except PastImmutable as exc:
            return amendment(exc)
        return structured(notes.get(id))

    @server.engine_tool(title="Delete a note", read_only=False, destructive=True)
    def delete_note(id: NoteId) -> Annotated[CallToolResult, Deleted]:
        """Delete a `state` note that no longer holds. `past` notes and rules stay."""
        try:
            gone = engine().notes.delete(id, by="agent")
        except PastImmutable as exc:
            return amendment(exc)
        return structured(Deleted(deleted=to_dict(gone)))

    @server.engine_tool(title="Find duplicate notes")
    def find_duplicates(
        note_id: NoteId | None = None,
        text: Annotated[StrictStr | None, Field(max_length=MAX_CONTENT)] = None,
        threshold: Annotated[
            StrictFloat | StrictInt,
            Field(description="least similarity, 0.70-0.95 (a result's distance is 1 - it)"),
        ] = 0.85,
    ) -> Annotated[CallToolResult, Duplicates]:
        """Notes that say nearly the same as a note (note_id) or a text, most similar first."""
        found = engine().notes.find_duplicates(note_id, text, float(threshold))
        return structured(Duplicates(duplicates=found))

    @server.resource(
        "memtui://notes/{note_id}",
        name="note",
        description="One note as Markdown with its fields as front matter",
        mime_type="text/markdown",
    )
    async def note(note_id: str) -> str:
        def read() -> str:
            if not note_id.isdigit():
                raise InvalidArgument(f"note id {note_id[:40]!r} is not a number")
            return note_markdown(engine().notes.get(int(note_id)))

        return await resource(read, "memtui://notes")

    @server.resource(
        "memtui://rules",
        name="rules",
        description="The user's house rules (approved) and the rules awaiting approval",
        mime_type="text/markdown",
    )
    async def rules() -> str:
        def read() -> str:
            notes = engine().notes
            waiting = [r for r in notes.rules() if r.status == "provisional"]
            text = notes.house_rules().text or "## House rules\n\n(none approved yet)\n"
            if waiting:
                text += "\n## Awaiting the user's approval (not in force)\n\n"
                text += "".join(f"- {r.title} (note {r.id}{_looks_like(r)})\n" for r in waiting)
            return text

        return await resource(read, "memtui://rules")

    @server.prompt(
        name="save-session",
        title="Save this session",
        description="Save what this conversation decided and changed as notes",
    )
    def save_session(focus: str = "") -> str:
        return SAVE_SESSION.format(focus=f"\nFocus on: {focus}\n" if focus else "")


def _looks_like(note: Note) -> str:
    return "" if note.looks_like is None else f"; its title looks like note {note.looks_like}'s"


def amendment(exc: PastImmutable) -> CallToolResult:
    """The refusal with the ready amendment, as JSON the caller can pass to save_note."""
    draft = exc.suggestion
    fields = {
        "title": draft.title,
        "content": draft.body,
        "layer": draft.layer,
        "folder": draft.folder,
        "tags": draft.tags,
    }
    return failure(f"{exc.line()}\nsave_note arguments: {json.dumps(fields, ensure_ascii=False)}")


def note_markdown(detail: NoteDetail) -> str:
    note = detail.note
    front = {
        "id": note.id,
        "title": note.title,
        "layer": note.layer,
        "folder": note.folder,
        "tags": note.tags,
        "created": note.created,
        "updated": note.updated,
        "author": note.author,
    }
    if note.status:
        front["status"] = note.status
    if note.source_session_id:
        front["source_session_id"] = note.source_session_id
    head = "\n".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in front.items())
    text = f"---\n{head}\n---\n\n{note.body}\n"
    if detail.backlinks:
        text += "\n## Referenced by\n\n" + "".join(
            f"- [[{ref.title}]] (note {ref.id})\n" for ref in detail.backlinks
        )
    return text


SAVE_SESSION = """\
Before this session ends, save what is worth keeping from it with memtui's notes:
1. Call list_folders and list_tags, and search_notes for the topic, so you reuse folders and
   tags and update rather than duplicate.
2. Save what was decided or happened (and why) as `past` notes: one note per decision, with
   the alternatives turned down. A `past` note is never changed later: to correct one, save
   an amendment that links to it.
3. Save what is true now (current plan, status, open questions) as `state` notes, or update
   the existing `state` note.
4. Save a `rule` only for a standing instruction the user gave ("always…", "never…").
5. Link related notes with [[Title]], and pass this session's id as source_session_id.
{focus}
Then list what you saved, with each note's title and layer."""
