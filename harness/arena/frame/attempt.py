"""One attempt at a task of a kind that loads a server: its cores split between the server and
the engine, its server's start and its database readied the same way for every kind, the flags,
versions and parameters it has gathered, and what it stores — a measurement, or a failure whose
reason is the error's, flagged crashed when the server died. The errors a measurement can meet are
`FAILURES`; anything else is a bug, and ends the run."""

from __future__ import annotations

from collections.abc import Callable

from arena.engines.interface import EngineError
from arena.frame.starts import Starts
from arena.host import cores
from arena.host.database import Database, DatabaseError
from arena.host.process import Server, ServerError
from arena.impls.toolchain import runtime_version
from arena.kind import Task
from arena.measured.flags import Flag
from arena.measured.measurement import Measurement, Outcome

FAILURES = (ServerError, EngineError, DatabaseError, OSError)


class Attempt:
    def __init__(self, task: Task) -> None:
        self.task = task
        self.server_cores, self.engine_cores, shared = cores.split(task.cpus)
        self.flags: list[str] = [Flag.SHARED_CORES] if shared else []
        self.versions = {"runtime": runtime_version(task.manifest), "framework": task.manifest.framework}
        if (setup := task.manifest.setup).name:
            # The setup the number belongs to, as the row that measured it declared it.
            self.versions |= {"setup": setup.name, "server": setup.server, "processes": setup.processes}
        self.parameters: dict = {"server_cores": self.server_cores, "engine_cores": self.engine_cores}
        self.points_before, self.process_age_s = 0, 0.0  # of its start, once `start` gave it one

    def start(self, starts: Starts, phase: Callable[[str], None]) -> Server:
        """The server of the task's repetition (frame/starts.py), with what that start served
        before it and its age recorded: what one workload leaves the next is stated."""
        server, self.points_before, self.process_age_s = starts.server(self.task, self.server_cores, phase)
        self.parameters["start"] = {"points_before": self.points_before, "process_age_s": round(self.process_age_s, 3)}
        return server

    def on_database(self, db: Database) -> Database | None:
        """A point that uses the database begins from its seeded records, the database on the
        engine's cores (the client side of the server); the database to sample beside the server,
        where the harness started it (the user's own is not ours to measure), else None."""
        db.reset()
        db.pin(self.engine_cores)
        self.parameters["db_cores"] = self.engine_cores
        return db if db.own else None

    def failed(self, err: Exception, crashed: bool = False) -> Measurement:
        """The task failed with `err`; `crashed` when the server died (or never started), not
        when the engine or the database failed."""
        if crashed and Flag.CRASHED not in self.flags:
            self.flags.append(Flag.CRASHED)
        return self.task.measurement(
            Outcome.FAILED, reason=str(err), flags=self.flags, versions=self.versions, parameters=self.parameters
        )

    def measured(self, payload: object, outcome: Outcome = Outcome.MEASURED, reason: str = "") -> Measurement:
        """What the task measured, with every flag gathered (a failure may keep what it measured)."""
        return self.task.measurement(
            outcome,
            reason=reason,
            flags=self.flags,
            payload=payload,
            versions=self.versions,
            parameters=self.parameters,
        )
