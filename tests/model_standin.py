"""A stand-in for Anthropic's Messages API on 127.0.0.1, so Claude Code's real CLI can finish
a turn offline while the test reads what it sent: every request is appended to a JSONL log
(method, path, body), and every model call is answered with one short text reply.

Enough of the API for `claude -p`: POST /v1/messages (streamed as server-sent events, or as
one JSON message) and POST /v1/messages/count_tokens; anything else is a 404 in the API's
error shape, which the CLI takes as a feature not offered.

Run alone (`python tests/model_standin.py LOG`) it prints its port and serves until stopped.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPLY = "Done."


def message(body: dict) -> dict:
    return {
        "id": "msg_standin",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "standin"),
        "content": [{"type": "text", "text": REPLY}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def events(body: dict) -> Iterator[tuple[str, dict]]:
    """The stream of one text reply, in the order the Messages API sends it."""
    whole = message(body)
    yield "message_start", {"type": "message_start", "message": {**whole, "content": []}}
    yield (
        "content_block_start",
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    )
    yield (
        "content_block_delta",
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": REPLY}},
    )
    yield "content_block_stop", {"type": "content_block_stop", "index": 0}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 1},
        },
    )
    yield "message_stop", {"type": "message_stop"}


class Handler(BaseHTTPRequestHandler):
    server: Standin

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"unreadable": raw.decode(errors="replace")}
        self.server.record({"method": "POST", "path": self.path, "body": body})
        path = self.path.split("?")[0]
        if path == "/v1/messages/count_tokens":
            self.reply(200, {"input_tokens": len(raw) // 4})
        elif path == "/v1/messages" and body.get("stream"):
            self.stream(body)
        elif path == "/v1/messages":
            self.reply(200, message(body))
        else:
            self.missing()

    def do_GET(self) -> None:
        self.server.record({"method": "GET", "path": self.path, "body": None})
        self.missing()

    def missing(self) -> None:
        error = {"type": "not_found_error", "message": f"the stand-in has no {self.path}"}
        self.reply(404, {"type": "error", "error": error})

    def reply(self, status: int, document: dict) -> None:
        data = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def stream(self, body: dict) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for name, data in events(body):
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()
        self.close_connection = True

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the log file is the record."""


class Standin(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, log: Path) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.log = log
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def record(self, entry: dict) -> None:
        with self.lock, self.log.open("a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")

    def requests(self) -> list[dict]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]


@contextmanager
def serving(log: Path) -> Iterator[Standin]:
    server = Standin(log)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


if __name__ == "__main__":
    with serving(Path(sys.argv[1])) as standin:
        print(standin.url, flush=True)
        threading.Event().wait()
