"""The first answers of `memtui mcp`, given before the mcp package is imported.

Importing the SDK takes most of a second on an idle core, and Claude Code's first turn goes out
without a server that has not answered its handshake and listed its tools by then. So until the
SDK is ready, `memtui mcp` answers the handshake itself (`initialize`, or `server/discover` on
the 2026-07-28 protocol) and the lists (`tools/list`, `prompts/list`, `resources/list`,
`resources/templates/list`) from `wire.json`: the SDK's own answers to those requests, for
every protocol version it speaks and every tool family, recorded by `memtui.mcp.snapshot`
(tests/test_mcp_wire.py checks they are still what the SDK answers). So is whatever else a
client may open with that the SDK refuses without a handler's word: `ping`, a method it does
not serve at that version (-32601: a `server/discover` without the 2026-07-28 envelope, which
a client probing for that protocol takes as "speak the handshake"), a request before
`initialize` (-32602), a version it does not speak (-32022), a second `initialize` (-32600).
Anything else, and anything unusual about one of these, waits for the SDK. Nothing here
imports the SDK.

It also says what is wrong with a line the SDK could not read, or a message it would take for
a notification (an id that is not a string or an integer), so that every request gets an
answer (`problem`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memtui.engine import Config

log = logging.getLogger(__name__)

FAMILIES = ("history", "notes", "signals")  # the tool families, in the order they are registered
FORGETTING = ("history", "notes")  # the families whose data `forget` reaches

GUIDE = {
    "history": """\
Past conversations: before answering anything that may touch past work (what was decided,
tried, fixed or said before, "how did we do X"), call search_history rather than guess: the
words the answer would contain, other phrasings as `alternatives`, filters when you know them.
Open a hit with get_session (order "desc" shows how a session ended) or read_session.""",
    "notes": """\
Notes: search_notes finds decisions, current plans and the user's rules. Save decisions,
insights and anything the user asks you to remember with save_note; update a `state` note
rather than add a duplicate (save_note names similar notes).""",
    "signals": """\
Context: get_context gives what memtui knows for a project within a budget; trace checks a
draft against the record. Signals and inferences are the user's to judge: mint_inference only
with their explicit approval.""",
}
OPENING = """\
memtui is the user's memory: every past conversation with their coding agents (Claude Code,
Codex CLI, Gemini CLI, OpenCode, Copilot CLI), including ones the agent has deleted, and the
notes the user and the agents keep. Cite the session id and date, or the
note's title, of what you use."""

# The SDK's handshake versions (mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS, pinned by a test)
# and its per-request-envelope version.
VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN = "2026-07-28"
ENVELOPE_VERSION = "io.modelcontextprotocol/protocolVersion"
ENVELOPE_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
ENVELOPE_CLIENT = "io.modelcontextprotocol/clientInfo"
LISTS = {
    "tools/list": "tools",
    "prompts/list": "prompts",
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
}
WIRE = Path(__file__).with_name("wire.json")
LISTEN = "subscriptions/listen"
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
LIST_CHANGES = ("toolsListChanged", "promptsListChanged", "resourcesListChanged")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
UNSUPPORTED_VERSION = -32022  # the SDK's UNSUPPORTED_PROTOCOL_VERSION
# MCP's lifecycle: one initialization per connection (refused the same before and after the SDK).
INITIALIZED_ALREADY = (
    "Invalid request: this connection is already initialized "
    "(initialize comes once, first; a new connection starts again)"
)


def instructions(config: Config, families: Sequence[str]) -> str:
    """What the server says on connect: when to search and when to save, then the approved
    house rules, and how many signals and stale inferences wait for the user (counts, never
    content; all read from SQLite alone: no index, no model)."""
    from memtui.engine import MemtuiError, house_rules
    from memtui.engine.inferences import waiting

    parts = [OPENING, *(GUIDE[f] for f in FAMILIES if f in families)]
    try:
        rules = house_rules(config).text.strip()
    except MemtuiError as exc:  # a damaged archive: the server still starts, and says so
        log.warning("the house rules cannot be read: %s", exc.line())
        rules = f"memtui cannot read its archive now: {exc.line()}"
    if rules:
        parts.append(rules)
    counts = waiting(config) if "signals" in families else None
    if counts is not None and (said := counts.said()):
        parts.append(
            f"Waiting for the user: {said} (get_signals, list_inferences); "
            "mention them if the user asks what memtui has noticed."
        )
    return "\n\n".join(parts)


