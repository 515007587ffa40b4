"""The benches on threads: a process is a threading.Thread, its mailbox a queue.SimpleQueue.

Every process is an OS thread, but the GIL lets one of them run Python code at a time. A send is put()
of a reference into the receiver's unbounded queue; a receive is a blocking get(), which releases the
GIL until a message is there. A process reports its counts to the main thread as a message on a
`done` queue.
"""

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from queue import SimpleQueue
from time import perf_counter

from common import Params, Payload, Result, rss_kb


def _fail(hook: threading.ExceptHookArgs) -> None:
    # A process whose check failed leaves its peers blocked on their receives: end the whole program.
    print(f"{hook.thread.name}: {hook.exc_type.__name__}: {hook.exc_value}", file=sys.stderr, flush=True)
    os._exit(1)


threading.excepthook = _fail


def _start(target, *args) -> threading.Thread:
    # Daemon: the program must be able to exit with the reason when it cannot create every thread.
    thread = threading.Thread(target=target, args=args, daemon=True)
    thread.start()
    return thread


def _wait_started(started: SimpleQueue, n: int) -> int:
    alive = 0
    for _ in range(n):
        started.get()
        alive += 1
    return alive


def _exchange(rounds: int, payload: Payload, inbox: SimpleQueue, peer: SimpleQueue) -> tuple[int, float]:
    received = 0
    for seq in range(rounds):
        peer.put(payload.make(seq))
        payload.check(inbox.get(), received)
        received += 1
    return received, perf_counter()


def _pingping_peer(p: Params, payload: Payload, started, inbox, peer, done) -> None:
    started.put(None)
    inbox.get()  # the go message
    done.put(_exchange(p.rounds, payload, inbox, peer))


def pingping(p: Params, payload: Payload) -> Result:
    started, mine, theirs, done = SimpleQueue(), SimpleQueue(), SimpleQueue(), SimpleQueue()
    thread = _start(_pingping_peer, p, payload, started, theirs, mine, done)
    _wait_started(started, 1)
    start = perf_counter()
    theirs.put("go")
    received, end = _exchange(p.rounds, payload, mine, theirs)
    peer_received, peer_end = done.get()
    thread.join()
    return Result(max(end, peer_end) - start, {"received": received + peer_received})


def _answer(rounds: int, payload: Payload, started, inbox, peer) -> None:
    started.put(None)
    for received in range(rounds):
        payload.check(inbox.get(), received)
        peer.put(payload.make(received))


def pingpong(p: Params, payload: Payload) -> Result:
    started, mine, theirs = SimpleQueue(), SimpleQueue(), SimpleQueue()
    thread = _start(_answer, p.rounds, payload, started, theirs, mine)
    _wait_started(started, 1)
    start = perf_counter()
    round_trips = 0
    for seq in range(p.rounds):
        theirs.put(payload.make(seq))
        payload.check(mine.get(), round_trips)
        round_trips += 1
    elapsed = perf_counter() - start
    thread.join()
    return Result(elapsed, {"round_trips": round_trips})


def _signal_and_receive(started: SimpleQueue, inbox: SimpleQueue) -> None:
    started.put(None)
    inbox.get()


def spawn(p: Params, payload: Payload) -> Result:
    started = SimpleQueue()
    before = rss_kb()
    start = perf_counter()
    processes = []
    for i in range(p.procs):
        inbox = SimpleQueue()
        try:
            processes.append((_start(_signal_and_receive, started, inbox), inbox))
        except RuntimeError as err:
            raise RuntimeError(f"could not start thread {i + 1} of {p.procs}: {err}") from err
    alive = _wait_started(started, p.procs)
    elapsed = perf_counter() - start
    peak = rss_kb()
    for _, inbox in processes:
        inbox.put("stop")
    for thread, _ in processes:
        thread.join()
    return Result(elapsed, {"alive": alive}, (before, peak))


def _serve(payload: Payload, started, inbox, peer, done) -> None:
    started.put(None)
    received = 0
    while (data := inbox.get()) is not None:
        payload.check(data, received)
        peer.put(payload.make(received))
        received += 1
    done.put(received)


def _play(payload: Payload, started, inbox, peer, done) -> None:
    started.put(None)
    deadline = inbox.get()
    received = 0
    while True:
        peer.put(payload.make(received))  # sends so far = answers received so far
        payload.check(inbox.get(), received)
        received += 1
        if (now := perf_counter()) >= deadline:
            peer.put(None)
            done.put((received, now))
            return


def throughput(p: Params, payload: Payload) -> Result:
    started = SimpleQueue()
    pairs = []
    for _ in range(p.pairs):
        player, server, played, served = SimpleQueue(), SimpleQueue(), SimpleQueue(), SimpleQueue()
        threads = (
            _start(_play, payload, started, player, server, played),
            _start(_serve, payload, started, server, player, served),
        )
        pairs.append((player, played, served, threads))
    _wait_started(started, 2 * p.pairs)
    start = perf_counter()
    for player, *_ in pairs:
        player.put(start + p.seconds)
    per_pair, ends = [], []
    for _, played, served, threads in pairs:
        received, end = played.get()
        per_pair.append(received + served.get())
        ends.append(end)
        for thread in threads:
            thread.join()
    return Result(max(ends) - start, {"messages": sum(per_pair), "per_pair": per_pair})


def _forward(rounds: int, payload: Payload, started, inbox, peer) -> None:
    started.put(None)
    for _ in range(rounds):
        hops, data = inbox.get()
        payload.check(data, hops)
        hops += 1
        peer.put((hops, payload.make(hops)))


def ring(p: Params, payload: Payload) -> Result:
    started = SimpleQueue()
    inboxes = [SimpleQueue() for _ in range(p.procs)]  # inboxes[0] is the main thread's
    threads = [
        _start(_forward, p.rounds, payload, started, inboxes[i], inboxes[(i + 1) % p.procs]) for i in range(1, p.procs)
    ]
    _wait_started(started, p.procs - 1)
    start = perf_counter()
    hops = laps = 0
    for _ in range(p.rounds):
        inboxes[1].put((hops, payload.make(hops)))
        hops, data = inboxes[0].get()
        payload.check(data, hops)
        hops += 1
        laps += 1
    elapsed = perf_counter() - start
    for thread in threads:
        thread.join()
    return Result(elapsed, {"laps": laps, "hops": hops})


BENCHES = {"pingping": pingping, "pingpong": pingpong, "spawn": spawn, "throughput": throughput, "ring": ring}


@contextmanager
def session() -> Iterator:
    """Yields run(bench, p), which runs the bench once and has joined every thread of it when it returns."""
    yield lambda bench, p: BENCHES[bench](p, Payload(p.mode, p.size))
