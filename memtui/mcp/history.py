"""Conversation history over MCP: seven read-only tools, three resources and the `recall` prompt.

Argument rules live in the signatures (pydantic enforces them before the engine is called);
each body is one engine call whose dataclass is the structured result.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal, TypedDict

from mcp.types import CallToolResult
from pydantic import Field, StrictInt, StrictStr

from memtui.engine import (
    Agent,
    By,
    FileWork,
    Fix,
    InvalidArgument,
    Mode,
    Order,
    ProjectInfo,
    RecentSessions,
    Role,
    SearchResponse,
    SearchResult,
    SessionPage,
    SessionText,
    Stats,
    to_dict,
)
from memtui.engine.types import ModeAlias
from memtui.mcp.args import Cwd, Limit, QueryText, Text, When
from memtui.mcp.tools import Server, output_model, resource, structured
from memtui.words import counted

Concepts = Annotated[list[QueryText], Field(min_length=2, max_length=5)]
OneAgent = Annotated[Agent | None, Field(description="Only this coding agent's conversations")]
SessionId = Annotated[
    StrictStr,
    Field(
        min_length=1,
        max_length=64,
        description="A session id or a unique prefix",
    ),
]


SearchOutput = output_model(SearchResponse)
SessionPageOutput = output_model(SessionPage)
StatsOutput = output_model(Stats)
SessionTextOutput = output_model(SessionText)
RecentOutput = output_model(RecentSessions)


class ProjectList(TypedDict):
    projects: list[ProjectInfo]


class WorkRecall(TypedDict):
    path: str | None  # the file looked up, from the project when cwd was given
    error: str | None  # the error looked up, normalised
    conversations: list[FileWork]
    fixes: list[Fix]


def register(server: Server) -> None:
    engine = server.engine

    @server.engine_tool(
        title="Search past conversations",
        expects={"query": "a string (1-4,000 characters), or a list of 2-5 such strings"},
    )
    def search_history(
        query: Annotated[
            QueryText | Concepts,
            Field(
                description=(
                    "The words the answer would contain; a list of 2-5 is an AND of concepts. "
                    '"exact phrase", prefix*, pasted tokens as written (a SHA, a path, --flag)'
                )
            ),
        ],
        mode: Annotated[
            Literal[Mode, ModeAlias],
            Field(description="fts: exact words, names, errors; vector: meaning; hybrid: both"),
        ] = "hybrid",
        cwd: Cwd | None = None,
        project: Annotated[
            Text | None, Field(description="A project's directory, or a unique part")
        ] = None,
        session_id: Annotated[
            Text | None, Field(description="Only this session (id or unique prefix)")
        ] = None,
        after: When | None = None,
        before: When | None = None,
        role: Role | None = None,
        agent: OneAgent = None,
        alternatives: Annotated[
            list[QueryText] | None,
            Field(
                max_length=4,
                description="Other words the answer may use (synonyms, error text, file)",
            ),
        ] = None,
        by: Annotated[
            By,
            Field(description='"session": which conversation, best first, each at its best hit'),
        ] = "message",
        limit: Limit = 10,
        response_format: Annotated[
            Literal["json", "markdown"],
            Field(description="markdown: readable, with the call that opens each hit"),
        ] = "json",
    ) -> Annotated[CallToolResult, SearchOutput]:
        """Search all of the user's past coding-agent conversations (every project, deleted
        sessions too). Call it before answering anything about past work: what was decided,
        tried, fixed or said. Lists only matches (`nearest`: not matches). Open a
        hit with get_session (offset near its message_index)."""
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
            by=by,
            agent=agent,
        )
        if response_format == "markdown":
            return structured(response, search_markdown(response))
        return structured(response)

    @server.engine_tool(title="Page through a session")
    def get_session(
        session_id: SessionId,
        offset: Annotated[StrictInt, Field(ge=0, le=10_000)] = 0,
        limit: Annotated[
            StrictInt,
            Field(ge=1, le=50),
        ] = 10,
        order: Annotated[Order, Field(description='"desc": from the end')] = "asc",
        search: Annotated[Text | None, Field(description="Only messages containing this")] = None,
    ) -> Annotated[CallToolResult, SessionPageOutput]:
        """A session's info and a page of its messages (each cut to 500 characters when
        limit > 5). order "desc" shows how it ended."""
        page = engine().history.get_session(session_id, offset, limit, order, search)
        return structured(page)

    @server.engine_tool(title="Read a session as Markdown")
    def read_session(
        session_id: SessionId,
        start_line: Annotated[StrictInt | None, Field(ge=1)] = None,
        end_line: Annotated[StrictInt | None, Field(ge=1)] = None,
    ) -> Annotated[CallToolResult, SessionTextOutput]:
        """A session as numbered Markdown lines (prompts, answers, tool calls). A long one
        comes in parts: `next_start_line` is where the next part starts."""
        part = engine().history.read_session(session_id, start_line, end_line)
        return structured(part, read_markdown(part))

    @server.engine_tool(title="Recent sessions")
    def get_recent_sessions(
        cwd: Cwd | None = None, limit: Limit = 5, agent: OneAgent = None
    ) -> Annotated[CallToolResult, RecentOutput]:
        """The latest sessions of the project at `cwd` (what happened lately here), or of
        all projects; each says which coding agent it was with."""
        return structured(engine().history.recent_sessions(cwd, limit, agent))

    @server.engine_tool(title="Recall past work on a file or an error")
    def recall_work(
        path: Annotated[Text | None, Field(description="A file, absolute or from cwd")] = None,
        error: Annotated[
            Annotated[StrictStr, Field(max_length=50_000)] | None,
            Field(description="An error's text, as printed"),
        ] = None,
        cwd: Cwd | None = None,
        limit: Limit = 5,
    ) -> Annotated[CallToolResult, WorkRecall]:
        """Past conversations that read or changed a file (each with the request behind it),
        or what was run or changed after an error before and whether it came back. Call it
        before changing a file or fixing an error."""
        if (path is None) == (error is None):
            raise InvalidArgument("recall_work takes exactly one of path, error")
        work = engine().work
        files = work.files(path, cwd, limit) if path is not None else None
        fixes = work.fixes(error, cwd, limit) if error is not None else None
        return structured(
            WorkRecall(
                path=files.path if files else None,
                error=fixes.error if fixes else None,
                conversations=files.conversations if files else [],
                fixes=fixes.fixes if fixes else [],
            )
        )

    @server.engine_tool(title="List projects")
    def list_projects() -> Annotated[CallToolResult, ProjectList]:
        """Every project with its counts and last activity: the `project` to filter by."""
        return structured(ProjectList(projects=engine().history.list_projects()))

    @server.engine_tool(title="Archive statistics")
    def memory_stats() -> Annotated[CallToolResult, StatsOutput]:
        """How much memtui holds, when it last ingested, and whether its indexes are in
        step."""
        return structured(engine().upkeep.stats())

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


RECALL = """\
Before you answer, look in my past coding-agent conversations with memtui:
1. Call search_history with the words an answer to this would contain, and 1-4 other
   phrasings as `alternatives` (synonyms, likely error text, file or function names).
