"""Conversation history over MCP: six read-only tools, three resources and the `recall` prompt.

Argument rules live in the signatures (pydantic enforces them before the engine is called);
each body is one engine call whose dataclass is the structured result.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Literal, TypedDict, TypeVar

from mcp.server.mcpserver.exceptions import ResourceError
from mcp.types import CallToolResult
from pydantic import Field, StrictInt, StrictStr

from memtui.engine import (
    MemtuiError,
    Mode,
    Order,
    ProjectInfo,
    Role,
    SearchResponse,
    SessionInfo,
    SessionPage,
    Stats,
    to_dict,
)
from memtui.engine.types import ModeAlias
from memtui.mcp.server import Server, output_model, run_bounded, structured

T = TypeVar("T")

MAX_QUERY = 4_000
MAX_TEXT = 1_000  # ids, paths and filters: generous, but no megabyte "project"

Text = Annotated[StrictStr, Field(max_length=MAX_TEXT)]
QueryText = Annotated[StrictStr, Field(min_length=1, max_length=MAX_QUERY)]
Concepts = Annotated[list[QueryText], Field(min_length=2, max_length=5)]
SessionId = Annotated[
    StrictStr,
    Field(
        min_length=1,
        max_length=64,
        description="A session id, or a unique prefix of one (8 characters usually do)",
    ),
]
Cwd = Annotated[
    StrictStr,
    Field(
        max_length=MAX_TEXT,
        pattern=r"^/",
        description="An absolute working directory: only that project (an unknown one finds none)",
    ),
]
When = Annotated[
    StrictStr,
    Field(
        max_length=40,
        description="An ISO 8601 date or date-time, e.g. 2026-11-01 or 2026-11-01T14:00:00Z",
    ),
]
Limit = Annotated[StrictInt, Field(ge=1, le=50, description="How many to return (1-50)")]


SearchOutput = output_model(SearchResponse)
SessionPageOutput = output_model(SessionPage)
StatsOutput = output_model(Stats)


class SessionList(TypedDict):
    sessions: list[SessionInfo]


class ProjectList(TypedDict):
    projects: list[ProjectInfo]


class SessionText(TypedDict):
    session_id: str
    markdown: str


def register(server: Server) -> None:
    engine = server.engine

    def search_history(
        query: Annotated[
            QueryText | Concepts,
            Field(
                description=(
                    "What to find, in the words the answer would use (not the question's). "
                    "A list of 2-5 strings is an AND of concepts that must all match. "
                    'Syntax: "exact phrase", prefix*, pasted tokens as written (a SHA or its '
                    "first 7 characters, a path, an error name, --flag)."
                )
            ),
        ],
        mode: Annotated[
            Literal[Mode, ModeAlias],
            Field(
                description=(
                    "hybrid (default: words and meaning fused), fts/text (exact words, "
                    "names, error messages), vector (meaning only); both = hybrid"
                )
            ),
        ] = "hybrid",
        cwd: Cwd | None = None,
        project: Annotated[
            Text | None, Field(description="A project: its directory, or a unique part of it")
        ] = None,
        session_id: Annotated[
            Text | None, Field(description="Only this session (id or unique prefix)")
        ] = None,
        after: Annotated[When | None, Field(description="Only messages at or after this")] = None,
        before: Annotated[When | None, Field(description="Only messages before this")] = None,
        role: Annotated[Role | None, Field(description="Only the user's or Claude's")] = None,
        alternatives: Annotated[
            list[QueryText] | None,
            Field(
                max_length=4,
                description=(
                    "0-4 other phrasings of the same question (other words the answer may "
                    "use: synonyms, the error text, the file name); fused with the query"
                ),
            ),
        ] = None,
        limit: Limit = 10,
        response_format: Annotated[
            Literal["json", "markdown"],
            Field(description="markdown: a readable list with the call that opens each hit"),
        ] = "json",
    ) -> Annotated[CallToolResult, SearchOutput]:
        """Search every past Claude Code conversation of this user (all projects, including
        sessions Claude Code has deleted). Call it before answering anything about past work:
        what was decided, tried, fixed or said before, or "how did we do X last time".
        Ask for the words the answer would contain, and pass other phrasings as
        `alternatives`. Results give session id, project, message index, role, time, a
        snippet with the matched words in **bold**, and a score; open one with get_session
        (offset near message_index) or read_session."""
        response = engine().history.search(
            query,
            mode,
            project=project,
            cwd=cwd,
            session=session_id,
            role=role,
            after=after,
            before=before,
            alternatives=alternatives,
            limit=limit,
        )
        if response_format == "markdown":
            return structured(response, search_markdown(response))
        return structured(response)

    def get_session(
        session_id: SessionId,
        offset: Annotated[
            StrictInt, Field(ge=0, le=10_000, description="Messages to skip, in `order`")
        ] = 0,
        limit: Annotated[
            StrictInt,
            Field(ge=1, le=50, description="Messages to return (1-50); above 5 each is cut"),
        ] = 10,
        order: Annotated[
            Order, Field(description='"asc" from the start, "desc" from the end (how it ended)')
        ] = "asc",
        search: Annotated[
            Text | None, Field(description="Only messages containing this text")
        ] = None,
    ) -> Annotated[CallToolResult, SessionPageOutput]:
        """One session: its info (project, title, dates, branch) and a page of its messages,
        with pagination (total, has_more). Use order "desc" to see how a session ended (the
        outcome, the last decision); `search` keeps only messages containing a phrase.
        Message text is cut to 500 characters when limit > 5: ask for fewer, or use
        read_session, to read them whole."""
        page = engine().history.get_session(session_id, offset, limit, order, search)
        return structured(page)

    def read_session(
        session_id: SessionId,
        start_line: Annotated[
            StrictInt | None, Field(ge=1, description="First line to return (1-based)")
        ] = None,
        end_line: Annotated[
            StrictInt | None, Field(ge=1, description="Last line to return (inclusive)")
        ] = None,
    ) -> Annotated[CallToolResult, SessionText]:
        """A whole archived session as Markdown with line numbers: every prompt, answer, tool
        call and shortened tool output. Long sessions are long: read them in line ranges
        (e.g. 1-200, then on), or find the part you need with get_session's `search` first.
        Only sessions memtui has archived can be read (by id or unique prefix)."""
        history = engine().history
        full = history.resolve_session(session_id)
        text = history.read_session(full, start_line, end_line)
        return structured(SessionText(session_id=full, markdown=text), text)

    def get_recent_sessions(
        cwd: Cwd | None = None, limit: Limit = 5
    ) -> Annotated[CallToolResult, SessionList]:
        """The last sessions, most recent first: of the project at `cwd` (pass the current
        working directory to see what happened lately here), or of all projects."""
        return structured(SessionList(sessions=engine().history.recent_sessions(cwd, limit)))

    def list_projects() -> Annotated[CallToolResult, ProjectList]:
        """Every archived project (working directory) with its session and message counts
        and last activity: to find the `project` or `cwd` to filter a search by."""
        return structured(ProjectList(projects=engine().history.list_projects()))

    def memory_stats() -> Annotated[CallToolResult, StatsOutput]:
        """How much memtui holds (projects, sessions, messages, archived sessions), when it
        last ingested, and whether its indexes are in step with the store."""
        return structured(engine().upkeep.stats())

    server.engine_tool(search_history, title="Search past conversations")
    server.engine_tool(get_session, title="Page through a session")
    server.engine_tool(read_session, title="Read a session as Markdown")
    server.engine_tool(get_recent_sessions, title="Recent sessions")
    server.engine_tool(list_projects, title="List projects")
    server.engine_tool(memory_stats, title="Archive statistics")

    @server.resource(
        "memtui://projects",
        name="projects",
        description="Every archived project with its counts",
        mime_type="application/json",
    )
    async def projects() -> str:
        found = await resource(lambda: engine().history.list_projects(), "memtui://projects")
        return json.dumps({"projects": to_dict(found)}, ensure_ascii=False)

    @server.resource(
        "memtui://sessions/{session_id}",
        name="session",
        description="One archived session as Markdown (full id or unique prefix)",
        mime_type="text/markdown",
    )
    async def session(session_id: str) -> str:
        return await resource(
            lambda: engine().history.session_markdown(session_id), "memtui://sessions"
        )

    @server.resource(
        "memtui://stats",
        name="stats",
        description="Counts, sizes, last ingest and index health",
        mime_type="application/json",
    )
    async def stats() -> str:
        found = await resource(lambda: engine().upkeep.stats(), "memtui://stats")
        return json.dumps(to_dict(found), ensure_ascii=False)

    @server.prompt(
        name="recall",
        title="Recall past work",
        description="Search past conversations before answering a question about past work",
    )
    def recall(question: str) -> str:
        return RECALL.format(question=question)


async def resource(call: Callable[[], T], uri: str) -> T:
    try:
        return await run_bounded(call, uri)
    except MemtuiError as exc:
        raise ResourceError(exc.line()) from None


RECALL = """\
Before you answer, look in my past Claude Code conversations with memtui:
1. Call search_history with the words an answer to this would contain, and 1-4 other
   phrasings as `alternatives` (synonyms, likely error text, file or function names).
2. Open the best hits with get_session (order "desc" to see how a session ended) or
   read_session with a line range.
3. Answer from what you found, citing session ids and dates; if nothing relevant turns up,
   say so plainly instead of guessing.

Question: {question}"""


def search_markdown(response: SearchResponse) -> str:
    """Results for reading: where and when, the session's title, the snippet, the score,
    and the calls that open the hit."""
    if not response.results:
        lines = ["No matches."]
    else:
        lines = [f"{len(response.results)} of {response.total} matches ({response.mode})", ""]
    if response.note:
        lines[:0] = [f"_{response.note}_", ""]
    for n, r in enumerate(response.results, 1):
        when = (r.timestamp or "")[:16].replace("T", " ")
        title = r.session_title or "(untitled)"
        lines += [
            f"{n}. **{title}** · {r.project} · {when} · {r.role} · score {r.score:.3f}",
            f"   {' '.join(r.snippet.split())}",
            f'   open: get_session(session_id="{r.session_id}", '
            f"offset={max(r.message_index - 2, 0)}, limit=5) "
            f'or read_session(session_id="{r.session_id}")',
            "",
        ]
    return "\n".join(lines).rstrip() + "\n"
