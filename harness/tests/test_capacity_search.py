"""The search for the edge against servers of known capacity made of arithmetic: where it ends, how
close it gets, how many probes it takes, and how it stops at its bounds and at the engine's limit."""

import dataclasses
import math
from dataclasses import dataclass, replace

import pytest

from arena.capacity.search import AT_MAX, BELOW_MIN, BROKE, ENGINE_BOUND, FOUND, UNFINISHED, Limits, find_edge


@dataclass(frozen=True)
class Verdict:
    rate: float
    passed: bool
    engine_bound: bool = False
    predicted: float | None = None
    ceiling: float | None = None
    decisive: bool = False
    silent: bool = False


def edge(probe, limits: Limits, hint: float | None = None, confirming: bool = False):
    """The search over a probe of arithmetic that judges a decisive window as it judges any other."""
    return find_edge(lambda rate, decisive: replace(probe(rate), decisive=decisive), limits, hint, confirming)


def server(capacity: float, engine_limit: float = float("inf")):
    """A probe of a server that passes every rate up to `capacity`, loaded by an engine that
    saturates above `engine_limit`."""
    return lambda rate: Verdict(rate, rate <= capacity and rate <= engine_limit, rate > engine_limit)


LIMITS = Limits(start_rate=100, min_rate=1, max_rate=100_000)


@pytest.mark.parametrize(
    ("capacity", "hint", "ended", "most_probes"),
    [
        (480, None, FOUND, 11),  # grows 100, 200, 400, 800, bisects, judges both sides
        (100, None, FOUND, 9),  # exactly the start
        (37.5, None, FOUND, 10),  # below the start: shrinks first
        (73_000, None, FOUND, 18),
        (480, 470, FOUND, 6),  # a later start, hinted near the edge, with the hinted growth
        (480, 900, FOUND, 12),  # a hint far above the edge still finds it, in steps of 10%
        (0.5, None, BELOW_MIN, 8),
        (10**9, None, AT_MAX, 12),
    ],
)
def test_the_search_ends_within_its_precision_below_the_edge(capacity, hint, ended, most_probes):
    limits = Limits(100, 1, 100_000, growth=1.1 if hint else 2.0)
    search = edge(server(capacity), limits, hint)
    assert search.ended == ended
    assert len(search.probes) <= most_probes
    if ended == FOUND:
        assert search.passing <= capacity < search.failing <= search.passing * 1.03
    if ended == BELOW_MIN:
        assert search.passing is None and min(p.rate for p in search.probes) == 1
    if ended == AT_MAX:
        assert search.passing == 100_000


def test_an_engine_that_saturates_first_brackets_the_edge_at_its_own_limit():
    search = edge(server(capacity=5000, engine_limit=1500), LIMITS)
    assert search.ended == ENGINE_BOUND
    assert search.passing <= 1500 < search.failing <= search.passing * 1.03
    assert [p.engine_bound for p in search.probes if p.rate == search.failing] == [True]


def test_a_probe_the_engine_could_not_offer_above_the_servers_edge_does_not_hide_it():
    """A jump beyond the engine's limit fails like a rate the server cannot sustain: the search
    bisects below it and finds the server's own edge."""
    predicting = server(capacity=1000, engine_limit=1500)
    search = edge(lambda rate: replace(predicting(rate), predicted=1e6), LIMITS)
    assert search.probes[1].rate == 1600 and search.probes[1].engine_bound
    assert search.ended == FOUND and search.passing <= 1000 < search.failing <= search.passing * 1.03


def test_a_search_out_of_probes_keeps_its_bracket():
    search = edge(server(480), Limits(100, 1, 100_000, max_probes=5))
    assert search.ended == UNFINISHED and len(search.probes) == 5
    assert search.passing == 400 and search.failing < 800


def test_a_failure_that_repeats_makes_the_edge_lower_never_higher():
    """A rate that fails every time it is probed while the search grows brackets the edge too low:
    the search never reports more than was sustained, and the repetitions on other starts show the
    spread."""
    search = edge(lambda rate: Verdict(rate, rate <= 480 and rate != 200), LIMITS)
    assert search.ended == FOUND and 100 <= search.passing < 200 <= search.passing * 1.03


