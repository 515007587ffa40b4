"""The shared state across processes: the store protocol between workers and the supervisor, and
the /hello counter in shared memory."""

from __future__ import annotations

import asyncio
import os
import socket

import pytest
from arena_aiohttp.store import (
    GET_PASSWORD,
    GET_USER,
    SET_PASSWORD,
    SET_USER,
    Frames,
    LocalCounter,
    LocalStore,
    RemoteStore,
    SharedCounter,
    StoreServer,
    StoreUnavailable,
    Tables,
    answer_frame,
    request_frame,
)


def test_frames_split_a_stream_anywhere():
    stream = request_frame(SET_USER, "ada", b'{"a":1}') + answer_frame(None) + answer_frame(b"x" * 70_000)
    for step in (1, 7, 4096):
        frames, found = Frames(), []
        for i in range(0, len(stream), step):
            found += frames.feed(stream[i : i + step])
        assert found == [bytes((SET_USER, 3)) + b'ada{"a":1}', b"\x01", b"\x00" + b"x" * 70_000]


def test_an_oversized_frame_is_refused():
    with pytest.raises(ValueError):
        Frames().feed(b"\xff\xff\xff\xff")


async def test_local_store():
    store = LocalStore()
    assert await store.call(GET_USER, "a") is None
    assert await store.call(SET_USER, "a", b"{}") == b""
    assert await store.call(GET_USER, "a") == b"{}"
    assert await store.call(GET_PASSWORD, "a") is None  # users and passwords are apart


async def connected(tables: Tables, lost=None) -> RemoteStore:
    """A worker's RemoteStore talking to a StoreServer over a real Unix socket pair."""
    loop = asyncio.get_running_loop()
    worker_end, store_end = socket.socketpair()
    await loop.connect_accepted_socket(lambda: StoreServer(tables), sock=store_end)
    _, remote = await loop.create_connection(lambda: RemoteStore(lost), sock=worker_end)
    return remote


async def test_two_workers_see_each_others_writes():
    tables = Tables()
    one, two = await connected(tables), await connected(tables)
    assert await one.call(SET_USER, "ada", b'{"x":1}') == b""
    assert await two.call(GET_USER, "ada") == b'{"x":1}'
    await two.call(SET_PASSWORD, "ada", b"$2b$04$hash")
    assert await one.call(GET_PASSWORD, "ada") == b"$2b$04$hash"
    assert await one.call(GET_USER, "nobody") is None
    assert await one.call(SET_USER, "empty", b"") == b""
    assert await two.call(GET_USER, "empty") == b""  # found, though empty: not None


async def test_many_requests_in_flight_are_answered_in_order():
    remote = await connected(Tables())
    await asyncio.gather(*(remote.call(SET_USER, f"u{i}", str(i).encode()) for i in range(500)))
    answers = await asyncio.gather(*(remote.call(GET_USER, f"u{i}") for i in range(500)))
    assert answers == [str(i).encode() for i in range(500)]


async def test_a_lost_store_fails_the_waiting_and_tells_the_worker():
    loop = asyncio.get_running_loop()
    lost = loop.create_future()
    worker_end, store_end = socket.socketpair()
    _, remote = await loop.create_connection(lambda: RemoteStore(lambda: lost.set_result(True)), sock=worker_end)
    waiting = asyncio.ensure_future(remote.call(GET_USER, "a"))
    await asyncio.sleep(0.01)
    store_end.close()
    with pytest.raises(StoreUnavailable):
        await waiting
    assert await lost
    with pytest.raises(StoreUnavailable):
        await remote.call(GET_USER, "a")


def test_local_counter():
    counter = LocalCounter()
    assert [counter.next() for _ in range(3)] == [1, 2, 3]


def test_shared_counter_is_one_count_over_forked_processes():
    """Three processes take 2,000 numbers each at once: every number from 1 to 6,000 exactly once."""
    counter = SharedCounter()
    pipes, children = [], []
    for _ in range(3):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            taken = [counter.next() for _ in range(2000)]
            os.write(write, ",".join(map(str, taken)).encode())
            os._exit(0)
        os.close(write)
        pipes.append(read)
        children.append(pid)
    taken = []
    for read in pipes:
        with os.fdopen(read, "rb") as pipe:
            taken += [int(n) for n in pipe.read().split(b",")]
    for pid in children:
        assert os.waitpid(pid, 0)[1] == 0
    assert sorted(taken) == list(range(1, 6001))
    assert counter.next() == 6001
