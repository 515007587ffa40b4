"""The state the contract shares over the whole server: the user and password store, and the
/hello counter.

One process (ARENA_CPUS=1) keeps both in itself: `LocalStore` and `LocalCounter`.

With N worker processes the store lives in the supervisor (the parent that forked the workers):
`StoreServer` serves each worker over its own end of a Unix socket pair, and a worker's
`RemoteStore` sends it one small framed request per operation and awaits the answer, so a value
is in the one store before the worker answers the request that set it. The store applies each
request as it arrives, on one thread, so every worker sees every completed write.

The /hello counter is a 64-bit integer in shared memory with a process-shared lock
(`SharedCounter`, multiprocessing's `Value` inherited through fork): each /hello takes the next
number in a microsecond, without a round trip.

Frames, both ways: a 4-byte big-endian length, then the payload. A request's payload is one byte
of operation, one byte of key length, the key (a username, ASCII) and the value; an answer's is
one status byte (FOUND or MISSING) and the value. Answers come in the order of the requests.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import multiprocessing
import struct

SET_USER, GET_USER, SET_PASSWORD, GET_PASSWORD = 1, 2, 3, 4
FOUND, MISSING = 0, 1
HEADER = struct.Struct(">I")
MAX_FRAME = 1 << 20  # a user object is at most 64 KiB; anything larger is a broken peer


class LocalCounter:
    """The /hello count of a single process."""

    def __init__(self) -> None:
        self._count = itertools.count(1)

    def next(self) -> int:
        return next(self._count)


class SharedCounter:
    """The /hello count of every worker process: shared memory and a lock, created before the fork."""

    def __init__(self) -> None:
        self._value = multiprocessing.get_context("fork").Value("Q", 0)

    def next(self) -> int:
        with self._value.get_lock():
            self._value.value += 1
            return self._value.value


class Tables:
    """The two maps, username -> bytes: JSON text of the user object, and bcrypt hash."""

    def __init__(self) -> None:
        self.users: dict[str, bytes] = {}
        self.passwords: dict[str, bytes] = {}

    def apply(self, op: int, key: str, value: bytes) -> bytes | None:
        """Runs one operation; the value read (None: no such key), or b"" for a write."""
        if op == SET_USER:
            self.users[key] = value
            return b""
        if op == GET_USER:
            return self.users.get(key)
        if op == SET_PASSWORD:
            self.passwords[key] = value
            return b""
        if op == GET_PASSWORD:
            return self.passwords.get(key)
        raise ValueError(f"unknown store operation {op}")


class LocalStore:
    """The store of a single process: its own maps, no messages."""

    def __init__(self) -> None:
        self.tables = Tables()

    async def call(self, op: int, key: str, value: bytes = b"") -> bytes | None:
        return self.tables.apply(op, key, value)


def request_frame(op: int, key: str, value: bytes) -> bytes:
    name = key.encode("ascii")
    return HEADER.pack(2 + len(name) + len(value)) + bytes((op, len(name))) + name + value


def answer_frame(found: bytes | None) -> bytes:
    if found is None:
        return HEADER.pack(1) + bytes((MISSING,))
    return HEADER.pack(1 + len(found)) + bytes((FOUND,)) + found


class Frames:
    """Splits a byte stream into frames."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self._buffer += data
        frames = []
        while len(self._buffer) >= HEADER.size:
            (size,) = HEADER.unpack_from(self._buffer)
            if size > MAX_FRAME:
                raise ValueError(f"a store frame of {size} bytes")
            end = HEADER.size + size
            if len(self._buffer) < end:
                break
            frames.append(bytes(self._buffer[HEADER.size : end]))
            del self._buffer[:end]
        return frames


class StoreServer(asyncio.Protocol):
    """The supervisor's end of one worker's connection: applies its requests in order, answers each."""

    def __init__(self, tables: Tables) -> None:
        self._tables = tables
        self._frames = Frames()
        self._transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        assert self._transport is not None
        try:
            frames = self._frames.feed(data)
            answers = []
            for frame in frames:
                op, size = frame[0], frame[1]
                key = frame[2 : 2 + size].decode("ascii")
                answers.append(answer_frame(self._tables.apply(op, key, frame[2 + size :])))
        except (ValueError, IndexError) as err:  # a broken worker: drop it, the supervisor notices its exit
            print(f"python server: store: dropping a worker's connection: {err}", flush=True)
            self._transport.abort()
            return
        self._transport.write(b"".join(answers))


class StoreUnavailable(ConnectionError):
    """The supervisor's store cannot be reached (it exited)."""


class RemoteStore(asyncio.Protocol):
    """A worker's end: requests written as they come, answers matched to them in order."""

    def __init__(self, on_lost=None) -> None:
        self._frames = Frames()
        self._waiting: collections.deque[asyncio.Future[bytes | None]] = collections.deque()
        self._transport: asyncio.Transport | None = None
        self._lost = False
        self._on_lost = on_lost

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        for frame in self._frames.feed(data):
            waiter = self._waiting.popleft()
            if not waiter.done():  # its request may have been cancelled meanwhile
                waiter.set_result(frame[1:] if frame[0] == FOUND else None)

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost = True
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_exception(StoreUnavailable("the store process is gone"))
        if self._on_lost is not None:
            self._on_lost()

    async def call(self, op: int, key: str, value: bytes = b"") -> bytes | None:
        if self._lost or self._transport is None:
            raise StoreUnavailable("the store process is gone")
        waiter = asyncio.get_running_loop().create_future()
        self._waiting.append(waiter)
        self._transport.write(request_frame(op, key, value))
        return await waiter