def test_a_probe_that_predicts_how_far_its_server_reaches_shortens_the_climb():
    """A server whose cost per request a probe reveals: the search jumps to 90% of the prediction
    (at most 16 times the rate) instead of doubling its way up from a slow start."""

    def predicting(rate):
        return Verdict(rate, rate <= 20_000, predicted=21_000 if rate <= 20_000 else None)

    climbed = edge(lambda rate: Verdict(rate, rate <= 20_000), LIMITS)
    jumped = edge(predicting, LIMITS)
    assert [p.rate for p in jumped.probes[:3]] == [100, 1600, 18_900]
    assert jumped.ended == climbed.ended == FOUND and len(jumped.probes) < len(climbed.probes) - 3
    assert jumped.passing <= 20_000 < jumped.failing <= jumped.passing * 1.03


def test_a_server_that_gets_faster_during_the_search_is_not_held_to_an_early_failure():
    """A JIT compiling during the first probes: 4,000/s fails while the server is cold, then every
    probe finds it cheaper. The old failure is probed again before it may close the bracket, and the
    search goes on to the warm server's edge."""
    probes = []

    def warming(rate):
        capacity = 3900 if len(probes) < 4 else 16_000
        probes.append(rate)
        return Verdict(rate, rate <= capacity, predicted=capacity * 1.2)

    search = edge(warming, Limits(1000, 1, 100_000))
    assert search.ended == FOUND and 15_500 < search.passing <= 16_000 < search.failing
    assert probes.count(search.probes[1].rate) == 2 and not search.probes[1].passed  # the early failure, again


def test_a_failure_closes_the_bracket_only_when_it_fails_decisively():
    """Measured here on a Java start: 958/s passed with its server predicting 9,800/s, 979/s failed
    on a p99 of 12.5 ms (a JIT compiling in its window). The failure is probed again on a decisive
    window; it passes, and the search goes on to the server's edge. A failure that a decisive
    window confirms closes the bracket, whatever the pass below it predicted."""
    seen = []

    def hiccup(rate):
        seen.append(rate)
        passed = rate <= 30_000 and not (rate > 970 and seen.count(rate) == 1 and len(seen) < 8)
        return Verdict(rate, passed, predicted=33_000)

    search = edge(hiccup, Limits(1000, 1, 100_000))
    assert search.ended == FOUND and 29_000 < search.passing <= 30_000 < search.failing
    steady = edge(lambda r: Verdict(r, r <= 500, predicted=5000), Limits(1000, 1, 100_000))
    assert steady.ended == FOUND and sum(p.rate == steady.failing for p in steady.probes) == 2
    cpu_bound = edge(lambda r: Verdict(r, r <= 500, predicted=510), Limits(1000, 1, 100_000))
    assert cpu_bound.ended == FOUND and sum(p.rate == cpu_bound.failing for p in cpu_bound.probes) == 2


def test_a_later_start_steps_by_the_precision_first_then_climbs_as_a_first_one_does():
    """The hint is 1,000/s; this start reaches 1,600: 3% up, then cubed steps and predictions,
    not 3% steps all the way; one 5% above the hint is bracketed 9% wide, not 100%. Confirming
    the earlier starts' edge, every probe is decisive: when this start agrees with them, two
    probes are its whole search."""
    limits = Limits(100, 1, 100_000, first_growth=1.03)

    def faster(rate):
        return Verdict(rate, rate <= 1600, predicted=1750 if rate <= 1600 else None)

    search = edge(faster, limits, hint=1000, confirming=True)
    assert [round(p.rate) for p in search.probes[:3]] == [1000, 1030, 1575]  # 90% of the prediction
    assert search.ended == FOUND and len(search.probes) <= 10 and all(p.decisive for p in search.probes)
    a_little = edge(lambda r: Verdict(r, r <= 1050), limits, hint=1000, confirming=True)
    assert [round(p.rate) for p in a_little.probes[:3]] == [1000, 1030, 1126] and len(a_little.probes) <= 6
    slower = edge(lambda r: Verdict(r, r <= 950), limits, hint=1000, confirming=True)
    assert [round(p.rate) for p in slower.probes[:3]] == [1000, 971, 888] and len(slower.probes) <= 6
    agreeing = edge(lambda r: Verdict(r, r <= 1010), limits, hint=1000, confirming=True)
    assert [(p.rate, p.decisive) for p in agreeing.probes] == [(1000, True), (1030, True)] and agreeing.ended == FOUND
    unconfirmed = edge(lambda r: Verdict(r, r <= 1010), limits, hint=1000)
    assert [p.rate for p in unconfirmed.probes] == [1000, 1030, 1030, 1000]  # quick, then both sides again


