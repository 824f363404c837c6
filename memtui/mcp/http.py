"""MCP over streamable HTTP at /mcp: on loopback for the TUI's background server and for
`memtui mcp --http`, and for other machines with `--allow-remote`.

Three locks on the door, all the mcp package's own hooks: a Bearer token made on first start
and kept in the data dir (0600) checked by a TokenVerifier; Host and Origin checked against the
names the server may be reached by (loopback; with --allow-remote also the bound address, this
machine's names and each --allow-host) by TransportSecuritySettings (DNS rebinding); and a bind
to anything but loopback refused unless the user adds --allow-remote. Plain HTTP carries the
token and the history in clear text, so a remote server says so, and points to the safer way:
a tunnel to loopback (`ssh -L 10013:127.0.0.1:10013 host`), which every lock already accepts.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hmac
import ipaddress
import json
import logging
import os
import secrets
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import uvicorn
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, TransportSecuritySettings
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memtui.config import private_dir
from memtui.engine import Config, InvalidArgument
from memtui.mcp.engine import Engine
from memtui.mcp.handshake import FAMILIES, malformed, problem
from memtui.mcp.server import build_server

if TYPE_CHECKING:
    from memtui.engine import Memory

log = logging.getLogger(__name__)

TOKEN_FILE = "mcp-token"
PATH = "/mcp"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARDS = ("0.0.0.0", "::")  # a bind to every address: not one a client can use


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
    return f"http://{as_host(host)}:{port}{PATH}"


def as_host(name: str) -> str:
    """A name or address as it stands in a URL or a Host header: IPv6 in brackets."""
    return f"[{name}]" if ":" in name and not name.startswith("[") else name


@dataclass(frozen=True, slots=True)
class Reach:
    """Where the server listens, the names a client may reach it by (the Host and Origin
    checks accept these and no other), and the URL a client is told to use; `allowed`: the
    names the user added with --allow-host."""

    host: str
    port: int
    names: tuple[str, ...]
    url: str
    allowed: tuple[str, ...] = ()

    @property
    def remote(self) -> bool:
        return not is_loopback(self.host)


def reach(
    host: str, port: int, *, allow_remote: bool = False, allow_hosts: Sequence[str] = ()
) -> Reach:
    """What serving on host:port means; a host that is not loopback is refused unless
    `allow_remote`, and `allow_hosts` (more names this machine is reached by: a DNS name, a
    VPN's) need it."""
    check_host(host, allow_remote)
    if allow_hosts and not allow_remote:
        raise InvalidArgument(
            "--allow-host names a way other machines reach memtui: it needs --allow-remote",
            "add --allow-remote, or leave --allow-host out",
        )
    if not allow_remote or is_loopback(host):
        return Reach(host, port, LOOPBACK_NAMES, url_of(host, port))
    bare = host.strip("[]")
    machine = [socket.gethostname(), socket.getfqdn()]
    route = route_address(bare)
    shown = public_name(bare, machine, route)
    found = [shown, *([] if bare in WILDCARDS else [bare]), *machine, route, *allow_hosts]
    names = [as_host(n) for n in found if n and n.strip("[]") not in WILDCARDS]
    names += [n.lower() for n in names]
    every = tuple(dict.fromkeys([*LOOPBACK_NAMES, *names]))
    return Reach(host, port, every, url_of(shown, port), tuple(allow_hosts))


def public_name(bare: str, machine: Sequence[str], route: str | None) -> str:
    """The host a client on another machine puts in its URL: the address bound; for a
    wildcard (0.0.0.0, ::), this machine's name when it resolves to more than loopback, else
    the address its traffic leaves from, else its name."""
    if bare not in WILDCARDS:
        return bare
    for name in dict.fromkeys(machine):
        if name and name != "localhost" and resolves_beyond_loopback(name):
            return name
    return route or machine[0]


def resolves_beyond_loopback(name: str) -> bool:
    try:
        found = socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)
    except OSError:
        return False
    return any(not is_loopback(str(info[4][0])) for info in found)