def forgets(families: Sequence[str]) -> str:
    """Which `forget` a server of `families` has, as wire.json names it ("history,notes"),
    or "" for none."""
    return ",".join(f for f in FORGETTING if f in families)


def by_version(entry: dict[str, Any], version: str) -> Any:
    """A wire.json item list at `version`: its own, else the one for every version."""
    return entry.get(version, entry.get("all"))


def id_key(request_id: Any) -> str:
    """A request id as a set key: 1 and "1" are different ids."""
    return json.dumps(request_id)


def given_key(message: dict[str, Any]) -> str:
    """What the SDK will later repeat of a message given early: its answer to a request, or
    its acknowledgement of a subscription (both named by the request's id)."""
    if message.get("method") == ACKNOWLEDGED:
        return "ack " + id_key(message["params"]["_meta"][SUBSCRIPTION_ID])
    return "answer " + id_key(message["id"])


class Early:
    """The SDK's answers to what a client opens with, known before the SDK is imported.

    The connection's era is decided as the SDK decides it: by the client's first request (one
    carrying the 2026-07-28 envelope opens a per-request connection, anything else the
    `initialize` handshake)."""

    def __init__(self, instructions: str, families: Sequence[str], wire: Path = WIRE) -> None:
        self.instructions = instructions
        self.families = tuple(families)
        self._wire: dict[str, Any] = json.loads(wire.read_bytes())
        self.era: str | None = None  # "handshake" | "modern", from the first request
        self.version: str | None = None  # the handshake's agreed version

    @property
    def initialized(self) -> bool:
        """An `initialize` handshake was answered: a tool may be called."""
        return self.era == "handshake" and self.version is not None

    def respond(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """The response the SDK would give `message` (a request, one JSON object), or for a
        `subscriptions/listen` the acknowledgement it sends first; None when only the SDK can
        say."""
        acknowledged = self._acknowledgement(message)
        if acknowledged is not None:
            return acknowledged
        refused = self._refusal(message)
        if refused is not None:
            return {"jsonrpc": "2.0", "id": message["id"], "error": refused}
        result = self.answer(message)
        if result is None:
            return None
        return {"jsonrpc": "2.0", "id": message["id"], "result": result}

    def _acknowledgement(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """`subscriptions/listen` (2026-07-28) is a stream the SDK keeps open; the client waits
        for its acknowledgement before asking for the lists. That is known before the SDK: the
        flags asked for, those that are true."""
        params = message.get("params")
        if (
            self.era != "modern"
            or message.get("method") != LISTEN
            or not valid_id(message.get("id"))
            or not isinstance(params, dict)
            or not set(params) <= {"_meta", "notifications"}
            or not valid_envelope(params.get("_meta"))
        ):
            return None
        asked = params.get("notifications", {})
        if not isinstance(asked, dict) or not set(asked) <= set(LIST_CHANGES):
            return None
        if not all(isinstance(flag, bool) for flag in asked.values()):
            return None
        honored = {name: True for name in LIST_CHANGES if asked.get(name)}
        meta = {SUBSCRIPTION_ID: message["id"]}
        return {
            "jsonrpc": "2.0",
            "method": ACKNOWLEDGED,
            "params": {"_meta": meta, "notifications": honored},
        }

    def _request(self, message: dict[str, Any]) -> tuple[str, dict[str, Any] | None] | None:
        """A well-formed request's method and params, the connection's era decided by the first
        one; None for anything else."""
        method = message.get("method")
        params = message.get("params")
        if not isinstance(method, str) or not valid_id(message.get("id")):
            return None
        if message.get("jsonrpc") != "2.0" or not (params is None or isinstance(params, dict)):
            return None
        if self.era is None:
            modern = method != "initialize" and isinstance(params, dict) and has_envelope(params)
            self.era = "modern" if modern else "handshake"
        return method, params

    def _refusal(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """The SDK's error for a request it refuses before any handler of memtui's runs."""
        request = self._request(message)
        if request is None:
            return None
        method, params = request
        if self.era == "modern":
            return self._modern_refusal(method, params)
        if params is not None and has_envelope(params):
            return None  # the SDK refuses the 2026-07-28 envelope on a handshake connection
        if method == "initialize":
            if self.version is not None:
                return error_data(INVALID_REQUEST, INITIALIZED_ALREADY)
            if params:
                return None  # answered by `answer`, or the SDK says what is wrong with it
            return error_data(INVALID_PARAMS, "Invalid request parameters", "")
        version = self.version or VERSIONS[-1]  # the SDK's until initialize agrees on one
        methods = self._wire["methods"][version]
        if method not in methods["known"]:
            return error_data(METHOD_NOT_FOUND, "Method not found", method)
        if self.version is None and method in methods["served"] and method != "ping":
            # Before initialize (params it finds fault with first get the same words).
            return error_data(INVALID_PARAMS, "Invalid request parameters", "")
        return None

    def _modern_refusal(self, method: str, params: dict[str, Any] | None) -> dict[str, Any] | None:
        """On a 2026-07-28 connection: `initialize` (Claude Code sends it when its
        `server/discover` probe times out) is refused with the versions served, which sends the
        client back to `server/discover`; so is a version other than 2026-07-28; a method not
        served at 2026-07-28 is not found."""
        params = params or {}
        if method == "initialize":
            if not isinstance(params.get("protocolVersion"), str):
                return None
            refused = json.loads(json.dumps(self._wire["refusals"]["initialize"]))
            refused["data"]["requested"] = params["protocolVersion"]
            return refused
        meta = params.get("_meta")
        if not isinstance(meta, dict) or ENVELOPE_CAPABILITIES not in meta:
            return None  # the SDK names what the envelope lacks
        requested = meta.get(ENVELOPE_VERSION)
        if isinstance(requested, str) and requested != MODERN:
            supported = {"supported": [MODERN], "requested": requested}
            return error_data(UNSUPPORTED_VERSION, "Unsupported protocol version", supported)
        if valid_envelope(meta) and method not in self._wire["methods"][MODERN]["known"]:
            return error_data(METHOD_NOT_FOUND, "Method not found", method)
        return None

    def answer(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """The result the SDK would give `message` (a request, one JSON object), or None when
        only the SDK can say."""
        request = self._request(message)
        if request is None:
            return None
        method, params = request
        if self.era == "modern":
            return self._modern(method, params)
        if method == "initialize":
            if self.version is not None or not valid_initialize(params):
                return None
            assert params is not None
            requested = params["protocolVersion"]
            self.version = requested if requested in VERSIONS else VERSIONS[-1]
            return self._result(self.version, "initialize")
        if method == "ping" and params in (None, {}):
            return {}
        if self.version is None or params not in (None, {}) or method not in LISTS:
            return None
        return self._result(self.version, method)

    def _modern(self, method: str, params: dict[str, Any] | None) -> dict[str, Any] | None:
        if params is None or set(params) != {"_meta"} or not valid_envelope(params["_meta"]):
            return None
        if method == "server/discover" or method in LISTS:
            return self._result(MODERN, method)
        return None

    def _result(self, version: str, method: str) -> dict[str, Any] | None:
        known = self._wire["answers"].get(version, {}).get(method)
        if known is None:
            return None
        result = json.loads(json.dumps(known))  # a copy: the caller may keep it
        if "instructions" in result:
            result["instructions"] = self.instructions
        if method in LISTS:
            found = self._wire["families"]
            items = [
                item
                for family in self.families
                for item in by_version(found[family][method], version)
            ]
            if method == "tools/list" and (reach := forgets(self.families)):
                items += by_version(self._wire["forget"][reach], version)
            result[LISTS[method]] = items
        return result


def valid_id(value: Any) -> bool:
    return isinstance(value, int | str) and not isinstance(value, bool)


def has_envelope(params: dict[str, Any]) -> bool:
    meta = params.get("_meta")
    return isinstance(meta, dict) and ENVELOPE_VERSION in meta


def valid_envelope(meta: Any) -> bool:
    """A 2026-07-28 envelope exactly as the SDK accepts it without a word to say."""
    if not isinstance(meta, dict) or not set(meta) <= {
        ENVELOPE_VERSION,
        ENVELOPE_CAPABILITIES,
        ENVELOPE_CLIENT,
    }:
        return False
    client = meta.get(ENVELOPE_CLIENT, {"name": "", "version": ""})
    return (
        meta.get(ENVELOPE_VERSION) == MODERN
        and isinstance(meta.get(ENVELOPE_CAPABILITIES), dict)
        and isinstance(client, dict)
        and isinstance(client.get("name"), str)
        and isinstance(client.get("version"), str)
    )


def valid_initialize(params: Any) -> bool:
    if not isinstance(params, dict):
        return False
    client = params.get("clientInfo")
    return (
        isinstance(params.get("protocolVersion"), str)
        and isinstance(params.get("capabilities"), dict)
        and isinstance(client, dict)
        and isinstance(client.get("name"), str)
        and isinstance(client.get("version"), str)
    )


# -- lines the SDK cannot read ------------------------------------------------------------------


def problem(line: bytes) -> dict[str, Any]:
    """The JSON-RPC error answering a line the SDK could not read: a parse error for what is
    not JSON text, an invalid request for JSON that is not one message (an array, a scalar, a
    malformed object), invalid params for text that is not Unicode (a lone surrogate, as a cut
    emoji from a JavaScript client). The request's id when one can be read, else null."""
    try:
        message = json.loads(line)
    except RecursionError:
        return error(None, PARSE_ERROR, "Parse error: the JSON is nested too deeply")
    except UnicodeDecodeError:
        request_id = readable_id(line.decode("utf-8", errors="replace"))
        return error(request_id, PARSE_ERROR, "Parse error: the line is not UTF-8 text")
    except ValueError:
        return error(None, PARSE_ERROR, "Parse error: the line is not JSON")
    if not isinstance(message, dict):
        kind = "an array (batches are not supported)" if isinstance(message, list) else "a scalar"
        return error(
            None, INVALID_REQUEST, f"Invalid request: a message is a JSON object, not {kind}"
        )
    request_id = message.get("id") if valid_id(message.get("id")) else None
    where = surrogate_at(message)
    if where is not None:
        text = (
            f"INVALID_ARGUMENT: {described(message, where)} is not valid Unicode text (it holds "
            "a lone surrogate, as a cut emoji does): send it as UTF-8 text"
        )
        if request_id is not None and where[:2] == ["params", "arguments"]:
            # A tool's argument: refused as every other bad argument is, in the tool's result.
            content = [{"type": "text", "text": text}]
            return {
                "jsonrpc": "2.0",
                "id": request_id,
                "result": {"content": content, "isError": True},
            }
        return error(
            request_id, INVALID_PARAMS if where[:1] == ["params"] else INVALID_REQUEST, text
        )
    if "method" in message and "id" in message and request_id is None:
        return error(
            None,
            INVALID_REQUEST,
            "Invalid request: its id must be a string or an integer "
            "(MCP: not null, a fraction, a boolean, an array or an object)",
        )
    return error(
        request_id,
        INVALID_REQUEST,
        "Invalid request: not a JSON-RPC 2.0 request or notification "
        '(it needs "jsonrpc": "2.0", a string "method" and an integer or string "id")',
    )


def malformed(message: dict[str, Any]) -> bool:
    """A request or notification the SDK cannot take as it stands (`problem` says what is
    wrong): its `jsonrpc`, `method` or `params` are not JSON-RPC 2.0's, or its id is not a
    string or an integer, which the SDK takes for a notification's and never answers."""
    if "method" not in message:
        return False  # a response, or no message at all: the SDK's reading says which
    params = message.get("params")
    return (
        message.get("jsonrpc") != "2.0"
        or not isinstance(message["method"], str)
        or not (params is None or isinstance(params, dict))
        or ("id" in message and not valid_id(message["id"]))
    )


def error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": error_data(code, message)}


def error_data(code: int, message: str, *data: Any) -> dict[str, Any]:
    """A JSON-RPC error object, with its `data` when one is given."""
    return {"code": code, "message": message, **({"data": data[0]} if data else {})}


def readable_id(text: str) -> Any:
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if isinstance(message, dict) and valid_id(message.get("id")):
        return message["id"]
    return None


def surrogate_at(value: Any) -> list[str] | None:
    """The path to the first key or string that is not Unicode (holds a lone surrogate)."""
    stack: list[tuple[list[str], Any]] = [([], value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str) and not encodable(item):
            return path
        if isinstance(item, dict):
            for key, inner in item.items():
                if not encodable(key):
                    return [*path, key]
                stack.append(([*path, key], inner))
        elif isinstance(item, list):
            stack.extend(([*path, str(n)], inner) for n, inner in enumerate(item))
    return None


def encodable(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def described(message: dict[str, Any], path: list[str]) -> str:
    """Where in a request the bad text is, in the caller's terms, never the text itself."""
    shown = [p if encodable(p) else "(a key)" for p in path]
    if message.get("method") == "tools/call" and shown[:2] == ["params", "arguments"]:
        tool = message["params"].get("name")
        prefix = f"{tool}: " if isinstance(tool, str) and encodable(tool) else ""
        return f"{prefix}argument {shown[2]!r}" if len(shown) > 2 else "the arguments"
    if shown[:2] == ["params", "name"]:
        return "the tool name"
    if shown[:2] == ["params", "uri"]:
        return "the resource URI"
    return ".".join(shown) or "the message"
