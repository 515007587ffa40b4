"""Verdicts on the seed studies' findings (spec/findings.md): each kind of rule on its cases, a store
whose implementations are swapped flips the verdicts that compare them, overlapping intervals give
no difference, a missing implementation is not tested with its reason, and `arena findings`,
`arena export` and a run's summary show the verdicts."""

import dataclasses
import json
import math
import random
import re
import statistics
import tomllib

import pytest
from scipy import stats as scipy_stats

from arena import lifecycle
from arena.capacity.workloads import all_workloads
from arena.cli import main as cli
from arena.cli.measuring import kinds
from arena.console import Console
from arena.errors import UsageError
from arena.findings import catalog, pooled, rules
from arena.findings import judge as judge_module
from arena.findings import runs as runs_module
from arena.findings.judge import judge, judge_all
from arena.findings.rules import Case, Missing
from arena.findings.section import section
from arena.findings.values import Cell, Index, Value, lost_to_engine, paired, separated, value_of
from arena.findings.verdict import Evidence, Said, Tally, Verdict, combined, corrected
from arena.jobs import findings_suite
from arena.measured import store as store_module
from arena.measured.measurement import Measurement, Outcome
from arena.measured.stats import Ratio, log_interval, summarize, t95
from arena.measured.store import Store
from arena.micro.result import ProgramRun
from arena.paths import SPEC
from arena.rest.result import RestResult, metrics_of
from test_export import search

A, D, N = Verdict.AGREES, Verdict.DISAGREES, Verdict.NO_DIFFERENCE


def cell(
    impl: str,
    median: float,
    half: float = 1.0,
    n: int = 3,
    failed: int = 0,
    ceiling: float | None = None,
    numbers=(),
    ceiling_rps: float | None = None,
) -> Cell:
    value = (
        Value(
            median,
            median - half,
            median + half,
            n,
            ceiling=ceiling,
            ceiling_why="2 users' think",
            ceiling_rps=ceiling_rps,
        )
        if failed < n
        else None
    )
    by_repetition = {(None, i): x for i, x in enumerate(numbers)}
    return Cell(impl, {}, 1, value, n, failed, frozenset(), by_repetition=by_repetition)


def case(values: dict, higher: bool = True, seed: dict | None = None) -> Case:
    return Case(higher, cells={impl: cell(impl, *v) for impl, v in values.items()}, seed=seed or {})


def series(values: dict, higher: bool = True, cpus: int = 1) -> Case:
    return Case(
        higher,
        series={impl: {x: cell(impl, *v) for x, v in by.items()} for impl, by in values.items()},
        cpus=cpus,
    )


@pytest.mark.parametrize(
    ("rule", "measured", "expected"),
    [
        (rules.Order(["a", "b", "c"]), case({"a": (30,), "b": (20,), "c": (10,)}), A),
        (rules.Order(["a", "b", "c"]), case({"a": (30,), "b": (20,), "c": (25,)}), D),
        (rules.Order(["a", "b", "c"]), case({"a": (30,), "b": (20, 6), "c": (15, 6)}), N),
        (rules.Order(["a", "b"]), case({"a": (10,), "b": (20,)}, higher=False), A),  # lower is better
        (rules.Best("a", ["b", "c"]), case({"a": (30,), "b": (20,), "c": (10,)}), A),
        (rules.Best("a", ["b", "c"]), case({"a": (15,), "b": (20,), "c": (10,)}), D),
        (rules.Worst("c", ["a", "b"]), case({"a": (30,), "b": (20,), "c": (10,)}), A),
        (rules.Similar(["a", "b"], 0.25), case({"a": (100,), "b": (110,)}), A),
        (rules.Similar(["a", "b"], 0.25), case({"a": (100,), "b": (200,)}), D),
        (rules.Similar(["a", "b"], 0.25), case({"a": (100, 5), "b": (130, 10)}), N),
        (rules.Similar(["a", "b"], within_ms=200), case({"a": (2.0, 0.1), "b": (2.6, 0.1)}), A),  # 30% apart, 0.6 ms
        (rules.Similar(["a", "b"], within_ms=200), case({"a": (900, 10), "b": (1500, 10)}), D),
        (rules.Ratio("a", ["b"], 2, 5), case({"a": (300,), "b": (100,)}), A),
        (rules.Ratio("a", ["b"], 2, 5), case({"a": (120,), "b": (100,)}), D),
        (rules.Ratio("a", ["b"], 2, 5), case({"a": (200, 40), "b": (110, 20)}), N),
        (rules.Published(0.05), case({"a": (102,)}, seed={"a": 100}), A),
        (rules.Published(0.05), case({"a": (80,)}, seed={"a": 100}), D),
        (rules.Published(0.05), case({"a": (94, 3)}, seed={"a": 100}), N),
        (rules.Limit(2200, ["a"], most=False), case({"a": (2500, 10)}), A),
        (rules.Limit(2200, ["a"], most=False), case({"a": (2000, 10)}), D),
        (rules.Limit(2200, ["a"], most=False), case({"a": (2210, 20)}), N),
        (rules.Limit(1.5, ["a"], most=True), case({"a": (1.0, 0.1)}), A),
        (rules.Limit(1.5, ["a"], most=True), case({"a": (1.9, 0.1)}), D),
        (rules.Limit(1.5, ["a"], most=True), case({"a": (1.45, 0.1)}), N),
        (rules.Fails(["a"], ["b"]), case({"a": (1, 1, 3, 3), "b": (5,)}), A),
        (rules.Fails(["a"], ["b"]), case({"a": (1,), "b": (5,)}), D),
        (rules.Errs(["a", "b"]), case({"a": (2, 0, 1, 0, None, (2,)), "b": (1, 0, 1, 0, None, (1,))}), A),  # once each
        (rules.Errs(["a", "b"]), case({"a": (2, 0, 2, 0, None, (2, 3)), "b": (0, 0, 2, 0, None, (0, 1))}), D),
        (rules.Peaks(["a"], "pairs", "cpus"), series({"a": {1: (100,), 16: (50,)}}), A),
        (rules.Peaks(["a"], "pairs", "cpus"), series({"a": {1: (50,), 16: (100,)}}), D),
        (rules.Peaks(["a"], "pairs", "cpus"), series({"a": {1: (100, 30), 16: (90, 30)}}), N),
        (rules.Improves(["a"], "pairs", 64), series({"a": {1: (10,), 16: (20,), 128: (5,)}}), A),
        (rules.Improves(["a"], "pairs", 64), series({"a": {1: (20,), 16: (10,), 128: (50,)}}), D),
        # no fast start: better at 64 pairs than at pairs = cores, whatever it did below
        (rules.Improves(["a"], "pairs", 64, "cpus"), series({"a": {1: (5,), 2: (20,), 64: (40,)}}, cpus=2), A),
        (rules.Improves(["a"], "pairs", 64, "cpus"), series({"a": {1: (5,), 2: (40,), 64: (20,)}}, cpus=2), D),
        (rules.Worsens(["a"], "cpus"), series({"a": {1: (10,), 2: (5,)}}), A),
        (rules.Worsens(["a"], "pairs", "cpus"), series({"a": {1: (9,), 2: (10,), 16: (5,)}}, cpus=2), A),
        (rules.Worsens(["a"], "cpus"), series({"a": {1: (10,), 2: (5,)}}, higher=False), D),
        (rules.Worsens(["a"], "pairs", "cpus", 0.2), series({"a": {2: (100,), 64: (90,)}}, cpus=2), N),  # not a fifth
        (rules.Worsens(["a"], "pairs", "cpus", 0.2), series({"a": {2: (100,), 64: (70,)}}, cpus=2), A),
        (rules.Flat(["a"], "cpus", 0.15), series({"a": {4: (100,), 32: (105,)}}), A),
        (rules.Flat(["a"], "cpus", 0.15), series({"a": {4: (100,), 32: (200,)}}), D),
        (rules.Smooth(["a"], "procs", 2.0), series({"a": {1000: (1, 0.1), 10000: (1.5, 0.1), 100000: (2.5, 0.1)}}), A),
        (rules.Smooth(["a"], "procs", 2.0), series({"a": {1000: (1, 0.1), 10000: (5, 0.1)}}), D),
        (
            rules.Jumps("a", ["b"], "procs", 10000, 20000),
            series({"a": {10000: (10,), 20000: (30,)}, "b": {10000: (10,), 20000: (11,)}}),
            A,
        ),
        (
            rules.Jumps("a", ["b"], "procs", 10000, 20000),
            series({"a": {10000: (10,), 20000: (11,)}, "b": {10000: (10,), 20000: (30,)}}),
            D,
        ),
        # Rules that cannot be fooled (spec/findings.md, "What tells two values apart"):
        (rules.Order(["a", "b"]), case({"a": (101, 0.1), "b": (100, 0.1)}), N),  # apart, by less than 3%
        (rules.Order(["a", "b"]), case({"a": (100, 0.1), "b": (103.5, 0.1)}), D),  # by more
        (
            rules.Similar(["a", "b"], 0.25),
            case({"a": (100, 1), "b": (110, 20)}),
            N,
        ),  # the median within, the interval not
        (rules.Ratio("a", ["b"], 2, 5), case({"a": (480, 60), "b": (100, 1)}), N),  # 4.8 [4.2, 5.4]: not all within
        (rules.Published(0.05), case({"a": (102, 4)}, seed={"a": 100}), N),  # [98, 106] reaches past 105
        (rules.Smooth(["a"], "procs", 2.0), series({"a": {1000: (1, 0.1), 10000: (1.9, 0.2)}}), N),
    ],
)
def test_each_kind_of_rule_agrees_disagrees_or_finds_no_difference(rule, measured, expected):
    said = rule.judge(measured)
    assert said.verdict is expected, said.because
    assert said.because  # the numbers it rests on


