"""One measurement: an envelope every kind shares, a typed outcome, and a payload of the kind's own.

The envelope says what was measured (kind, implementation, experiment, point, core budget,
repetition), with which versions, and under which validity flags. The outcome says whether it was
measured, failed (and why) or not run (and why). The payload holds what the kind measured: a
dataclass the kind registers with `@payload`, so the store can write it and read it back typed.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Outcome(StrEnum):
    MEASURED = "measured"
    FAILED = "failed"  # it ran and produced no valid result: the reason says why
    NOT_RUN = "not run"  # it was not attempted: the reason says why


# Each kind's name in the store, its folder and its exports (arena/kind.py): the REST scenarios
# (stored as "http" until store schema 4), the micro-benchmarks, capacity and soak.
REST, MICRO, CAPACITY, SOAK = "rest", "micro", "capacity", "soak"
_PAYLOADS: dict[str, type] = {}
# Names a kind or a payload was stored under before it was renamed, read as the name it has now:
# the REST scenarios' kind was `http` and their payload `HttpResult` until 2026-12-05 (store schema
# 4, export schema 2). The store rewrites its kinds once (store.py); an export and a payload's tag
# are read through these.
RENAMED_KINDS = {"http": "rest"}
RENAMED_PAYLOADS = {"HttpResult": "RestResult"}


def kind_named(name: str) -> str:
    """A kind's name as it is now, of one stored or exported under an older name."""
    return RENAMED_KINDS.get(name, name)


def suite_named(kind: str, suite: str) -> str:
    """A run's suite as it is now: the profile its points came from. Until store schema 5 a kind
    whose experiments have no profiles (capacity, soak) stored its own name there; now it is empty."""
    return "" if suite == kind_named(kind) else suite


def payload(cls: type) -> type:
    """Registers a payload dataclass under its class name, the tag it is stored with."""
    if cls.__name__ in _PAYLOADS and _PAYLOADS[cls.__name__] is not cls:
        raise TypeError(f"two payload types are named {cls.__name__}")
    _PAYLOADS[cls.__name__] = cls
    return cls


def encode(value: Any) -> str | None:
    if value is None:
        return None
    return json.dumps({"type": type(value).__name__, **dataclasses.asdict(value)})


def decode(text: str | None) -> Any:
    if text is None:
        return None
    data = json.loads(text)
    kind = data.pop("type")
    kind = RENAMED_PAYLOADS.get(kind, kind)
    if kind not in _PAYLOADS:
        raise KeyError(f"unknown payload type {kind!r}: its kind's module was not imported")
    return _PAYLOADS[kind](**data)


@dataclass(frozen=True)
class Measurement:
    kind: str  # 'rest' (a scenario point), 'micro', 'capacity' or 'soak' (arena/kind.py)
    impl: str
    experiment: str  # scenario or bench id
    point: str  # JSON of the point's parameters: its key within the experiment
    cpus: int
    repetition: int
    outcome: Outcome
    reason: str = ""  # why it failed or was not run
    versions: dict = field(default_factory=dict)  # runtime, framework, libraries, engine, ...
    parameters: dict = field(default_factory=dict)  # what was asked: engine scenario, settings, cores, ...
    flags: list[str] = field(default_factory=list)  # validity: engine-bound, errors, crashed, shared-cores
    payload: Any = None  # the kind's own result, a registered dataclass
    # The stored run it belongs to (None until stored): which repetitions of two implementations
    # were measured in the same minutes (findings/values.py, `paired`). Not what it measured: two
    # copies of one measurement in two stores are equal.
    run: int | None = field(default=None, compare=False)

    @property
    def measured(self) -> bool:
        return self.outcome is Outcome.MEASURED

    @property
    def key(self) -> tuple:
        return (self.kind, self.impl, self.experiment, self.point, self.cpus, self.repetition)
