"""The real-client checks (arena/checks/clients.py) pass on a server that handles HTTP/1.0,
pipelining, half-close and Expect: 100-continue as the RFCs say, and each fails on a server that
gets its one thing wrong."""

from __future__ import annotations

import http.server
import json
import select
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import ClassVar

import pytest

from arena.checks import clients
from arena.checks.client import Client
from arena.checks.expect import Context


class Handler(http.server.BaseHTTPRequestHandler):
    """`/`, `/user/set/NAME` and `/user/get/NAME` of the contract, over Python's HTTP/1.1 server;
    `fault` names the one thing a variant gets wrong."""

    protocol_version = "HTTP/1.1"
    fault = ""
    users: ClassVar[dict[str, bytes]] = {}

    def answer(self, status: int, body: bytes, content_type: str = "text/plain") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        if self.fault == "one-answer-a-connection":
            self.close_connection = True

    def do_GET(self) -> None:
        if self.fault == "host-required" and "Host" not in self.headers:
            self.answer(400, b"no Host")
        elif self.fault == "half-close-aborts" and self._half_closed():
            self.close_connection = True  # taken for a client that left: no answer
        elif self.path == "/":
            self.answer(200, b"OK")
        elif self.path.startswith("/user/get/") and self.path[10:] in self.users:
            self.answer(200, self.users[self.path[10:]], "application/json")
        else:
            self.answer(404, b"not found")

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        if length > 65536:
            self.answer(413, b"too large")
            return
        body = self.rfile.read(length)
        if self.fault == "half-close-aborts" and self._half_closed():
            self.close_connection = True
            return
        self.users[self.path[10:]] = json.dumps(json.loads(body)).encode()
        self.answer(200, b"OK")

    def handle_expect_100(self) -> bool:
        return True if self.fault == "expect-ignored" else super().handle_expect_100()

    def _half_closed(self) -> bool:
        # The client's FIN may still be on its way when the request is parsed: waited for, so the
        # fault shows whatever the timing (the check always half-closes, so the wait is short).
        readable, _, _ = select.select([self.connection], [], [], 2.0)
        return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def served(fault: str = "") -> Iterator[Context]:
    handler = type("Faulty", (Handler,), {"fault": fault, "users": {}})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Context(client=Client(server.server_address[1]), hello=b"")
    finally:
        server.shutdown()
        server.server_close()


CHECKS = [
    clients.check_http10_without_host,
    clients.check_pipelining,
    clients.check_half_close,
    clients.check_expect_continue,
]


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.__name__)
def test_a_server_that_follows_the_rfcs_passes(check):
    with served() as ctx:
        check(ctx)
    assert ctx.problems == []


@pytest.mark.parametrize(
    ("fault", "check", "said"),
    [
        ("host-required", clients.check_http10_without_host, "400 b'no Host'"),
        ("one-answer-a-connection", clients.check_pipelining, "#2: GET /nope"),
        ("half-close-aborts", clients.check_half_close, "half-close"),
        ("expect-ignored", clients.check_expect_continue, "the client waited"),
    ],
)
def test_a_server_that_gets_one_thing_wrong_fails_its_check(fault, check, said):
    with served(fault) as ctx:
        check(ctx)
    assert ctx.problems and said in ctx.problems[0].text


def test_answers_that_arrive_together_are_read_apart():
    """Answers are read from one buffer by their framing (a length, or chunks): a second answer in
    the same packet as the first is read as the second, not lost in the first's buffer."""
    left, right = socket.socketpair()
    with clients.Connection(left) as conn, right:
        right.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK"
            b"HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nnot\r\n0\r\n\r\n"
        )
        first, second = conn.answer(), conn.answer()
    assert (first.status, first.body, second.status, second.body) == (200, b"OK", 404, b"not")
