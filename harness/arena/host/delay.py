"""A TCP proxy that holds everything it passes for a fixed time, each way: the round trip between a
server and its database that a seed measured across the internet (the honours report's cloud
database, spec/findings.md), put back on loopback. A chunk is held, not the connection: what is
sent meanwhile follows on its own schedule, in order, so the proxy adds latency and no queue."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from urllib.parse import urlsplit, urlunsplit

CHUNK = 65536


class DelayProxy:
    """Listens on a free loopback port and forwards each connection to `host:port`, every chunk
    `delay_s` late in each direction; a context manager, stopped with everything it holds."""

    def __init__(self, host: str, port: int, delay_s: float) -> None:
        self.target, self.delay_s = (host, port), delay_s
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="delay-proxy", daemon=True)
        self._server: asyncio.Server | None = None

    def __enter__(self) -> DelayProxy:
        self._thread.start()
        self._server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._serve, "127.0.0.1", 0), self._loop
        ).result(timeout=10)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def __exit__(self, *_) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    def url(self, url: str) -> str:
        """A database URL whose host and port are the target's, pointed at the proxy instead."""
        parts = urlsplit(url)
        credentials = parts.netloc.rpartition("@")[0]
        netloc = f"{credentials}@127.0.0.1:{self.port}" if credentials else f"127.0.0.1:{self.port}"
        return urlunsplit(parts._replace(netloc=netloc))

    async def _stop(self) -> None:
        """Closes the listener and every connection it holds, and waits until their tasks have
        ended: a task the loop still held when it closed would be reported, with a traceback."""
        assert self._server is not None
        self._server.close()
        tasks = asyncio.all_tasks() - {asyncio.current_task()}
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(self._pipe(reader, upstream_writer), self._pipe(upstream_reader, writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Reads chunks and writes each `delay_s` after it arrived, in order, until either side closes."""
        held: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()
        loop = asyncio.get_running_loop()

        async def release() -> None:
            while True:
                due, chunk = await held.get()
                await asyncio.sleep(max(0.0, due - loop.time()))
                if not chunk:
                    break
                writer.write(chunk)
                await writer.drain()

        releasing = asyncio.ensure_future(release())
        try:
            while chunk := await reader.read(CHUNK):
                held.put_nowait((loop.time() + self.delay_s, chunk))
            held.put_nowait((loop.time() + self.delay_s, b""))  # the end, on the same schedule
            await releasing
        except (OSError, asyncio.IncompleteReadError):
            releasing.cancel()
        finally:
            with contextlib.suppress(OSError, RuntimeError):
                writer.close()
