"""The query engine: one Memory object, its services, and the plain data they answer with.

Front ends import from here only; nothing here imports a front end (textual, mcp).
"""

from memtui.config import Config, load
from memtui.engine.history import History
from memtui.engine.memory import Memory
from memtui.engine.search import SearchResponse, SearchResult
from memtui.engine.types import (
    MODE_ALIASES,
    MODES,
    ORDERS,
    ROLES,
    MessageView,
    Mode,
    Order,
    ProjectInfo,
    Role,
    SessionInfo,
    SessionPage,
    ToolCallView,
    to_dict,
)
from memtui.engine.upkeep import DoctorReport, Stats, Upkeep
from memtui.errors import (
    Ambiguous,
    Busy,
    InvalidArgument,
    MemtuiError,
    ModelUnavailable,
    NotFound,
    StoreCorrupt,
    StoreUnavailable,
)
from memtui.ingest.pipeline import IngestReport
from memtui.progress import OnProgress, ProgressEvent
from memtui.store.indexes import IndexHealth

__all__ = [
    "MODES",
    "MODE_ALIASES",
    "ORDERS",
    "ROLES",
    "Ambiguous",
    "Busy",
    "Config",
    "DoctorReport",
    "History",
    "IndexHealth",
    "IngestReport",
    "InvalidArgument",
    "Memory",
    "MemtuiError",
    "MessageView",
    "Mode",
    "ModelUnavailable",
    "NotFound",
    "OnProgress",
    "Order",
    "ProgressEvent",
    "ProjectInfo",
    "Role",
    "SearchResponse",
    "SearchResult",
    "SessionInfo",
    "SessionPage",
    "Stats",
    "StoreCorrupt",
    "StoreUnavailable",
    "ToolCallView",
    "Upkeep",
    "load",
    "to_dict",
]