@pytest.mark.parametrize(
    ("measured", "why"),
    [
        (case({"a": (30,)}), "no measurement of b"),
        (case({"a": (30,), "b": (20, 1.0, 1)}), "b: n=1: no interval"),
        (case({"a": (30,), "b": (20, 1.0, 3, 3)}), "b: no repetition counted (3 of 3 failed)"),
        (case({"a": (30,), "b": (20, 0.0)}), "b: every repetition gave 20 [20, 20], and no resolution is known"),
    ],
)
def test_a_case_without_what_its_rule_needs_is_not_judged(measured, why):
    with pytest.raises(Missing, match=re.escape(why)):
        rules.Order(["a", "b"]).judge(measured)


@pytest.mark.parametrize(
    "rule", [rules.Worst("b", ["a"]), rules.Similar(["a", "b"], 0.25), rules.Ratio("a", ["b"], 1, 1.5)]
)
def test_sides_that_all_reached_their_ceiling_are_not_compared(rule):
    """Node's 11 requests against Go's 10 with two users thinking a second: the think time set both."""
    with pytest.raises(Missing, match="every side at 95% or more of its ceiling"):
        rule.judge(case({"a": (11, 0.5, 3, 0, 0.99), "b": (10, 0.5, 3, 0, 0.97)}))
    said = rule.judge(case({"a": (11, 0.5, 3, 0, 0.99), "b": (5, 0.5, 3, 0, 0.5)}))  # b fell short of its own
    assert said.verdict is not N
    with pytest.raises(Missing, match="every side at 95% or more of its ceiling"):  # one ceiling, 1% apart
        rule.judge(case({"a": (11, 0.5, 3, 0, 0.99, (), 11.1), "b": (10, 0.5, 3, 0, 0.97, (), 11.0)}))


def test_a_value_at_its_ceiling_is_held_to_nothing_under_any_rule():
    """B-ab1: 490 requests a second of the 500 that a 200 ms delay and 100 connections allow agrees
    with the seed's 468.85 whatever the server: set by the load, and said so with the share."""
    at = case({"node": (490, 1, 6, 0, 0.98, (), 500.0)}, seed={"node": 468.85})
    with pytest.raises(
        Missing, match=r"at 95% or more of its ceiling of 500/s \(node 98%; 2 users' think\): set by the load"
    ):
        rules.Published(0.05).judge(at)
    # a value the load held is a floor of the server's: at least 400 it shows, at most 600 it cannot
    floor = rules.Limit(400, ["node"], most=False).judge(at)
    assert floor.verdict is A and "(a floor: at 95% or more of its ceiling" in floor.because
    assert rules.Limit(600, ["node"], most=False).judge(at).verdict is N  # below it, yet held: not against
    with pytest.raises(Missing, match="set by the load"):
        rules.Limit(600, ["node"], most=True).judge(at)
    below = case({"node": (470, 1, 6, 0, 0.80, (), 590.0)}, seed={"node": 468.85})
    assert rules.Published(0.05).judge(below).verdict is A
    along = series({"a": {1: (480, 1, 3, 0, 0.96), 2: (490, 1, 3, 0, 0.98)}})
    for rule in (rules.Flat(["a"], "cpus", 0.15), rules.Improves(["a"], "cpus"), rules.Peaks(["a"], "cpus", 2)):
        with pytest.raises(Missing, match="a at 1: 96% of its ceiling"):
            rule.judge(along)
    # A server's own work is no load's (the hashes its cores allow, its users not thinking): reached, it
    # is the server's speed, and judged (T-5.6-a: Go at 98% of 17 hashes a second on one core).
    cells = series({"a": {1: (250, 1, 3, 0, 0.98), 2: (490, 1, 3, 0, 0.98)}}).series["a"]
    own = {x: dataclasses.replace(c, value=dataclasses.replace(c.value, ceiling_own=True)) for x, c in cells.items()}
    assert rules.Improves(["a"], "cpus").judge(Case(True, series={"a": own})).verdict is A


def test_a_ceiling_of_a_servers_own_hashes_is_its_own_work_in_runs_stored_before_it_said_so():
    from arena.rest.ceiling import own_work

    assert own_work({"rps": 17.3, "why": "min(think cycles 17.3/s, 1 core(s) / 58 ms hash 17.3/s)"})
    assert not own_work({"rps": 1.9, "why": "min(think cycles 1.9/s, 1 core(s) / 58 ms hash 17.3/s)"})  # users thinking
    assert not own_work({"rps": 500, "why": "100 workers x every 10th waits 2 s"})
    assert own_work({"rps": 1.9, "why": "anything", "own": True})


def test_a_time_of_a_server_that_failed_requests_is_not_judged():
    """honours-basic at 150/s (run 20261204-232131): half of every server's reads failed after its
    pool's wait (Java's 2 s, Go's 3 s), and the mean of the rest was that wait's, not a speed."""
    failing = Cell("go", {}, 1, Value(2391, 2381, 2407, 3), 3, 0, frozenset({"errors"}))
    java = Cell("java", {}, 1, Value(2035, 2027, 2044, 3), 3, 0, frozenset({"errors"}))
    timed = Case(False, cells={"go": failing, "java": java}, timed=True)
    with pytest.raises(Missing, match="java: over 1% of its requests failed"):
        rules.Order(["java", "go"]).judge(timed)
    counted = Case(True, cells={"go": failing, "java": java})  # a count of requests: what failed is counted
    assert rules.Order(["go", "java"]).judge(counted).verdict is A


def test_a_pair_the_load_held_tells_no_order_whatever_the_other_pairs_tell():
    """Go at 97% of 8,000 users' think-time ceiling, Elixir at 96% and Node at 46% (T-Tab5-a, run
    20261129-132057): Go above Elixir would be the load's, Elixir above Node is theirs."""
    order = rules.Order(["a", "b", "c"])
    held = case({"a": (11, 0.1, 3, 0, 0.97), "b": (10, 0.1, 3, 0, 0.96), "c": (5, 0.1, 3, 0, 0.46)})
    said = order.judge(held)
    assert said.verdict is N and "a and b each at 95% or more of its ceiling" in said.because, said.because
    assert order.pool([held, held]) is None  # nor does the pair pool
    short = case({"a": (11, 0.1, 3, 0, 0.97), "b": (10, 0.1, 3, 0, 0.80), "c": (5, 0.1, 3, 0, 0.46)})
    assert order.judge(short).verdict is A
    against = case({"a": (11, 0.1, 3, 0, 0.97), "b": (10, 0.1, 3, 0, 0.96), "c": (12, 0.1, 3, 0, 0.90)})
    assert order.judge(against).verdict is D  # the pair the load did not hold still counts against


@pytest.mark.parametrize(
    "rule", [rules.Worst("b", ["a"]), rules.Similar(["a", "b"], 0.25), rules.Ratio("a", ["b"], 1, 1.5)]
)
def test_sides_at_ceilings_of_their_own_work_are_compared(rule):
    """Users that never think keep each server at the hashes its cores allow at its own hash time:
    Go's 16.5 a second against Node's 13.8 differ as their hashing does, and that is judged."""
    at_own = case({"a": (16.5, 0.2, 3, 0, 0.99, (), 16.6), "b": (13.8, 0.2, 3, 0, 0.98, (), 14.0)})
    assert rule.judge(at_own).verdict in (A, D)


@pytest.mark.parametrize(
    ("verdicts", "least", "expected"),
    [
        ([A, A], 1, A),
        ([A], 2, Verdict.NOT_TESTED),  # a claim made in every condition does not agree on one
        ([A, A], 2, A),
        ([A, A, A, D], 2, D),  # one odd case decides, and the tally says it is one of four
        ([A, N], 1, N),
        ([Verdict.NOT_TESTED, A], 1, A),
    ],
)
def test_cases_combine_into_a_verdict_that_says_how_many_were_for_and_against(verdicts, least, expected):
    assert combined(verdicts, least) is expected
    tally = Tally.of(verdicts)
    assert (tally.agree, tally.disagree, tally.undecided) == tuple(verdicts.count(v) for v in (A, D, N))


