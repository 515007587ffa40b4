"""The abuse checks can fail: the fake server answers one connection at a time, so one slowloris
connection that never finishes its headers keeps every other client waiting past the bound; a
process whose memory grows past a check's bound fails it; and the answers to hostile requests
are judged as the module says, case by case."""

import contextlib
import http.server
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import psutil
import pytest

from arena.checks import abuse
from arena.checks.client import Client
from arena.checks.expect import Context
from arena.host.process import free_port, running


def test_a_server_that_one_slow_client_blocks_fails_the_slowloris_check(fake, monkeypatch):
    monkeypatch.setattr(abuse, "SLOW_CONNECTIONS", 3)
    monkeypatch.setattr(abuse, "SETTLE_MAX_S", 2)
    with running(fake, 1, free_port()) as server:
        ctx = Context(client=Client(server.port), hello=b"")
        abuse.check_slowloris(ctx, window_s=2)
    assert ctx.problems and "GET / during 3 slowloris connections" in ctx.problems[0].text


@contextlib.contextmanager
def pausing_server(pauses_s: list[float]) -> Iterator[int]:
    """A server on 127.0.0.1 whose answers to GET / wait the given pauses in turn, then none."""
    waits = iter(pauses_s)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            time.sleep(next(waits, 0))
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"OK")

        def log_message(self, *args: object) -> None:
            pass

    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            yield server.server_address[1]
        finally:
            server.shutdown()


@pytest.mark.parametrize(("pauses_s", "late"), [([1.2], False), ([1.2, 1.2], True)])
def test_one_late_answer_is_asked_again_and_a_second_is_judged(pauses_s, late):
    """One pause past the bound is asked again and passes; a server late twice running is late."""
    with pausing_server(pauses_s) as port:
        ctx = Context(client=Client(port), hello=b"")
        watch = abuse.Watch("headers")
        abuse._normal_request(ctx, watch, "a pause")
    assert bool(ctx.problems) is late
    assert len(watch.late) == 1 and "1 past 1 s, each asked again" in watch.note()


@dataclass
class Child:
    """A process standing in for a server, for the memory bound."""

    process: subprocess.Popen

    def tree(self) -> list[psutil.Process]:
        return [psutil.Process(self.process.pid)]


@pytest.mark.parametrize(("grows_mib", "fails"), [(0, False), (300, True)])
def test_memory_past_the_bound_fails(grows_mib, fails):
    """The child holds `grows_mib` more once told to, inside the watched block (bound: 256 MiB)."""
    grow = (
        f"import sys; sys.stdin.readline(); b = bytearray({grows_mib} << 20); print(flush=True); sys.stdin.readline()"
    )
    child = subprocess.Popen([sys.executable, "-c", grow], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        ctx = Context(client=Client(0), hello=b"", server=Child(child))
        with abuse._watched(ctx, "bodies") as watch:
            child.stdin.write("\n")
            child.stdin.flush()
            child.stdout.readline()  # the memory is held now
            time.sleep(0.3)  # at least one sample sees it
    finally:
        child.kill()
        child.wait()
    assert bool(ctx.problems) is fails
    assert grows_mib - 10 <= watch.grown_mib < grows_mib + 50


@pytest.mark.parametrize(
    ("answer", "wrong"),
    [
        (b"", False),  # closed without a word
        (b"HTTP/1.1 431 Request Header Fields Too Large\r\n\r\n", False),
        (b"HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\n\r\n", False),
        (b"HTTP/1.0 400 Bad Request\r\n\r\n", False),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK", True),  # the oversized request was served
        (b"HTTP/1.1 500 Internal Server Error\r\n\r\n", True),
        (b"garbage", True),
    ],
)
def test_an_oversized_request_is_refused_or_closed(answer, wrong):
    assert (abuse._refused(answer) is not None) is wrong


@pytest.mark.parametrize(
    ("answer", "wrong"),
    [
        (b"", False),
        (b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n", False),
        (b"HTTP/1.1 501 Not Implemented\r\n\r\n", False),
        (b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nOK", False),  # answered, then closed
        (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOKHTTP/1.1 404 Not Found\r\n\r\n", True),  # the hidden one too
        (b"HTTP/1.1 400 Bad Request\r\n\r\nHTTP/1.1 404 Not Found\r\n\r\n", True),
    ],
)
def test_an_ambiguous_request_is_answered_at_most_once(answer, wrong):
    assert (abuse._answered_hidden(answer) is not None) is wrong


def test_every_ambiguous_request_hides_a_second_one():
    """Each framing case carries the hidden request, so serving it shows as a second answer."""
    for name, payload in abuse.AMBIGUOUS.items():
        assert abuse.HIDDEN in payload, name
        head, _, _ = payload.partition(b"\r\n\r\n")
        assert b"Content-Length" in head or b"Transfer-Encoding" in head, name
