"""What the engine answers with: plain dataclasses, the same for the TUI, MCP and the CLI."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

from memtui.engine.validate import REACH
from memtui.store.health import IndexHealth

# Shared by every front end: argparse choices, MCP schemas and TUI toggles read these.
Mode = Literal["hybrid", "fts", "vector"]
ModeAlias = Literal["text", "both"]  # SPEC's other names for fts and hybrid
Role = Literal["user", "assistant"]
Order = Literal["asc", "desc"]
# The coding agents whose conversations the archive may hold (SPEC's names).
Agent = Literal["claude-code", "codex", "gemini", "opencode", "copilot"]
AGENTS: tuple[Agent, ...] = get_args(Agent)
AGENT_NAMES: dict[str, str] = {  # as each calls itself
    "claude-code": "Claude Code",
    "codex": "Codex CLI",
    "gemini": "Gemini CLI",
    "opencode": "OpenCode",
    "copilot": "Copilot CLI",
}
MODES: tuple[Mode, ...] = get_args(Mode)
ROLES: tuple[Role, ...] = get_args(Role)
ORDERS: tuple[Order, ...] = get_args(Order)
MODE_ALIASES: dict[str, Mode] = {"text": "fts", "both": "hybrid"}


@dataclass(slots=True)
class ToolCallView:
    name: str
    arg: str


@dataclass(slots=True)
class MessageView:
    session_id: str
    message_index: int
    uuid: str
    role: str
    kind: str
    timestamp: str | None
    text: str
    thinking: str = ""
    tool_calls: list[ToolCallView] = field(default_factory=list)
    tool_output: str = ""
    is_sidechain: bool = False
    agent_id: str | None = None
    line: int = 0


@dataclass(slots=True)
class SessionInfo:
    session_id: str
    project: str
    title: str
    first_timestamp: str | None
    last_timestamp: str | None
    message_count: int
    git_branch: str | None
    archived: bool
    agent: str = "claude-code"  # the coding agent that wrote it (SPEC's names)


@dataclass(slots=True)
class RecentSessions:
    sessions: list[SessionInfo]
    # Why the list is empty when `cwd` names no archived project (a mistyped folder).
    note: str | None = None


@dataclass(slots=True)
class ProjectInfo:
    project: str
    sessions: int
    messages: int
    last_activity: str | None


@dataclass(slots=True)
class SessionPage:
    session: SessionInfo
    messages: list[MessageView]
    offset: int
    limit: int
    total: int
    has_more: bool


@dataclass(slots=True)
class SessionText:
    """Numbered Markdown lines `start_line`..`end_line` of a session `lines` long."""

    session_id: str
    markdown: str
    lines: int  # the whole session's length, whatever range was read
    start_line: int
    end_line: int  # the last line given: before the one asked when the answer was full
    next_start_line: int | None  # where reading on starts; None at the session's end


def to_dict(obj: Any) -> Any:
    """A result as JSON-ready data (dataclasses all the way down)."""
    if isinstance(obj, list):
        return [to_dict(item) for item in obj]
    return asdict(obj)


@dataclass(slots=True)
class SearchResult:
    session_id: str
    project: str
    message_index: int
    uuid: str
    role: str
    kind: str
    timestamp: str | None
    snippet: str
    score: float
    found_by: list[str]  # "fts", "vector", or "answer": the reply to a prompt they found
    session_title: str = ""
    agent: str = "claude-code"  # the coding agent that wrote its session

    @property
    def speaker(self) -> str:
        """Who said it, for a person to read: `role`, except that a tool's output, which
        transcripts store as a `user` line, is the tool's."""
        return "tool" if self.kind == "tool_result" else self.role


@dataclass(slots=True)
class SessionHit:
    """A conversation a search found (`by="session"`): its facts, how many of the messages
    the search ranked are in it, and its score. Its best message is the result at the same
    place in `SearchResponse.results`: open it with get_session at that message."""

    session: SessionInfo
    matches: int
    score: float