def cases(n: int, values: dict) -> list[Case]:
    return [case(values) for _ in range(n)]


@pytest.mark.parametrize(
    ("rule", "measured", "expected"),
    [
        # 5% apart, each case's intervals overlapping: four cases tell it
        (rules.Best("a", ["b"]), cases(4, {"a": (105, 6), "b": (100, 6)}), A),
        (rules.Best("a", ["b"]), cases(4, {"a": (100, 6), "b": (105, 6)}), D),
        (
            rules.Best("a", ["b"]),
            cases(2, {"a": (105, 6), "b": (100, 6)}) + cases(2, {"a": (100, 6), "b": (105, 6)}),
            N,
        ),
        (rules.Best("a", ["b"]), cases(4, {"a": (102, 1), "b": (100, 1)}), N),  # told apart, by less than 3%
        (rules.Ratio("a", ["b"], 2, 5), cases(4, {"a": (300, 90), "b": (100, 30)}), A),  # 3 [1.94, 4.64] a case
        (rules.Ratio("a", ["b"], 2, 5), cases(4, {"a": (150, 45), "b": (100, 30)}), D),
        (rules.Similar(["a", "b"], 0.25), cases(4, {"a": (100, 15), "b": (110, 15)}), A),
        (rules.Similar(["a", "b"], 0.25), cases(4, {"a": (100, 15), "b": (140, 15)}), D),
    ],
)
def test_cases_undecided_one_by_one_are_pooled_into_one_ratio(rule, measured, expected):
    """spec/findings.md, "Pooling": each case's ratio on the logarithms, counted once, the interval
    by Student's t from how the cases scatter."""
    assert {rule.judge(c).verdict for c in measured} <= {N, expected}
    said = rule.pool(measured)
    assert said.verdict is expected, said.because
    assert said.because.startswith("pooled: ") and "over 4 cases" in said.because and said.effect.endswith("pooled")


def test_a_pool_needs_two_cases_with_an_interval_and_counts_each_case_once():
    assert rules.Best("a", ["b"]).pool(cases(1, {"a": (105, 6), "b": (100, 6)})) is None
    close, loose = case({"a": (110, 1), "b": (100, 1)}), case({"a": (105, 30), "b": (100, 30)})
    assert pooled.pool([pooled.Estimate(None, 3), rules._lead_estimate(close, "a", "b")]) is None
    both = pooled.pool([rules._lead_estimate(c, "a", "b") for c in (close, loose)])
    # a case whose repetitions happened to lie close weighs no more than the loose one
    assert both is not None and both.one_effect and both.value == pytest.approx(math.sqrt(1.10 * 1.05), rel=1e-3)
    # two close cases 10% for and 10% against: their spread is the pool's error, across 1
    split = [case({"a": (110, 1), "b": (100, 1)}), case({"a": (100, 1), "b": (110, 1)})]
    apart = pooled.pool([rules._lead_estimate(c, "a", "b") for c in split])
    assert apart is not None and not apart.one_effect and apart.low < 1 < apart.high
    assert rules.Similar(["a", "b"], 0.25).pool(split).verdict is N  # no one ratio to hold to a band

    # four close cases whose leads differ beyond their errors, each repeated much the same in every
    # run (T-Fig3-a's 1.0-1.4): their spread, of 3 degrees of freedom, is the pooled lead's error
    spread = [case({"a": (100 * lead, 1), "b": (100, 1)}) for lead in (1.0, 1.15, 1.3, 1.4)]
    wide = pooled.pool([rules._lead_estimate(c, "a", "b") for c in spread])
    assert wide is not None and not wide.one_effect and wide.low < 1 < 1.2 < wide.value < wide.high
    assert rules.Best("a", ["b"]).pool(spread).verdict is N


def test_cases_are_apart_by_welchs_test_which_counts_the_repetitions_each_error_came_from():
    """spec/findings.md, "Pooling": three repetitions a case estimate its error, and Cochran's Q,
    which takes errors as known, calls one true ratio's cases apart several times too often."""
    draws = random.Random(7)

    def one_ratio(reps: int) -> list[pooled.Estimate]:
        """Three cases of one true ratio (1), each a mean of `reps` normal logarithms."""
        estimates = []
        for _ in range(3):
            logs = [draws.gauss(0.0, 0.1) for _ in range(reps)]
            half = t95(reps - 1) * statistics.stdev(logs) / math.sqrt(reps)
            mean = statistics.fmean(logs)
            estimates.append(pooled.Estimate(Ratio(math.exp(mean), math.exp(mean - half), math.exp(mean + half)), reps))
        return estimates

    for reps in (3, 6):
        pools = [pooled.pool(one_ratio(reps)) for _ in range(2000)]
        apart = sum(not p.one_effect for p in pools) / len(pools)
        by_q = sum(p.q > scipy_stats.chi2.ppf(0.95, 2) for p in pools) / len(pools)
        assert apart < 0.07 < by_q, (reps, apart, by_q)
    # three cold cases of Scala's actors over Pekko (V-Fig3-b, run 20261130-220154): Q = 15.3 is past chi-square's
    # 5.99, but each error came from three repetitions, and Welch's F is within its quantile
    cold = [Ratio(3.28, 2.61, 4.12, 2), Ratio(4.11, 3.69, 4.59, 2), Ratio(3.21, 0.83, 12.45, 2)]
    together = pooled.pool([pooled.Estimate(r, 3) for r in cold])
    assert together is not None and together.one_effect and 3.5 < together.value < 3.8
    # three closely measured cases of 1, 2 and 4 times are apart whatever the repetitions
    spread = pooled.pool([pooled.Estimate(Ratio(v, v * 0.95, v / 0.95, 2), 3) for v in (1, 2, 4)])
    assert spread is not None and not spread.one_effect


def measured(numbers: list[float], run: int | None = None, higher: bool = True, resolution: float = 0.0) -> Cell:
    """A cell of real repetitions: their value and interval as the judge makes them, each number
    kept by its run and repetition."""
    value = value_of(numbers, False, higher, resolution)
    return Cell(
        "x", {}, 1, value, len(numbers), 0, frozenset(), by_repetition={(run, i): x for i, x in enumerate(numbers)}
    )


def pair(a: Cell, b: Cell, higher: bool = True) -> Case:
    return Case(higher, cells={"a": a, "b": b})


def grown(a_from: list, a_to: list, b_from: list, b_to: list) -> Case:
    """Two implementations at two budgets, each number of one repetition of one run."""
    return Case(
        True,
        series={
            "a": {1: measured(a_from), 2: measured(a_to)},
            "b": {1: measured(b_from), 2: measured(b_to)},
        },
    )


# Each side's repetitions 100, 120 and 140 apart as the machine's minutes moved them: their own
# intervals overlap whatever lies between the sides, and each repetition's ratio tells it.
MOVED = [100.0, 120.0, 140.0]


@pytest.mark.parametrize(
    ("rule", "measured_case", "expected"),
    [
        (rules.Order(["a", "b"]), pair(measured(MOVED), measured([96.5, 116.2, 135.6])), A),  # 3.4-3.6% a pair
        (rules.Order(["a", "b"]), pair(measured(MOVED), measured([135.6, 96.5, 116.2])), N),  # the same, unpaired
        (rules.Order(["a", "b"]), pair(measured(MOVED, 1), measured([96.5, 116.2, 135.6], 2)), N),  # two runs
        (rules.Order(["a", "b"]), pair(measured(MOVED), measured([98.1, 117.7, 137.3])), N),  # 2%: below 3%
        (rules.Order(["a", "b"]), pair(measured(MOVED), measured([110.3, 132.1, 154.6])), D),
        (
            rules.Order(["a", "b"]),
            pair(measured(MOVED, higher=False), measured([110.3, 132.1, 154.6], higher=False), higher=False),
            A,
        ),
        (rules.Similar(["a", "b"], 0.25), pair(measured(MOVED), measured([111.0, 131.0, 156.0])), A),
        (rules.Similar(["a", "b"], 0.25), pair(measured(MOVED), measured([150.0, 183.0, 208.0])), D),
        (rules.Ratio("b", ["a"], 1.2, 2), pair(measured(MOVED), measured([150.0, 183.0, 208.0])), A),
        # counts of ten, one in ten their resolution: 10% a repetition is within what they can tell
        (
            rules.Order(["b", "a"]),
            pair(measured([10, 10, 11], resolution=0.1), measured([11, 11, 12], resolution=0.1)),
            N,
        ),
        (rules.Order(["b", "a"]), pair(measured([10, 10, 11]), measured([11, 11, 12])), A),
        # Growths from one core to two: a's 1.50-1.55 a repetition, b's 1.25-1.30 (T-5.6-a's Go and Node)
        (rules.Jumps("a", ["b"], "cpus", 1, 2), grown(MOVED, [150, 186, 210], MOVED, [130, 150, 182]), A),
        (rules.Jumps("a", ["b"], "cpus", 1, 2), grown(MOVED, [150, 186, 210], MOVED, [130, 182, 150]), N),  # b shuffled
        (rules.Jumps("a", ["b"], "cpus", 1, 2), grown(MOVED, [130, 150, 182], MOVED, [150, 186, 210]), D),
    ],
)
def test_sides_measured_in_the_same_repetitions_are_compared_by_their_ratios(rule, measured_case, expected):
    """spec/findings.md, "Pairs": the ratio of each repetition's two values cancels what the
    machine did in its minutes; repetitions of two runs, or numbers of no one repetition, do not pair."""
    said = rule.judge(measured_case)
    assert said.verdict is expected, said.because


