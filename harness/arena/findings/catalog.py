"""The findings of the seed studies, read from spec/findings.toml (the method is spec/findings.md):
each with the tests a measurement can make of it, or why none can."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache

from arena.errors import UsageError
from arena.findings.rules import RULES, Rule
from arena.kind import CAPACITY, COMMANDS, MICRO, REST, SUITES
from arena.paths import SPEC
from arena.report.published import Published
from arena.report.published import parse as parse_published

SPEC_FILE = SPEC / "findings.toml"
KINDS = {kind: f"arena {COMMANDS[kind]}" for kind in (REST, MICRO, CAPACITY)}  # the kinds a finding may test
OPTION = {REST: "--scenario", MICRO: "--bench", CAPACITY: "--workload"}  # a kind's experiments, named
PLANNED = {REST: "scenario", MICRO: "bench", CAPACITY: "workload"}  # and as its stored plan lists them
STUDIES = ("thesis", "valkov", "blog", "varjao", "honours")


@dataclass(frozen=True)
class Test:
    """One measurement of a finding: an experiment's metric, at the points and budgets it names,
    judged by a rule."""

    kind: str  # "rest", "micro" or "capacity": the runs that measure it
    experiment: str
    metric: str
    higher_is_better: bool
    rule: Rule
    where: dict = field(default_factory=dict)  # parameters every tested point has (a list: one of them, or itself)
    along: tuple[str, ...] = ()  # parameters that change with the rule's axis (each rate's own count of requests)
    seed_point: dict | None = None  # the seed's own point, when the test may rest on another...
    stand_in: str = ""  # ...and why another keeps the seed's regime: without it, only the seed's point is judged
    cpus: tuple[int, ...] | None = (1,)  # None: every budget measured on cores of its own
    differs: str = ""  # a condition of the seed this test does not share
    shared_cores: str = ""  # why a budget whose cores the engine shared may be judged (judge.SHARED_LOSS)
    least_cases: int = 1  # a claim made in every condition agrees only on this many cases measured
    beside: str = ""  # what a test shown beside the verdict, and not deciding it, adds (e.g. warmed runs)
    repetitions: int | None = None  # the suite's otherwise: one for a count of events, more to resolve
    not_here: str = ""  # a condition no run here meets: the test is never made
    published: list[Published] = field(default_factory=list)  # the seed's values of `metric`

    def engine_cores(self) -> int:
        """The cores its load engine needs of its own: one beside an HTTP server, none where the
        finding lets it share the server's, nor for a micro-benchmark (its program is the whole
        measurement)."""
        return 0 if self.kind == "micro" or self.shared_cores else 1

    def matches(self, point: dict) -> bool:
        return all(point.get(name) in [value, *_listed(value)] for name, value in self.where.items())


@dataclass(frozen=True)
class Change:
    """A change to how a finding is tested, made after runs were judged by it: a run measured
    before `on` may be judged otherwise now (tests/test_kept_runs.py)."""

    on: str  # the day, YYYY-MM-DD
    what: str


@dataclass(frozen=True)
class Finding:
    id: str
    study: str
    source: str
    quote: str
    conditions: str
    tests: list[Test] = field(default_factory=list)
    untestable: str = ""  # why no measurement can test it (an opinion, a declaration)
    not_here: str = ""  # why no run here can, and what would
    changed: tuple[Change, ...] = ()  # `[[finding.changed]]`, the oldest first

    def changed_since(self, day: str) -> bool:
        """Whether its tests changed on or after `day` (YYYY-MM-DD)."""
        return any(change.on >= day for change in self.changed)


@cache
def load() -> list[Finding]:
    """Every finding of spec/findings.toml; a broken entry is a UsageError naming it."""
    try:
        data = tomllib.loads(SPEC_FILE.read_text(encoding="utf-8"))
        findings = [_finding(entry) for entry in data["finding"]]
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as err:
        raise UsageError(f"{SPEC_FILE.name}: {err}") from err
    ids = [f.id for f in findings]
    if len(set(ids)) != len(ids):
        raise UsageError(f"{SPEC_FILE.name}: a finding id is used twice")
    return findings


def _finding(entry: dict) -> Finding:
    where = f"finding {entry.get('id', '?')}"
    if entry["study"] not in STUDIES:
        raise ValueError(f"{where}: study {entry['study']!r} is not one of {', '.join(STUDIES)}")
    tests = [_test(where, test) for test in entry.get("test", [])]
    reasons = [bool(tests), bool(entry.get("untestable")), bool(entry.get("not_here"))]
    if sum(reasons) != 1:
        raise ValueError(f"{where}: give tests, `untestable` or `not_here`: exactly one of them")
    return Finding(
        id=entry["id"],
        study=entry["study"],
        source=entry["source"],
        quote=entry["quote"],
        conditions=entry["conditions"],
        tests=tests,
        untestable=entry.get("untestable", ""),
        not_here=entry.get("not_here", ""),
        changed=tuple(Change(str(change["on"]), change["what"]) for change in entry.get("changed", [])),
    )


def _test(where: str, entry: dict) -> Test:
    if entry["kind"] not in KINDS:
        raise ValueError(f"{where}: kind {entry['kind']!r} is not one of {', '.join(KINDS)}")
    if entry["better"] not in ("higher", "lower"):
        raise ValueError(f"{where}: better must be 'higher' or 'lower'")
    names = [key for key in entry["rule"] if key in RULES]
    if len(names) != 1:
        raise ValueError(f"{where}: the rule {entry['rule']} must name one of {', '.join(RULES)}")
    name = names[0]
    cpus = entry.get("cpus", [1])
    test = Test(
        kind=entry["kind"],
        experiment=entry["experiment"],
        metric=entry["metric"],
        higher_is_better=entry["better"] == "higher",
        rule=RULES[name].parse(entry["rule"]),
        where=dict(entry.get("where", {})),
        along=tuple(entry.get("along", ())),
        seed_point=entry.get("seed_point"),
        stand_in=entry.get("stand_in", ""),
        cpus=None if cpus == "all" else tuple(cpus),
        differs=entry.get("differs", ""),
        shared_cores=entry.get("shared_cores", ""),
        least_cases=int(entry.get("least_cases", 1)),
        beside=entry.get("beside", ""),
        repetitions=entry.get("repetitions"),
        not_here=entry.get("not_here", ""),
        published=[p for p in _published(entry["kind"], entry["experiment"]) if p.metric == entry["metric"]],
    )
    if name == "published" and not test.published:
        raise ValueError(f"{where}: the seed published no {test.metric} of {test.experiment}")
    return test


def _published(kind: str, experiment: str) -> list[Published]:
    """The seed's published values of a scenario or a bench, as its spec file gives them."""
    if kind == REST:
        return parse_published(_toml(SPEC / "scenarios" / f"{experiment}.toml").get("published", []))
    if kind == "micro":
        benches = {bench["id"]: bench for bench in _toml(SPEC / "micro.toml")["bench"]}
        return parse_published(benches[experiment].get("published", []))
    return []


