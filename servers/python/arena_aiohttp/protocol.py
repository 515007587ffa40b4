"""aiohttp's connection handler, taught to answer a client that half-closes.

A client may shut its sending side once its last request is sent and still read the answers
(RFC 9112, 9.6; `nc -N`, some proxies). aiohttp's RequestHandler takes the end of the input
(`eof_received`) for the end of the connection: asyncio then closes the socket, and an answer
still being made is written to nowhere. This subclass keeps the socket open for writing instead:
the requests already received are answered, in order, and the connection closes as soon as it is
idle. A request whose body was cut short by the half-close cannot complete; its body read ends
with the body time limit (bodies.BODY_TIMEOUT_S), and the connection closes after its 400.

It reads three attributes of its base class (`_waiter`, `_messages`, `_keepalive_handle`, and the
keep-alive timeout it shortens), which tests/test_process.py's half-close tests would catch
changing.
"""

from __future__ import annotations

import asyncio

from aiohttp import web
from aiohttp.web_protocol import RequestHandler


class HalfCloseHandler(RequestHandler):
    __slots__ = ()

    def _idle(self) -> bool:
        """Waiting for a request, none received: the state aiohttp's keep-alive timer closes in."""
        return self._waiter is not None and not self._waiter.done() and not self._messages

    def eof_received(self) -> bool:
        # From now on every answer is the last one this connection can carry: once it is written
        # and nothing else is queued, aiohttp's keep-alive timer (made immediate) closes it.
        self._keepalive_timeout = 0
        if self._keepalive_handle is not None:
            self._keepalive_handle.cancel()
            self._keepalive_handle = None
        self._loop.call_soon(self._close_if_idle)
        return True  # keep the transport open for the answers

    def _close_if_idle(self) -> None:
        if self.transport is not None and self._idle():
            self.force_close()


def protocol_factory(server: web.Server, **handler_args: object):
    """What `loop.create_server` calls for each connection: aiohttp's handler for `server` (an
    AppRunner's), made with the same arguments the runner gives its own."""
    loop = asyncio.get_running_loop()

    def make() -> HalfCloseHandler:
        return HalfCloseHandler(server, loop=loop, **handler_args)

    return make
