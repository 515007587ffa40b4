"""The real-client checks (arena/checks/clients.py) pass on a server that handles HTTP/1.0,
pipelining, half-close and Expect: 100-continue as the RFCs say, and each fails on a server that
gets its one thing wrong."""

from __future__ import annotations

import http.server
import json
import re
import select
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import ClassVar

import pytest

from arena.checks import clients, verify
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

    def parse_request(self) -> bool:
        if self.fault == "any-version":  # read as HTTP/1.1 whatever it said, as Node's parser did
            self.raw_requestline = re.sub(rb"HTTP/\d\.\d", b"HTTP/1.1", self.raw_requestline)
        # Python's server answers what it takes for HTTP/0.9 (a line without a version, or
        # HTTP/2.0 and later) without a status line, and serves HTTP/0.9: refused here instead.
        words = self.raw_requestline.split()
        if len(words) == 3 and words[2].startswith(b"HTTP/1."):
            return super().parse_request()
        self.command, self.requestline = None, self.raw_requestline.decode("latin-1").strip()
        self.request_version, self.close_connection = "HTTP/1.1", True
        self.send_error(505 if len(words) == 3 and words[2].startswith(b"HTTP/") else 400)
        return False

    def do_GET(self) -> None:
        if self.fault == "host-required" and "Host" not in self.headers:
            self.answer(400, b"no Host")
        elif self.fault == "half-close-aborts" and self._half_closed():
            self.close_connection = True  # taken for a client that left: no answer
        elif self.path == "/":
            self.answer(200, b"OK")
        elif self.path.startswith("/long-operation?n="):
            self.answer(400, b"n out of range")
        elif self.path.startswith("/user/get/") and self.path[10:] in self.users:
            self.answer(200, self.users[self.path[10:]], "application/json")
        else:
            self.answer(404, b"not found")

    def do_POST(self) -> None:
        length = self.headers.get("Content-Length", "")
        if not length.isdigit():
            self.answer(400, b"no length")  # chunked or malformed: the contract's bodies have one
            return
        length = int(length)
        if length > 65536:
            self.answer(413, b"too large")
            return
        body = self.rfile.read(length)
        if self.fault == "half-close-aborts" and self._half_closed():
            self.close_connection = True
            return
        try:
            self.users[self.path[10:]] = json.dumps(json.loads(body)).encode()
        except ValueError:
            self.answer(400, b"not JSON")
            return
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
    clients.check_http_version,
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
        ("any-version", clients.check_http_version, "GET / HTTP/2.0"),
    ],
)
def test_a_server_that_gets_one_thing_wrong_fails_its_check(fault, check, said):
    with served(fault) as ctx:
        check(ctx)
    assert ctx.problems and said in ctx.problems[0].text


def test_a_server_that_drops_answers_on_a_half_close_is_told_so_by_the_malformed_burst():
    """The burst half-closes after each payload: a server that drops answers then must read as a
    half-close failure, not as a wrong answer to the request that happened to be checked."""
    with served("half-close-aborts") as ctx:
        verify.check_malformed_burst(ctx)
    texts = [problem.text for problem in ctx.problems]
    overflow = "GET /long-operation?n=99999999999999999999999, then the client shuts its sending side"
    assert [t for t in texts if overflow in t and "see the half-close check" in t], texts
    assert not [t for t in texts if "(connection closed, no answer)" in t], texts


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
