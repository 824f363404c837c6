"""Signals, inferences, context and trace through the real mcp client, refusals included."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent

from memtui.config import Config
from memtui.engine import Memory
from memtui.mcp.engine import Engine
from memtui.mcp.server import build_server
from memtui.mcp.tools import Server
from tests import lines
from tests.test_mcp_stdio import Wire


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
        every = (await ok(client, "get_signals", status="all"))["signals"]
        assert [s["status"] for s in every] == ["snoozed"]  # as the CLI's --status all
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
    assert "Waiting for the user: 1 new signal (get_signals" in told
    assert "Runbook" not in told  # the dangling link's title stays out


async def test_instructions_without_the_signals_family(memory: Memory) -> None:
    memory.notes.save("A", "[[Nowhere]]", "past", by="person")
    quiet = build_server(Engine(memory=memory), families=("history", "notes"))
    async with Client(quiet, mode="legacy") as client:
        assert "new signal" not in (client.instructions or "")


async def test_every_signals_refusal_is_a_coded_error(server: Server, memory: Memory) -> None:
    """Each bad call of the signals family answers an `isError` result whose text starts with
    SPEC's code, writes nothing, and leaves the server answering."""
    note_id = memory.notes.list()[-1].id
    async with Client(server, mode="legacy") as client:
        (signal,) = (await ok(client, "get_signals"))["signals"]
        sid = signal["id"]
        mint = {
            "title": "Refunds page on the third failure",
            "summary": "two retries, then a page",
            "confidence": 0.8,
            "confirmed": True,
            "evidence_note_ids": [note_id],
        }
        refusals: list[tuple[str, dict[str, Any], str]] = [
            ("get_signals", {"type": "gut_feeling"}, "INVALID_ARGUMENT"),
            ("get_signals", {"status": "archived"}, "INVALID_ARGUMENT"),
            ("get_signals", {"type": 3}, "INVALID_ARGUMENT"),
            ("list_inferences", {"status": "fresh"}, "INVALID_ARGUMENT"),
            ("list_inferences", {"status": ["active"]}, "INVALID_ARGUMENT"),
            ("update_signal_status", {"id": 999_999, "status": "dismissed"}, "NOT_FOUND"),
            ("update_signal_status", {"id": sid, "status": "synthesized"}, "INVALID_ARGUMENT"),
            ("update_signal_status", {"id": sid, "status": "exploded"}, "INVALID_ARGUMENT"),
            ("update_signal_status", {"id": sid, "status": "new"}, "INVALID_ARGUMENT"),
            ("update_signal_status", {"id": sid, "status": "snoozed"}, "INVALID_ARGUMENT"),
            *(
                (
                    "update_signal_status",
                    {"id": sid, "status": "snoozed", "snooze_until": bad},
                    "INVALID_ARGUMENT",
                )
                for bad in ("next week", "7 days", "2020-01-01T00:00:00Z", "-3d", "x" * 41)
            ),
            (
                "update_signal_status",
                {"id": sid, "status": "dismissed", "snooze_until": "7d"},
                "INVALID_ARGUMENT",
            ),
            ("mint_inference", {**mint, "evidence_note_ids": []}, "INVALID_ARGUMENT"),
            ("mint_inference", {**mint, "evidence_note_ids": [999_999]}, "NOT_FOUND"),
            ("mint_inference", {**mint, "evidence_message_uuids": ["no-such-uuid"]}, "NOT_FOUND"),
            ("mint_inference", {**mint, "confidence": 1.5}, "INVALID_ARGUMENT"),
            ("mint_inference", {**mint, "confidence": -0.1}, "INVALID_ARGUMENT"),
            ("mint_inference", {**mint, "confidence": "high"}, "INVALID_ARGUMENT"),
            ("mint_inference", {**mint, "evidence_note_ids": "1"}, "INVALID_ARGUMENT"),
            ("mint_inference", {**mint, "signal_id": 999_999}, "NOT_FOUND"),
            ("get_inference", {"id": 999_999}, "NOT_FOUND"),
            ("get_inference", {"id": 0}, "INVALID_ARGUMENT"),
            ("trace", {"text": "word " * 10_001}, "INVALID_ARGUMENT"),
            ("get_context", {"token_budget": 40_000}, "INVALID_ARGUMENT"),
        ]
        for tool, args, code in refusals:
            result = await call(client, tool, **args)
            assert result.is_error, (tool, args)
            assert text_of(result).startswith(f"{code}: "), (tool, args, text_of(result))
        assert memory.inferences.list() == []
        assert memory.signals.get(sid).status == "new"
        wrong = await call(client, "mint_inference", **{**mint, "confidence": "high"})
        assert text_of(wrong) == (
            "INVALID_ARGUMENT: mint_inference: confidence must be a number from 0 to 1"
        )
        extra = await call(client, "get_signals", limit=5)
        assert text_of(extra) == (
            "INVALID_ARGUMENT: get_signals takes no argument 'limit' "
            "(its arguments are: type, status)"
        )
        await ok(client, "mint_inference", **mint, signal_id=sid)
        again = await call(client, "mint_inference", **mint, signal_id=sid)
        assert again.is_error and text_of(again).startswith("INVALID_ARGUMENT: ")
        assert "already synthesized" in text_of(again)
        assert len(memory.inferences.list()) == 1
        alive = await ok(client, "get_signals", status="synthesized")
        assert [s["id"] for s in alive["signals"]] == [sid]


