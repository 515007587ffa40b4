"""Abuse that must not slow other clients down (issue 14, point 2), each a check with a stated
bound: while many connections hold a server's attention without finishing a request, a normal
client's `GET /` on a connection of its own is answered within `BOUND_S`.

- slowloris: `SLOW_CONNECTIONS` connections that send a request's headers a byte a second and
  never finish them;
- idle: `IDLE_CONNECTIONS` connections opened and left silent.

The abusive connections go to the server under test on loopback only, and are closed when the
check ends, however it ends.
"""

from __future__ import annotations

import contextlib
import socket
import time

from arena.client import Client
from arena.expect import Context

BOUND_S = 1.0  # a normal request's answer, while the abuse goes on
SLOW_CONNECTIONS = 1000
SLOW_SECONDS = 5  # how long the slow connections keep trickling
IDLE_CONNECTIONS = 10_000
HOST = "127.0.0.1"


def _open(port: int, count: int, first: bytes) -> list[socket.socket]:
    """`count` connections, each sent `first`; those the server refused are simply fewer."""
    made = []
    for _ in range(count):
        try:
            conn = socket.create_connection((HOST, port), timeout=2)
            conn.setblocking(False)
            if first:
                conn.send(first)
            made.append(conn)
        except OSError:
            break
    return made


def _normal_request(ctx: Context, what: str) -> None:
    """A normal client's GET / on a connection of its own, timed against the bound."""
    started = time.monotonic()
    try:
        reply = Client(ctx.client.port, timeout=2 * BOUND_S, host=ctx.client.host).call("GET", "/")
    except OSError as err:
        ctx.fail(f"GET / during {what}", f"200 within {BOUND_S:.1f} s", f"no answer: {err}")
        return
    took = time.monotonic() - started
    ctx.expect(reply, 200, b"OK")
    if took > BOUND_S:
        ctx.late(f"GET / during {what}", BOUND_S, took, "an answer")


def check_slowloris(ctx: Context) -> str:
    port = ctx.client.port
    conns = _open(port, SLOW_CONNECTIONS, b"GET / HTTP/1.1\r\nHost: x\r\n")
    try:
        for _ in range(SLOW_SECONDS):
            time.sleep(1)
            alive = 0
            for conn in conns:
                with contextlib.suppress(OSError):
                    conn.send(b"X")
                    alive += 1
            _normal_request(ctx, f"{len(conns)} slowloris connections")
        return f"{len(conns)} slow connections opened, {alive} still open after {SLOW_SECONDS} s"
    finally:
        for conn in conns:
            conn.close()


def check_idle_connections(ctx: Context) -> str:
    port = ctx.client.port
    conns = _open(port, IDLE_CONNECTIONS, b"")
    try:
        _normal_request(ctx, f"{len(conns)} idle connections")
        time.sleep(1)
        _normal_request(ctx, f"{len(conns)} idle connections, a second later")
        return f"{len(conns)} idle connections held"
    finally:
        for conn in conns:
            conn.close()
