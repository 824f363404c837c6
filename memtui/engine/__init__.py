"""The query engine: one Memory object, its services, and the plain data they answer with.

Front ends import from here only; nothing here imports a front end (textual, mcp). The
data types load at once; Memory and its services (numpy, Tantivy, hnswlib) on first use,
so `memtui mcp` can answer `initialize` before it needs them.
"""

import importlib
from typing import TYPE_CHECKING

from memtui.config import Config, load
from memtui.engine.forget import Receipt, removed_hash
from memtui.engine.types import (
    MODE_ALIASES,
    MODES,
    ORDERS,
    ROLES,
    DoctorReport,
    MessageView,
    Mode,
    Order,
    ProjectInfo,
    Role,
    SearchResponse,
    SearchResult,
    SessionInfo,
    SessionPage,
    Stats,
    ToolCallView,
    to_dict,
)
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
    from memtui.engine.history import History
    from memtui.engine.memory import Memory
    from memtui.engine.upkeep import Upkeep
    from memtui.ingest.pipeline import IngestReport

_HEAVY = {
    "Memory": "memtui.engine.memory",
    "History": "memtui.engine.history",
    "Upkeep": "memtui.engine.upkeep",
    "IngestReport": "memtui.ingest.pipeline",
}


def __getattr__(name: str) -> object:
    if name in _HEAVY:
        return getattr(importlib.import_module(_HEAVY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    "IndexDamaged",
    "IndexHealth",
    "IngestReport",
    "InvalidArgument",
    "Memory",
    "MemtuiError",
    "MessageView",
    "Mode",
    "ModelUnavailable",
    "NotConfirmed",
    "NotFound",
    "OnProgress",
    "Order",
    "ProgressEvent",
    "ProjectInfo",
    "Receipt",
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
    "removed_hash",
    "to_dict",
]
