"""What one capacity measurement holds (its payload): one search on one server start, every probe
it ran, and where it ended; or one sweep of concurrency on a start, every level it measured."""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.capacity.probe import STOLEN, Probe
from arena.capacity.search import ENGINE_BOUND, FOUND
from arena.capacity.sweep import Level
from arena.capacity.workloads import Held
from arena.measured.measurement import payload

# A failure whose median stayed under this share of the objective had no queue: the answers that
# broke its p99 waited for a pause of the server, not for each other (spec/capacity.md, "Spread").
PAUSE_MEDIAN = 0.1
# A held connection's memory is measured over a climb of at least this many times its first
# connections: nearer, the difference is the collector's heap, not the connections' cost.
CLIMB_SPAN = 1.5


@payload
@dataclass(frozen=True)
class CapacitySearch:
    ended: str  # how the search ended (capacity/search.py: found, engine-bound, at max_rate, ...)
    edge: float | None  # the highest rate that passed: arrivals a second; None when none did
    failing: float | None  # the lowest rate above it that failed: the bracket's top
    objective: dict  # the objective its probes were judged by (workloads.Objective.document)
    steps: int  # requests an arrival sends
    hint: float | None  # where a later start's search began: the median edge of the starts before
    probes: list[dict]  # every probe, in the order it ran (probe.Probe's fields)
    ready_s: float  # the server's cold start: process start to its first correct answer
    setup_s: float | None  # the workload's setup steps on this start (bcrypt's users), when it has any
    held_ms: float | None = None  # a held workload's wait: its rates are connections (capacity/held.py)
    warmed_s: float | None = None  # the start's warm-up before its search (None in records from before it had one)
    saturated: dict | None = None  # what the start answered saturated before its search (sweep.Level's fields)
    below: list[dict] = field(default_factory=list)  # probes below the edge after the search, for the curves
    cost: dict | None = None  # the probe at its workload's cost rate after the search, where it sustained it

    @property
    def holds(self) -> Held | None:
        return Held(self.held_ms) if self.held_ms is not None else None

    def probe_list(self) -> list[Probe]:
        return [Probe(**probe) for probe in self.probes]

    def saturation(self) -> Level | None:
        """What the start answered saturated before its search (none for a held workload)."""
        return Level(**self.saturated) if self.saturated else None

    def below_list(self) -> list[Probe]:
        return [Probe(**probe) for probe in self.below]

    def cost_probe(self) -> Probe | None:
        return Probe(**self.cost) if self.cost else None

    def cost_per_answer(self) -> float | None:
        """The server's CPU seconds per answered request at its workload's cost rate: at one rate
        for every start, what tells two servers apart where the engine could not push either to
        its edge (capacity/order.py). None where the start did not measure it, or measured no
        window."""
        probe = self.cost_probe()
        if probe is None or probe.gave_up or not probe.ok_requests or probe.engine_bound:
            return None
        return probe.server_cpu_s / probe.ok_requests

    def resolution(self) -> float | None:
        """How far above the edge its start's edge may lie, as a share: the bracket the search
        closed, from the rate it sustained to the one that failed just above it."""
        if self.ended != FOUND or self.edge is None or self.failing is None or self.edge <= 0:
            return None
        return self.failing / self.edge - 1

    def at_edge(self) -> Probe | None:
        """The probe that sustained the edge, the last at its rate (the decisive one that closed the
        bracket, where the search took one): its cost and memory are the edge's."""
        return next((p for p in reversed(self.probe_list()) if p.passed and p.rate == self.edge), None)

    def top(self) -> Probe | None:
        """The failure at the top of the start's bracket, the last at its rate."""
        if self.failing is None:
            return None
        return next((p for p in reversed(self.probe_list()) if not p.passed and p.rate == self.failing), None)

    def stolen(self) -> bool:
        """Whether the hypervisor took at least STOLEN of the cores' time over the failure at the
        top of the start's bracket, taken again (Prober) and stolen from again: its verdict may be
        the host's stalls, not the server's."""
        top = self.top()
        return top is not None and (top.stolen or 0.0) >= STOLEN

    def pause_bound(self) -> bool:
        """Whether the start's edge was set by a pause rather than a queue: the failure at the top
        of its bracket broke only the p99 (or p99.9) objective, with its median under a tenth of
        it. Such an edge moves with how often and how long a start pauses, not with what its
        server can serve; a held workload's median is its wait, and is never judged so."""
        if self.ended != FOUND or self.held_ms is not None:
            return False
        top = self.top()
        return (
            top is not None
            and not top.gave_up
            and bool(top.reasons)
            and all(reason.startswith("p99") for reason in top.reasons)
            and top.p50_ms <= PAUSE_MEDIAN * self.objective["p99_ms"]
        )

    def kib_per_connection(self) -> float | None:
        """What one more held connection costs the server: its peak RSS over the connections held,
        from the first probe of the start's climb to its last, each of which held more connections
        than any probe before it, and the last at least CLIMB_SPAN times the first's. A probe after
        a larger one measures that one's memory (a heap that grew stays grown), so the probes that
        bisect below a failure, and a later start's few near the edge, tell nothing of the cost:
        taken between the fewest and the edge, the reference run's Scala gave -25 to 1,298 KiB over
        six starts, where its climbs give 24 to 46."""
        if self.held_ms is None:
            return None
        climb, most = [], 0.0
        for probe in self.probe_list():
            if probe.rate > most and probe.server_peak_rss_kb:
                climb.append(probe)
            most = max(most, probe.rate)
        if len(climb) < 2 or climb[-1].rate < CLIMB_SPAN * climb[0].rate:
            return None
        first, last = climb[0], climb[-1]
        return (last.server_peak_rss_kb - first.server_peak_rss_kb) / (last.rate - first.rate)

    def exported(self) -> dict:
        """Its numbers, flat, for `arena export` (spec/export.md): the edge and the bracket, the
        objective, and what the server spent at the edge."""
        probe = self.at_edge()
        at_edge = {}
        if probe is not None:
            at_edge = {
                "p50_ms": probe.p50_ms,
                "p99_ms": probe.p99_ms,
                "p999_ms": probe.p999_ms,
                "cpu_s_per_1k_ok": probe.server_cpu_s / probe.ok_requests * 1000 if probe.ok_requests else None,
                "peak_rss_kb": probe.server_peak_rss_kb,
                "engine_busy": probe.engine_busy,
                "connections_peak": probe.connections_peak,
            }
        return {
            "edge": self.edge,
            "edge_requests": self.edge * self.steps if self.edge is not None else None,
            "failing": self.failing,
            "edge_resolution": self.resolution(),
            "ended": self.ended,
            "engine_bound": self.ended == ENGINE_BOUND,
            "objective_p99_ms": self.objective.get("p99_ms"),
            "objective_p999_ms": self.objective.get("p999_ms"),
            "probes": len(self.probes),
            "hint": self.hint,
            "saturated": saturation.throughput if (saturation := self.saturation()) else None,
            "saturated_engine_bound": saturation.engine_bound if saturation else None,
            "ready_s": self.ready_s,
            "held_ms": self.held_ms,
            "kib_per_connection": self.kib_per_connection(),
            "cost_rate": cost.rate if (cost := self.cost_probe()) else None,
            "cpu_s_per_1k_ok_at_cost_rate": per * 1000 if (per := self.cost_per_answer()) is not None else None,
        } | at_edge


@payload
@dataclass(frozen=True)
class ClientSweep:
    levels: list[dict]  # every level, in the order measured (sweep.Level's fields)
    steps: int  # requests an arrival sends
    ready_s: float
    setup_s: float | None

    def level_list(self) -> list[Level]:
        return [Level(**level) for level in self.levels]

    def exported(self) -> dict:
        """Its numbers, flat, for `arena export` (spec/export.md): throughput and p99 by clients."""
        flat: dict = {}
        for level in self.level_list():
            flat |= {f"throughput.{level.clients}": level.throughput, f"p99_ms.{level.clients}": level.p99_ms}
        return flat | {"ready_s": self.ready_s}
