"""The order in which a REST repetition's shared start (frame/starts.py) serves its points: the
busiest load first, so that the start is warmed by the most demanding point, and each point is
still measured only once it is steady under its own load (rest/warmup.py)."""

from __future__ import annotations

from arena.rest import ceiling
from arena.rest.scenarios import ScenarioPoint


def nominal_rps(point: ScenarioPoint, cpus: int) -> float:
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
