"""Start-up: the settings, the listening socket, and the processes that serve it.

ARENA_CPUS=1: this process serves HTTP itself, with the store and the /hello counter in it.

ARENA_CPUS=N>1: the pre-fork model of gunicorn and most Python servers. This process binds and
listens first, then forks N workers that inherit the listening socket; each runs its own asyncio
event loop and aiohttp server on it, and the kernel hands each new connection to one of the
workers waiting in accept (a busy worker, such as one in the middle of a /long-operation sort,
takes none). The parent serves no HTTP: it keeps the user and password store, which the workers
reach over a Unix socket pair each (store.py), and supervises them. A worker that dies stops the
server (exit 1: its requests in flight are lost); SIGINT or SIGTERM, to this process or to a
worker, stops every worker (exit 0).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import resource
import signal
import socket
import sys
import traceback
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import aiohttp
import asyncpg
import bcrypt
from aiohttp import web

from arena_aiohttp import config as configuration
from arena_aiohttp.app import State, Store, make_app
from arena_aiohttp.protocol import protocol_factory
from arena_aiohttp.records import Records
from arena_aiohttp.store import LocalCounter, LocalStore, RemoteStore, SharedCounter, StoreServer, Tables

BACKLOG = 4096  # the kernel caps it at net.core.somaxconn
# aiohttp's per-connection settings, for the runner and for the handlers protocol.py makes.
HANDLER_ARGS: dict[str, object] = {"access_log": None, "keepalive_timeout": 75.0}
SHUTDOWN_GRACE_S = 3.0  # answers in flight may finish; a long sort or poll is not waited out
KILL_AFTER_S = 5.0  # a worker that has not exited this long after SIGTERM is killed
# Held back from before the fork until each process's loop handles them: a SIGTERM to the process
# group just after the first worker answered otherwise found the supervisor or a later worker still
# without its handler, and ended it with status -15 instead of 0.
STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


class ClientErrors(logging.Filter):
    """Drops aiohttp's tracebacks of malformed requests (each answered 400 already): a flood of them
    would cost more to log than to refuse. Errors of the server's own still reach the log."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], aiohttp.http_exceptions.HttpProcessingError))


def say(text: str) -> None:
    print(f"python server[{os.getpid()}]: {text}", flush=True)


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound before any worker starts (so a port in use fails at start)."""
    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = found[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(address)
    sock.listen(BACKLOG)
    sock.setblocking(False)
    return sock


def raise_open_files_limit() -> None:
    """Every connection is a file descriptor: take the most the hard limit allows."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


StoreMaker = Callable[[Callable[[], None]], Awaitable[Store]]


async def local_store(on_lost: Callable[[], None]) -> Store:
    return LocalStore()


def remote_store(end: socket.socket) -> StoreMaker:
    async def connect(on_lost: Callable[[], None]) -> Store:
        loop = asyncio.get_running_loop()
        _, protocol = await loop.create_connection(lambda: RemoteStore(on_lost), sock=end)
        return protocol

    return connect


async def serve(
    cfg: configuration.Config, hello: bytes, sock: socket.socket, make_store: StoreMaker, counter, name: str
) -> int:
    """One event loop serving HTTP on `sock` until SIGINT or SIGTERM (0) or the store is lost (1)."""
    loop = asyncio.get_running_loop()
    stopped = loop.create_future()

    def stop(code: int) -> None:
        if not stopped.done():
            stopped.set_result(code)

    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, stop, 0)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    store = await make_store(lambda: stop(1))
    records = Records(cfg.db, cfg.pool_per_worker)
    await records.start()
    # bcrypt releases the GIL while it hashes, so these threads hash in parallel with the loop and
    # with each other; as many as the core budget, so one worker can use every core for it.
    hasher = ThreadPoolExecutor(max_workers=cfg.cpus, thread_name_prefix="bcrypt")
    app = make_app(State(cfg, hello, store, counter, records, hasher))
    runner = web.AppRunner(app, shutdown_timeout=SHUTDOWN_GRACE_S, **HANDLER_ARGS)
    await runner.setup()
    server = await loop.create_server(protocol_factory(runner.server, **HANDLER_ARGS), sock=sock, backlog=BACKLOG)
    say(
        f"{name} serving http://{cfg.host}:{cfg.port} (aiohttp {aiohttp.__version__}, asyncpg {asyncpg.__version__}, "
        f"bcrypt {bcrypt.__version__}; bcrypt_cost={cfg.bcrypt_cost} longpoll_ms={cfg.longpoll_ms} "
        f"hello_delay_ms={cfg.hello_delay_ms} every={cfg.hello_delay_every} sort_n={cfg.sort_n} "
        f"db={'yes' if cfg.db else 'no'} db_pool={cfg.pool_per_worker} of {cfg.db_pool})"
    )
    code = await stopped
    server.close()
    await runner.cleanup()
    await records.close()
    hasher.shutdown(wait=False, cancel_futures=True)
    if code:
        say(f"{name}: the store process is gone; stopping")
    return code


