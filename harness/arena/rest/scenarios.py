"""The experiments of spec/scenarios/: parsed, and expanded into measurement points for the engine.

A point becomes a scenario document of the engine's (loadgen/README.md), which the engine itself
validates (`LoadEngine.check`): the harness reads only the keys that are its own (`users_per_core`,
`keep_alive`, `rows`, the profile's `params`, `settings` and `warmup`).
"""

from __future__ import annotations

import dataclasses
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from arena.errors import UsageError
from arena.kind import FINDINGS, numbered
from arena.paths import SPEC
from arena.report import published
from arena.report.published import Published
from arena.rest.warmup import Rule

SCENARIOS = SPEC / "scenarios"
ENGINE = "loadgen"  # the engine a point is measured with unless the run says otherwise
# A profile's warm-up when its file gives none: one slice of load, the most it may take, and the
# slices that must agree (spec/scenarios/README.md: the quick profile settles for two).
WARMUP = {
    "quick": {"slice_s": 1.0, "max_s": 30.0, "window": 2},
    "paper": {"slice_s": 5.0, "max_s": 120.0, "window": 3},
    "findings": {"slice_s": 2.0, "max_s": 60.0, "window": 3},
}

WARMUP_KEYS = {f.name for f in dataclasses.fields(Rule)}
COLD = "none"  # a profile's `warmup = "none"`: measured from its first request (ScenarioPoint.warmup)
OVERRIDES = ("settings", "warmup", "timeout_ms", "db_delay_ms")  # a point's own keys that replace its profile's
# How long the engine waits for an answer unless the profile says (`timeout_ms`): a request that
# takes longer fails, so a profile whose requests take minutes (bcrypt at cost 20) says more.
TIMEOUT_MS = 120_000
CEILINGS = ("offered", "think", "hello-delays", "bcrypt")


class ScenarioError(UsageError):
    """A scenario file that is unreadable or inconsistent, or an experiment asked for that does not exist."""


@dataclass(frozen=True)
class Scenario:
    id: str
    seed: str
    source: str
    title: str
    reported_as: str
    steps: list[dict]
    profiles: dict[str, dict]
    report_columns: list[str] = field(default_factory=list)
    users_csv: bool = False
    deviations: str = ""
    pending: str = ""
    ceiling: str = ""  # the point's physical limit, when not its model's (rest/ceiling.py)
    database: bool = False  # its requests use /record: the database's cost is sampled and shown
    published: list[Published] = field(default_factory=list)


@dataclass(frozen=True)
class ScenarioPoint:
    """One measured configuration of one scenario: its parameters, as the report shows them."""

    scenario: Scenario
    suite: str
    index: int
    params: dict  # the point's own keys, e.g. {"users": 500} or {"rate": 2, "iterations": 20}
    planned_s: float | None = None  # how long the engine plans to load the server (LoadEngine.check)
    engine: str = ENGINE  # which load engine measures it; another than loadgen is part of its key

    @property
    def experiment(self) -> str:
        return self.scenario.id

    @property
    def shown(self) -> dict:
        """Its parameters, and the engine when it is not the default."""
        return self.params if self.engine == ENGINE else {**self.params, "engine": self.engine}

    @property
    def key(self) -> str:
        return json.dumps(self.shown, sort_keys=True)

    @property
    def label(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.shown.items())

    def profile(self) -> dict:
        """Its profile, where the point's own `settings`, `warmup` or `timeout_ms` replace the
        profile's (the findings profile's bcrypt at cost 20, measured cold)."""
        profile = self.scenario.profiles[self.suite]
        return {**profile, **{key: self.params[key] for key in OVERRIDES if key in self.params}}

    def model(self) -> dict:
        """The profile's model with this point's keys, as the scenario file writes it."""
        return {**self.profile()["model"], **{k: v for k, v in self.params.items() if k not in OVERRIDES}}

    def model_on(self, cpus: int) -> dict:
        """The model on a core budget: `users_per_core` becomes `users`."""
        model = self.model()
        if "users_per_core" in model:
            model["users"] = model.pop("users_per_core") * cpus
        return model

    def settings(self) -> dict[str, str]:
        return dict(self.profile().get("settings", {}))

    def db_delay_s(self) -> float:
        """How long the harness holds what passes between the server and its database, each way
        (`db_delay_ms`: a seed's database across the internet; host/delay.py)."""
        return self.profile().get("db_delay_ms", 0) / 1000

    def warmup(self) -> Rule | None:
        """The profile's warm-up (slice and bound), with the rule's defaults for the rest; None for
        a profile measured cold (`warmup = "none"`): from its first request, as a seed's minute-long
        requests were, where no warm-up could become steady before the measurement ends."""
        if self.profile().get("warmup") == COLD:
            return None
        return Rule(**{**WARMUP[self.suite], **self.profile().get("warmup", {})})

    def own_start(self) -> bool:
        """Whether the point is measured on a server start that served no other point (`own_start`):
        where a point before it on a shared start (frame/starts.py) leaves the server past its limit."""
        return self.profile().get("own_start", False)

    def counts_unsteady(self) -> bool:
        """Whether a repetition whose warm-up never became steady counts (`count_unsteady`): at a
        point past some server's limit, where its load oscillates and no steady state comes, as a
        seed that counted its whole run counted it."""
        return self.profile().get("count_unsteady", False)

    def engine_scenario(
        self, port: int, cpus: int, users_csv: Path | None, max_duration_s: float | None, host: str = "127.0.0.1"
    ) -> dict:
        """The engine's scenario document (loadgen/README.md) for this point on a server at
        `host`, warm-up included (rest/warmup.py); without a `max_duration_s` the engine's own
        bound applies."""
        profile = self.profile()
        model = self.model_on(cpus)
        keep_alive = model.pop("keep_alive", True)
        rows = model.pop("rows", "per_user")
        params = {key: str(value) for key, value in profile.get("params", {}).items()}
        steps = [_fill(step, params) for step in self.scenario.steps]
        document = {
            "target": f"http://{host}:{port}",
            "model": model,
            "steps": steps,
            "keep_alive": keep_alive,
            "timeout_ms": profile.get("timeout_ms", TIMEOUT_MS),
        }
        if (rule := self.warmup()) is not None:
            document["warmup"] = rule.document()
        if max_duration_s is not None:
            document["max_duration_s"] = max_duration_s
        if users_csv is not None:
            document["data"] = {"csv": str(users_csv), "delimiter": ";", "rows": rows}
        return document


