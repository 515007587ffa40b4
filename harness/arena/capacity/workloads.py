"""The workloads of `arena capacity` and the parameters of its search, read from
spec/capacity.toml (the method is spec/capacity.md), and the objective a point is judged by."""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field, replace
from functools import cache

from arena.engines.warmup_rule import Rule
from arena.errors import UsageError
from arena.measured.stats import NOISY_COV
from arena.paths import SPEC

SPEC_FILE = SPEC / "capacity.toml"
DATA_KINDS = ("users", "records")


@dataclass(frozen=True)
class Objective:
    """The latency a probe must keep: its p99, and its p99.9 when set."""

    p99_ms: float
    p999_ms: float | None = None

    def document(self) -> dict:
        return {"p99_ms": self.p99_ms} | ({"p999_ms": self.p999_ms} if self.p999_ms is not None else {})

    @property
    def label(self) -> str:
        shown = f"p99 ≤ {self.p99_ms:g} ms"
        return shown + (f", p99.9 ≤ {self.p999_ms:g} ms" if self.p999_ms is not None else "")


@dataclass(frozen=True)
class Held:
    """A workload whose probes hold connections instead of offering a rate (capacity/held.py)."""

    wait_ms: float  # how long the server holds each poll (ARENA_LONGPOLL_MS)

    @property
    def wait_s(self) -> float:
        return self.wait_ms / 1000


@dataclass(frozen=True)
class StartRule:
    """How many independent starts a cell takes: at least `least`, at most `most`, and between them
    more while its place in its workload's order is open; a cell alone in its workload, until its
    interval is within `within` of its edge, or after `noisy_after` starts that vary by more than
    its workload's `noisy` bound (capacity/precision.py)."""

    least: int
    most: int
    within: float
    noisy_after: int


@dataclass(frozen=True)
class SearchParameters:
    precision: float
    growth: float
    hinted_growth: float
    max_probes: int
    max_jump: float
    min_answers: int  # a probe's window holds this many arrivals...
    decisive_answers: int  # ...and one that closes the bracket this many (capacity/search.py)...
    decisive_max_s: float  # ...for at most this long, unless a quick window is longer
    window_min_s: float
    window_max_s: float
    max_in_flight: int
    connections: int
    batch_us: int
    errors: float
    answered: float
    warmup: Rule
    saturation_clients: int  # a start first serves this many clients without think time...
    saturation_s: float  # ...in runs this long...
    saturation_rise: float  # ...until one answers no more than this share above the best before it...
    saturation_share: float  # ...and its search begins at this share of the most they were answered
    warm_share: float  # a held workload's start is warmed at this share of its first probe's rate
    warm_max_s: float  # either for at most this long
    curve_shares: list[float]  # a first start probes these shares of its edge after its search, for the curves
    starts: StartRule
    cost_window_s: float  # a cost probe's window (Workload.cost)...
    cost_share: float  # ...at this share of the engine's own ceiling (capacity/cost.py)

    def window_s(self, per_s: float, decisive: bool, least_s: float = 0.0) -> float:
        """A probe's window at `per_s` answers a second: long enough for `min_answers` of them, and
        at least `least_s`, within `window_min_s` and `window_max_s`; a decisive one long enough for
        `decisive_answers` but at most `decisive_max_s`, in which a pause must last 1% of the
        window to fill the p99 alone, and never shorter than the quick one."""
        quick = min(max(self.min_answers / per_s, least_s, self.window_min_s), self.window_max_s)
        return max(quick, min(self.decisive_answers / per_s, self.decisive_max_s)) if decisive else quick

    def open_model(self, rate: float, duration_s: float) -> dict:
        """The engine's open model at `rate`: the load every probe offers, and a soak at a share
        of the edge it found (spec/capacity.md, "The load")."""
        return {
            "kind": "open",
            "rate": rate,
            "duration_s": duration_s,
            "max_in_flight": self.max_in_flight,
            "connections": self.connections,
            "batch_us": self.batch_us,
        }


@dataclass(frozen=True)
class Workload:
    id: str
    title: str
    objective: Objective
    start_rate: float
    min_rate: float
    max_rate: float
    steps: list[dict]
    setup: list[dict] = field(default_factory=list)
    settings: dict[str, str] = field(default_factory=dict)
    data: dict | None = None  # {"kind": "users", "rows": N} or {"kind": "records"}
    database: bool = False
    held: Held | None = None  # its search is over connections held, not arrivals a second
    default: bool = True  # measured when no workload is named (the soak's mix is not)
    noisy: float = NOISY_COV  # a cell whose edges vary by more (CV over starts) is flagged noisy
    # Every start that sustains the run's cost rate measures its server's CPU per answer there
    # after its search: what tells apart the cells the engine cannot push to their edges
    # (capacity/cost.py, capacity/order.py).
    cost: bool = False
    # The framework's own cost is what it measures: a run that names no implementation measures
    # every setup it compares here, and elsewhere each runtime's default setup alone (capacity/plan.py).
    every_setup: bool = False