2. Open the best hits with get_session (order "desc" to see how a session ended) or
   read_session with a line range.
3. Answer from what you found, citing session ids and dates; if nothing relevant turns up,
   say so plainly instead of guessing.

Question: {question}"""


def read_markdown(part: SessionText) -> str:
    """The lines, and where the next part starts when there is one."""
    if not part.markdown:
        return f"start_line {part.start_line} is past the end: this session has {part.lines} lines"
    if part.next_start_line is None:
        return part.markdown
    return (
        f"{part.markdown}\n\n(lines {part.start_line}-{part.end_line} of {part.lines}; "
        f'read on with read_session(session_id="{part.session_id}", '
        f"start_line={part.next_start_line}))"
    )


def search_markdown(response: SearchResponse) -> str:
    """Results for reading: where and when, the session's title, the snippet, the score,
    and the call that opens the hit where it is (read_session's first part of a long session
    may end before it). By session, a conversation a line with its best hit under it. When
    nothing matches, it says so, and the nearest by meaning follow under their own heading."""
    counts = response.counts()
    which = f" ({response.mode}: {', '.join(counts)})" if counts else f" ({response.mode})"
    lines = []
    if response.note:
        lines += [f"_{response.note}_", ""]
    if not response.total:
        lines.append(f"No matches{which}.")
    else:
        what = "conversation" if response.by == "session" else "match"
        plural = "" if response.total == 1 else ("s" if response.by == "session" else "es")
        more = "+" if response.more else ""
        lines += [
            f"{len(response.results)} of {response.total:,}{more} {what}{plural}{which}",
            "",
        ]
    sessions = {hit.session.session_id: hit for hit in response.sessions}
    for n, r in enumerate(response.results, 1):
        hit = sessions.get(r.session_id)
        if hit is not None:
            info = hit.session
            when = (info.last_timestamp or "")[:10]
            lines.append(
                f"{n}. **{info.title or '(untitled)'}** · {info.project}{_by(info.agent)} · "
                f"{when} · {info.message_count:,} messages, {counted(hit.matches, 'hit')} · "
                f"score {hit.score:.3f}"
            )
            lines += _hit_lines(r, "   best: ", where=False)
        else:
            lines += _hit_lines(r, f"{n}. ")
    if response.nearest:
        lines += [
            "",
            f"Nearest by meaning, none near enough to count as a match "
            f"({len(response.nearest)}, similarity as score):",
            "",
        ]
        for n, r in enumerate(response.nearest, 1):
            lines += _hit_lines(r, f"{n}. ")
    return "\n".join(lines).rstrip() + "\n"


def _hit_lines(r: SearchResult, lead: str, where: bool = True) -> list[str]:
    """A hit: with `where`, its conversation's title and project (a conversation's best hit
    has them on the line above)."""
    when = (r.timestamp or "")[:16].replace("T", " ")
    title = r.session_title or "(untitled)"
    place = f"**{title}** · {r.project}{_by(r.agent)} · " if where else ""
    return [
        f"{lead}{place}{when} · {r.speaker} · score {r.score:.3f}",
        f"   {' '.join(r.snippet.split())}",
        f'   open: get_session(session_id="{r.session_id}", '
        f"offset={max(r.message_index - 2, 0)}, limit=5)",
        "",
    ]


def _by(agent: str) -> str:
    """Another agent than Claude Code, named after the project."""
    return "" if agent == "claude-code" else f" · {agent}"
