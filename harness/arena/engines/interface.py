"""The load-engine interface: a scenario document and cores in, the result document and the
engine's own CPU out.

Both documents are loadgen's (loadgen/README.md), the contract every engine keeps: an engine that
is not loadgen translates the scenario it is given and returns its measurement in the same shape,
so the REST kind measures and stores alike whichever engine ran: loadgen (arena/engines/loadgen.py), or
Locust's master and workers (arena/engines/locust/); the tests plug in fakes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from arena.errors import ArenaError
from arena.impls.toolchain import Toolchains

# An engine above this share of its cores may be what limited the load, not the server.
ENGINE_BUSY_MAX = 0.9


class EngineError(ArenaError):
    """The engine could not be had, refused a scenario, or a run produced no result."""


@dataclass(frozen=True)
class EngineRun:
    result: dict  # the result document (loadgen/README.md, "Result document")
    cpu_s: float  # the engine's own CPU seconds, every process and thread of it
    wall_s: float  # the engine's wall time, start to exit
    version: str  # "name version", stored with the measurement
    # The busiest of its processes' share of one core, for an engine of single-threaded processes
    # (Locust's workers): one saturated worker bounds the load even while the others idle. None: the
    # engine's CPU over all its cores tells.
    busiest: float | None = None

    def busy(self, cores: int) -> float:
        """How busy the engine was: its busiest process's share of a core when known, else its CPU
        over all its `cores`; above ENGINE_BUSY_MAX it may have limited the load."""
        return self.busiest if self.busiest is not None else self.cpu_s / (self.wall_s * cores)


class LoadEngine(Protocol):
    name: str

    def ensure(self, toolchains: Toolchains) -> None:
        """Installs and builds what the engine needs; raises EngineError with the reason."""
        ...

    def check(self, scenario: dict) -> float | None:
        """Validates a scenario document without sending anything; raises EngineError with the
        engine's message. Returns how long its model is planned to last, None when only the
        run can tell."""
        ...

    def run(self, scenario: dict, cores: list[int], timeout: float) -> EngineRun:
        """One run of `scenario` pinned to `cores`; raises EngineError when it produced no result."""
        ...
