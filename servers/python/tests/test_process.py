"""The real server as the harness runs it: `python -m arena_aiohttp` on 127.0.0.1, with one process or
with worker processes; what only a real socket shows (half-close, Expect, malformed requests) and
what only several processes show (state shared by the whole server, supervision)."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import time
from pathlib import Path

import pytest
from support import HELLO

STATUS = re.compile(rb"HTTP/1\.[01] (\d{3})")


def call(port: int, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes, float]:
    """One request on a connection of its own (so that any worker may take it)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    started = time.monotonic()
    try:
        conn.request(method, path, body=body, headers={"Content-Type": "application/json"} if body else {})
        reply = conn.getresponse()
        return reply.status, reply.read(), time.monotonic() - started
    finally:
        conn.close()


def exchange(port: int, payload: bytes, half_close: bool = True, timeout: float = 3.0) -> tuple[bytes, float]:
    """Raw bytes in; what came back until the server closed, and when it closed (seconds)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        started = time.monotonic()
        try:
            sock.sendall(payload)
            if half_close:
                sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # a server may refuse a large request and close before the client has sent it all
        received = b""
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except TimeoutError:
            return received, float("inf")
        except ConnectionResetError:
            pass
        return received, time.monotonic() - started


def head(method: str, path: str, **headers: str) -> bytes:
    lines = [
        f"{method} {path} HTTP/1.1",
        "Host: 127.0.0.1",
        *(f"{k.replace('_', '-')}: {v}" for k, v in headers.items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def workers_of(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


@pytest.mark.parametrize("cpus", [1, 2])
def test_half_close_still_answered(start, cpus):
    server = start(cpus)
    answer, closed_after = exchange(server.port, head("GET", "/"))
    assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"\r\n\r\nOK")
    assert closed_after < 1.0  # and the connection closes once answered

    body = b'{"half":"closed"}'
    post = head("POST", "/user/set/halfclosed", Content_Type="application/json", Content_Length=str(len(body)))
    answer, _ = exchange(server.port, post + body)
    assert answer.startswith(b"HTTP/1.1 200")
    assert call(server.port, "GET", "/user/get/halfclosed")[:2] == (200, body)

    # A request still being answered when the input ends, and several pipelined before it.
    answer, closed_after = exchange(server.port, head("GET", "/longPoll") + head("GET", "/nope") + head("GET", "/"))
    assert [int(s) for s in STATUS.findall(answer)] == [200, 404, 200]
    assert 0.3 <= closed_after < 1.5


def test_body_cut_short_by_half_close_closes_at_once(start):
    server = start(1)
    partial = head("POST", "/user/set/cut", Content_Type="application/json", Content_Length="100") + b'{"a":'
    answer, closed_after = exchange(server.port, partial)
    assert answer == b""
    assert closed_after < 1.0
    assert call(server.port, "GET", "/user/get/cut")[0] == 404


def test_expect_continue(start):
    server = start(1)
    body = b'{"expect":"continue"}'
    with socket.create_connection(("127.0.0.1", server.port), timeout=3) as sock:
        sock.sendall(head("POST", "/user/set/expecting", Content_Length=str(len(body)), Expect="100-continue"))
        assert sock.recv(1024).startswith(b"HTTP/1.1 100 Continue\r\n\r\n")
        sock.sendall(body)
        assert sock.recv(1024).startswith(b"HTTP/1.1 200")
    assert call(server.port, "GET", "/user/get/expecting")[:2] == (200, body)
    large = head("POST", "/user/set/large", Content_Length=str(1 << 20), Expect="100-continue")
    answer, closed_after = exchange(server.port, large, half_close=False)
    assert answer.startswith(b"HTTP/1.1 413")  # at once, without 100 Continue, and closed
    assert closed_after < 1.0


@pytest.mark.parametrize(
    "payload",
    [
        b"GARBAGE\r\n\r\n",
        b"GET / HTTP/9.9\r\nHost: x\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: x\r\nX-Note: a\x00b\r\n\r\n",
        b"POST /user/set/u HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}",
        b"POST /user/set/u HTTP/1.1\r\nHost: x\r\nContent-Length: +2\r\n\r\n{}",
        b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 2_000_000 + b"\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-H%d: v\r\n" % i for i in range(1000)) + b"\r\n",
    ],
)
def test_malformed_requests_refused(start, payload):
    server = start(1)
    answer, _ = exchange(server.port, payload)
    assert answer == b"" or answer[9:10] == b"4" or answer[9:12] in (b"501", b"505")
    assert call(server.port, "GET", "/")[:2] == (200, b"OK")


def test_ambiguous_length_never_serves_a_hidden_request(start):
    server = start(1)
    hidden = head("GET", "/user/get/smuggled")
    chunked = b"2\r\n{}\r\n0\r\n\r\n" + hidden
    for headers, body in [
        (f"Content-Length: {len(chunked)}\r\nTransfer-Encoding: chunked\r\n", chunked),
        ("Transfer-Encoding: chunked\r\nContent-Length: 2\r\n", chunked),
        (f"Content-Length: 2\r\nContent-Length: {2 + len(hidden)}\r\n", b"{}" + hidden),
        ("Transfer-Encoding: xchunked\r\nContent-Length: 2\r\n", b"{}" + hidden),
        (f"Transfer-Encoding: chunked, identity\r\nContent-Length: {len(chunked)}\r\n", chunked),
    ]:
        request = b"POST /user/set/framing HTTP/1.1\r\nHost: x\r\n" + headers.encode() + b"\r\n" + body
        answer, _ = exchange(server.port, request)
        assert len(STATUS.findall(answer)) <= 1, answer


def test_workers_share_the_store_and_the_hello_count(start):
    """Two workers, every request on a new connection: whichever worker takes it, what was set is
    read back, and exactly every 3rd /hello of the whole server waits."""
    server = start(2)
    assert len(workers_of(server.proc.pid)) == 2
    for i in range(30):
        assert call(server.port, "POST", f"/user/set/w{i}", json.dumps({"i": i}).encode())[0] == 200
        status, body, _ = call(server.port, "GET", f"/user/get/w{i}")
        assert (status, json.loads(body)) == (200, {"i": i})
    assert call(server.port, "POST", "/password/set/carol", b'{"password":"s3cret"}')[0] == 200
    for _ in range(6):
        assert call(server.port, "POST", "/password/verify/carol", b'{"password":"s3cret"}')[0] == 200
    delayed = []
    for number in range(1, 13):
        status, body, took = call(server.port, "GET", "/hello")
        assert (status, body) == (200, HELLO)
        if took >= 0.35:
            delayed.append(number)
    assert delayed == [3, 6, 9, 12]


def test_a_busy_worker_leaves_the_other_serving(start):
    """A /long-operation blocks its own worker's loop; the other worker answers meanwhile, from
    the same store."""
    server = start(2)
    assert call(server.port, "POST", "/user/set/shared", b'{"x":1}')[0] == 200
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as busy:
        busy.sendall(head("GET", "/long-operation?n=4000"))
        time.sleep(0.1)
        started = time.monotonic()
        assert call(server.port, "GET", "/user/get/shared")[:2] == (200, b'{"x":1}')
        assert time.monotonic() - started < 0.5
        assert busy.recv(4096).startswith(b"HTTP/1.1 200")


def test_sigterm_stops_every_worker_with_status_0(start):
    server = start(2)
    workers = workers_of(server.proc.pid)
    assert server.stop() == 0
    for pid in workers:
        assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]


def test_a_worker_told_to_stop_stops_the_server_with_status_0(start):
    server = start(2)
    os.kill(workers_of(server.proc.pid)[1], signal.SIGTERM)
    assert server.proc.wait(timeout=10) == 0


def test_a_dead_worker_stops_the_server_with_status_1(start):
    server = start(2)
    os.kill(workers_of(server.proc.pid)[0], signal.SIGKILL)
    assert server.proc.wait(timeout=10) == 1
    assert "exited" in server.output()


@pytest.mark.parametrize(
    ("name", "value", "cpus"),
    [
        ("ARENA_BCRYPT_COST", "3", 1),
        ("ARENA_SORT_N", "abc", 1),
        ("ARENA_DB_POOL", "0", 1),
        ("ARENA_DB_POOL", "1", 2),
        ("ARENA_PORT", "70000", 1),
        ("ARENA_HELLO_DELAY_EVERY", "0", 1),
        ("ARENA_DB_URL", "mysql://u@h/db", 1),
        ("ARENA_DB_URL", "postgresql://u@h/db?sslmode=disable", 1),
    ],
)
def test_malformed_setting_exits_at_start(name, value, cpus):
    from conftest import Process

    process = Process(cpus, **{name: value})
    assert process.proc.wait(timeout=20) == 2
    assert name in process.output()


def test_unreachable_database_is_503_and_the_rest_serves(start):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nobody listens there
    server = start(2, ARENA_DB_URL=f"postgresql://arena@127.0.0.1:{port}/arena", ARENA_DB_POOL="2")
    status, body, took = call(server.port, "GET", "/record?name=r42")
    assert status == 503 and body
    assert took < 5
    assert call(server.port, "GET", "/")[:2] == (200, b"OK")
    assert call(server.port, "GET", "/record?name=bad%20name")[0] == 400


def test_a_large_unread_body_closes_rather_than_being_read(start):
    """A 404 for a path that takes no body, announced at 1 GiB: answered, then closed at once."""
    server = start(1)
    announced = head("POST", "/nope", Content_Type="application/json", Content_Length=str(1 << 30))
    answer, closed_after = exchange(server.port, announced + b"x" * 65536, half_close=False)
    assert answer.startswith(b"HTTP/1.1 404")
    assert closed_after < 1.0
    too_large = head("POST", "/user/set/big", Content_Type="application/json", Content_Length=str(1 << 30))
    answer, closed_after = exchange(server.port, too_large + b"x" * 65536, half_close=False)
    assert answer.startswith(b"HTTP/1.1 413")
    assert closed_after < 1.0


def test_a_small_unread_body_keeps_the_connection(start):
    server = start(1)
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        conn.request("POST", "/user/set/big", body=b"{" + b" " * 100_000 + b"}")
        reply = conn.getresponse()
        assert (reply.status, reply.read()) == (413, b"body larger than 65536 bytes")
        conn.request("GET", "/")  # the same connection, the body having been read and dropped
        assert conn.getresponse().read() == b"OK"
    finally:
        conn.close()


@pytest.mark.parametrize("version", [b"2.0", b"0.9", b"9.9", b"1.2"])
def test_other_http_versions_are_505(start, version):
    server = start(1)
    answer, closed_after = exchange(server.port, b"GET / HTTP/" + version + b"\r\nHost: x\r\n\r\n", half_close=False)
    assert answer.startswith(b"HTTP/1.0 505 "), answer[:40]
    assert closed_after < 1.0
    assert call(server.port, "GET", "/")[:2] == (200, b"OK")


def test_a_refused_request_is_the_last_answer(start):
    """After the parser refuses a request nothing else on the connection is parsed or answered."""
    server = start(1)
    big = b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 600_000 + b"\r\n\r\n"
    answer, closed_after = exchange(server.port, big + head("GET", "/") * 3, half_close=False)
    assert [int(s) for s in STATUS.findall(answer)] == [400]
    assert closed_after < 1.0