def test_a_band_along_an_axis_of_points_measured_on_one_start_is_told_by_repetition():
    """H-4.2-a: Node's first answer at two rates on each start, each start slower or faster as a
    whole: 0.21-0.27 s at either rate, within 4% of each other on every start."""
    first = {20: measured([0.21, 0.27, 0.235], higher=False), 100: measured([0.22, 0.275, 0.24], higher=False)}
    flat = rules.Flat(["node"], "rate", 0.25).judge(Case(False, series={"node": first}))
    assert flat.verdict is A and "by repetition" in flat.because, flat.because
    apart = {20: first[20], 100: measured([0.22, 0.275, 0.24], 7, higher=False)}  # another run: their own intervals
    assert rules.Flat(["node"], "rate", 0.25).judge(Case(False, series={"node": apart})).verdict is N
    steps = {1: measured([1.0, 1.3, 1.1]), 2: measured([1.9, 2.5, 2.1]), 3: measured([3.8, 4.9, 4.3])}
    smooth = rules.Smooth(["x"], "n", 2.2).judge(Case(True, series={"x": steps}))
    assert smooth.verdict is A and "steps x1.9" in smooth.because, smooth.because


def test_a_trend_of_points_measured_on_one_start_is_told_by_repetition():
    """Java's mean over 50 sorts at rate 20, then 100 on each start (run 20261129-091730): each
    repetition slower at 100 by 18-36%, the two points' own intervals overlapping."""
    cells = {20: measured([8.803, 8.387, 7.925], higher=False), 100: measured([10.73, 9.895, 10.78], higher=False)}
    said = rules.Improves(["java"], "rate").judge(Case(False, series={"java": cells}))
    assert said.verdict is D and "by repetition" in said.because, said.because
    apart = {20: cells[20], 100: measured([10.73, 9.895, 10.78], 7, higher=False)}  # from another run
    assert rules.Improves(["java"], "rate").judge(Case(False, series={"java": apart})).verdict is N


def test_a_ratios_interval_rests_on_its_own_repetitions():
    """spec/findings.md, "Scatter": b over a by repetition at one point, 1.04-1.16, t at two degrees
    of freedom from its three repetitions, whatever the experiment's other points scattered."""
    a, b = measured(MOVED), measured([x * r for x, r in zip(MOVED, [1.10, 1.04, 1.16], strict=True)])
    r = paired(a, b)
    assert r is not None and r.dof == 2 and r.value == pytest.approx(1.10, abs=0.005) and r.low < 1 < r.high


def test_the_judge_pairs_repetitions_of_one_run_only():
    both = [dataclasses.replace(m, run=1) for m in spawns({"erlang": 10.0, "go": 9.0}, 1000, step=0.1)]
    (erlang, go) = Index(both).cells("micro", "spawn", "us_per_spawn", False)
    assert paired(erlang, go) is not None and paired(erlang, go).value == pytest.approx(0.9)
    apart = [dataclasses.replace(m, run=1 if m.impl == "go" else 2) for m in both]
    assert paired(*Index(apart).cells("micro", "spawn", "us_per_spawn", False)) is None


def test_a_finding_whose_cases_are_undecided_one_by_one_is_judged_on_them_pooled():
    """Scala's spawn 10% slower than Erlang's and Go's at four process counts, each count's three
    repetitions 8% apart: no count tells them apart; the four together do."""
    v_fig4b = finding("V-Fig4b")
    worst = dataclasses.replace(v_fig4b, tests=[v_fig4b.tests[0]])  # "spawn time is greater than for Erlang and Go"
    slower = {"erlang": 10.0, "go": 10.0, "scala": 11.0}
    ms = [m for procs in (1000, 10000, 20000, 25000) for m in spawns(slower, procs, "cold", 2, step=0.08)]
    judged = judge(Index(ms), worst)
    (spawn,) = judged.tests
    assert spawn.tally.undecided == 4 and spawn.pooled is not None
    assert judged.verdict is A and "pooled: erlang/scala x1.10" in judged.because()
    assert judged.effect().endswith("pooled")
    alike = [m for procs in (1000, 10000) for m in spawns(dict.fromkeys(slower, 10.0), procs, "cold", 2, step=0.08)]
    assert judge(Index(alike), worst).verdict is N
    alone = spawns(slower, 1000, "cold", 2, step=0.08)  # one case: nothing to pool
    assert judge(Index(alone), worst).verdict is N and judge(Index(alone), worst).tests[0].pooled is None


def test_a_failure_says_what_stopped_it():
    """VJ-R4: whether a thread a process runs out of the machine's threads (kernel.pid_max) or of
    the runtime's own limit reads differently: the evidence gives the program's own words."""
    why = "exit 1: [0.2s][warning][os,thread] Failed to start thread - pthread_create failed (EAGAIN)"
    stopped = Cell("java-platform", {}, 2, None, 3, 3, frozenset(), failures=(why,))
    completed = Cell("erlang", {}, 2, Value(1.0, 0.9, 1.1, 3), 3, 0, frozenset())
    said = rules.Fails(["java-platform"], ["erlang"]).judge(
        Case(False, cells={"java-platform": stopped, "erlang": completed})
    )
    assert (
        said.verdict is A and "java-platform failed 3 of 3 (exit 1: [0.2s][warning][os,thread] Failed" in said.because
    )


def test_a_tally_reads_as_for_against_and_undecided():
    assert Tally.of([A, A, D, N, Verdict.NOT_TESTED]).show() == "2 for, 1 against, 1 undecided"
    assert Tally.of([Verdict.NOT_TESTED]).show() == "-"


def test_a_count_is_known_to_one_of_it():
    ten = value_of([10.0, 10.0, 10.0], bounded=False, higher_is_better=True, resolution=0.1)
    eleven = value_of([11.0, 11.0, 11.0], bounded=False, higher_is_better=True, resolution=1 / 11)
    assert ten.low == pytest.approx(10 / 1.1) and ten.high == pytest.approx(11)
    assert separated(eleven, ten, higher_is_better=True) == 0


def test_bytes_per_process_are_known_to_a_byte_or_to_a_page_over_the_processes():
    """Erlang printed 2,811 bytes a process in each of three repetitions at 3,000,000 processes: no
    spread measured, but a value known to its byte, which decides against 1,618 and 2,765."""
    whole = ProgramRun({"bytes_per_process": 2811}, {"alive": 3_000_000}, 1.0, 1.0, 1.0, 900, "")
    assert whole.exported()["bytes_per_process_resolution"] == pytest.approx(1 / 2811)
    few = ProgramRun({"bytes_per_process": 4096.0}, {"alive": 1000}, 1.0, 1.0, 1.0, 900, "")
    assert few.exported()["bytes_per_process_resolution"] == pytest.approx(4.096 / 4096)
    ms = spawns({"erlang": 3.0}, 3_000_000, "cold", 2, step=0.0)
    (erlang,) = Index(ms).cells("micro", "spawn", "bytes_per_process", False)
    assert erlang.value.low < 2900 < erlang.value.high and erlang.value.high - erlang.value.low < 3


def test_a_positive_metric_has_its_geometric_interval_and_the_rest_their_means():
    latency = value_of([364.799, 142.591, 308.735], bounded=False, higher_is_better=False)
    assert (latency.low, latency.high) == log_interval([364.799, 142.591, 308.735]) and latency.median == 308.735
    errors = value_of([0.0, 2.0, 4.0], bounded=False, higher_is_better=False)
    assert (errors.low, errors.high) == (summarize([0.0, 2.0, 4.0]).ci_low, summarize([0.0, 2.0, 4.0]).ci_high)


def edges(by_impl: dict[str, list[float]], workload: str = "json") -> list[Measurement]:
    """Capacity measurements: each implementation's edges over its repetitions."""
    point = json.dumps({"p99_ms": 10})
    return [
        Measurement("capacity", impl, workload, point, 1, rep, Outcome.MEASURED, payload=search(edge))
        for impl, found in by_impl.items()
        for rep, edge in enumerate(found)
    ]


