"""The console's servers: at most one per implementation, started on a chosen core budget through
the harness's own process handling (prepared and built as `arena start` does, pinned with taskset,
logged under results/logs, its whole process tree stopped), and every one of them stopped by
`close`, which the dashboard calls however it ends.

A request leaves the console only through `url`, which names a server this object started, on
127.0.0.1 and the port it gave it: the page chooses an implementation and a path, never an address.
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass

from yarl import URL

from arena.console import Console
from arena.errors import ArenaError, UsageError
from arena.host import cores
from arena.host.database import Database, DatabaseError, database
from arena.host.process import Server, ServerError, free_port
from arena.impls.catalog import Manifest
from arena.impls.prepare import prepare
from arena.impls.toolchain import Toolchains


@dataclass
class Started:
    server: Server
    url: str  # its root, for the page to show


class Servers:
    def __init__(self, manifests: list[Manifest], console: Console, db_url: str | None = None) -> None:
        self.manifests = {m.name: m for m in manifests if not m.unavailable}
        self.console = console
        self.started: dict[str, Started] = {}
        self._db_url = db_url
        self._db: Database | None = None
        self._db_note = ""
        self._db_context: contextlib.ExitStack | None = None
        self._lock = threading.Lock()  # starts and stops come from worker threads
        self._toolchains = Toolchains(say=console.line)

    def state(self) -> list[dict]:
        """Every implementation the console offers, and whether it is running."""
        machine = len(cores.machine_cores())
        return [
            {
                "impl": name,
                "max_cpus": manifest.cpus_for(machine),
                "running": name in self.started and self.started[name].server.alive(),
                "url": self.started[name].url if name in self.started else "",
                "cpus": self.started[name].server.cpus if name in self.started else None,
                "log": str(self.started[name].server.log) if name in self.started else "",
            }
            for name, manifest in sorted(self.manifests.items())
        ]

    def _manifest(self, impl: str) -> Manifest:
        if impl not in self.manifests:
            raise UsageError(f"no implementation named {impl!r}; choose one of {', '.join(sorted(self.manifests))}")
        return self.manifests[impl]

    def _database_url(self) -> str:
        """The database for /record: the user's, or one the console starts on first need. A
        database that cannot start leaves /record answering 503, and says why."""
        if self._db is None and not self._db_note:
            stack = contextlib.ExitStack()
            try:
                self._db = stack.enter_context(database(self._db_url))
                self._db_context = stack
            except DatabaseError as err:
                stack.close()
                self._db_note = f"/record has no database: {err}"
                self.console.warn(self._db_note)
        return self._db.url if self._db else ""

    def start(self, impl: str, cpus: int) -> dict:
        """Starts `impl` on `cpus` cores (after stopping the one running); blocks until it answers."""
        manifest = self._manifest(impl)
        machine = len(cores.machine_cores())
        if not 1 <= cpus <= manifest.cpus_for(machine):
            raise UsageError(f"{impl} runs on 1..{manifest.cpus_for(machine)} core(s) here, not {cpus}")
        with self._lock:
            self._stop(impl)
            if not prepare(manifest, self._toolchains, self.console).ok:
                raise ArenaError(f"{impl} could not be prepared (built); see the terminal of arena serve")
            settings = {"ARENA_DB_URL": url} if (url := self._database_url()) else {}
            server = Server(manifest, cpus, free_port(), cores.take(cpus), settings)
            try:
                server.start()
                server.wait_ready()
            except ServerError:
                server.stop()
                raise
            self.started[impl] = Started(server, f"http://127.0.0.1:{server.port}/")
            self.console.line(f"console: {impl} serves {self.started[impl].url} on core(s) {server.cores}")
        return {"impl": impl, "url": self.started[impl].url, "ready_s": server.ready_s, "note": self._db_note}

    def _stop(self, impl: str) -> None:
        found = self.started.pop(impl, None)
        if found is not None:
            found.server.stop()
            self.console.line(f"console: {impl} stopped")

    def stop(self, impl: str) -> None:
        self._manifest(impl)
        with self._lock:
            self._stop(impl)

    def url(self, impl: str, target: str) -> URL:
        """The address of `target` (a path and query) on the server the console started for `impl`."""
        self._manifest(impl)
        found = self.started.get(impl)
        if found is None or not found.server.alive():
            raise UsageError(f"{impl} is not running: start it first")
        if not target.startswith("/") or target.startswith("//"):
            raise UsageError(f"{target!r}: a path starting with one '/', e.g. /hello")
        relative = URL(target)
        made = URL.build(scheme="http", host="127.0.0.1", port=found.server.port).join(relative)
        if (made.host, made.port) != ("127.0.0.1", found.server.port):
            raise UsageError(f"{target!r} is not a path on {impl}'s server")
        return made

    def close(self) -> None:
        """Stops every server it started, then the database it started."""
        with self._lock:
            for impl in list(self.started):
                self._stop(impl)
            if self._db_context is not None:
                self._db_context.close()
                self._db_context, self._db = None, None