@cache
def _toml(path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def suites_measuring(test: Test) -> list[str]:
    """The suites whose profile has a point with the test's `where` ("quick" first)."""
    if test.kind == "capacity":
        return ["quick"]
    if test.kind == REST:
        profiles = _toml(SPEC / "scenarios" / f"{test.experiment}.toml")["profiles"]
        points = {name: profile["points"] for name, profile in profiles.items()}
    else:
        bench = {b["id"]: b for b in _toml(SPEC / "micro.toml")["bench"]}[test.experiment]
        points = {name: [_sweep(bench[name])] for name in SUITES if name in bench}
    return [suite for suite in SUITES if any(_has(point, test.where) for point in points.get(suite, []))]


def _sweep(profile: dict) -> dict:
    """A micro profile's sweep as one point of lists (modes as `mode`, starts as `start`; `max` as a
    procs of "max")."""
    renamed = {"modes": "mode", "starts": "start"}
    point = {renamed.get(k, k): v for k, v in profile.items() if k not in ("cpus", "max")}
    if profile.get("max"):
        point["procs"] = [*point.get("procs", []), "max"]
    return point


def _has(point: dict, where: dict) -> bool:
    """Whether a profile's point (its lists are sweeps) includes every parameter `where` names, at
    one of the values it names."""
    return all(_overlap(point.get(name), value) for name, value in where.items())


def _overlap(have, want) -> bool:
    """Whether a profile's value (a sweep, when a list) meets a `where` value (one of, when a list)."""
    return have == want or any(h == w for h in _listed(have) for w in _listed(want))


def _listed(value) -> list:
    """A parameter's value as a list of the values it stands for: a list is one of them."""
    return value if isinstance(value, list) else [value]
