"""What every tool is made with: the Server (memtui's MCPServer: the rules every call obeys)
and the helpers the tool families build their tools, resources and prompts from.

Every tool body is one synchronous engine call; the server runs it on a worker thread under a
time bound, and turns what goes wrong into an `isError` result whose text starts with one of
SPEC's codes. What Claude reads of each tool at the start of every session is kept short: a
one-paragraph description, a lean input schema. Below the families (history, notes, signals,
forget), which import only this and args.py; server.py registers them.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Callable, Sequence
from typing import Any, ParamSpec, TypeVar, get_type_hints

import anyio
import anyio.to_thread
from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.context import CallNext, ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from mcp.server.models import InitializationOptions
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    CallToolResult,
    GetPromptResult,
    InputRequiredResult,
    ReadResourceRequestParams,
    RequestParams,
    TextContent,
    ToolAnnotations,
)
from pydantic import BaseModel, Field, ValidationError, create_model

from memtui import __version__
from memtui.engine import MemtuiError
from memtui.mcp.engine import TOOL_SECONDS, Engine, content, failed_unexpectedly, overdue
from memtui.mcp.handshake import INITIALIZED_ALREADY, instructions

log = logging.getLogger(__name__)

INVALID = "INVALID_ARGUMENT"
MAX_URI = 1_000
LOOSE_BOUNDS = ("maxLength", "maxItems", "maximum")

P = ParamSpec("P")
T = TypeVar("T")


def failure(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def structured(result: Any, text: str | None = None) -> CallToolResult:
    """An engine result as structured content, with the same JSON (or `text`) for reading."""
    data, shown = content(result, text)
    return CallToolResult(content=[TextContent(type="text", text=shown)], structured_content=data)


def output_model(cls: type[Any]) -> type[BaseModel]:
    """An engine dataclass as the model its output schema is made from: the SDK reads the
    defaults of a slots dataclass from its class, where they are slot descriptors."""
    hints = get_type_hints(cls)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            fields[f.name] = (hints[f.name], f.default)
        elif f.default_factory is not dataclasses.MISSING:
            fields[f.name] = (hints[f.name], Field(default_factory=f.default_factory))
        else:
            fields[f.name] = (hints[f.name], ...)
    return create_model(cls.__name__, __doc__=cls.__doc__, **fields)


# What an argument's pattern asks, in words ("String should match pattern '^/'" is not).
PATTERN_WORDS = {"^/": "an absolute path (it starts with /)"}


def invalid_arguments(tool: str, error: ValidationError, expects: dict[str, str]) -> str:
    """Pydantic's complaints by argument name, without the caller's values echoed; an argument
    with its own wording in `expects` (a union, whose every branch pydantic would list) says
    what it must be once."""
    parts = []
    for err in error.errors(include_url=False, include_input=False):
        where = str(err["loc"][0]) if err["loc"] else "arguments"
        pattern = (err.get("ctx") or {}).get("pattern")
        if where in expects:
            parts.append(f"{where} must be {expects[where]}")
        elif err["type"] == "string_pattern_mismatch" and pattern in PATTERN_WORDS:
            parts.append(f"{where} must be {PATTERN_WORDS[pattern]}")
        else:
            parts.append(f"{where}: {err['msg']}")
    return f"{INVALID}: {tool}: " + "; ".join(dict.fromkeys(parts))


class StrictArguments(FuncMetadata):
    """The SDK's argument handling without its leniency for clients that send lists as JSON
    text: a string is a string (SPEC: types are strict), so '["a", "b"]' never turns into a
    concept list or a list of alternatives."""

    def pre_parse_json(self, data: dict[str, Any]) -> dict[str, Any]:
        return data


class Server(MCPServer):
    """MCPServer with memtui's argument rules: unknown arguments are refused by name, types are
    strict (declared per argument), and every failure is a coded `isError` result."""

    def __init__(
        self,
        engine: Engine,
        told: str,
        token_verifier: TokenVerifier | None = None,
        auth: AuthSettings | None = None,
    ) -> None:
        super().__init__(
            name="memtui",
            version=__version__,
            instructions=told,
            log_level="WARNING",
            token_verifier=token_verifier,
            auth=auth,
        )
        self.engine = engine
        self._lowlevel_server.middleware.append(initialize_once)
        self._refuse_long_uris()
        self._arguments: dict[str, tuple[str, ...]] = {}
        self._expects: dict[str, dict[str, str]] = {}
        self._absent: dict[str, dict[str, str]] = {}

    def read_instructions_per_connection(self, families: Sequence[str]) -> None:
        """Fresh instructions (the house rules may have changed) for each `initialize` and
        each `server/discover`: the SDK reads them from the low-level server at those two."""
        lowlevel = self._lowlevel_server
        options = lowlevel.create_initialization_options
        discover = lowlevel.get_request_handler("server/discover")
        assert discover is not None
        describe = discover.handler

        def refresh() -> None:
            lowlevel.instructions = instructions(self.engine.config, families)

        def initialization_options(*args: Any, **kwargs: Any) -> InitializationOptions:
            refresh()
            return options(*args, **kwargs)

        async def discovered(ctx: Any, params: RequestParams) -> Any:
            await anyio.to_thread.run_sync(refresh)
            return await describe(ctx, params)

        lowlevel.create_initialization_options = initialization_options  # type: ignore[method-assign]
        lowlevel.add_request_handler("server/discover", RequestParams, discovered)

    def _refuse_long_uris(self) -> None:
        """A resource URI longer than any of memtui's is refused without being echoed back
        (the SDK's not-found error carries the whole URI, twice)."""
        lowlevel = self._lowlevel_server
        entry = lowlevel.get_request_handler("resources/read")
        assert entry is not None
        read = entry.handler

        async def bounded(ctx: Any, params: ReadResourceRequestParams) -> Any:
            uri = str(params.uri)
            if len(uri) > MAX_URI:
                raise MCPError(
                    code=INVALID_PARAMS,
                    message=f"{INVALID}: the resource URI is {len(uri):,} characters long "
                    f"(memtui's are under {MAX_URI:,}): {uri[:80]}…",
                )
            return await read(ctx, params)

        lowlevel.add_request_handler("resources/read", ReadResourceRequestParams, bounded)

    def engine_tool(
        self,
        *,
        title: str,
        read_only: bool = True,
        destructive: bool = False,
        expects: dict[str, str] | None = None,
        absent: dict[str, str] | None = None,
    ) -> Callable[[Callable[P, CallToolResult]], Callable[P, CallToolResult]]:
        """A decorator registering the tool it is put on (one engine call, run on a worker
        thread within TOOL_SECONDS), with its title and hints: `read_only`, else
        `destructive` when what it changes cannot be had back; `expects`: what an argument
        must be, said instead of pydantic's words for it; `absent`: why an argument this
        server leaves out is not taken."""

        def register(fn: Callable[P, CallToolResult]) -> Callable[P, CallToolResult]:
            self._add_engine_tool(fn, title, read_only, destructive, expects or {}, absent or {})
            return fn

        return register

    def _add_engine_tool(
        self,
        fn: Callable[P, CallToolResult],
        title: str,
        read_only: bool,
        destructive: bool,
        expects: dict[str, str],
        absent: dict[str, str],
    ) -> None:
        @functools.wraps(fn)
        async def bounded(*args: P.args, **kwargs: P.kwargs) -> CallToolResult:
            try:
                return await run_bounded(functools.partial(fn, *args, **kwargs), fn.__name__)
            except MemtuiError as exc:
                return failure(exc.line())

        annotations = ToolAnnotations(
            title=title,
            read_only_hint=read_only,
            destructive_hint=destructive if not read_only else None,
            open_world_hint=False,
            idempotent_hint=read_only,
        )
        self.add_tool(bounded, title=title, description=described(fn), annotations=annotations)
        tool = self._tool_manager.get_tool(fn.__name__)
        assert tool is not None
        tool.parameters = lean_schema(tool.parameters)
        tool.parameters["additionalProperties"] = False  # what call_tool enforces, advertised
        meta = tool.fn_metadata
        tool.fn_metadata = StrictArguments(
            arg_model=meta.arg_model,
            output_schema=meta.output_schema,
            output_model=meta.output_model,
            wrap_output=meta.wrap_output,
        )
        self._arguments[fn.__name__] = tuple(tool.parameters.get("properties", {}))
        self._expects[fn.__name__] = expects
        self._absent[fn.__name__] = absent

    async def get_prompt(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        context: Context[Any, Any] | None = None,
    ) -> GetPromptResult | InputRequiredResult:
        """The SDK's, but an unknown prompt, a missing argument or one it does not take is
        invalid params, said as a tool's bad argument is (the SDK answers code 0, or -32603
        on a 2026-07-28 connection, and logs a traceback)."""
        prompt = self._prompt_manager.get_prompt(name)
        if prompt is None:
            known = ", ".join(p.name for p in self._prompt_manager.list_prompts())
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"NOT_FOUND: no prompt named {name!r} (the prompts are: {known})",
            )
        declared = [a.name for a in prompt.arguments or []]
        given = arguments or {}
        missing = [a.name for a in prompt.arguments or [] if a.required and a.name not in given]
        unknown = [key for key in given if key not in declared]
        if missing or unknown:
            wrong = (
                f"needs the argument {', '.join(map(repr, missing))}"
                if missing
                else f"takes no argument {', '.join(map(repr, unknown))}"
            )
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"{INVALID}: the prompt {name} {wrong} "
                f"(its arguments are: {', '.join(declared) or 'none'})",
            )
        return await super().get_prompt(name, arguments, context)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult:
        valid = self._arguments.get(name)
        if valid is None:
            known = ", ".join(self._arguments)
            return failure(f"NOT_FOUND: no tool named {name!r} (the tools are: {known})")
        unknown = [key for key in arguments if key not in valid]
        if unknown:
            names = ", ".join(repr(k) for k in unknown)
            why = [self._absent[name][k] for k in unknown if k in self._absent[name]]
            served = f"; {'; '.join(why)}, not served here (memtui mcp --tools)" if why else ""
            return failure(
                f"{INVALID}: {name} takes no argument {names} "
                f"(its arguments are: {', '.join(valid) or 'none'}){served}"
            )
        try:
            result = await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                return failure(invalid_arguments(name, exc.__cause__, self._expects[name]))
            log.error("tool %s failed", name, exc_info=exc.__cause__ or exc)
            return failure(failed_unexpectedly(name))
        assert isinstance(result, CallToolResult)
        return result


