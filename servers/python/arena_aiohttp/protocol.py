"""aiohttp's connection handler with five changes of what a connection does at its edges.

Half-close. A client may shut its sending side once its last request is sent and still read the
answers (RFC 9112, 9.6; `nc -N`, some proxies). aiohttp's RequestHandler takes the end of the
input (`eof_received`) for the end of the connection: asyncio then closes the socket, and an
answer still being made is written to nowhere (even `GET /` loses its answer). This handler keeps
the socket open for writing instead: the requests already received are answered, in order, and
the connection closes right after the last answer, or at once when it is idle. A request whose
body the half-close cut short can never complete: then the connection closes at once, as aiohttp
would close it.

Unread bodies. After answering a request whose body the handler did not read (a 413, a 404, a
405, ...), aiohttp reads and discards the rest of the body for up to its lingering time (10 s),
so that the connection can be kept. That is worth it for a small body; for one that is large, of
unknown length (chunked) or refused with `Connection: close`, the connection closes at once
rather than read a gigabyte for nothing.

Refused requests. Once the parser has refused a request (answered 400, then the connection is
closed), aiohttp goes on feeding it whatever else arrives before the close, and its parser makes
a new error of every chunk, each with a copy of the chunk in its message: a client sending a 2 MiB
header costs megabytes a connection. This handler stops reading instead.

Error answers. aiohttp's HTTP exceptions are raised by the handlers and answered as they are;
each one's traceback makes a reference cycle with the request (and its body buffers) that only
the cycle collector frees. The handler drops the traceback once the exception is the answer, so
they are freed at once.

HTTP versions. llhttp parses `HTTP/2.0` (and 0.9) in a request line, and aiohttp would answer
it as if it were HTTP/1.1; other versions (`HTTP/9.9`, `HTTP/1.2`) it refuses, and aiohttp
answers 400. Both are answered 505 instead, as RFC 9110 (15.6.6) has it.

It uses attributes of its base class that are not part of aiohttp's API (`_waiter`, `_messages`,
`_request_count`, and `_close`, the flag `close()` sets, here without waking the handler) and
its error record `_ErrInfo`; the half-close, version and body tests in tests/test_process.py would catch them changing.
"""

from __future__ import annotations

import asyncio

from aiohttp import web
from aiohttp.http import RawRequestMessage
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.streams import EMPTY_PAYLOAD
from aiohttp.web_protocol import RequestHandler, _ErrInfo

# A body left unread up to this size is still read (and thrown away) after the answer, so that a
# client that sends its whole body before it reads gets the answer on a connection kept alive.
DRAIN_LIMIT = 1 << 20
# What aiohttp's parser makes of a request it cannot parse, here for one in an HTTP version other
# than 1.0 and 1.1: answered 505 by aiohttp's error handler, which then closes the connection.
UNSUPPORTED_VERSION = _ErrInfo(
    status=505,
    exc=HttpProcessingError(code=505, message="HTTP version not supported"),
    message="HTTP version not supported",
)


class Handler(RequestHandler):
    __slots__ = ("_half_closed", "_last_payload", "_refused")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._half_closed = False
        self._last_payload = None  # the body of the latest request received, complete or coming
        self._refused = False  # a request the parser refused: its error answer is the last

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return  # the connection closes after its error answer: what follows is not parsed
        received = len(self._messages)
        super().data_received(data)
        for index in range(received, len(self._messages)):
            message = self._messages[index][0]
            if isinstance(message, RawRequestMessage) and message.version.major != 1:
                self._messages[index] = (UNSUPPORTED_VERSION, EMPTY_PAYLOAD)
                self._refused = True
            elif isinstance(message, _ErrInfo):
                if "Invalid HTTP version" in str(message.exc):  # llhttp's reason for it
                    self._messages[index] = (UNSUPPORTED_VERSION, EMPTY_PAYLOAD)
                self._refused = True
        if self._refused and self.transport is not None:
            self.transport.pause_reading()
        if self._messages:
            self._last_payload = self._messages[-1][1]

    def _body_cut_short(self) -> bool:
        """A request received whose body has not all come (only the latest one can be)."""
        return self._last_payload is not None and not self._last_payload.is_eof()

    def eof_received(self) -> bool:
        if self._request_count == 0 or self._body_cut_short():
            return False  # nothing to answer, or nothing can complete it: close, as aiohttp does
        self._half_closed = True
        if not self._messages:
            self._close = True  # the request in hand, if any, is the last: close after its answer
        self._loop.call_soon(self._close_if_idle)
        return True  # keep the socket open for the answers

    def _close_if_idle(self) -> None:
        """Waiting for a request that cannot come (the state aiohttp's keep-alive timer closes in)."""
        if self.transport is not None and self._waiter is not None and not self._waiter.done() and not self._messages:
            self.force_close()

    async def finish_response(self, request, resp, start_time):
        if self._half_closed and not self._messages:
            self._close = True  # the last of the requests queued when the input ended
        if isinstance(resp, web.HTTPException):
            # An error answer raised by a handler (or the router) is the exception itself, and
            # its traceback holds the frame that holds it: a cycle, keeping the request and any
            # body read so far until Python's cycle collector comes by. Dropped here, they go at once.
            resp.__traceback__ = None
        done = await super().finish_response(request, resp, start_time)
        if not request.content.is_eof():
            length = request.content_length
            if not resp.keep_alive or length is None or length > DRAIN_LIMIT:
                self.force_close()  # after the answer written: asyncio flushes it, then closes
        return done


def protocol_factory(server: web.Server, **handler_args: object):
    """What `loop.create_server` calls for each connection: a Handler for `server` (an
    AppRunner's), made with the same arguments the runner gives aiohttp's own."""
    loop = asyncio.get_running_loop()

    def make() -> Handler:
        return Handler(server, loop=loop, **handler_args)

    return make