def behind(
    capacity: float, answered: float, cold: float | None = None, cold_probes: int = 0, predicts: float | None = 1.05
):
    """A server that passes every rate up to `capacity`, its CPU predicting `predicts` times that
    (None: too idle to tell), and, past 8% above it (where it falls behind its arrivals rather than
    only missing the p99), answers `answered` a second; during its first `cold_probes` probes it
    answers only `cold`."""
    probes = []

    def probe(rate):
        probes.append(rate)
        cold_now = len(probes) <= cold_probes
        limit = cold if cold_now else capacity
        if rate <= limit:
            return Verdict(rate, True, predicted=limit * predicts if predicts else None)
        return Verdict(rate, False, ceiling=limit if cold_now else answered if rate > capacity * 1.08 else None)

    return probe


@pytest.mark.parametrize(
    ("capacity", "answered", "start", "most_probes"),
    [
        (269, 280, 1000, 5),  # elixir's compute: 1,000/s falls behind, 272 fails narrowly, 264 passes, both again
        (5000, 5200, 40_000, 6),  # 5,048 passes, 5,200 fails narrowly, 5,123 too, and both again
    ],
)
def test_a_start_far_above_the_edge_comes_down_to_what_the_server_answered(capacity, answered, start, most_probes):
    """A start above the edge fails behind its arrivals: what the server still answered is where the
    search goes next, then it steps down from there as from a hint, instead of halving past it and
    bisecting back up (1,000, 500, 250, 354, 297, 272, 261, 266: eight probes for 269)."""
    search = edge(behind(capacity, answered), Limits(start, 1, 100_000))
    assert search.ended == FOUND and search.passing <= capacity < search.failing <= search.passing * 1.03
    assert len(search.probes) <= most_probes, [p.rate for p in search.probes]
    halving = edge(lambda rate: Verdict(rate, rate <= capacity), Limits(start, 1, 100_000))
    assert len(halving.probes) > len(search.probes) + 3


def test_a_server_whose_throughput_sags_behind_its_arrivals_is_found_all_the_same():
    """Behind its arrivals it answers 240 a second, less than the 269 it sustains: the search comes
    down to 233 and finds the edge above what it answered."""
    search = edge(behind(269, 240), Limits(1000, 1, 100_000))
    assert search.probes[1].rate == pytest.approx(240 / 1.03)
    assert search.ended == FOUND and search.passing <= 269 < search.failing <= search.passing * 1.03


def test_a_bracket_is_bisected_below_what_a_failure_behind_its_arrivals_answered():
    """A server whose CPU predicts nothing, from 100/s: 400 passes and 800 falls behind, answering
    500/s: the bracket [400, 800] is bisected as [400, 550] (AIM above what it answered), and 480
    is found sooner."""
    search = edge(behind(480, 500, predicts=None), LIMITS)
    assert [p.rate for p in search.probes[:4]] == [100, 200, 400, 800]
    assert search.probes[4].rate == pytest.approx(math.sqrt(400 * 550))
    plain = edge(lambda rate: Verdict(rate, rate <= 480), LIMITS)
    assert search.ended == plain.ended == FOUND and search.passing <= 480 < search.failing <= search.passing * 1.03
    assert len(search.probes) < len(plain.probes)


def test_what_a_cold_server_answered_is_forgotten_once_it_passes_above_it():
    """A JIT's first probe: 1,000/s answers 100 while cold. The search comes down to 97, passes, and
    goes on to the warm edge of 4,000: once passed, the cold answer no longer narrows the bisection
    (it would hold it to steps of 6% up to 1,000), and the cold failure at 1,000 is probed again
    before it may close the bracket."""
    search = edge(behind(4000, 4200, cold=100, cold_probes=1), Limits(1000, 1, 100_000))
    assert search.probes[1].rate == pytest.approx(100 / 1.03)
    assert search.probes[3].rate > 300
    assert search.ended == FOUND and search.passing <= 4000 < search.failing <= search.passing * 1.03