async def initialize_once(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
    """MCP's lifecycle has one initialization per connection: a second `initialize` is
    refused (the SDK would answer it, whatever version it names), as stdio refuses it before
    the SDK is ready."""
    if ctx.method == "initialize" and ctx.session.client_params is not None:
        raise MCPError(code=INVALID_REQUEST, message=INITIALIZED_ALREADY)
    return await call_next(ctx)


def lean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """An input schema as Claude reads it at the start of every session, without what says
    nothing to it: pydantic's titles, and `anyOf [X, null]` with `default: null` for an
    optional argument (it is optional by not being required; null is still accepted)."""
    properties = {}
    for name, prop in schema.get("properties", {}).items():
        prop = {k: v for k, v in prop.items() if k != "title"}
        branches = prop.get("anyOf", [])
        if prop.get("default", ...) is None and {"type": "null"} in branches:
            prop.pop("default")
            kept = [b for b in branches if b != {"type": "null"}]
            prop.pop("anyOf")
            if len(kept) == 1:
                prop = {**kept[0], **prop}  # the argument's own description wins
            else:
                prop["anyOf"] = kept
        properties[name] = prop
    lean = {k: v for k, v in schema.items() if k != "title"}
    lean["properties"] = {name: without_loose_bounds(prop) for name, prop in properties.items()}
    return lean


def without_loose_bounds(node: Any) -> Any:
    """A property's schema without the bounds no caller comes near (a 1,000-character path,
    100 KB of Markdown, 2**53): they are still enforced, just not read out every session."""
    if isinstance(node, list):
        return [without_loose_bounds(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {
        key: without_loose_bounds(value)
        for key, value in node.items()
        if not (key in LOOSE_BOUNDS and isinstance(value, int) and value >= 1_000)
    }


def described(fn: Callable[..., Any]) -> str:
    """A tool's description: its docstring as one paragraph, without the indentation Python
    keeps in it (every character is read by Claude at the start of every session)."""
    return " ".join((fn.__doc__ or "").split())


async def run_bounded(call: Callable[[], T], what: str) -> T:
    """`call` on a worker thread; after TOOL_SECONDS the caller gets BUSY and the thread is
    left to finish on its own (a thread cannot be stopped, and reads hold no lock)."""
    try:
        with anyio.fail_after(TOOL_SECONDS):
            return await anyio.to_thread.run_sync(call, abandon_on_cancel=True)
    except TimeoutError:
        log.warning("%s took longer than %.0f s", what, TOOL_SECONDS)
        raise overdue(what) from None


async def resource(call: Callable[[], T], uri: str) -> T:
    """A resource's read: `call` bounded as a tool's is, a MemtuiError the SDK's ResourceError."""
    try:
        return await run_bounded(call, uri)
    except MemtuiError as exc:
        raise ResourceError(exc.line()) from None