def route_address(bare: str) -> str | None:
    """This machine's address on its route out (None: no route, or bound to one address):
    what `hostname -I` would list first, found portably by connecting a UDP socket, which
    only picks a route and sends nothing."""
    if bare not in WILDCARDS:
        return None
    probes = [(socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")]
    for family, probe in probes if bare == "::" else probes[:1]:
        with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as sock:
            sock.connect((probe, 9))
            address = str(sock.getsockname()[0])
            if not is_loopback(address) and address not in WILDCARDS:
                return address
    return None


def transport_security(names: Sequence[str]) -> TransportSecuritySettings:
    """Host and Origin must name one of `names` (loopback unless --allow-remote)."""
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


def remote_warning(where: Reach) -> str:
    """Said on stderr and in the log whenever memtui serves (or prints the config for serving)
    another machine."""
    return (
        f"{where.url} is plain HTTP: the token and your history cross the network in clear "
        "text, readable by anyone on the way; safer: serve on loopback and tunnel to it "
        f"(ssh -L {where.port}:127.0.0.1:{where.port} <this host>)"
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


def _answer_bad_ids(app: ASGIApp) -> ASGIApp:
    """The mcp package takes a POSTed request whose id is not a string or an integer for a
    notification: 202 Accepted, and never an answer. JSON-RPC 2.0 answers it with an
    invalid-request error, id null: the body is kept as the package reads it, and such a 202
    becomes that error, with 400 as the package's other refusals of a message have (its own
    checks, the token's first, have all passed by then)."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await app(scope, receive, send)
            return
        body = bytearray()
        replaced = False

        async def reading() -> Message:
            message = await receive()
            if message["type"] == "http.request" and len(body) <= DEFAULT_MAX_REQUEST_BODY_SIZE:
                body.extend(message.get("body", b""))
            return message

        async def sending(message: Message) -> None:
            nonlocal replaced
            if message["type"] == "http.response.start" and message["status"] == 202:
                refused = bad_id(bytes(body))
                if refused is not None:
                    replaced = True
                    data = json.dumps(refused).encode()
                    headers = [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(data)).encode()),
                    ]
                    await send({"type": "http.response.start", "status": 400, "headers": headers})
                    await send({"type": "http.response.body", "body": data})
                    return
            if not replaced:  # the 202's empty body went with its start
                await send(message)

        await app(scope, reading, sending)

    return wrapped


def bad_id(body: bytes) -> dict[str, Any] | None:
    """The error answering `body` when it is a request with an id JSON-RPC does not allow."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if isinstance(message, dict) and malformed(message):
        return problem(body)
    return None


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
    await _serve(Engine(memory=memory), reach(host, port), FAMILIES, on_ready=on_ready)


def check_host(host: str, allow_remote: bool = False) -> None:
    """Loopback only, unless the user added --allow-remote (see the module's docstring)."""
    if not allow_remote and not is_loopback(host):
        raise InvalidArgument(
            f"--host {host} is not a loopback address: other machines could reach your "
            "history, over plain HTTP that carries the token and the history in clear text",
            "use 127.0.0.1 and, from another machine, tunnel to it: "
            "ssh -L 10013:127.0.0.1:10013 <this host>; or add --allow-remote to serve it anyway",
        )


async def _serve(
    engine: Engine,
    where: Reach,
    families: Sequence[str],
    *,
    on_ready: Callable[[str], None] | None,
) -> None:
    url = where.url
    verifier = TokenCheck(http_token(engine.config))
    auth = AuthSettings(issuer_url=url, resource_server_url=None)  # type: ignore[arg-type]
    server = build_server(engine, token_verifier=verifier, auth=auth, families=families)
    app = _forbidden_host(
        _answer_bad_ids(
            server.streamable_http_app(
                streamable_http_path=PATH,
                transport_security=transport_security(where.names),
                host=where.host,
            )
        )
    )
    sock = _listen(where.host, where.port)
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
        log.info("serving MCP at %s (Host names accepted: %s)", url, ", ".join(where.names))
        if where.remote:
            log.warning("%s", remote_warning(where))
        if on_ready is not None:
            on_ready(url)
        await asyncio.shield(serving)
    except asyncio.CancelledError:
        web.should_exit = True
        await serving
        raise
    finally:
        sock.close()


def run_http(config: Config, where: Reach, families: Sequence[str]) -> None:
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
            await _serve(engine, where, families, on_ready=ready)

    def ready(url: str) -> None:
        print(f"memtui MCP at {url}", file=sys.stderr)
        if where.remote:
            print(f"memtui: warning: {remote_warning(where)}", file=sys.stderr)

    follower.start()
    try:
        asyncio.run(main())
    except OSError as exc:
        raise SystemExit(
            f"memtui: cannot serve on {where.host}:{where.port}: {exc.strerror or exc}"
        ) from None
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        follower.join(10)
        if not follower.is_alive():
            engine.close()
