"""The database delay proxy (host/delay.py) on real loopback sockets: a round trip takes the delay
twice, chunks sent together arrive together rather than one delay apart, and it stops cleanly, also
while connections are open."""

import gc
import logging
import socket
import socketserver
import threading
import time

from arena.host.delay import DelayProxy


class Echo(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        while data := self.request.recv(4096):
            self.request.sendall(data)


def test_a_round_trip_through_the_proxy_takes_its_delay_each_way_and_holds_no_queue():
    with socketserver.ThreadingTCPServer(("127.0.0.1", 0), Echo) as echo:
        threading.Thread(target=echo.serve_forever, daemon=True).start()
        with DelayProxy("127.0.0.1", echo.server_address[1], 0.05) as proxy:
            with socket.create_connection(("127.0.0.1", proxy.port), timeout=5) as conn:
                started = time.monotonic()
                conn.sendall(b"ping")
                assert conn.recv(4096) == b"ping"
                once = time.monotonic() - started
                started = time.monotonic()
                for i in range(10):  # ten sent at once come back one round trip later, not ten
                    conn.sendall(b"%d;" % i)
                got = b""
                while got.count(b";") < 10:
                    got += conn.recv(4096)
                ten = time.monotonic() - started
            assert (
                proxy.url("postgresql://arena:pw@127.0.0.1:5432/arena")
                == f"postgresql://arena:pw@127.0.0.1:{proxy.port}/arena"
            )
        echo.shutdown()
    assert got == b"".join(b"%d;" % i for i in range(10))  # in order
    assert once >= 0.1 and ten < 2 * once  # the delay each way; pipelined, not one after another


def _stopped_with_connections_open(port: int, connections: int) -> list[socket.socket]:
    """Connections through a proxy that is then stopped, and dropped with all it held."""
    with DelayProxy("127.0.0.1", port, 0.01) as proxy:
        held = [socket.create_connection(("127.0.0.1", proxy.port), timeout=5) for _ in range(connections)]
        for conn in held:
            conn.sendall(b"ping")
        for conn in held:
            assert conn.recv(4096) == b"ping"
    return held


def test_a_proxy_stopped_with_connections_open_ends_them_without_a_word(caplog):
    """asyncio reports each task its loop still held when it closed ("Task was destroyed but it is
    pending!", with a traceback) once the task is collected: a proxy stopped while a server's
    database connections were open must leave none (before the fix, 20 connections left some)."""
    with socketserver.ThreadingTCPServer(("127.0.0.1", 0), Echo) as echo:
        threading.Thread(target=echo.serve_forever, daemon=True).start()
        with caplog.at_level(logging.ERROR, logger="asyncio"):
            for _ in range(3):
                held = _stopped_with_connections_open(echo.server_address[1], 20)
                gc.collect()
                for conn in held:
                    assert conn.recv(4096) == b""  # closed by the proxy
                    conn.close()
        echo.shutdown()
    assert not [r.getMessage() for r in caplog.records], caplog.text
