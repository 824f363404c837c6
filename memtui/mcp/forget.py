"""`forget` over MCP: one destructive tool, refused unless `confirmed` is the boolean true.

A family served reaches its own data only, so forget's arguments are those of the families
served: a session or a project with history, a note with notes (`--tools history` cannot
forget a note). It is registered after the families, last in the list.

`confirmed` takes any JSON value on purpose: "yes", 1, false or nothing at all must come back
as NOT_CONFIRMED (what to do instead), not as a type error.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Annotated, Any

from mcp.types import CallToolResult
from pydantic import Field, StrictInt, StrictStr

from memtui.engine import Receipt
from memtui.mcp.handshake import FORGETTING, forgets
from memtui.mcp.tools import Server, output_model, structured

ReceiptOutput = output_model(Receipt)
NoteId = Annotated[StrictInt, Field(ge=1, description="A note id")]

ARGUMENTS = {"history": ("session_id", "project"), "notes": ("note_id",)}
NEEDS = {
    "session_id": "forgetting a session needs the history family",
    "project": "forgetting a project needs the history family",
    "note_id": "forgetting a note needs the notes family",
}
# What forget removes, by the families it reaches: (its title, what the description names).
REACHES = {
    "history": ("Forget a session or project", "session or project (and its future sessions)"),
    "notes": ("Forget a note", "note"),
    "history,notes": (
        "Forget a session, project or note",
        "session, project (and its future sessions) or note",
    ),
}


def register(server: Server, families: Sequence[str]) -> None:
    reach = forgets(families)
    if not reach:
        return
    engine = server.engine

    def forget(
        session_id: Annotated[
            StrictStr | None,
            Field(max_length=64, description="A session id, or a unique prefix of one"),
        ] = None,
        project: Annotated[
            StrictStr | None,
            Field(max_length=1000, pattern=r"^/", description="A project's directory"),
        ] = None,
        note_id: NoteId | None = None,
        confirmed: Annotated[
            Any,
            Field(
                description=(
                    "Must be the boolean true, set only after the person said yes: forgetting "
                    "cannot be undone"
                )
            ),
        ] = None,
    ) -> Annotated[CallToolResult, ReceiptOutput]:
        return structured(
            engine().forget(session_id, project, note_id, confirmed=confirmed, by="agent")
        )

    taken = [name for family in FORGETTING if family in families for name in ARGUMENTS[family]]
    whole = inspect.signature(forget, eval_str=True)
    kept = [p for p in whole.parameters.values() if p.name in (*taken, "confirmed")]
    if taken == ["note_id"]:  # the one thing to forget: required
        kept[0] = kept[0].replace(annotation=NoteId, default=inspect.Parameter.empty)
    forget.__signature__ = whole.replace(parameters=kept)  # type: ignore[attr-defined]
    title, what = REACHES[reach]
    choose = f" Give exactly one of {', '.join(taken)}." if len(taken) > 1 else ""
    forget.__doc__ = (
        f"Remove one {what} from every file memtui keeps, for good, only when the person "
        f"asked.{choose} Returns a receipt: counts, time, a SHA-256 of the removed ids."
    )
    server.engine_tool(
        title=title,
        read_only=False,
        destructive=True,
        absent={name: why for name, why in NEEDS.items() if name not in taken},
    )(forget)
