"""What the signals, inferences, context and trace services answer with: plain dataclasses."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

from memtui.engine.types import NoteRef

SignalType = Literal["dangling_link", "stale_state", "tag_burst", "hidden_arc", "recurring_error"]
SignalStatus = Literal["new", "dismissed", "snoozed", "synthesized"]
InferenceStatus = Literal["active", "stale"]
EvidenceState = Literal["unchanged", "changed", "deleted"]
SIGNAL_TYPES: tuple[SignalType, ...] = get_args(SignalType)
SIGNAL_STATUSES: tuple[SignalStatus, ...] = get_args(SignalStatus)
INFERENCE_STATUSES: tuple[InferenceStatus, ...] = get_args(InferenceStatus)


@dataclass(slots=True)
class MessageRef:
    """A message given as evidence: enough to name it and open it."""

    session_id: str
    project: str
    session_title: str
    message_index: int
    uuid: str
    timestamp: str | None
    snippet: str


@dataclass(slots=True)
class Signal:
    id: int
    type: str  # SignalType
    title: str
    detail: str  # why it fired, in a line
    status: str  # SignalStatus
    snooze_until: str | None
    created: str
    notes: list[NoteRef] = field(default_factory=list)
    messages: list[MessageRef] = field(default_factory=list)


@dataclass(slots=True)
class SignalList:
    signals: list[Signal]
    total: int


@dataclass(slots=True)
class Evidence:
    kind: str  # "note" | "message"
    ref: str  # the note id, or the message uuid
    title: str  # the note's title, or the message's session title, at mint time
    state: str  # EvidenceState
    diff: str | None = None  # changed: a unified diff from the text at mint time to now


@dataclass(slots=True)
class Inference:
    id: int
    title: str
    summary: str
    confidence: float
    signal_id: int | None
    created: str
    status: str  # InferenceStatus
    citation: str  # how to cite it: [Inference #42, conf 0.78, from notes #1, #2]
    evidence: list[Evidence]


@dataclass(slots=True)
class Counts:
    """What the connect instructions and the hook may say: counts, never content."""

    new_signals: int
    stale_inferences: int

    def said(self) -> str:
        """The counts that are not zero in words ("1 new signal and 2 stale inferences")."""
        counted = ((self.new_signals, "new signal"), (self.stale_inferences, "stale inference"))
        return " and ".join(f"{n} {what}{'' if n == 1 else 's'}" for n, what in counted if n)


@dataclass(slots=True)
class ContextSection:
    heading: str
    text: str
    tokens: int


@dataclass(slots=True)
class Context:
    text: str  # the sections, as Markdown, within the budget
    tokens: int
    token_budget: int
    sections: list[ContextSection]
    left_out: list[str]  # headings of sections (or their items) the budget had no room for


@dataclass(slots=True)
class Support:
    kind: str  # "note" | "message"
    ref: str  # note id or message uuid
    title: str
    snippet: str
    score: float  # the share of the claim's words it holds, 0-1
    session_id: str | None = None
    message_index: int | None = None


@dataclass(slots=True)
class Claim:
    text: str
    supported: bool
    support: list[Support]


@dataclass(slots=True)
class Trace:
    claims: list[Claim]
    unsupported: list[str]  # claims with no support: suspected hallucinations