def run_worker(
    cfg: configuration.Config, hello: bytes, sock: socket.socket, make_store: StoreMaker, counter, name: str
) -> int:
    return asyncio.run(serve(cfg, hello, sock, make_store, counter, name))


def fork_worker(cfg: configuration.Config, hello: bytes, sock: socket.socket, counter, index: int, keep: list):
    """Forks worker `index`; returns its pid and the parent's end of its store connection."""
    parent_end, child_end = socket.socketpair()
    pid = os.fork()
    if pid:
        child_end.close()
        return pid, parent_end
    code = 1
    try:
        parent_end.close()
        for end in keep:  # other workers' store connections are the parent's, not this worker's
            end.close()
        code = run_worker(cfg, hello, sock, remote_store(child_end), counter, f"worker {index}")
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


async def supervise(ends: list[socket.socket], children: dict[int, int]) -> int:
    """The parent's loop: the store for every worker, and the workers' exits."""
    loop = asyncio.get_running_loop()
    tables = Tables()
    for end in ends:
        await loop.connect_accepted_socket(lambda: StoreServer(tables), sock=end)
    all_exited = loop.create_future()
    state = {"code": 0, "stopping": False}

    def stop_workers(code: int) -> None:
        state["code"] = max(state["code"], code)
        if state["stopping"]:
            return
        state["stopping"] = True
        for pid in children:
            signal_worker(pid, signal.SIGTERM)
        loop.call_later(KILL_AFTER_S, lambda: [signal_worker(pid, signal.SIGKILL) for pid in list(children)])

    def reap() -> None:
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                children.clear()
                break
            if pid == 0:
                break
            index = children.pop(pid, None)
            if not state["stopping"]:
                code = os.waitstatus_to_exitcode(status)
                # Status 0: the worker was told to stop (a SIGTERM or Ctrl-C to the whole process
                # group reaches it before this process sometimes); anything else is a crash.
                say(f"worker {index} (pid {pid}) exited ({code}); stopping the server")
                stop_workers(0 if code == 0 else 1)
        if not children and not all_exited.done():
            all_exited.set_result(None)

    loop.add_signal_handler(signal.SIGCHLD, reap)
    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, stop_workers, 0)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    reap()  # a worker that exited before the handler was there
    await all_exited
    return state["code"]


def signal_worker(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):  # it exited meanwhile
        os.kill(pid, sig)


def main() -> int:
    try:
        cfg = configuration.load(os.environ)
    except configuration.ConfigError as err:
        print(f"python server: {err}", file=sys.stderr, flush=True)
        return 2
    page = Path(cfg.data_dir, "hello.html")
    try:
        hello = page.read_bytes()
    except OSError as err:
        print(f"python server: ARENA_DATA_DIR: cannot read {page}: {err}", file=sys.stderr, flush=True)
        return 1
    raise_open_files_limit()
    logging.getLogger("aiohttp.server").addFilter(ClientErrors())
    try:
        sock = listen(cfg.host, cfg.port)
    except OSError as err:
        print(f"python server: cannot listen on {cfg.host}:{cfg.port}: {err}", file=sys.stderr, flush=True)
        return 1
    if cfg.workers == 1:
        return run_worker(cfg, hello, sock, local_store, LocalCounter(), "single process")
    counter = SharedCounter()
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    children: dict[int, int] = {}
    ends: list[socket.socket] = []
    for index in range(cfg.workers):
        pid, end = fork_worker(cfg, hello, sock, counter, index, ends)
        children[pid] = index
        ends.append(end)
    sock.close()  # the workers hold it; the parent serves no HTTP
    say(f"supervisor: {cfg.workers} workers, the store in this process")
    return asyncio.run(supervise(ends, children))
