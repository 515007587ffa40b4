"""Server starts shared by the points of one repetition.

Every repetition of an implementation on a core budget is one server start that serves each point
in turn — the busiest load first — and each point is still measured only once it is steady under
its own load (rest/steady.py). A start per point would make a runtime that compiles as it runs pay
its whole warm-up again for every experiment: the JVMs need 10-60 s of load to compile their
request path (Java's blog-ab rose from 370 to 485 req/s over a minute here), which a 20-minute
suite cannot give every one of 45 starts. Sharing also matches what a server does in production,
where it serves whatever comes after its start; the cold start (to the first answer, and to a
steady state under the first point's load) is still timed at every start.

A start is replaced when the next point belongs to another repetition, implementation or budget,
needs other values of the same server settings, or when the server died or a measurement failed on
it (a server in an unknown state measures nothing more).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass

from arena.host.database import Database
from arena.host.process import Server, free_port, running
from arena.kind import Task
from arena.rest import ceiling
from arena.rest.scenarios import Point


def start_settings(points: list[Point]) -> dict[tuple[str, str], dict[str, str]]:
    """Each point's server settings for a shared start: every setting of every point, since each
    changes only its own endpoint (the hello delays, the long-poll wait, the bcrypt cost); where
    points want different values of one setting, each keeps its own, and they need separate starts."""
    values: dict[str, set[str]] = {}
    for point in points:
        for name, value in point.settings().items():
            values.setdefault(name, set()).add(value)
    shared = {name: next(iter(v)) for name, v in values.items() if len(v) == 1}
    return {(p.experiment, p.key): shared | p.settings() for p in points}


def nominal_rps(point: Point, cpus: int) -> float:
    """The requests a second the point's load asks for at most, to order a start's points: an open
    model's arrivals, a closed model's users' cycles, the blog's delayed workers (rest/ceiling.py);
    a fixed count with nothing to wait for, as fast as the server goes."""
    model, steps = point.model_on(cpus), len(point.scenario.steps)
    if model["kind"] == "open":
        stages = model.get("stages")
        return (stages[0]["rate"] if stages else model["rate"]) * steps
    if model["kind"] == "closed":
        return ceiling.cycles_rps(model, steps, point.profile().get("ideal_wait_s", 0.0))
    return ceiling.hello_delays_rps(point) if ceiling.kind_of(point) == "hello-delays" else float("inf")


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
        self.current: Start | None = None

    def server(self, task: Task, cores: list[int], phase: Callable[[str], None]) -> tuple[Server, int, float]:
        """A ready server for the task; how many points it measured before, and its age in seconds."""
        settings = self.settings[(task.point.experiment, task.point.key)]
        key = (task.manifest.name, task.cpus, task.repetition, tuple(sorted(settings.items())))
        if self.current is None or self.current.key != key or not self.current.server.alive():
            self.close()
            phase("start")
            stack = contextlib.ExitStack()
            try:
                given = {**settings, **self.given}
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
