"""Server starts shared by the consecutive tasks of one implementation, budget and repetition.

A kind orders its tasks so that those of one repetition follow each other; one server start then
serves each in turn. A start per point would make a runtime that compiles as it runs pay its whole
warm-up again for every point: the JVMs need 10-60 s of load to compile their request path, which a
suite of many points cannot give every start. Sharing also matches what a server does in
production, where it serves whatever comes after its start. Each kind still measures a point only
once it is steady under the point's own load, and times the cold start at every start.

A start is replaced when the next task belongs to another repetition, implementation or budget,
needs other values of the same server settings, is a point that asks for a start of its own, or when
the server died or a measurement failed on it (a server in an unknown state measures nothing more:
the kind calls `close`). A point asks for its own start where a point before it leaves the server
past its limit: thesis-userinfo's 4,000 users inherited the 8,000 overload served just before on the
same start (p99s of 108 and 283 ms in one repetition of three, 3-12 ms in the others).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlsplit

from arena.host.database import Database
from arena.host.delay import DelayProxy
from arena.host.process import Server, free_port, running
from arena.kind import Task


class StartPoint(Protocol):
    """What a start needs of a kind's point: its identity and the server settings it wants."""

    @property
    def experiment(self) -> str: ...

    @property
    def key(self) -> str: ...

    def settings(self) -> dict[str, str]: ...

    def db_delay_s(self) -> float: ...  # held each way between server and database (host/delay.py)

    def own_start(self) -> bool: ...  # measured on a start that served no other point


def start_settings(points: list[StartPoint]) -> dict[tuple[str, str], dict[str, str]]:
    """Each point's server settings for a shared start: every setting of every point, since each
    changes only its own endpoint (the hello delays, the long-poll wait, the bcrypt cost); where
    points want different values of one setting, each keeps its own, and they need separate starts."""
    values: dict[str, set[str]] = {}
    for point in points:
        for name, value in point.settings().items():
            values.setdefault(name, set()).add(value)
    shared = {name: next(iter(v)) for name, v in values.items() if len(v) == 1}
    return {(p.experiment, p.key): shared | p.settings() for p in points}


@dataclass
class Start:
    key: tuple
    server: Server
    stack: contextlib.ExitStack
    points: int = 0  # points measured on it so far


class Starts:
    """The server start in use, replaced as the tasks require and stopped by `close`."""

    def __init__(
        self, settings: dict[tuple[str, str], dict[str, str]], db: Database | None = None, host: str = "127.0.0.1"
    ) -> None:
        self.settings = settings
        # Every start is given these, kept out of the stored settings: the database (ARENA_DB_URL)
        # and where to listen (ARENA_HOST: loopback, or where remote load generators reach it).
        self.given = {"ARENA_HOST": host} | ({"ARENA_DB_URL": db.url} if db else {})
        self.db = db
        self.current: Start | None = None

    def server(self, task: Task, cores: list[int], phase: Callable[[str], None]) -> tuple[Server, int, float]:
        """A ready server for the task; how many points it measured before, and its age in seconds."""
        settings = self.settings[(task.point.experiment, task.point.key)]
        delay_s = task.point.db_delay_s()
        own = task.point.key if task.point.own_start() else None
        key = (task.manifest.name, task.cpus, task.repetition, tuple(sorted(settings.items())), delay_s, own)
        if self.current is None or self.current.key != key or not self.current.server.alive():
            self.close()
            phase("start")
            stack = contextlib.ExitStack()
            try:
                given = {**settings, **self.given}
                if delay_s and self.db is not None:  # the database across a stated distance
                    where = urlsplit(self.db.url)
                    proxy = stack.enter_context(DelayProxy(where.hostname or "127.0.0.1", where.port or 5432, delay_s))
                    given["ARENA_DB_URL"] = proxy.url(self.db.url)
                server = stack.enter_context(running(task.manifest, task.cpus, free_port(), given, cores))
            except BaseException:
                stack.close()
                raise
            self.current = Start(key, server, stack)
        start = self.current
        start.points += 1
        return start.server, start.points - 1, time.monotonic() - start.server.started

    def close(self) -> None:
        if self.current is not None:
            current, self.current = self.current, None
            current.stack.close()
