"""`forget` over MCP: one destructive tool, refused unless `confirmed` is the boolean true.

`confirmed` takes any JSON value on purpose: "yes", 1, false or nothing at all must come back
as NOT_CONFIRMED (what to do instead), not as a type error.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.types import CallToolResult
from pydantic import Field, StrictInt, StrictStr

from memtui.engine import Receipt
from memtui.mcp.tools import Server, output_model, structured

ReceiptOutput = output_model(Receipt)


def register(server: Server) -> None:
    engine = server.engine

    @server.engine_tool(
        title="Forget a session, project or note", read_only=False, destructive=True
    )
    def forget(
        session_id: Annotated[
            StrictStr | None,
            Field(max_length=64, description="A session id, or a unique prefix of one"),
        ] = None,
        project: Annotated[
            StrictStr | None,
            Field(max_length=1000, pattern=r"^/", description="A project's directory"),
        ] = None,
        note_id: Annotated[StrictInt | None, Field(ge=1, description="A note id")] = None,
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
        """Remove one session, project (and its future sessions) or note from every file
        memtui keeps, for good, only when the person asked. Give exactly one of session_id,
        project, note_id. Returns a receipt: counts, time, a SHA-256 of the removed ids."""
        return structured(
            engine().forget(session_id, project, note_id, confirmed=confirmed, by="agent")
        )