def _fill(step: dict, params: dict[str, str]) -> dict:
    """Replaces the scenario's own parameters ({n}); the engine fills the per-request ones."""
    filled = dict(step)
    for key in ("path", "body"):
        if key in filled:
            for name, value in params.items():
                filled[key] = filled[key].replace("{" + name + "}", value)
    filled.setdefault("headers", {"Content-Type": "application/json"} if "body" in step else {})
    return filled


def parse(path: Path) -> Scenario:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise ScenarioError(f"{path.name}: {err}") from err
    try:
        required = {key: data[key] for key in ("id", "seed", "source", "title", "reported_as", "steps", "profiles")}
        scenario = Scenario(
            **required,
            report_columns=data.get("columns", []),
            users_csv=data.get("users_csv", False),
            deviations=data.get("deviations", ""),
            pending=data.get("pending", ""),
            ceiling=data.get("ceiling", ""),
            database=data.get("database", False),
            published=published.parse(data.get("published", [])),
        )
    except (KeyError, TypeError) as err:
        raise ScenarioError(f"{path.name}: missing or bad field {err}") from None
    if scenario.id != path.stem:
        raise ScenarioError(f"{path.name}: id '{scenario.id}' differs from the file name")
    if scenario.ceiling and scenario.ceiling not in CEILINGS:
        raise ScenarioError(f"{path.name}: ceiling must be one of {', '.join(CEILINGS)}")
    for suite, profile in scenario.profiles.items():
        if not isinstance(profile.get("model"), dict):
            raise ScenarioError(f"{path.name} [{suite}]: no model table (the engine's load model)")
        if not profile.get("points"):
            raise ScenarioError(f"{path.name} [{suite}]: no points")
        for point in profile["points"]:  # a point may replace its profile's warm-up and timeout
            own = {**profile, **point}
            warmup = own.get("warmup", {})
            if warmup != COLD and (not isinstance(warmup, dict) or set(warmup) - WARMUP_KEYS):
                keys = ", ".join(sorted(WARMUP_KEYS))
                raise ScenarioError(f'{path.name} [{suite}]: warmup is a table of {keys}, or "{COLD}"')
            for flag in ("count_unsteady", "own_start"):
                if not isinstance(own.get(flag, False), bool):
                    raise ScenarioError(f"{path.name} [{suite}]: {flag} is true or false")
            timeout = own.get("timeout_ms", TIMEOUT_MS)
            if not isinstance(timeout, int) or timeout <= 0:
                raise ScenarioError(f"{path.name} [{suite}]: timeout_ms is a positive whole number of milliseconds")
            delay = own.get("db_delay_ms", 0)
            if not isinstance(delay, int | float) or not 0 <= delay <= 10_000 or (delay and not scenario.database):
                raise ScenarioError(
                    f"{path.name} [{suite}]: db_delay_ms is 0..10000 ms, for a scenario with a database"
                )
    return scenario


def load(names: list[str] | None = None) -> list[Scenario]:
    scenarios = [parse(path) for path in sorted(SCENARIOS.glob("*.toml"))]
    if names:
        known = {s.id: s for s in scenarios}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ScenarioError(f"unknown scenario(s): {', '.join(unknown)} (known: {', '.join(known)})")
        scenarios = [known[n] for n in names]
    return scenarios


def points(scenario: Scenario, suite: str, chosen: list[int] | None = None) -> list[ScenarioPoint]:
    """The profile's points, or those `chosen` by number (1 the first: `arena run --point`)."""
    if suite == FINDINGS and suite not in scenario.profiles:
        return []  # only the scenarios some finding needs have it
    if suite not in scenario.profiles:
        raise ScenarioError(f"{scenario.id}: no '{suite}' profile (has: {', '.join(scenario.profiles)})")
    made = [ScenarioPoint(scenario, suite, i, dict(p)) for i, p in enumerate(scenario.profiles[suite]["points"])]
    return numbered(made, chosen, f"{scenario.id} [{suite}]", ScenarioError)