@dataclass(frozen=True)
class WorkloadPoint:
    """A workload under an objective, whose edge one capacity measurement searches; or, with
    `clients`, the levels of concurrency one measurement sweeps."""

    workload: Workload
    objective: Objective
    clients: tuple[int, ...] = ()

    @property
    def experiment(self) -> str:
        return self.workload.id

    @property
    def key(self) -> str:
        return json.dumps(
            {"clients": list(self.clients)} if self.clients else self.objective.document(), sort_keys=True
        )

    def settings(self) -> dict[str, str]:
        """The server settings its workload needs (a shared start's: frame/starts.py)."""
        return self.workload.settings

    def db_delay_s(self) -> float:
        return 0.0  # a workload's database answers on loopback (spec/capacity.md)

    def own_start(self) -> bool:
        return False  # a search's steps share a start: each is measured once steady (spec/capacity.md)

    @property
    def label(self) -> str:
        if self.clients:
            return f"clients {self.clients[0]}..{self.clients[-1]}"
        return objective_label(self.workload.held, self.objective)


def search_parameters() -> SearchParameters:
    """How every search runs: spec/capacity.toml's [search]."""
    return _read()[0]


def all_workloads() -> dict[str, Workload]:
    """Every workload of spec/capacity.toml by id, in its order."""
    return _read()[1]


@cache
def _read() -> tuple[SearchParameters, dict[str, Workload]]:
    """The search's parameters and every workload by id; a broken file is a UsageError naming it."""
    try:
        data = tomllib.loads(SPEC_FILE.read_text(encoding="utf-8"))
        search = dict(data["search"])
        search["warmup"] = Rule(**search["warmup"])
        search["starts"] = StartRule(**search["starts"])
        parameters = SearchParameters(**search)
        workloads = {}
        for raw in data["workload"]:
            given = dict(raw)
            given["objective"] = Objective(**given["objective"])
            given["settings"] = {name: str(value) for name, value in given.get("settings", {}).items()}
            # A held workload's wait is the server's own setting, so that the two cannot disagree.
            given["held"] = Held(float(given["settings"]["ARENA_LONGPOLL_MS"])) if given.get("held") else None
            workload = Workload(**given)
            if workload.data and workload.data.get("kind") not in DATA_KINDS:
                raise ValueError(f"{workload.id}: data kind {workload.data.get('kind')!r} is not one of {DATA_KINDS}")
            if not 0 < workload.min_rate <= workload.start_rate <= workload.max_rate:
                raise ValueError(f"{workload.id}: want 0 < min_rate <= start_rate <= max_rate")
            if workload.cost and workload.held:
                raise ValueError(f"{workload.id}: a cost is measured at a rate of arrivals, not of held connections")
            workloads[workload.id] = workload
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as err:
        raise UsageError(f"{SPEC_FILE.name}: {err}") from err
    return parameters, workloads


def chosen(names: list[str]) -> list[Workload]:
    """The workloads `--workload` names, in the file's order (none named: every default one)."""
    workloads = all_workloads()
    unknown = [name for name in names if name not in workloads]
    if unknown:
        raise UsageError(f"unknown workload(s): {', '.join(unknown)} (known: {', '.join(workloads)})")
    return [w for w in workloads.values() if w.id in names or (not names and w.default)]


SLO_PART = re.compile(r"^(p99|p999|p99\.9)=(\d+(?:\.\d+)?)(ms|s)?$")


def parse_slo(text: str) -> dict[str, float]:
    """`--slo p99=50ms,p999=200ms` as {"p99_ms": 50, "p999_ms": 200}; a bare number is in ms."""
    found: dict[str, float] = {}
    for part in text.replace(" ", "").split(","):
        match = SLO_PART.match(part)
        if not match:
            raise UsageError(f"--slo {text}: give objectives such as p99=50ms or p99=50ms,p999=200ms")
        name, value, unit = match.groups()
        milliseconds = float(value) * (1000 if unit == "s" else 1)
        if milliseconds <= 0:
            raise UsageError(f"--slo {text}: an objective must be above 0 ms")
        found["p99_ms" if name == "p99" else "p999_ms"] = milliseconds
    return found


def objective_label(holds: Held | None, objective: Objective) -> str:
    """The objective as a person reads it; a held workload's is beyond its wait."""
    return f"the wait ({holds.wait_ms:g} ms) + {objective.label}" if holds else objective.label


def unit_of(holds: Held | None) -> str:
    """What a search's rates count: connections held, or arrivals a second."""
    return " connections" if holds else "/s"


def objective_of(workload: Workload, slo: dict[str, float]) -> Objective:
    """The workload's objective, with what `--slo` gives in place of its own."""
    return replace(workload.objective, **slo)