# SPEC's signatures of the signals family (and forget), in SPEC's order: argument names, the
# required ones (a missing `confirmed` is NOT_CONFIRMED, not a schema error), the defaults.
SIGNALS_TOOLS = {
    "get_signals": (["type", "status"], [], {"status": "new"}),
    "update_signal_status": (["id", "status", "snooze_until"], ["id", "status"], {}),
    "list_inferences": (["status"], [], {}),
    "get_inference": (["id"], ["id"], {}),
    "mint_inference": (
        [
            "title",
            "summary",
            "evidence_note_ids",
            "evidence_message_uuids",
            "confidence",
            "signal_id",
            "confirmed",
        ],
        ["title", "summary", "confidence"],
        {},
    ),
    "get_context": (["cwd", "query", "token_budget"], [], {"token_budget": 2000}),
    "trace": (["text"], ["text"], {}),
}
SPEC_TOOLS = {
    **SIGNALS_TOOLS,
    "forget": (["session_id", "project", "note_id", "confirmed"], [], {}),
}
WRITES = {"update_signal_status", "mint_inference", "forget"}


async def test_signals_tools_have_spec_arguments_and_annotations(server: Server) -> None:
    async with Client(server, mode="legacy") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    for name, (arguments, required, defaults) in SPEC_TOOLS.items():
        schema = tools[name].input_schema
        assert list(schema.get("properties", {})) == arguments, name
        assert schema.get("required", []) == required, name
        assert schema["additionalProperties"] is False, name
        for argument, default in defaults.items():
            assert schema["properties"][argument]["default"] == default, (name, argument)
        hints = tools[name].annotations
        assert hints is not None
        assert hints.read_only_hint is (name not in WRITES), name
        expected = True if name == "forget" else (False if name in WRITES else None)
        assert hints.destructive_hint is expected, name
    statuses = tools["update_signal_status"].input_schema["properties"]["status"]["enum"]
    assert sorted(statuses) == ["dismissed", "new", "snoozed"]
    kinds = tools["list_inferences"].input_schema["properties"]["status"]["enum"]
    assert sorted(kinds) == ["active", "stale"]


async def test_the_signals_family_alone(memory: Memory) -> None:
    """`--tools signals` serves the signals family and nothing else: its seven tools, its
    prompt, no resources, and instructions that guide only those tools."""
    memory.notes.save("A", "[[Nowhere]]", "past", by="person")
    memory.signals.list()
    alone = build_server(Engine(memory=memory), families=("signals",))
    async with Client(alone, mode="legacy") as client:
        assert {t.name for t in (await client.list_tools()).tools} == set(SIGNALS_TOOLS)
        prompts = {p.name for p in (await client.list_prompts()).prompts}
        assert prompts == {"hallucination-check"}
        assert (await client.list_resources()).resources == []
        assert (await client.list_resource_templates()).resource_templates == []
        told = client.instructions or ""
        assert "get_context" in told and "1 new signal (" in told
        assert "search_history" not in told and "save_note" not in told
        for absent in ("search_history", "save_note", "forget"):
            refused = await call(client, absent)
            assert refused.is_error and text_of(refused).startswith("NOT_FOUND: "), absent
        await ok(client, "get_signals")


def test_memtui_mcp_tools_signals_over_stdio(cfg: Config) -> None:
    """The same family through `memtui mcp --tools signals`: the list it gives before the
    SDK is loaded and the one after are the signals family's."""
    wire = Wire(cfg, [sys.executable, "-m", "memtui", "mcp", "--tools", "signals"])
    assert wire.initialize()["result"]["serverInfo"]["name"] == "memtui"
    early = {t["name"] for t in wire.request("tools/list", {})["result"]["tools"]}
    assert early == set(SIGNALS_TOOLS)
    traced = wire.call("trace", {"text": "Nothing is archived yet at all."})
    assert not traced.get("isError"), traced
    later = {t["name"] for t in wire.request("tools/list", {})["result"]["tools"]}
    assert later == set(SIGNALS_TOOLS)
    refused = wire.call("search_history", {"query": "x"})
    assert refused["isError"] and refused["content"][0]["text"].startswith("NOT_FOUND: ")
    assert wire.finish() == 0
    wire.only_json_rpc()
