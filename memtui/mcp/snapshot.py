"""`wire.json`: the SDK's answers to the handshake and the lists, and the methods it serves at
each protocol version, for handshake.py to give before the SDK is imported. `python -m
memtui.mcp.snapshot` writes it again after a tool, resource or prompt changes or the SDK is
upgraded (tests/test_mcp_wire.py says when).

The answers are the SDK's own: each is asked of the real server over in-memory streams, on a
fresh connection per protocol version, with nothing about the archive needed (no call opens it).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from typing import Any

import anyio
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCResponse, jsonrpc_message_adapter
from mcp_types.methods import CLIENT_REQUESTS, SPEC_CLIENT_METHODS

from memtui.config import load
from memtui.mcp.engine import Engine
from memtui.mcp.handshake import (
    ENVELOPE_CAPABILITIES,
    ENVELOPE_CLIENT,
    ENVELOPE_VERSION,
    FAMILIES,
    FORGETTING,
    LISTS,
    MODERN,
    VERSIONS,
    WIRE,
    forgets,
)
from memtui.mcp.server import build_server
from memtui.mcp.tools import Server

PLACEHOLDER = "(instructions)"
CLIENT = {"name": "memtui-snapshot", "version": "0"}


def handshake_requests(version: str) -> list[dict[str, Any]]:
    """A handshake connection at `version`: initialize, initialized, then every list."""
    opening = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": CLIENT},
    }
    lists = [{"jsonrpc": "2.0", "id": n, "method": m} for n, m in enumerate(LISTS, 1)]
    return [opening, {"jsonrpc": "2.0", "method": "notifications/initialized"}, *lists]


def modern_requests() -> list[dict[str, Any]]:
    """A 2026-07-28 connection: server/discover, every list, then a late `initialize`."""
    envelope = {ENVELOPE_VERSION: MODERN, ENVELOPE_CAPABILITIES: {}, ENVELOPE_CLIENT: CLIENT}
    asked: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": n, "method": m, "params": {"_meta": envelope}}
        for n, m in enumerate(["server/discover", *LISTS])
    ]
    late = handshake_requests(VERSIONS[-1])[0]
    return [*asked, {**late, "id": len(asked)}]


async def replies(server: Server, lines: Sequence[bytes]) -> list[dict[str, Any]]:
    """What the SDK writes back to `lines` on one connection, until each request is answered."""
    lowlevel = server._lowlevel_server  # as the SDK's own run_stdio_async and Client use it
    wanted = set()
    for line in lines:
        message = json.loads(line)
        if "id" in message and message.get("method") != "subscriptions/listen":
            wanted.add(json.dumps(message["id"]))
    send, to_server = anyio.create_memory_object_stream[SessionMessage | Exception](len(lines))
    from_server, receive = anyio.create_memory_object_stream[SessionMessage](100)
    written: list[dict[str, Any]] = []
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(
            lowlevel.run, to_server, from_server, lowlevel.create_initialization_options()
        )
        for line in lines:
            await send.send(SessionMessage(jsonrpc_message_adapter.validate_json(line)))
        with anyio.fail_after(30):
            while wanted:
                reply = (await receive.receive()).message
                written.append(json.loads(reply.model_dump_json(by_alias=True, exclude_unset=True)))
                if isinstance(reply, JSONRPCResponse | JSONRPCError):
                    wanted.discard(json.dumps(reply.id))
        send.close()
    return written


def answers(families: Sequence[str]) -> dict[str, dict[str, Any]]:
    """{version: {method: result}} from a server of `families` (its errors under
    "refusals")."""
    server = build_server(Engine(load()), families=families, told=PLACEHOLDER)
    found: dict[str, dict[str, Any]] = {}
    asked = [(v, handshake_requests(v)) for v in VERSIONS] + [(MODERN, modern_requests())]
    for version, requests in asked:
        lines = [json.dumps(r).encode() for r in requests]
        methods = {json.dumps(r["id"]): r["method"] for r in requests if "id" in r}
        written = anyio.run(replies, server, lines)
        found[version] = {
            methods[json.dumps(w["id"])]: w["result"] for w in written if "result" in w
        }
        found.setdefault("refusals", {}).update(
            {methods[json.dumps(w["id"])]: w["error"] for w in written if "error" in w}
        )
    return found


def versions(items: dict[str, Any]) -> dict[str, Any]:
    """Items by version, once for every version unless they differ."""
    same = all(i == items[MODERN] for i in items.values())
    return {"all": items[MODERN]} if same else items


def methods(server: Server) -> dict[str, dict[str, list[str]]]:
    """For each protocol version, the request methods the SDK knows at it ("known": any other
    is -32601 Method not found) and those of them it has a handler for ("served")."""
    handled = set(server._lowlevel_server._request_handlers)
    own = handled - SPEC_CLIENT_METHODS  # a method of memtui's own is known at every version
    found = {}
    for version in (*VERSIONS, MODERN):
        known = {m for m, v in CLIENT_REQUESTS if v == version} | own
        found[version] = {"known": sorted(known), "served": sorted(known & handled)}
    return found


def build() -> dict[str, Any]:
    """The whole of wire.json: the answers with their lists emptied, each family's items
    (once for every version, unless they differ), `forget` apart, as it is for each set of
    the families whose data it reaches, and the methods served at each version."""
    every = answers(FAMILIES)
    refusals = every.pop("refusals")
    for results in every.values():
        for method, result in results.items():
            if result.get("instructions") == PLACEHOLDER:
                result["instructions"] = ""
            if method in LISTS:
                result[LISTS[method]] = []
    families: dict[str, dict[str, dict[str, Any]]] = {}
    for family in FAMILIES:
        own = answers([family])
        own.pop("refusals")
        families[family] = {
            method: versions(
                {v: [i for i in own[v][method][key] if i.get("name") != "forget"] for v in own}
            )
            for method, key in LISTS.items()
        }
    forget: dict[str, dict[str, Any]] = {}
    for n in range(1, len(FORGETTING) + 1):
        for reach in itertools.combinations(FORGETTING, n):
            own = answers(reach)
            own.pop("refusals")
            tools = {v: own[v]["tools/list"]["tools"] for v in own}
            forget[forgets(reach)] = versions(
                {v: [t for t in listed if t["name"] == "forget"] for v, listed in tools.items()}
            )
    server = build_server(Engine(load()), told=PLACEHOLDER)
    return {
        "answers": every,
        "families": families,
        "forget": forget,
        "methods": methods(server),
        "refusals": refusals,
    }


def main() -> None:
    WIRE.write_text(json.dumps(build(), indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    print(f"wrote {WIRE}")


if __name__ == "__main__":
    main()