def finding(id_: str) -> catalog.Finding:
    return next(f for f in catalog.load() if f.id == id_)


def deciding(found: catalog.Finding) -> catalog.Finding:
    """The finding with every test deciding: T-Fig4-a's capacity edges stand beside its counts, and
    judge alone here."""
    return dataclasses.replace(found, tests=[dataclasses.replace(t, beside="") for t in found.tests])


GO, ELIXIR, NODE = [23000.0, 23500.0, 24000.0], [14000.0, 14300.0, 14600.0], [2000.0, 2050.0, 2100.0]


def test_swapping_two_implementations_flips_the_verdicts_that_compare_them():
    fig4 = deciding(finding("T-Fig4-a"))  # "Go performs best ... Elixir second ... Node.js worst"
    agreed = judge(Index(edges({"go": GO, "elixir": ELIXIR, "node": NODE})), fig4)
    assert agreed.verdict is A, agreed.because()
    swapped = judge(Index(edges({"go": NODE, "elixir": ELIXIR, "node": GO})), fig4)
    assert swapped.verdict is D and "above" in swapped.because()
    # its other test needs `arena run`, which was not read: said, with the command that would run it
    (http,) = [t for t in agreed.tests if t.test.kind == "rest"]
    assert http.verdict is Verdict.NOT_TESTED
    assert "`./arena run --scenario thesis-userinfo --suite findings`" in http.reason


def test_a_value_published_at_the_budget_wins_over_one_published_without():
    # blog-ab: the async server at one core (468.85 req/s), the cluster without a core count (474.5)
    (async_test,) = finding("B-ab1").tests
    (cluster,) = finding("B-ab2").tests
    assert judge_module._seed(async_test, 1) == {"node:http-single": 468.85, "node:http-cluster": 474.5}
    assert judge_module._seed(cluster, 2) == {"node:http-cluster": 474.5}
    # Each judges the setup the blog measured it on: the one process, and the cluster.
    assert (async_test.rule.impls(), cluster.rule.impls()) == (["node:http-single"], ["node:http-cluster"])


def test_the_evidence_of_a_verdict_is_drawn_folded_under_the_table():
    measured = Index(edges({"go": GO, "elixir": ELIXIR, "node": NODE}))
    judged = judge_all(measured, [deciding(finding("T-Fig4-a")), finding("T-6-d")])
    made = section(judged, [])
    (chart,) = made.charts  # the untestable finding and the test not made draw nothing
    assert chart.folded and chart.categories == ["elixir", "go", "node:express-cluster"]
    assert "T-Fig4-a (agrees)" in chart.title
    (bars,) = chart.series
    assert [v.y for v in bars.values] == [14300.0, 23500.0, 2050.0] and all(v.low < v.y < v.high for v in bars.values)


def test_overlapping_intervals_give_no_difference_and_a_missing_implementation_is_not_tested():
    fig4 = deciding(finding("T-Fig4-a"))
    overlap = judge(Index(edges({"go": [1000, 1100, 900], "elixir": [1000, 950, 1050], "node": [100, 105, 110]})), fig4)
    assert overlap.verdict is N and "intervals overlap" in overlap.because()
    missing = judge(Index(edges({"go": GO, "elixir": ELIXIR})), fig4)
    assert missing.verdict is Verdict.NOT_TESTED and "no measurement of node" in missing.because()


def test_a_finding_no_measurement_can_test_says_why_and_one_no_run_here_can_says_what_would():
    opinion = judge(Index([]), finding("T-6-d"))
    assert opinion.verdict is Verdict.UNTESTABLE and opinion.because() == "an opinion"
    cores = judge(Index(edges({"go": GO}, "bcrypt")), finding("T-Fig2-b"))
    assert cores.verdict is Verdict.NOT_TESTED and "--cpus 64" in cores.because()


def test_a_test_along_cores_measured_on_the_budgets_this_machine_allows_says_how_many_the_rest_need(monkeypatch):
    monkeypatch.setattr(judge_module.cores, "machine_cores", lambda: [0, 1])
    payload = RestResult({"p50_ms": 0.3}, {}, [], 1.0, 2048, 0.1)
    point = json.dumps({"users": 2000})
    one_core = [
        Measurement("rest", "go", "thesis-userinfo", point, 1, i, Outcome.MEASURED, payload=payload) for i in range(3)
    ]
    said = judge(Index(one_core), finding("T-Fig4-b"))  # Go's p50 at one core against two, with the engine's own
    assert said.verdict is Verdict.NOT_TESTED
    assert said.because().endswith("cpus=2 needs measuring on a machine of 3 cores or more, 2 here"), said.because()


def test_a_test_of_another_suites_points_on_more_cores_than_here_says_how_many(monkeypatch):
    monkeypatch.setattr(judge_module.cores, "machine_cores", lambda: [0, 1])
    payload = RestResult({"p99_ms": 900.0}, {}, [], 1.0, 2048, 0.1)
    findings_point = json.dumps({"users": 2000})
    measured = Measurement("rest", "node", "thesis-userinfo", findings_point, 1, 0, Outcome.MEASURED, payload=payload)
    said = judge(Index([measured]), finding("T-Tab7-b"))  # 8,000 users on 64 cores: the paper suite's
    assert said.verdict is Verdict.NOT_TESTED
    assert said.because().endswith("--suite paper --cpus 64` on a machine of 65 cores or more, 2 here"), said.because()


def spawns(
    us_by_impl: dict[str, float], procs: int, start: str = "", cpus: int = 1, step: float = 0.01
) -> list[Measurement]:
    """Micro measurements of spawn: each runtime's µs per process at `procs`, over three repetitions
    `step` apart (a share of it)."""
    return [
        Measurement(
            "micro",
            impl,
            "spawn",
            json.dumps({"mode": "idiomatic", "procs": procs, **({"start": start} if start else {})}),
            cpus,
            rep,
            Outcome.MEASURED,
            parameters={"mode": "idiomatic", "params": {"procs": procs}, **({"start": start} if start else {})},
            payload=ProgramRun(
                {"us_per_spawn": us * (1 + step * rep), "bytes_per_process": 2900.0},
                {"alive": procs},
                0.1,
                0.2,
                0.1,
                900,
                "",
                None,
            ),
        )
        for impl, us in us_by_impl.items()
        for rep in range(3)
    ]


def test_a_stand_in_point_is_judged_only_when_it_keeps_the_seeds_regime_and_says_so():
    ms = [m for procs in (1000, 10000) for m in spawns({"erlang": 4.0, "scala": 8.0, "go": 30.0}, procs)]
    v_fig4a = finding("V-Fig4a")  # "Erlang 12s ... Scala/Akka and Go need 26s and 114s", at 3,000,000
    seeded = dataclasses.replace(
        v_fig4a.tests[0], where={"mode": "idiomatic"}, seed_point={"mode": "idiomatic", "procs": 3_000_000}, cpus=(1,)
    )
    v_fig4a = dataclasses.replace(v_fig4a, tests=[seeded])
    unstood = judge(Index(ms), v_fig4a)
    assert unstood.verdict is Verdict.NOT_TESTED
    assert "the seed's point (mode=idiomatic procs=3000000) was not measured" in unstood.tests[0].reason
    keeps = "every process is created and started the same way at any N"
    stood = dataclasses.replace(v_fig4a, tests=[dataclasses.replace(v_fig4a.tests[0], stand_in=keeps)])
    judged = judge(Index(ms), stood)
    assert judged.verdict is A, judged.because()
    (spawn,) = judged.tests
    assert spawn.stand_in == (
        "at mode=idiomatic procs=1000, mode=idiomatic procs=10000; the seed's point: mode=idiomatic procs=3000000, "
        f"whose regime they keep: {keeps}"
    )
    assert spawn.stand_in in judged.because()
    # once the seed's own point is measured, the verdict rests on it alone
    at_seed = judge(Index(ms + spawns({"erlang": 9.0, "scala": 8.0, "go": 30.0}, 3_000_000)), stood)
    assert at_seed.verdict is D and at_seed.tests[0].stand_in == "" and "procs=1000 " not in at_seed.because()
    json_edges = judge(Index(edges({"go": GO, "elixir": ELIXIR, "node": NODE})), finding("T-Fig4-a"))
    (capacity,) = [t for t in json_edges.tests if t.test.kind == "capacity"]
    assert capacity.verdict is A and json_edges.verdict is Verdict.NOT_TESTED  # beside, it does not decide
    assert "set-and-get pairs" in capacity.test.beside and "beside, not deciding" in json_edges.because()


