"""Every point's ceiling: the throughput a perfect server would reach under the point's own load,
and so the share of it a server reached.

A scenario names its limit (`ceiling` in its file) or takes its model's:

- `offered` (open models): the arrivals offered per second — a server cannot answer more.
- `think` (closed models): each user completes an iteration, then thinks; with no time spent in
  the server (or the profile's `ideal_wait_s`, e.g. a long poll), the users' cycles alone bound
  the rate: U users x steps / (think + wait). The users have been cycling through the warm-up
  before the window opens, so the window sees them at that steady rate, not starting up.
- `hello-delays` (blog-ab): every K-th `/hello` waits D seconds, so C concurrent workers average
  D/K seconds a request: at most C·K/D requests a second (100 x 10 / 2 s = 500).
- `bcrypt` (thesis-password): every request hashes once, so the server's cores bound it at
  cores ÷ hash time, the hash time measured on the same server after its warm-up (the fastest of a
  few verifies, one at a time); the users' think cycles, with that hash time as the wait, bound it
  too, and the lower of the two is the ceiling.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena.checks.client import Client
from arena.rest.scenarios import ScenarioPoint


@dataclass(frozen=True)
class Ceiling:
    rps: float  # requests a second, over the measured window
    why: str
    requests: float | None = None  # when the limit is a count (the arrivals offered), that count
    # The server's own work, not the load: the hashes its cores allow at its own hash time, where
    # that is the lower bound (`bcrypt`). A server at such a ceiling reached it by its own speed.
    own: bool = False

    def share(self, ok_requests: int, ok_rps: float) -> float:
        """How much of the ceiling was reached: by count when it is one (an open model's window
        ends with its last answer, so a rate would overstate it), else by rate."""
        if self.requests is not None:
            return ok_requests / self.requests if self.requests else 0.0
        return ok_rps / self.rps if self.rps else 0.0


def cycles_rps(model: dict, steps: int, wait_s: float) -> float:
    """Requests a second a closed model's users send when each iteration spends `wait_s` in the
    server and nothing else: a user's cycle is that wait and its mean think time."""
    cycle_s = wait_s + sum(model["think_ms"]) / 2 / 1000
    return model["users"] * steps / cycle_s if cycle_s else float("inf")


def hello_delays_rps(point: ScenarioPoint) -> float:
    """C workers, every K-th request waits D s: C·K/D requests a second."""
    settings = point.settings()
    delay_s = int(settings["ARENA_HELLO_DELAY_MS"]) / 1000
    return point.model()["concurrency"] * int(settings["ARENA_HELLO_DELAY_EVERY"]) / delay_s


def kind_of(point: ScenarioPoint) -> str:
    if point.scenario.ceiling:
        return point.scenario.ceiling
    return {"open": "offered", "closed": "think"}.get(point.model()["kind"], "")


def ceiling(point: ScenarioPoint, result: dict, cpus: int, hash_s: float | None) -> Ceiling | None:
    """The ceiling of a point, from the engine's result document (its model as run, its counts)."""
    model = result["scenario"]["model"]
    steps = len(point.scenario.steps)
    kind = kind_of(point)
    if kind == "offered":
        rate = model["stages"][0]["rate"] if model.get("stages") else model["rate"]
        offered = (result["iterations"]["started"] + result["iterations"]["dropped"]) * steps
        return Ceiling(rate * steps, f"the offered rate, {rate:g} arrivals/s x {steps} request(s)", offered)
    if kind == "think":
        wait_s = point.profile().get("ideal_wait_s", 0.0)
        why = f"{model['users']} users' think cycles ({wait_s:g} s in the server)"
        return Ceiling(cycles_rps(model, steps, wait_s), why)
    if kind == "hello-delays":
        settings = point.settings()
        shown = (
            f"{model['concurrency']} workers x every {settings['ARENA_HELLO_DELAY_EVERY']}th waits "
            f"{int(settings['ARENA_HELLO_DELAY_MS']) / 1000:g} s"
        )
        return Ceiling(hello_delays_rps(point), shown)
    if kind == "bcrypt" and hash_s:
        think = cycles_rps(model, steps, steps * hash_s)
        cores = cpus / hash_s
        shown = f"min(think cycles {think:.1f}/s, {cpus} core(s) / {hash_s * 1000:.0f} ms hash {cores:.1f}/s)"
        return Ceiling(min(think, cores), shown, own=cores <= think)
    return None


def own_work(stored: dict) -> bool:
    """Whether a stored ceiling is the server's own work (`Ceiling.own`). Runs stored before it was
    kept say so in their `why`, written above: the cores' hashes no more than the users' cycles."""
    if "own" in stored:
        return bool(stored["own"])
    found = re.fullmatch(r"min\(think cycles ([\d.]+)/s, .* ms hash ([\d.]+)/s\)", str(stored.get("why", "")))
    return found is not None and float(found.group(2)) <= float(found.group(1))


HASH_SAMPLES = 5


def hash_seconds(port: int, host: str) -> float:
    """One bcrypt hash on this server at its configured cost: the fastest of a few password
    verifies sent one at a time on one connection (load only adds time; the fastest is the work)."""
    client = Client(port, host=host)
    client.post_json("/password/set/ceiling_probe", {"password": "probe"})
    conn = client.session()
    try:
        times = [
            client.post_json("/password/verify/ceiling_probe", {"password": "probe"}, conn=conn).seconds
            for _ in range(HASH_SAMPLES)
        ]
    finally:
        conn.close()
    return min(times)