def test_a_climb_stops_near_what_its_start_answered_saturated():
    """A start answered 1,000/s saturated, and its CPU-bound server's edge is there, while its
    probes predict twice that (a runtime whose idle cores look busy, or the reverse): the climb
    goes to 1.1 times the saturation, not to 90% of the prediction, and the bracket is narrow."""

    def cpu_bound(rate):
        return Verdict(rate, rate <= 1010, predicted=2000 if rate <= 1010 else None)

    limits = Limits(100, 1, 100_000, first_growth=1.03)
    capped = edge(cpu_bound, dataclasses.replace(limits, saturated=1000), hint=900)
    assert [round(p.rate) for p in capped.probes[:3]] == [900, 927, 1100]
    uncapped = edge(cpu_bound, limits, hint=900)
    assert capped.ended == uncapped.ended == FOUND and capped.passing == pytest.approx(1010, rel=0.03)
    assert len(capped.probes) < len(uncapped.probes)


def test_a_pass_closes_the_bracket_only_when_a_decisive_window_holds_it():
    """Node.js's `json` here: its p99 is a collector's pause of about the objective's size, so a
    1,000-answer window at 1,845/s passed while 10,000 answers at that rate hold enough pauses to
    fail. The pass that would close the bracket is judged again on the decisive window; overruled,
    it no longer counts, nor does any quick window after it: the edge is found below, on decisive
    windows alone, in a few more probes."""

    def pausing(rate, decisive):
        return Verdict(rate, rate <= (1700 if decisive else 1900), decisive=decisive)

    search = find_edge(pausing, Limits(1000, 1, 100_000))
    assert search.ended == FOUND and search.passing <= 1700 < search.failing <= search.passing * 1.03
    quick_passes = [p.rate for p in search.probes if p.passed and not p.decisive]
    assert max(quick_passes) > 1800, "the quick windows passed higher than the edge reported"
    closing = [p for p in search.probes if p.rate in (search.passing, search.failing)]
    assert {(p.rate, p.passed) for p in closing if p.decisive} == {(search.passing, True), (search.failing, False)}
    overruled = next(i for i, p in enumerate(search.probes) if p.decisive and p.passed != pausing(p.rate, False).passed)
    assert all(p.decisive for p in search.probes[overruled:]) and len(search.probes) <= overruled + 8


@pytest.mark.parametrize("capacity", [37.5, 480, 73_000])
def test_every_found_edge_rests_on_two_decisive_verdicts(capacity):
    search = edge(server(capacity), LIMITS)
    assert search.ended == FOUND
    assert [(p.passed, p.decisive) for p in search.probes if p.rate == search.passing][-1] == (True, True)
    assert [(p.passed, p.decisive) for p in search.probes if p.rate == search.failing][-1] == (False, True)


def test_a_server_that_an_overload_broke_ends_the_search_at_what_it_sustained():
    """Java's `longpoll` here: some 5,000 held polls fill its 512 MiB heap, its collector then runs
    without end, and it answers nothing after at any rate; the search walked down to `min_rate`
    in 19 probes (254 s a start) and reported no edge. Once a probe below the overload is answered
    by nothing, the search ends: the start sustained its highest pass, then broke."""
    overloaded = []

    def breaking(rate):
        overloaded.extend([rate] if rate >= 4000 else [])
        return Verdict(rate, rate <= 3000 and not overloaded, silent=bool(overloaded))

    search = edge(breaking, Limits(1000, 10, 100_000))
    assert (search.ended, search.passing, len(search.probes)) == (BROKE, 2000, 4)


def test_a_server_silent_while_overloaded_but_serving_below_is_searched_as_any_other():
    """A server that answers nothing while far behind, and serves again once the load is below its
    edge, has not broken: a pass after the failure above shows it recovered."""
    search = edge(lambda rate: Verdict(rate, rate <= 1500, silent=rate > 1500), LIMITS)
    assert search.ended == FOUND and search.passing <= 1500 < search.failing <= search.passing * 1.03
