"""Arbitrary arguments at every tool: always a result or a coded isError, never a crash, and
the server still answers a valid call afterwards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anyio.from_thread import start_blocking_portal
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.types import TextContent

from memtui.engine import Memory
from memtui.mcp.engine import Engine
from memtui.mcp.server import build_server
from tests.mcp_data import ARGUMENTS, CHECKOUT, build

# forget of the past note below is refused as delete_note's is (PAST_IMMUTABLE)
CODES = (
    "INVALID_ARGUMENT: ",
    "NOT_FOUND: ",
    "AMBIGUOUS: ",
    "NOT_CONFIRMED: ",
    "PAST_IMMUTABLE: ",
    "RULE_USER_ONLY: ",
)

# The client cannot send lone surrogates (test_mcp_stdio sends them raw over the wire).
any_text = st.text(
    alphabet=st.characters(codec="utf-8") | st.sampled_from(["\x00", "*", '"', "%", "_"]),
    max_size=30,
)
plausible = st.sampled_from(
    [
        "webhook",
        "aaaa",
        CHECKOUT,
        "/home/dev/shop-api",
        "2026-01-10",
        "2026-13-45",
        "hybrid",
        "text",
        "desc",
        "user",
        "markdown",
        "",
        " ",
        "x" * 4001,
        "../../etc/passwd",
        "NOT a date",
        "dangling_link",
        "new",
        "snoozed",
        "synthesized",
        "active",
        "7d",
        "-1d",
        "2099-01-01T00:00:00Z",
        "c-u1",
    ]
)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | plausible
    | any_text
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=7) | st.dictionaries(any_text, inner, max_size=3),
    max_leaves=12,
)


@st.composite
def calls(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    tool = draw(st.sampled_from(sorted(ARGUMENTS)))
    keys = st.sampled_from(ARGUMENTS[tool]) if ARGUMENTS[tool] else any_text
    args = draw(st.dictionaries(keys | any_text, values, max_size=5))
    return tool, args


def test_arbitrary_arguments_never_break_a_tool(memory: Memory, claude_dir: Path) -> None:
    build(claude_dir)
    memory.upkeep.ingest(claude_dir)
    memory.notes.save("Webhook", "The webhook retries; see [[Runbook]].", "past", by="person")
    assert memory.signals.list().total == 1  # a signal for ids to hit
    server = build_server(Engine(memory=memory))
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(Client(server, mode="legacy")) as client,
    ):

        @settings(
            max_examples=120,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
        @given(calls())
        def answers(call: tuple[str, dict[str, Any]]) -> None:
            tool, args = call
            result = portal.call(client.call_tool, tool, args)
            if result.is_error:
                block = result.content[0]
                assert isinstance(block, TextContent)
                assert block.text.startswith(CODES), block.text
                event(block.text.split(":")[0])
            else:
                event("answered")
                assert result.structured_content is not None

        answers()
        after = portal.call(client.call_tool, "get_session", {"session_id": CHECKOUT[:8]})
        assert not after.is_error
