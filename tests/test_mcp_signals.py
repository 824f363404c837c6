"""Signals, inferences, context and trace through the real mcp client, refusals included."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent

from memtui.engine import Memory
from memtui.mcp.engine import Engine
from memtui.mcp.server import Server, build_server
from tests import lines


@pytest.fixture
def server(memory: Memory, claude_dir: Path) -> Server:
    lines.write(
        claude_dir / "-shop" / "m-1.jsonl",
        lines.user("m-1-u", "the refund webhook retries twice before paging", "m-1"),
    )
    memory.upkeep.ingest()
    memory.notes.save("Fact", "Refund webhooks retry twice. See [[Runbook]].", "past", by="person")
    memory.notes.save(
        "Plan", "Add idempotency keys.", "state", by="person", source_session_id="m-1"
    )
    return build_server(Engine(memory=memory))


def text_of(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def call(client: Client, tool: str, **args: Any) -> CallToolResult:
    return await client.call_tool(tool, args)


async def ok(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    result = await call(client, tool, **args)
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    return result.structured_content


async def test_triage_and_mint_over_mcp(server: Server, memory: Memory) -> None:
    async with Client(server, mode="legacy") as client:
        found = await ok(client, "get_signals")
        (signal,) = found["signals"]
        assert signal["type"] == "dangling_link" and signal["notes"][0]["title"] == "Fact"
        snoozed = await ok(
            client,
            "update_signal_status",
            id=signal["id"],
            status="snoozed",
            snooze_until="7d",
        )
        assert snoozed["status"] == "snoozed"
        assert (await ok(client, "get_signals"))["signals"] == []
        await ok(client, "update_signal_status", id=signal["id"], status="new")
        note_id = signal["notes"][0]["id"]
        for confirmed in (None, "yes", 1, False):
            args: dict[str, Any] = {
                "title": "Refunds page on the third failure",
                "summary": "two retries, then a page",
                "confidence": 0.8,
                "evidence_note_ids": [note_id],
            }
            if confirmed is not None:
                args["confirmed"] = confirmed
            refused = await call(client, "mint_inference", **args)
            assert refused.is_error
            assert text_of(refused).startswith("NOT_CONFIRMED"), text_of(refused)
        assert memory.inferences.list() == []
        minted = await ok(
            client,
            "mint_inference",
            title="Refunds page on the third failure",
            summary="two retries, then a page",
            confidence=0.8,
            confirmed=True,
            evidence_note_ids=[note_id],
            evidence_message_uuids=["m-1-u"],
            signal_id=signal["id"],
        )
        assert minted["citation"].startswith(f"[Inference #{minted['id']}, conf 0.80")
        listed = await ok(client, "list_inferences", status="active")
        assert [i["id"] for i in listed["inferences"]] == [minted["id"]]
        full = await ok(client, "get_inference", id=minted["id"])
        assert {e["state"] for e in full["evidence"]} == {"unchanged"}
        missing = await call(client, "get_inference", id=999)
        assert text_of(missing).startswith("NOT_FOUND")
        bad = await call(client, "update_signal_status", id=signal["id"], status="new")
        assert text_of(bad).startswith("INVALID_ARGUMENT") and "synthesized" in text_of(bad)


async def test_context_and_trace_over_mcp(server: Server) -> None:
    async with Client(server, mode="legacy") as client:
        ctx = await ok(client, "get_context", cwd=lines.CWD, query="refund", token_budget=500)
        assert ctx["tokens"] <= 500 and "Add idempotency keys." in ctx["text"]
        for bad in ({"token_budget": 10}, {"cwd": "relative/path"}, {"budget": 100}):
            result = await call(client, "get_context", **bad)
            assert result.is_error and text_of(result).startswith("INVALID_ARGUMENT")
        traced = await ok(
            client,
            "trace",
            text="Refund webhooks retry twice. The moon is made of green cheese entirely.",
        )
        assert traced["unsupported"] == ["The moon is made of green cheese entirely."]
        empty = await call(client, "trace", text="")
        assert text_of(empty).startswith("INVALID_ARGUMENT")
        prompt = await client.get_prompt("hallucination-check", {"draft": "We use Rust."})
        assert "trace" in str(prompt.messages[0].content)


async def test_instructions_count_signals_never_their_content(
    server: Server, memory: Memory
) -> None:
    memory.signals.list()  # detection has run (the TUI or a get_signals call runs it)
    async with Client(server, mode="legacy") as client:
        told = client.instructions or ""
    assert "1 new signals and 0 stale inferences" in told
    assert "Runbook" not in told  # the dangling link's title stays out


async def test_instructions_without_the_signals_family(memory: Memory) -> None:
    memory.notes.save("A", "[[Nowhere]]", "past", by="person")
    quiet = build_server(Engine(memory=memory), families=("history", "notes"))
    async with Client(quiet, mode="legacy") as client:
        assert "new signals" not in (client.instructions or "")