def test_every_finding_of_the_five_studies_is_read_and_each_test_names_a_real_experiment():
    findings = catalog.load()
    assert {f.study for f in findings} == set(catalog.STUDIES) and len(findings) >= 60
    scenarios = {p.stem for p in (SPEC / "scenarios").glob("*.toml")}
    benches = {b["id"] for b in tomllib.loads((SPEC / "micro.toml").read_text())["bench"]}
    known = {"rest": scenarios, "micro": benches, "capacity": set(all_workloads())}
    for f in findings:
        assert f.quote and f.source and (f.tests or f.untestable or f.not_here), f.id
        for t in f.tests:
            assert t.experiment in known[t.kind], (f.id, t.experiment)


def stored(tmp_path, monkeypatch) -> str:
    """A micro run of spawn's cold starts on both cores: at 3,000,000 in the seed's order (V-Fig4a
    agrees), at 1,000 with Scala the fastest (V-Fig4b, 'Scala slower than Erlang and Go', disagrees)."""
    monkeypatch.setattr(store_module, "RESULTS", tmp_path)
    monkeypatch.setattr(lifecycle, "RESULTS", tmp_path)
    store = Store()
    run = store.start_run("m1", "findings", {"kind": "micro", "bench": ["spawn"]}, {"cores": 2}, "abc", False)
    seed_order = spawns({"erlang": 4.0, "scala": 8.0, "go": 30.0}, 3_000_000, "cold", 2)
    scala_first = spawns({"erlang": 4.0, "scala": 2.0, "go": 30.0}, 1000, "cold", 2)
    for m in seed_order + scala_first:
        store.add(run.id, m)
    store.finish_run(run.id)
    store.close()
    return "m1"


def test_arena_findings_prints_the_ledger_of_the_newest_runs(tmp_path, monkeypatch, capsys):
    stored(tmp_path, monkeypatch)
    assert cli.main(["findings"]) == 0
    out = capsys.readouterr().out
    assert "Findings of the seed studies" in out and "from m1" in out
    assert "V-Fig4a" in out and "T-6-d" in out
    assert cli.main(["findings", "m1", "--verdict", "disagrees"]) == 0
    out = capsys.readouterr().out
    assert "V-Fig4b" in out and "V-Fig4a" not in out  # Scala the fastest at 1,000; the seed's order at 3M
    assert cli.main(["findings", "nope"]) == 2
    assert "no run named nope" in capsys.readouterr().err


def test_by_default_a_run_of_a_scenarios_slow_point_is_read_beside_the_run_of_its_others(tmp_path, monkeypatch, capsys):
    # As the findings suite measures thesis-password: its quick points in one run, its slow one in
    # a newer run of its own; the newer must not hide the older.
    monkeypatch.setattr(store_module, "RESULTS", tmp_path)
    store = Store()
    for name, point, measured in (
        ("older", 1, spawns({"erlang": 4.0, "scala": 8.0, "go": 30.0}, 3_000_000, "cold", 2)),
        ("newer", 2, spawns({"erlang": 4.0, "scala": 2.0, "go": 30.0}, 1000, "cold", 2)),
    ):
        plan = {"kind": "micro", "bench": ["spawn"], "point": [point]}
        run = store.start_run(name, "findings", plan, {"cores": 2}, "abc", False)
        for m in measured:
            store.add(run.id, m)
        store.finish_run(run.id)
    store.close()
    assert cli.main(["findings", "--verdict", "agrees", "disagrees"]) == 0
    out = capsys.readouterr().out
    assert "from newer, older" in out
    assert "V-Fig4a " in out and "V-Fig4b " in out  # 3,000,000 from the older run, 1,000 from the newer


def test_the_export_carries_the_verdicts_and_the_summary_begins_with_them(tmp_path, monkeypatch, capsys):
    name = stored(tmp_path, monkeypatch)
    assert cli.main(["export", name]) == 0
    verdicts = {f["id"]: f for f in json.loads(capsys.readouterr().out)["findings"]}
    assert verdicts["V-Fig4a"]["verdict"] == "agrees" and verdicts["V-Fig4b"]["verdict"] == "disagrees"
    (spawn,) = verdicts["V-Fig4a"]["tests"]
    assert spawn["cases"][0]["verdict"] == "agrees" and "erlang 4.04 [" in spawn["cases"][0]["because"]
    assert verdicts["V-Fig4a"]["cases"] == {"agree": 1, "disagree": 0, "undecided": 0, "untested": 0}
    assert cli.main(["report", name]) == 0
    summary = (tmp_path / name / "summary.md").read_text()
    first = summary.index("## ")
    assert summary[first:].startswith("## Findings of the seed studies"), summary[first : first + 80]
    assert "V-Fig4a" in summary and "T-Fig4-a" not in summary  # only the findings a micro run tests
    # The findings it tests lead, with one line for those it does not; their list follows the
    # results, folded.
    leading = summary[first : summary.index("## ", first + 3)]
    assert "V-Fig4a" in leading and "VJ-R1" not in leading
    assert re.search(r"- \d+ finding\(s\) of the seed studies this run does not test \(\d+ not tested", leading)
    folded = summary.index("## Findings of the seed studies this run does not test")
    assert "<details><summary>" in summary[folded:] and summary.index("VJ-R1") > folded


def test_a_run_that_tests_no_finding_starts_with_its_own_tables(tmp_path, monkeypatch):
    """Go's spawn alone (V-Fig4b compares Scala with Erlang and Go): one line says what the run does
    not test and which command measures it, then the run's own table."""
    monkeypatch.setattr(store_module, "RESULTS", tmp_path)
    monkeypatch.setattr(lifecycle, "RESULTS", tmp_path)
    store = Store()
    run = store.start_run("alone", "quick", {"kind": "micro", "bench": ["spawn"]}, {"cores": 2}, "abc", False)
    for m in spawns({"go": 30.0}, 1000, "cold", 2):
        store.add(run.id, m)
    store.finish_run(run.id)
    store.close()
    assert cli.main(["report", "alone"]) == 0
    summary = (tmp_path / "alone" / "summary.md").read_text()
    head = summary[: summary.index("## ")].splitlines()
    said = [line for line in head if "this run does not test" in line]
    assert len(said) == 1 and "`./arena findings --plan`" in said[0]
    assert summary[summary.index("## ") :].startswith("## spawn"), summary[:400]


def test_the_ledger_lists_every_finding_grouped_by_verdict_the_untested_last(tmp_path, monkeypatch, capsys):
    stored(tmp_path, monkeypatch)
    assert cli.main(["findings"]) == 0
    out = capsys.readouterr().out
    ids = [f.id for f in catalog.load()]
    shown = [line.split()[0] for line in out.splitlines() if line.split() and line.split()[0] in ids]
    assert sorted(shown) == sorted(ids)  # every finding
    verdicts = {f.id: v for f in catalog.load() for v in [judge(Index([]), f).verdict]}
    assert (
        shown.index("V-Fig4a")
        < shown.index("V-Fig4b")
        < min(shown.index(i) for i in ids if verdicts[i] is Verdict.UNTESTABLE)
    )


def test_every_metric_an_http_finding_reads_is_one_a_stored_result_exports():
    # A metric no result exports leaves its findings "not tested" however often they are measured
    # (the honours study's means in seconds were so until the export carried them).
    latency = {"mean": 2e6, "p50": 1e6, "p99": 3e6, "p999": 4e6, "max": 5e6}
    engine = {
        "requests": {"total": 50, "ok": 50, "errors": {"status": 0}},
        "elapsed_s": 5.0,
        "throughput_rps": 10.0,
        "ok_rps": 10.0,
        "iterations": {"dropped": 0},
        "all": {"latency_us": latency},
        "first_last_us": [1e6, 5e6],
    }
    result = RestResult(metrics_of(engine), {}, [], 1.0, 2048, 0.1, ceiling={"rps": 12.0, "why": "think time"})
    read = {t.metric for f in catalog.load() for t in f.tests if t.kind == "rest"}
    assert read <= set(result.exported()), read - set(result.exported())
    assert result.exported()["mean_s"] == 2.0


def test_a_list_in_where_is_one_of_its_values_and_keeps_the_max_cell_out():
    (jumps,) = [t for t in finding("V-Fig4b").tests if "jumps" in str(t.rule)]
    assert jumps.matches({"mode": "idiomatic", "procs": 20000, "start": "cold"})
    assert not jumps.matches({"mode": "idiomatic", "procs": "max", "start": "cold"})
    assert catalog.suites_measuring(jumps) == ["findings"]  # the cold starts of its counts


