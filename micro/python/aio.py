"""The benches on asyncio: a process is a Task, its mailbox an asyncio.Queue.

One event loop runs every task on one thread. A send is put_nowait of a reference into the receiver's
unbounded queue; a receive awaits the queue's get(), which suspends the task until a message is there.
A TaskGroup holds the processes, so a failed check in one cancels the others instead of leaving them
waiting forever.
"""

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from time import perf_counter

from common import Params, Payload, Result, rss_kb


async def _signal_and_receive(started: asyncio.Queue, inbox: asyncio.Queue):
    started.put_nowait(None)
    return await inbox.get()


async def _wait_started(started: asyncio.Queue, n: int) -> int:
    alive = 0
    for _ in range(n):
        await started.get()
        alive += 1
    return alive


async def _exchange(rounds: int, payload: Payload, inbox: asyncio.Queue, peer: asyncio.Queue) -> tuple[int, float]:
    received = 0
    for seq in range(rounds):
        peer.put_nowait(payload.make(seq))
        payload.check(await inbox.get(), received)
        received += 1
    return received, perf_counter()


async def _pingping_peer(p: Params, payload: Payload, started, inbox, peer) -> tuple[int, float]:
    await _signal_and_receive(started, inbox)  # the go message
    return await _exchange(p.rounds, payload, inbox, peer)


async def pingping(p: Params, payload: Payload) -> Result:
    started, mine, theirs = asyncio.Queue(), asyncio.Queue(), asyncio.Queue()
    async with asyncio.TaskGroup() as group:
        peer = group.create_task(_pingping_peer(p, payload, started, theirs, mine))
        await _wait_started(started, 1)
        start = perf_counter()
        theirs.put_nowait("go")
        received, end = await _exchange(p.rounds, payload, mine, theirs)
    peer_received, peer_end = peer.result()
    return Result(max(end, peer_end) - start, {"received": received + peer_received})


async def _answer(rounds: int, payload: Payload, started, inbox, peer) -> None:
    started.put_nowait(None)
    for received in range(rounds):
        payload.check(await inbox.get(), received)
        peer.put_nowait(payload.make(received))


async def pingpong(p: Params, payload: Payload) -> Result:
    started, mine, theirs = asyncio.Queue(), asyncio.Queue(), asyncio.Queue()
    async with asyncio.TaskGroup() as group:
        group.create_task(_answer(p.rounds, payload, started, theirs, mine))
        await _wait_started(started, 1)
        start = perf_counter()
        round_trips = 0
        for seq in range(p.rounds):
            theirs.put_nowait(payload.make(seq))
            payload.check(await mine.get(), round_trips)
            round_trips += 1
        elapsed = perf_counter() - start
    return Result(elapsed, {"round_trips": round_trips})


async def spawn(p: Params, payload: Payload) -> Result:
    started = asyncio.Queue()
    before = rss_kb()
    async with asyncio.TaskGroup() as group:
        start = perf_counter()
        inboxes = []
        for _ in range(p.procs):
            inbox = asyncio.Queue()
            group.create_task(_signal_and_receive(started, inbox))
            inboxes.append(inbox)
        alive = await _wait_started(started, p.procs)
        elapsed = perf_counter() - start
        peak = rss_kb()
        for inbox in inboxes:
            inbox.put_nowait("stop")
    return Result(elapsed, {"alive": alive}, (before, peak))


async def _serve(payload: Payload, started, inbox, peer) -> int:
    started.put_nowait(None)
    received = 0
    while (data := await inbox.get()) is not None:
        payload.check(data, received)
        peer.put_nowait(payload.make(received))
        received += 1
    return received


async def _play(payload: Payload, started, inbox, peer) -> tuple[int, float]:
    deadline = await _signal_and_receive(started, inbox)
    received = 0
    while True:
        peer.put_nowait(payload.make(received))  # sends so far = answers received so far
        payload.check(await inbox.get(), received)
        received += 1
        if (now := perf_counter()) >= deadline:
            peer.put_nowait(None)
            return received, now


async def throughput(p: Params, payload: Payload) -> Result:
    started = asyncio.Queue()
    async with asyncio.TaskGroup() as group:
        pairs = []
        for _ in range(p.pairs):
            player, server = asyncio.Queue(), asyncio.Queue()
            pairs.append(
                (
                    player,
                    group.create_task(_play(payload, started, player, server)),
                    group.create_task(_serve(payload, started, server, player)),
                )
            )
        await _wait_started(started, 2 * p.pairs)
        start = perf_counter()
        for player, _, _ in pairs:
            player.put_nowait(start + p.seconds)
    per_pair, ends = [], []
    for _, play, serve in pairs:
        received, end = play.result()
        per_pair.append(received + serve.result())
        ends.append(end)
    return Result(max(ends) - start, {"messages": sum(per_pair), "per_pair": per_pair})


async def _forward(rounds: int, payload: Payload, started, inbox, peer) -> None:
    started.put_nowait(None)
    for _ in range(rounds):
        hops, data = await inbox.get()
        payload.check(data, hops)
        hops += 1
        peer.put_nowait((hops, payload.make(hops)))


async def ring(p: Params, payload: Payload) -> Result:
    started = asyncio.Queue()
    inboxes = [asyncio.Queue() for _ in range(p.procs)]  # inboxes[0] is the main process's
    async with asyncio.TaskGroup() as group:
        for i in range(1, p.procs):
            group.create_task(_forward(p.rounds, payload, started, inboxes[i], inboxes[(i + 1) % p.procs]))
        await _wait_started(started, p.procs - 1)
        start = perf_counter()
        hops = laps = 0
        for _ in range(p.rounds):
            inboxes[1].put_nowait((hops, payload.make(hops)))
            hops, data = await inboxes[0].get()
            payload.check(data, hops)
            hops += 1
            laps += 1
        elapsed = perf_counter() - start
    return Result(elapsed, {"laps": laps, "hops": hops})


BENCHES = {"pingping": pingping, "pingpong": pingpong, "spawn": spawn, "throughput": throughput, "ring": ring}


@contextmanager
def session() -> Iterator:
    """Yields run(bench, p), which runs the bench once; every run (the warm-up's and the measured one) is on
    the same event loop, and its TaskGroup has ended every task of it when it returns."""
    with asyncio.Runner() as runner:
        yield lambda bench, p: runner.run(BENCHES[bench](p, Payload(p.mode, p.size)))
