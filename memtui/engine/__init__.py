"""The query engine: one Memory object, its services, and the plain data they answer with.

Front ends import from here only; nothing here imports a front end (textual, mcp). The
data types load at once; Memory and its services (numpy, Tantivy, hnswlib) on first use,
so `memtui mcp` can answer `initialize` before it needs them.
"""

import importlib
from typing import TYPE_CHECKING

from memtui.config import Config, load
from memtui.engine.notes_types import (
    AUTHORS,
    FORMATS,
    LAYERS,
    MAX_BODY_BYTES,
    MAX_DUPLICATE,
    MAX_TITLE_CHARS,
    MIN_DUPLICATE,
    ON_CONFLICT,
    RULE_STATUSES,
    Author,
    Flashbacks,
    FolderCount,
    Format,
    HouseRules,
    ImportReport,
    Layer,
    Note,
    NoteDetail,
    NoteDraft,
    NoteFlashback,
    NoteHit,
    NoteLink,
    NoteRef,
    NoteSearchResponse,
    NoteSource,
    OnConflict,
    PastImmutable,
    RuleStatus,
    RuleUserOnly,
    SaveResult,
    SessionFlashback,
    SimilarNote,
    TagCount,
    UpdatedNote,
)
from memtui.engine.types import (
    AGENT_NAMES,
    AGENTS,
    BYS,
    MODE_ALIASES,
    MODES,
    ORDERS,
    ROLES,
    Agent,
    By,
    DoctorReport,
    MessageView,
    Mode,
    Order,
    ProjectInfo,
    Recall,
    Role,
    SearchResponse,
    SearchResult,
    SessionHit,
    SessionInfo,
    SessionPage,
    SessionText,
    Stats,
    ToolCallView,
    to_dict,
)
from memtui.engine.work import FileHistory, FileWork, Fix, FixHistory
from memtui.errors import (
    Ambiguous,
    Busy,
    IndexDamaged,
    InvalidArgument,
    MemtuiError,
    ModelUnavailable,
    NotConfirmed,
    NotFound,
    StoreCorrupt,
    StoreUnavailable,
)
from memtui.progress import OnProgress, ProgressEvent
from memtui.store.health import IndexHealth

if TYPE_CHECKING:
    from memtui.engine.agents import resume_argv
    from memtui.engine.doctor import check_store, clear_damage_mark, rebuild_store
    from memtui.engine.forget import Receipt
    from memtui.engine.history import History
    from memtui.engine.memory import Memory
    from memtui.engine.notes import Notes
    from memtui.engine.rules import house_rules
    from memtui.engine.transfer import edited_note, note_for_editing
    from memtui.engine.upkeep import Upkeep
    from memtui.ingest.pipeline import IngestReport

_HEAVY = {
    "resume_argv": "memtui.engine.agents",  # every agent's reader: only to resume
    "check_store": "memtui.engine.doctor",  # doctor: runs on a store too damaged to open
    "clear_damage_mark": "memtui.engine.doctor",
    "rebuild_store": "memtui.engine.doctor",
    "Receipt": "memtui.engine.forget",
    "Memory": "memtui.engine.memory",
    "History": "memtui.engine.history",
    "Upkeep": "memtui.engine.upkeep",
    "IngestReport": "memtui.ingest.pipeline",
    "Notes": "memtui.engine.notes",
    "house_rules": "memtui.engine.rules",  # SQLite only: MCP's initialize reads it
    "note_for_editing": "memtui.engine.transfer",
    "edited_note": "memtui.engine.transfer",
}


def __getattr__(name: str) -> object:
    if name in _HEAVY:
        return getattr(importlib.import_module(_HEAVY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AGENTS",
    "AGENT_NAMES",
    "AUTHORS",
    "BYS",
    "FORMATS",
    "LAYERS",
    "MAX_BODY_BYTES",
    "MAX_DUPLICATE",
    "MAX_TITLE_CHARS",
    "MIN_DUPLICATE",
    "MODES",
    "MODE_ALIASES",
    "ON_CONFLICT",
    "ORDERS",
    "ROLES",
    "RULE_STATUSES",
    "Agent",
    "Ambiguous",
    "Author",
    "Busy",
    "By",
    "Config",
    "DoctorReport",
    "FileHistory",
    "FileWork",
    "Fix",
    "FixHistory",
    "Flashbacks",
    "FolderCount",
    "Format",
    "History",
    "HouseRules",
    "ImportReport",
    "IndexDamaged",
    "IndexHealth",
    "IngestReport",
    "InvalidArgument",
    "Layer",
    "Memory",
    "MemtuiError",
    "MessageView",
    "Mode",
    "ModelUnavailable",
    "NotConfirmed",
    "NotFound",
    "Note",
    "NoteDetail",
    "NoteDraft",
    "NoteFlashback",
    "NoteHit",
    "NoteLink",
    "NoteRef",
    "NoteSearchResponse",
    "NoteSource",
    "Notes",
    "OnConflict",
    "OnProgress",
    "Order",
    "PastImmutable",
    "ProgressEvent",
    "ProjectInfo",
    "Recall",
    "Receipt",
    "Role",
    "RuleStatus",
    "RuleUserOnly",
    "SaveResult",
    "SearchResponse",
    "SearchResult",
    "SessionFlashback",
    "SessionHit",
    "SessionInfo",
    "SessionPage",
    "SessionText",
    "SimilarNote",
    "Stats",
    "StoreCorrupt",
    "StoreUnavailable",
    "TagCount",
    "ToolCallView",
    "UpdatedNote",
    "Upkeep",
    "check_store",
    "clear_damage_mark",
    "edited_note",
    "house_rules",
    "load",
    "note_for_editing",
    "rebuild_store",
    "resume_argv",
    "to_dict",
]