def test_the_honours_findings_read_only_their_own_profiles_points_and_a_series_spans_each_rates_count():
    """The seed's database round trip is a key of the findings' points: the quick and paper points
    of honours-basic, with none, are never theirs; a rate's own count of requests, nor its being
    measured cold, does not split the series that H-4.1-c's drop is judged along."""
    (worsens,), (order,) = finding("H-4.1-c-drop").tests, finding("H-4.1-c").tests
    at_10, at_150 = (
        {"rate": 10, "iterations": 200, "db_delay_ms": 45},
        {"rate": 150, "iterations": 1000, "db_delay_ms": 45, "warmup": "none"},  # measured from its first request
    )
    assert worsens.matches(at_10) and worsens.matches(at_150) and order.matches(at_150)
    assert not worsens.matches({"rate": 10, "iterations": 10}) and not order.matches({"rate": 50, "iterations": 1000})
    cells = [
        Cell("node", point, 1, Value(m, m * 0.9, m * 1.1, 3), 3, 0, frozenset())
        for point, m in ((at_10, 200.0), (at_150, 2500.0))
    ]
    ((label, case_),) = judge_module._cases(worsens, cells)
    assert set(case_.series["node"]) == {10, 150} and label == "db_delay_ms=45 cpus=1"
    (first,) = finding("H-4.2-a").tests
    assert first.matches({"rate": 20, "iterations": 50}) and not first.matches({"rate": 2, "iterations": 50})


@pytest.mark.parametrize(
    ("flags", "values", "allowed", "own"),
    [
        (frozenset(), {}, "", True),
        (frozenset({"shared-cores"}), {"engine_cpu_s": 1.9, "server_cpu_s": 6.8}, "", False),  # not allowed
        # blog-ab: the engine took 4.6% of the cores, while the server wanted 16%: 0.8% lost
        (frozenset({"shared-cores"}), {"engine_cpu_s": 1.9, "server_cpu_s": 6.8}, "ab shared the host", True),
        # a server with its cores full, beside an engine that took 5% of them
        (frozenset({"shared-cores"}), {"engine_cpu_s": 2.0, "server_cpu_s": 40.0}, "ab shared the host", False),
        (frozenset({"shared-cores"}), {}, "ab shared the host", False),  # unknown: not the server's for sure
    ],
)
def test_shared_cores_count_only_where_the_finding_allows_them_and_the_engine_cost_the_server_too_little_to_count(
    flags, values, allowed, own
):
    (b_ab2,) = finding("B-ab2").tests
    test = dataclasses.replace(b_ab2, shared_cores=allowed)
    lost = lost_to_engine(values | {"elapsed_s": 20.5}, 2) if values else None
    shared = Cell("node", {"requests": 10000}, 2, Value(470, 460, 480, 3), 3, 0, flags, lost)
    assert judge_module._own(shared, test) is own


def test_the_findings_suite_measures_only_what_the_testable_findings_compare():
    made = findings_suite.plan(catalog.load(), machine=2)
    items = {(item.experiment, item.points): item for item in made.items}
    (password,) = [item for item in made.items if item.experiment == "thesis-password"]
    assert password.impls == ("elixir", "go", "node:express-cluster") and password.cpus == (1, 2)  # shared cores
    assert password.points == () and "T-Fig2-a" in password.findings and "T-Fig4-a" not in password.findings
    # bcrypt at cost 20, whose errors no server of today gives while its clients wait: not measured, and why
    assert any(line.startswith("T-Fig2-d: the thesis counted the errors its clients saw") for line in made.lacking)
    million = items[("spawn", (6,))]
    assert million.impls == ("erlang", "go", "scala") and million.cpus == (2,)
    # The blog's two setups: one process for its first run, a cluster for its second, both for B-c1.
    assert items[("blog-ab", ())].impls == ("node:http-cluster", "node:http-single")
    spawn = "micro --suite findings --bench spawn --point 6 --impl erlang go scala --cpus 2 --repeat 3"
    assert " ".join(million.argv()) == spawn
    # A test's own repetitions stand whatever --repeat says (Erlang's drop after its peak needs six),
    # and a run repeats its points as often as the most demanding of its tests needs: the points
    # only some tests need more often are a run of their own (a bench's by --point too).
    assert items[("throughput", ())].repeat == 6 and "V-Fig5-e" in items[("throughput", ())].findings
    assert (items[("ring", (1, 3, 5))].repeat, items[("ring", (2, 4, 6))].repeat) == (5, 3)  # cold, warm
    assert (items[("thesis-userinfo", (1,))].repeat, items[("thesis-userinfo", (2,))].repeat) == (3, 5)
    # V-Fig3-b's cold points at 100,000 rounds take six, in a run of their own. Go is compared at
    # some of pingping's other points, not at others: one run measures it at all of them.
    others = (1, 2, 4, 5, 6, 8, 9, 10, 12)
    assert (items[("pingping", (3, 7, 11))].repeat, items[("pingping", others)].repeat) == (6, 3)
    assert "go" in items[("pingping", others)].impls

    def repeats(planned: list[findings_suite.Item], experiment: str, point: int) -> int:
        (item,) = [i for i in planned if i.experiment == experiment and (not i.points or point in i.points)]
        return item.repeat

    for repeat, expected in ((1, (10, 1, 6)), (5, (10, 5, 6))):
        planned = findings_suite.plan(catalog.load(), machine=2, repeat=repeat).items
        asked = (("spawn", 2), ("spawn", 6), ("throughput", 1))
        assert tuple(repeats(planned, experiment, point) for experiment, point in asked) == expected
    lacking = " ".join(made.lacking)
    assert "T-Tab7-b: thesis-userinfo needs 65 cores, 2 here" in lacking and "V-Fig5-f" in lacking
    # A test of another suite's points is named with the cores it lacks, or the suite it needs:
    # never dropped from both the plan and this list.
    assert "V-Fig5-c-large: throughput needs 32 cores, 2 here" in lacking
    assert "V-Fig4a-b" in million.findings  # bytes per process at 3,000,000, not a search
    (bytes_,) = finding("V-Fig4a-b").tests
    searched = dataclasses.replace(bytes_, metric="max_procs", higher_is_better=True, where={"procs": "max"})
    elsewhere = dataclasses.replace(finding("V-Fig4a-b"), tests=[searched])
    assert findings_suite.plan([elsewhere], machine=2).lacking == [
        "V-Fig4a-b: spawn's points it reads are the quick or paper suite's"
    ]
    planned = {finding for item in made.items for finding in item.findings}
    dropped = [
        f.id
        for f in catalog.load()
        if not f.untestable and f.id not in planned and not any(line.startswith(f"{f.id}: ") for line in made.lacking)
    ]
    assert not dropped, dropped
    assert not any(item.kind == "capacity" for item in made.items)


def test_a_series_a_test_compares_by_repetition_is_measured_in_one_run():
    """A point one test needs more often is a run of its own, unless a series along an axis runs
    through it: its points are compared by repetition, which pairs only within a run."""
    (smooth,) = finding("V-Fig4b-a").tests  # spawn from 1,000 to 100,000 processes, along procs
    (fastest,) = [t for t in finding("V-Fig4a-a").tests if t.where.get("procs") == 3000000]
    often = dataclasses.replace(fastest, where={**fastest.where, "procs": 20000}, repetitions=6)
    alone = dataclasses.replace(finding("V-Fig4a-a"), tests=[often])
    runs = findings_suite.plan([alone], machine=2).items
    assert [(item.points, item.repeat) for item in runs] == [((3,), 6)]  # 20,000 alone: nothing else needed
    series = dataclasses.replace(finding("V-Fig4b-a"), tests=[dataclasses.replace(smooth, repetitions=3)])
    runs = findings_suite.plan([series, alone], machine=2).items
    assert [(item.points, item.repeat) for item in runs] == [((1, 2, 3, 4, 5), 6)]


def test_every_run_of_the_suite_has_its_time_on_the_reference_machine_and_the_suite_takes_under_two_hours():
    # The keys are the runs' command lines: a run added, dropped or changed fails here until measured.
    made = findings_suite.plan(catalog.load(), machine=2)
    minutes = findings_suite.reference_minutes()
    assert sorted(minutes) == sorted(" ".join(item.argv()) for item in made.items)
    # The bound is 120 minutes from the command to the verdicts: the builds and checks before
    # each run took 4.5 minutes more on a fresh clone of 2e570ed, 7.2 on one of 47cf63e, 5.1 on one of
    # 61525b3.
    assert sum(minutes.values()) < 110


def test_each_run_of_the_suite_is_the_plan_its_shown_command_line_would_make():
    """The suite runs each item's plan as a value; the command it shows (and its reference time's key)
    is what a person would type for the same run."""
    by_command = {kind.command: kind for kind in kinds().values()}
    for item in findings_suite.plan(catalog.load(), machine=2).items:
        command, *rest = item.argv()
        typed = by_command[command].plan(cli.parser().parse_args([command, *rest]))
        assert item.plan() == typed, item.shown()


def test_a_broken_file_of_reference_times_is_a_clear_error(tmp_path, monkeypatch):
    broken = tmp_path / "findings-times.toml"
    broken.write_text('[minutes]\n"run --suite findings" = "soon"\n')
    monkeypatch.setattr(findings_suite, "REFERENCE", broken)
    with pytest.raises(UsageError, match=r"findings-times\.toml"):
        findings_suite.reference_minutes()


