"""spec/micro.toml: the five benches, their sweeps per profile, limits, and the seeds' figures."""

from __future__ import annotations

import itertools
import json
import tomllib
from dataclasses import dataclass, field

import psutil

from arena.errors import UsageError
from arena.host import cores
from arena.kind import FINDINGS, numbered
from arena.paths import SPEC
from arena.report import published
from arena.report.published import Published

BENCHES_FILE = SPEC / "micro.toml"
MODES = ("idiomatic", "copy")
# The parameters of each bench (spec/micro.md), in the order labels show them.
PARAMS = {
    "pingping": ("size", "rounds"),
    "pingpong": ("size", "rounds"),
    "spawn": ("procs",),
    "throughput": ("pairs", "size", "seconds"),
    "ring": ("procs", "size", "rounds"),
}
PROFILES = ("quick", "paper", "check")  # check: the small sizes `arena test` runs
MAX = "max"  # spawn's `--procs max`: the harness searches for the largest N
# How a point's program starts measuring (a profile's `starts` sweep; none given: warm): "warm" after
# its warm-up (spec/micro.md), "cold" at once, as the seeds timed a fresh VM's first rounds.
STARTS = ("warm", "cold")


class BenchError(UsageError):
    """spec/micro.toml is unreadable or inconsistent, or a bench asked for does not exist."""


@dataclass(frozen=True)
class Bench:
    id: str
    title: str
    source: str
    metric: str  # the key of the program's `metric` object the report shows (spec/micro.md)
    unit: str  # how that metric reads, e.g. "µs per hop"
    higher_is_better: bool  # `better = "higher"`: throughput; "lower": time per message
    axis: str  # the parameter the report's columns sweep
    profiles: dict[str, dict]
    notes: list[str] = field(default_factory=list)
    published: list[Published] = field(default_factory=list)


@dataclass(frozen=True)
class BenchPoint:
    bench: Bench
    mode: str
    params: dict  # e.g. {"size": 5000, "rounds": 10000}; spawn's search has {"procs": "max"}
    start: str = ""  # "cold" or "warm" where the profile sweeps them; "" (warm) where it does not

    @property
    def experiment(self) -> str:
        return self.bench.id

    @property
    def coordinates(self) -> dict:
        """What tells the point from the profile's others: its mode, parameters and start."""
        return {"mode": self.mode, **self.params, **({"start": self.start} if self.start else {})}

    @property
    def key(self) -> str:
        return json.dumps(self.coordinates, sort_keys=True)

    @property
    def label(self) -> str:
        return " ".join(
            [self.mode, *(f"{k}={v}" for k, v in self.params.items()), *([self.start] if self.start else [])]
        )

    @property
    def is_max(self) -> bool:
        return self.params.get("procs") == MAX

    def arguments(self, warmup_s: float) -> list[str]:
        """The program's command-line arguments (spec/micro.md); a cold point warms up not at all."""
        args = [self.bench.id, "--mode", self.mode]
        for name, value in self.params.items():
            args += [f"--{name}", str(value)]
        return [*args, "--warmup-s", f"{0 if self.start == 'cold' else warmup_s:g}"]


@dataclass(frozen=True)
class Limits:
    """Bounds of one program run, and the budget of spawn's search; 0 MiB means three quarters of
    the memory available when the run starts (a quarter is left for the rest of the machine)."""

    seconds: float
    memory_mb: int
    max_memory_mb: int
    warmup_s: float  # the most a program's in-process warm-up may take (--warmup-s)

    @staticmethod
    def _mb(value: int) -> int:
        return value or int(psutil.virtual_memory().available * 0.75 / 2**20)

    def run_memory_mb(self) -> int:
        return self._mb(self.memory_mb)

    def max_budget_mb(self) -> int:
        return self._mb(self.max_memory_mb)


