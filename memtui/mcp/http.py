"""MCP over streamable HTTP at /mcp, on loopback: for the TUI's background server and for
`memtui mcp --http`.

Three locks on the door, all the mcp package's own hooks: a Bearer token made on first start
and kept in the data dir (0600) checked by a TokenVerifier; Host and Origin checked against
loopback by TransportSecuritySettings (DNS rebinding); and a non-loopback bind refused unless
the user passes --allow-remote.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import logging
import os
import secrets
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator

import uvicorn
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings

from memtui.config import private_dir
from memtui.engine import Config, InvalidArgument, Memory
from memtui.mcp.engine import Engine
from memtui.mcp.server import build_server

log = logging.getLogger(__name__)

TOKEN_FILE = "mcp-token"
PATH = "/mcp"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def http_token(config: Config) -> str:
    """The token HTTP clients send as `Authorization: Bearer <token>`: made on first use, kept
    in the data dir readable by its owner only. Two processes starting at once agree on one."""
    path = private_dir(config.data_dir) / TOKEN_FILE
    with contextlib.suppress(FileNotFoundError):
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)
        if token := path.read_text().strip():
            return token
    fresh = path.with_name(f"{TOKEN_FILE}.{os.getpid()}.{threading.get_ident()}")
    fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(secrets.token_urlsafe(32) + "\n")
    try:
        os.link(fresh, path)  # atomic and exclusive: the first one made wins
    except FileExistsError:
        pass
    finally:
        fresh.unlink()
    return path.read_text().strip()


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


def transport_security(host: str) -> TransportSecuritySettings:
    """Host and Origin must name loopback (or the --allow-remote address itself)."""
    names = list(LOOPBACK_NAMES)
    if not is_loopback(host):
        names.append(host)
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
    await _serve(Engine(memory=memory), host, port, on_ready=on_ready, allow_remote=False)


async def _serve(
    engine: Engine,
    host: str,
    port: int,
    *,
    on_ready: Callable[[str], None] | None,
    allow_remote: bool,
) -> None:
    if not is_loopback(host) and not allow_remote:
        raise InvalidArgument(
            f"--host {host} is not a loopback address: other machines could reach your history",
            "use 127.0.0.1, or add --allow-remote if you mean it",
        )
    url = url_of(host, port)
    verifier = TokenCheck(http_token(engine.config))
    auth = AuthSettings(issuer_url=url, resource_server_url=None)  # type: ignore[arg-type]
    server = build_server(engine, token_verifier=verifier, auth=auth)
    app = server.streamable_http_app(
        streamable_http_path=PATH, transport_security=transport_security(host), host=host
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


def run_http(config: Config, host: str, port: int, *, allow_remote: bool) -> None:
    """`memtui mcp --http`: serve until SIGTERM or ctrl+c, following transcripts meanwhile."""
    from memtui.mcp.stdio import keep_fresh

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
                on_ready=lambda url: print(f"memtui MCP at {url}", file=sys.stderr),
                allow_remote=allow_remote,
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
