"""MCP over streamable HTTP at /mcp, on loopback: for the TUI's background server and for
`memtui mcp --http`.

Three locks on the door, all the mcp package's own hooks: a Bearer token made on first start
and kept in the data dir (0600) checked by a TokenVerifier; Host and Origin checked against
loopback by TransportSecuritySettings (DNS rebinding); and a bind to anything but loopback
refused. There is no remote mode: plain HTTP would carry the token and the history in clear
text, so another machine reaches memtui through a tunnel (`ssh -L 10013:127.0.0.1:10013 host`)
and talks to its loopback, which every lock here already accepts.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hmac
import ipaddress
import logging
import os
import secrets
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import uvicorn
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memtui.config import private_dir
from memtui.engine import Config, InvalidArgument
from memtui.mcp.engine import Engine
from memtui.mcp.handshake import FAMILIES
from memtui.mcp.server import build_server

if TYPE_CHECKING:
    from memtui.engine import Memory

log = logging.getLogger(__name__)

TOKEN_FILE = "mcp-token"
PATH = "/mcp"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def http_token(config: Config) -> str:
    """The token HTTP clients send as `Authorization: Bearer <token>`: made on first use, kept
    in the data dir readable by its owner only. Two processes starting at once agree on one. A
    token file left empty (or blank) is given a new token, and the log says so: a server that
    took "" for its token would refuse every request for ever."""
    path = private_dir(config.data_dir) / TOKEN_FILE
    with contextlib.suppress(FileNotFoundError):
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)
        if token := path.read_text().strip():
            return token
    with _locked(path.with_name(f"{TOKEN_FILE}.lock")):
        with contextlib.suppress(FileNotFoundError):
            if token := path.read_text().strip():
                return token  # another process made it meanwhile
            log.warning("%s was empty: made a new token (clients need the new one)", path)
        fresh = path.with_name(f"{TOKEN_FILE}.{os.getpid()}.{threading.get_ident()}")
        fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_urlsafe(32) + "\n")
        os.replace(fresh, path)
    return path.read_text().strip()


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


class TokenCheck:
    """A TokenVerifier for one shared secret."""

    def __init__(self, token: str) -> None:
        self._token = token.encode()

    async def verify_token(self, token: str) -> AccessToken | None:
        if hmac.compare_digest(token.encode(), self._token):
            return AccessToken(token=token, client_id="memtui", scopes=[])
        return None


def is_loopback(host: str) -> bool:
    if host.strip("[]") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def url_of(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}{PATH}"


def transport_security() -> TransportSecuritySettings:
    """Host and Origin must name loopback."""
    names = LOOPBACK_NAMES
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[*names, *(f"{n}:*" for n in names)],
        allowed_origins=[
            f"{scheme}://{n}{port}"
            for scheme in ("http", "https")
            for n in names
            for port in ("", ":*")
        ],
    )


def _forbidden_host(app: ASGIApp) -> ASGIApp:
    """The mcp package refuses a foreign Host with 421 (Misdirected Request) and a foreign
    Origin with 403; both are the same DNS-rebinding refusal, so both answer 403."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 421:
                message = {**message, "status": 403}
            await send(message)

        await app(scope, receive, sending)

    return wrapped


class _Uvicorn(uvicorn.Server):
    """uvicorn without its signal handlers: the TUI and the CLI own the process's signals."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def _listen(host: str, port: int) -> socket.socket:
    """Bound and listening now, so a port in use is an OSError for the caller."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


async def serve_http(
    memory: Memory,
    host: str = "127.0.0.1",
    port: int = 10013,
    *,
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Serve `memory` at http://host:port/mcp until cancelled; `on_ready(url)` once listening.
    OSError when the port is taken; InvalidArgument for a host that is not loopback."""
    await _serve(Engine(memory=memory), host, port, FAMILIES, on_ready=on_ready)


def check_host(host: str) -> None:
    """Only loopback is served (see the module's docstring for why, and the tunnel instead)."""
    if not is_loopback(host):
        raise InvalidArgument(
            f"--host {host} is not a loopback address: memtui serves MCP over HTTP on this "
            "machine only (plain HTTP would carry the token and your history in clear text)",
            "use 127.0.0.1; from another machine, tunnel to it: "
            "ssh -L 10013:127.0.0.1:10013 <this host>",
        )


async def _serve(
    engine: Engine,
    host: str,
    port: int,
    families: Sequence[str],
    *,
    on_ready: Callable[[str], None] | None,
) -> None:
    check_host(host)
    url = url_of(host, port)
    verifier = TokenCheck(http_token(engine.config))
    auth = AuthSettings(issuer_url=url, resource_server_url=None)  # type: ignore[arg-type]
    server = build_server(engine, token_verifier=verifier, auth=auth, families=families)
    app = _forbidden_host(
        server.streamable_http_app(
            streamable_http_path=PATH, transport_security=transport_security(), host=host
        )
    )
    sock = _listen(host, port)
    web = _Uvicorn(
        uvicorn.Config(app, log_config=None, access_log=False, timeout_graceful_shutdown=2)
    )
    serving = asyncio.ensure_future(web.serve(sockets=[sock]))
    try:
        while not web.started:
            if serving.done():
                serving.result()
                raise OSError(f"the MCP HTTP server at {url} stopped while starting")
            await asyncio.sleep(0.02)
        log.info("serving MCP at %s", url)
        if on_ready is not None:
            on_ready(url)
        await asyncio.shield(serving)
    except asyncio.CancelledError:
        web.should_exit = True
        await serving
        raise
    finally:
        sock.close()


def run_http(config: Config, host: str, port: int, families: Sequence[str]) -> None:
    """`memtui mcp --http`: serve until SIGTERM or ctrl+c, following transcripts meanwhile."""
    from memtui.mcp.stdio import keep_fresh

    check_host(host)
    engine = Engine(config)
    stop = threading.Event()
    follower = threading.Thread(
        target=keep_fresh, args=(engine, stop), name="memtui-follow", daemon=True
    )

    async def main() -> None:
        task = asyncio.current_task()
        assert task is not None
        loop = asyncio.get_running_loop()
        for number in (signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(number, task.cancel)
        with contextlib.suppress(asyncio.CancelledError):
            await _serve(
                engine,
                host,
                port,
                families,
                on_ready=lambda url: print(f"memtui MCP at {url}", file=sys.stderr),
            )

    follower.start()
    try:
        asyncio.run(main())
    except OSError as exc:
        raise SystemExit(f"memtui: cannot serve on {host}:{port}: {exc.strerror or exc}") from None
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        follower.join(10)
        if not follower.is_alive():
            engine.close()