By = Literal["message", "session"]
BYS: tuple[By, ...] = get_args(By)


@dataclass(slots=True)
class SearchResponse:
    # The matches: messages with the query's words, or near it in meaning (search.py). By
    # session, each conversation's best message, best conversation first.
    results: list[SearchResult]
    # What paging reaches, at most 1,000: the matches (fts_total and vector_total count
    # them), or by session the conversations among the messages each ranking handed on.
    total: int
    mode: str  # the mode that answered: "hybrid" falls back to "fts" until vectors exist
    offset: int = 0
    limit: int = 10
    note: str | None = None
    # Which is which (None: that ranking did not run). Full-text matches: messages with the
    # query's words; near in meaning: vector neighbours whose lift reaches near.NEAR_LIFT.
    fts_total: int | None = None
    vector_total: int | None = None
    # When nothing matches (total 0): the nearest by meaning however far, with their
    # similarity as score, to be shown apart and said to be no match.
    nearest: list[SearchResult] = field(default_factory=list)
    by: str = "message"
    sessions: list[SessionHit] = field(default_factory=list)  # by session: each result's
    # `total` is a floor: more match than paging reaches (1,000); or hybrid counted the
    # full-text matches, and the near in meaning may add to them; or, by session, more
    # messages match than the ranked ones whose conversations were counted.
    more: bool = False
    # `vector_total` is a floor: the vector ranking was cut (at its depth, 100 or 1,000 past
    # the first 100 results, or before it at a tie of copies) with more near past the cut.
    more_near: bool = False

    def counts(self) -> list[str]:
        """What `total` counted, each way apart, `+` where a count is a floor: full-text
        matches, and neighbours near in meaning (the vector ranking reaches its first 100)."""
        parts = []
        if self.fts_total is not None:
            plus = "+" if self.fts_total >= REACH else ""
            parts.append(f"{self.fts_total:,}{plus} full-text match{'es' * (self.fts_total != 1)}")
        if self.vector_total is not None:
            plus = "+" if self.more_near else ""
            parts.append(f"{self.vector_total:,}{plus} near in meaning")
        return parts


@dataclass(slots=True)
class Recall:
    """What a hook told Claude unasked (the recall log, `memtui recalls`)."""

    id: int
    at: str  # ISO 8601 UTC
    hook: str  # session, prompt, tool
    session_id: str
    cwd: str
    text: str
    chars: int
    tokens: int


@dataclass(slots=True)
class RecallTotal:
    """One hook's injections over `memtui stats`' window (RECALL_DAYS)."""

    injections: int
    chars: int


@dataclass(slots=True)
class Stats:
    projects: int
    sessions: int
    archived_sessions: int
    messages: int
    by_kind: dict[str, int]
    files: int
    skipped_lines: int
    unreadable_files: int  # entries the last ingest could not read (see the log)
    last_ingest: str | None
    data_dir: str
    store_bytes: int
    notes: dict[str, int] = field(default_factory=dict)  # by layer
    signals: dict[str, int] = field(default_factory=dict)  # live ones, by status
    inferences: dict[str, int] = field(default_factory=dict)  # by status: active, stale
    index: IndexHealth | None = None


@dataclass(slots=True)
class DoctorReport:
    store: str  # "ok", or what SQLite's integrity check found
    differences: dict[str, tuple[set[int], set[int]]] = field(default_factory=dict)
    repaired: bool = False
    other_model: bool = False  # the vectors were embedded by another model than this one
    to_embed: int = 0  # messages newer than the vector snapshot: the next catch-up embeds them

    @property
    def ok(self) -> bool:
        return self.store == "ok" and not any(m or e for m, e in self.differences.values())


@dataclass(slots=True)
class NoteRef:
    """A note named in a list: a backlink, a similar note, a flashback, a search hit."""

    id: int
    title: str
    layer: str
    folder: str
    updated: str
    status: str | None = None  # a rule's: provisional (not in force) or approved