def _read() -> dict:
    try:
        return tomllib.loads(BENCHES_FILE.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise BenchError(f"{BENCHES_FILE}: {err}") from err


def _bench(table: dict) -> Bench:
    try:
        required = {key: table[key] for key in ("id", "title", "source", "metric", "unit", "axis")}
        if table["better"] not in ("higher", "lower"):
            raise BenchError(f"{BENCHES_FILE}: bench {table['id']}: better must be 'higher' or 'lower'")
        bench = Bench(
            **required,
            higher_is_better=table["better"] == "higher",
            profiles={name: table[name] for name in (*PROFILES, FINDINGS) if name in table or name in PROFILES},
            notes=table.get("notes", []),
            published=published.parse(table.get("published", [])),
        )
    except (KeyError, TypeError) as err:
        raise BenchError(f"{BENCHES_FILE}: bench {table.get('id', '?')}: missing or bad field {err}") from None
    if bench.id not in PARAMS:
        raise BenchError(f"{BENCHES_FILE}: unknown bench {bench.id!r} (spec/micro.md defines {', '.join(PARAMS)})")
    for name, profile in bench.profiles.items():
        unknown = set(profile) - set(PARAMS[bench.id]) - {"modes", "cpus", "max", "starts"}
        if (
            unknown
            or not set(profile.get("modes", [])) <= set(MODES)
            or not set(profile.get("starts", [])) <= set(STARTS)
        ):
            raise BenchError(
                f"{BENCHES_FILE}: bench {bench.id} profile {name}: unknown keys or modes {sorted(unknown)}"
            )
    return bench


def load(ids: list[str] | None = None) -> list[Bench]:
    """The benches asked for (all when none), in the file's order."""
    benches = [_bench(table) for table in _read().get("bench", [])]
    known = [b.id for b in benches]
    unknown = [i for i in ids or [] if i not in known]
    if unknown:
        raise BenchError(f"unknown bench(es): {', '.join(unknown)} (known: {', '.join(known)})")
    return [b for b in benches if not ids or b.id in ids]


def limits(suite: str) -> Limits:
    table = _read().get("limits", {}).get(suite)
    if not table:
        raise BenchError(f"{BENCHES_FILE}: no [limits.{suite}]")
    try:
        return Limits(
            float(table["seconds"]), int(table["memory_mb"]), int(table["max_memory_mb"]), float(table["warmup_s"])
        )
    except (KeyError, TypeError, ValueError) as err:
        raise BenchError(f"{BENCHES_FILE}: [limits.{suite}]: missing or bad field {err}") from None


def points(bench: Bench, suite: str, chosen: list[int] | None = None) -> list[BenchPoint]:
    """Every combination of the profile's sweeps, smallest first, and spawn's search last; or those
    `chosen` by number (1 the first: `arena micro --point`)."""
    profile = bench.profiles.get(suite)
    if profile is None:
        return []  # only some benches have a findings profile
    names = [name for name in PARAMS[bench.id] if name in profile]
    made = [
        BenchPoint(bench, mode, dict(zip(names, values, strict=True)), start)
        for mode in profile["modes"]
        for values in itertools.product(*(profile[name] for name in names))
        for start in profile.get("starts", [""])
    ]
    if profile.get("max"):
        made.append(BenchPoint(bench, "idiomatic", {"procs": MAX}))
    return numbered(made, chosen, f"{bench.id} [{suite}]", BenchError)


def budgets(bench: Bench, suite: str, machine: int) -> list[int]:
    """The profile's core budgets on a machine with `machine` cores."""
    wanted = bench.profiles.get(suite, {}).get("cpus", [1])
    if wanted == "all":
        return cores.all_budgets(machine)
    return [cpus for cpus in wanted if cpus <= machine]


def dominates(failed: dict, params: dict) -> bool:
    """Whether `params` is at least as big as a point that failed in every parameter: a runtime that
    failed at 10k processes is not run again at 50k."""
    numeric = [k for k, v in failed.items() if isinstance(v, int | float)]
    return bool(numeric) and all(isinstance(params.get(k), int | float) and params[k] >= failed[k] for k in numeric)