def test_measuring_the_suite_stops_at_a_run_that_fails_and_resume_skips_what_is_finished(tmp_path, monkeypatch):
    monkeypatch.setattr(store_module, "RESULTS", tmp_path)
    made = findings_suite.plan(catalog.load(), machine=2)
    ran: list[tuple] = []
    status = findings_suite.measure(
        made, False, lambda item, resume: ran.append((item, resume)) or (130 if len(ran) == 2 else 0), Console()
    )
    assert status == 130 and len(ran) == 2
    store = Store()  # the first item's run finished, the second's was cut short
    first, second = made.items[:2]
    for item, finished in ((first, True), (second, False)):
        plan = {"kind": item.kind, {"rest": "scenario", "micro": "bench"}[item.kind]: [item.experiment]}
        plan["point"] = list(item.points)
        run = store.start_run(f"r-{item.experiment}", "findings", plan, {"cores": 2}, "abc", False)
        if finished:
            store.finish_run(run.id)
    store.close()
    ran.clear()
    assert findings_suite.measure(made, True, lambda item, resume: ran.append((item, resume)) or 0, Console()) == 0
    assert ran[0] == (second, run.name) and len(ran) == len(made.items) - 1  # the second's run continues


def test_a_run_whose_verdict_is_left_open_takes_twice_its_repetitions_and_its_verdicts_spend_over_both_readings(
    tmp_path, monkeypatch
):
    """spec/findings.md, "Many cases": after the suite's pass, V-Fig4b undecided (Scala 5% slower at
    four counts, each count's repetitions 8% apart), its run doubles its repetitions, once."""
    monkeypatch.setattr(store_module, "RESULTS", tmp_path)
    item = findings_suite.Item("micro", "spawn", ("erlang", "go", "scala"), (2,), 3, ("V-Fig4b",), (1, 2, 3, 4, 5))
    store = Store()
    plan = {"kind": "micro", "bench": ["spawn"], "point": [1, 2, 3, 4, 5], "repeat": 3}
    run = store.start_run("open", "findings", plan, {"cores": 2}, "abc", False)
    slower = {"erlang": 10.0, "go": 10.0, "scala": 10.5}
    for m in (m for procs in (1000, 10000, 20000, 25000) for m in spawns(slower, procs, "cold", 2, step=0.08)):
        store.add(run.id, m)
    # It stood stopped three hours (a machine that restarted) before a resume finished it: its
    # measuring time leaves that out, and the suite's 110 minutes are not spent by it.
    with store.db:
        store.db.execute("UPDATE runs SET started = started - 10800 WHERE id = ?", (run.id,))
        store.db.execute("UPDATE measurements SET created = created - 10800 WHERE run_id = ?", (run.id,))
    store.resume_run(run.id)
    assert store.finish_run(run.id).measuring_s < 60
    store.close()
    ran: list[tuple] = []
    made = findings_suite.Plan([item], [])
    assert findings_suite.measure(made, True, lambda item, resume: ran.append((item, resume)) or 0, Console()) == 0
    assert ran == [(item, "open")]
    store = Store()
    extended = store.named("open")
    assert extended.plan["repeat"] == 6 and extended.plan["looked"] == [3] and extended.finished is None
    assert runs_module.index(store, [extended]).cells("micro", "spawn", "us_per_spawn", False)[0].looks == 2
    store.close()


def test_a_verdict_read_twice_spends_its_error_over_both_readings():
    """Bonferroni over the readings: a case for the claim at p = 0.03 is for it read once, not read twice."""
    said = Said(A, "x", evidence=(Evidence(A, 0.03),))
    assert corrected([said])[0][0].verdict is A
    (twice,), _ = corrected([dataclasses.replace(said, looks=2)])
    assert twice.verdict is N and "not at 97.5%" in twice.because
    against = Said(D, "y", evidence=(Evidence(D, 0.03),))
    assert (
        corrected([against])[0][0].verdict is D
        and corrected([dataclasses.replace(against, looks=2)])[0][0].verdict is N
    )


def test_the_plan_times_a_run_as_it_took_here_else_as_on_the_reference_machine_else_by_estimate(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(store_module, "RESULTS", tmp_path)
    made = findings_suite.plan(catalog.load(), machine=2)
    first, second = made.items[:2]
    store = Store()
    for name, repeat in (("same-plan", first.repeat), ("other-repeat", 1)):  # the newer one asked less
        plan = {"kind": first.kind, {"rest": "scenario", "micro": "bench"}[first.kind]: [first.experiment]}
        plan |= {"point": list(first.points), "impl": list(first.impls), "cpus": list(first.cpus), "repeat": repeat}
        run = store.start_run(name, "findings", plan, {"cores": 2}, "abc", False)
        store.finish_run(run.id)
        store.db.execute("UPDATE runs SET started = finished - 600 WHERE id = ?", (run.id,))
        store.db.commit()
    store.close()
    seconds, how = findings_suite.expected_s(first)
    assert how == "as run same-plan took here" and abs(seconds - 600) < 1e-6
    reference = findings_suite.reference_minutes()[" ".join(second.argv())]
    assert findings_suite.expected_s(second) == (reference * 60, findings_suite.ON_REFERENCE)
    with monkeypatch.context() as unmeasured:
        unmeasured.setattr(findings_suite, "reference_minutes", lambda: {})
        assert findings_suite.expected_s(second) == (findings_suite.estimate_s(second), findings_suite.ESTIMATED)
    findings_suite.show(made, Console())
    out = capsys.readouterr().out
    assert "(~10 min, as run same-plan took here)" in out and f"1 of {len(made.items)} runs as long" in out
    assert f"{len(made.items) - 1} as on the reference machine" in out and "0 estimated" in out


def test_changes_lists_the_verdicts_that_differ_between_the_suites_last_two_measurements(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(store_module, "RESULTS", tmp_path)
    assert cli.main(["findings", "--changes"]) == 2  # measured once at most: nothing to compare
    assert "measured twice" in capsys.readouterr().err
    store = Store()
    for name, scala, pace in (("s1", 2.0, 500.0), ("s2", 9.0, 400.0)):  # Scala the fastest at 1,000, then the slowest
        host = {"cores": 2, "pace_mib_s": pace}  # and the machine slower for the second run
        run = store.start_run(name, "findings", {"kind": "micro", "bench": ["spawn"]}, host, "abc", False)
        for m in spawns({"erlang": 4.0, "scala": scala, "go": 5.0}, 1000, "cold", 2):
            store.add(run.id, m)
        store.finish_run(run.id)
    store.close()
    assert cli.main(["findings", "--changes"]) == 0
    out = capsys.readouterr().out
    assert "differ between runs s1 and s2" in out and "V-Fig4b " in out
    assert "disagrees" in out and "agrees" in out and "V-Fig4a " not in out
    assert "pace at each run's start" in out and "x0.80" in out


def test_the_verdicts_say_when_the_machines_pace_moved_between_the_runs_they_read(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(store_module, "RESULTS", tmp_path)
    store = Store()
    # Three runs that all feed the ledger (spawn's points asked for apart), the second on a machine
    # giving it a fifth less; the first and third within the smallest change that counts: nothing said.
    for name, points, pace in (("p1", [], 500.0), ("p2", [2], 404.0), ("p3", [3], 505.0)):
        plan = {"kind": "micro", "bench": ["spawn"], "point": points}
        run = store.start_run(name, "findings", plan, {"cores": 2, "pace_mib_s": pace}, "abc", False)
        for m in spawns({"erlang": 4.0, "scala": 8.0, "go": 5.0}, 1000, "cold", 2):
            store.add(run.id, m)
        store.finish_run(run.id)
    store.close()
    assert cli.main(["findings", "p1", "p3"]) == 0
    assert "pace moved" not in capsys.readouterr().out
    assert cli.main(["findings"]) == 0
    out = capsys.readouterr().out
    assert "pace moved between these runs: 404 to 505 MiB/s" in out and "(x1.25;" in out


def test_a_verdict_shows_its_effect_at_the_narrowest_margin():
    said = rules.Best("a", ["b", "c"]).judge(case({"a": (30,), "b": (20,), "c": (10,)}))
    assert said.verdict is A and said.effect.startswith("a/b x1.50 [")  # a leads b by the least
    lower = rules.Order(["a", "b"]).judge(case({"a": (10,), "b": (20,)}, higher=False))
    assert lower.effect.startswith("a/b x2.00")  # half the latency: twice as good
    judged = judge(Index(spawns({"erlang": 4.0, "scala": 8.0, "go": 30.0}, 3_000_000, "cold", 2)), finding("V-Fig4a"))
    assert judged.verdict is A and judged.effect().startswith(
        "erlang/scala x2.00 [1.93, 2.07] (mode=idiomatic procs=3000000"
    )
