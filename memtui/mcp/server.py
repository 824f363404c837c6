"""The MCP server: one MCPServer, the rules every tool call obeys, and the tool groups.

A tool group is a module with `register(server)` that adds its tools, resources and prompts
(history now; notes and signals later). Every tool body is one synchronous engine call; the
server runs it on a worker thread under a time bound, and turns what goes wrong into an
`isError` result whose text starts with one of SPEC's codes.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar, get_type_hints

import anyio
import anyio.to_thread
import pydantic_core
from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field, ValidationError, create_model

from memtui import __version__
from memtui.engine import Busy, MemtuiError
from memtui.mcp.engine import Engine
from memtui.mcp.handshake import INSTRUCTIONS

log = logging.getLogger(__name__)

TOOL_SECONDS = 30.0  # the first call may load the model and open the indexes: a few seconds
INVALID = "INVALID_ARGUMENT"

P = ParamSpec("P")
T = TypeVar("T")


def failure(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def structured(result: Any, text: str | None = None) -> CallToolResult:
    """An engine result as structured content, with the same JSON (or `text`) for reading."""
    data = pydantic_core.to_jsonable_python(result)
    shown = text if text is not None else json.dumps(data, ensure_ascii=False)
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


def invalid_arguments(tool: str, error: ValidationError) -> str:
    """Pydantic's complaints by argument name, without the caller's values echoed."""
    parts = []
    for err in error.errors(include_url=False, include_input=False):
        where = str(err["loc"][0]) if err["loc"] else "arguments"
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
        token_verifier: TokenVerifier | None = None,
        auth: AuthSettings | None = None,
    ) -> None:
        super().__init__(
            name="memtui",
            version=__version__,
            instructions=INSTRUCTIONS,
            log_level="WARNING",
            token_verifier=token_verifier,
            auth=auth,
        )
        self.engine = engine
        self._arguments: dict[str, tuple[str, ...]] = {}

    def engine_tool(
        self, fn: Callable[P, CallToolResult], *, title: str, read_only: bool = True
    ) -> None:
        """Register `fn` (one engine call, run on a worker thread within TOOL_SECONDS)."""

        @functools.wraps(fn)
        async def bounded(*args: P.args, **kwargs: P.kwargs) -> CallToolResult:
            try:
                return await run_bounded(functools.partial(fn, *args, **kwargs), fn.__name__)
            except MemtuiError as exc:
                return failure(exc.line())

        annotations = ToolAnnotations(
            title=title, read_only_hint=read_only, open_world_hint=False, idempotent_hint=read_only
        )
        self.add_tool(bounded, title=title, annotations=annotations)
        tool = self._tool_manager.get_tool(fn.__name__)
        assert tool is not None
        tool.parameters["additionalProperties"] = False  # what call_tool enforces, advertised
        meta = tool.fn_metadata
        tool.fn_metadata = StrictArguments(
            arg_model=meta.arg_model,
            output_schema=meta.output_schema,
            output_model=meta.output_model,
            wrap_output=meta.wrap_output,
        )
        self._arguments[fn.__name__] = tuple(tool.parameters.get("properties", {}))

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
            return failure(
                f"{INVALID}: {name} takes no argument {names} "
                f"(its arguments are: {', '.join(valid) or 'none'})"
            )
        try:
            result = await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                return failure(invalid_arguments(name, exc.__cause__))
            log.error("tool %s failed", name, exc_info=exc.__cause__ or exc)
            return failure(f"INTERNAL_ERROR: {name} failed unexpectedly (the log says why)")
        assert isinstance(result, CallToolResult)
        return result


async def run_bounded(call: Callable[[], T], what: str) -> T:
    """`call` on a worker thread; after TOOL_SECONDS the caller gets BUSY and the thread is
    left to finish on its own (a thread cannot be stopped, and reads hold no lock)."""
    try:
        with anyio.fail_after(TOOL_SECONDS):
            return await anyio.to_thread.run_sync(call, abandon_on_cancel=True)
    except TimeoutError:
        log.warning("%s took longer than %.0f s", what, TOOL_SECONDS)
        raise Busy(
            f"{what} took longer than {TOOL_SECONDS:.0f} s",
            "try again in a moment, or narrow it: fewer words, a filter, mode fts",
        ) from None


def build_server(
    engine: Engine,
    token_verifier: TokenVerifier | None = None,
    auth: AuthSettings | None = None,
) -> Server:
    """The server with every tool group registered; HTTP passes its token check and auth."""
    from memtui.mcp import history, signals

    server = Server(engine, token_verifier, auth)
    for group in (history, signals):
        group.register(server)
    return server
