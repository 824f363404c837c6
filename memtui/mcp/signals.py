"""Signals, inferences, context and trace over MCP: seven tools and the
`hallucination-check` prompt. Each body is one engine call; the engine holds the rules
(minting needs `confirmed` the boolean true, whoever asks)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

from mcp.types import CallToolResult
from pydantic import Field, StrictFloat, StrictInt, StrictStr

from memtui.engine.signal_types import (
    Context,
    Inference,
    InferenceStatus,
    Signal,
    SignalList,
    SignalType,
    Trace,
)
from memtui.mcp.args import Cwd, QueryText
from memtui.mcp.tools import Server, output_model, structured

MAX_TRACE = 50_000
MAX_SIGNALS = 50  # SPEC's largest limit; get_signals takes none (its total says the rest)

Id = Annotated[StrictInt, Field(ge=1, le=2**53)]  # JSON numbers stay exact to 2**53
SignalOutput = output_model(Signal)
SignalListOutput = output_model(SignalList)
InferenceOutput = output_model(Inference)
ContextOutput = output_model(Context)
TraceOutput = output_model(Trace)


class InferenceList(TypedDict):
    inferences: list[Inference]


def register(server: Server) -> None:
    engine = server.engine

    @server.engine_tool(title="Signals to review")
    def get_signals(
        type: SignalType | None = None,
        status: Literal["new", "dismissed", "snoozed", "synthesized", "all"] = "new",
    ) -> Annotated[CallToolResult, SignalListOutput]:
        """Patterns memtui found in the notes and conversations (dangling links, stale state
        notes, tag bursts, hidden arcs, recurring errors), with their evidence; the newest 50
        and the total. Show them to the person; only the person decides what they mean."""
        chosen = None if status == "all" else status
        return structured(engine().signals.list(type, chosen, MAX_SIGNALS))

    @server.engine_tool(title="Dismiss or snooze a signal", read_only=False)
    def update_signal_status(
        id: Id,
        status: Literal["dismissed", "snoozed", "new"],
        snooze_until: Annotated[
            StrictStr | None,
            Field(max_length=40, description="For snoozed: 7d, 12h, 2w or an ISO date-time"),
        ] = None,
    ) -> Annotated[CallToolResult, SignalOutput]:
        """Dismiss, snooze or reopen a signal, as the person asked."""
        return structured(engine().signals.update_status(id, status, snooze_until))

    @server.engine_tool(title="Approved inferences")
    def list_inferences(
        status: InferenceStatus | None = None,
    ) -> Annotated[CallToolResult, InferenceList]:
        """Conclusions the person approved, each re-checked against its evidence first
        (stale: a note changed or was deleted). Cite one as its `citation` says."""
        return structured(InferenceList(inferences=engine().inferences.list(status)))

    @server.engine_tool(title="An inference and its evidence")
    def get_inference(id: Id) -> Annotated[CallToolResult, InferenceOutput]:
        """One inference with its provenance: each evidence note or message unchanged,
        changed (with a diff) or deleted."""
        return structured(engine().inferences.get_inference(id))

    @server.engine_tool(
        title="Record an approved inference",
        read_only=False,
        expects={"confidence": "a number from 0 to 1"},
    )
    def mint_inference(
        title: Annotated[StrictStr, Field(min_length=1, max_length=300)],
        summary: Annotated[StrictStr, Field(max_length=10_000)],
        *,  # keyword-only, so that the arguments stand in SPEC's order
        evidence_note_ids: Annotated[list[Id] | None, Field(max_length=100)] = None,
        evidence_message_uuids: Annotated[
            list[Annotated[StrictStr, Field(max_length=100)]] | None, Field(max_length=100)
        ] = None,
        confidence: Annotated[StrictFloat | StrictInt, Field(ge=0, le=1)],
        signal_id: Id | None = None,
        confirmed: Annotated[
            Any,  # any JSON value: all but the boolean true are the engine's NOT_CONFIRMED
            Field(description="true only after the person approved this inference"),
        ] = None,
    ) -> Annotated[CallToolResult, InferenceOutput]:
        """Record a conclusion the person has approved, with the notes or messages it rests
        on (with signal_id alone: the signal's). Refused unless `confirmed` is true: ask the
        person first, every time."""
        return structured(
            engine().inferences.mint(
                title,
                summary,
                confidence,
                confirmed=confirmed,
                evidence_note_ids=evidence_note_ids or (),
                evidence_message_uuids=evidence_message_uuids or (),
                signal_id=signal_id,
            )
        )

    @server.engine_tool(title="Context for this project")
    def get_context(
        cwd: Cwd | None = None,
        query: QueryText | None = None,
        token_budget: Annotated[StrictInt, Field(ge=50, le=32_000)] = 2000,
    ) -> Annotated[CallToolResult, ContextOutput]:
        """What memtui knows for this project, within a token budget: house rules, current
        state notes, recent sessions, then notes and messages related to `query`."""
        return structured(engine().context.get(cwd, query, token_budget))

    @server.engine_tool(title="Check a draft against the record")
    def trace(
        text: Annotated[StrictStr, Field(min_length=1, max_length=MAX_TRACE)],
    ) -> Annotated[CallToolResult, TraceOutput]:
        """Check a draft against the record: each claim with the notes and messages that
        support it; claims with none are listed as suspected hallucinations."""
        return structured(engine().trace.trace(text))

    @server.prompt(
        name="hallucination-check",
        title="Check a draft against memory",
        description="Trace each claim of a draft to the notes and conversations behind it",
    )
    def hallucination_check(draft: str) -> str:
        return HALLUCINATION_CHECK.format(draft=draft)


HALLUCINATION_CHECK = """\
Check this draft against what memtui remembers before it goes out:
1. Call trace with the draft's text.
2. For each claim trace lists as unsupported, search_history and search_notes with its key
   words; if nothing supports it, mark it as unverified or take it out.
3. Report which claims rest on which notes or sessions, and which could not be checked.

Draft:
{draft}"""
