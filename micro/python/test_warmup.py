"""The steadiness rule and the warm-up loop, without processes: fake iterations and a fake clock."""

import unittest
from contextlib import contextmanager
from itertools import count

import micro
from common import Params, Result
from warmup import CountMismatch, steady, verify_check, warm_up

# (series, steady?): at least 5 values, the last 5 within ±10% of their median.
STEADY = [
    ([], False),
    ([1, 1, 1, 1], False),
    ([1, 1, 1, 1, 1], True),
    ([50, 1, 1, 1, 1, 1], True),
    ([1, 1, 1, 1, 1, 50], False),
    ([100, 110, 90, 100, 100], True),
    ([100, 111, 100, 100, 100], False),
    ([100, 89, 100, 100, 100], False),
    ([95, 105, 100, 104, 96], True),
    ([100, 100, 100, 130, 130], False),
    ([100, 100, 104, 108, 109], True),
    ([0.2, 0.21, 0.19, 0.2, 0.2], True),
    ([0, 0, 0, 0, 0], True),
]


def fake_clock(step: float):
    ticks = count(1)
    return lambda: next(ticks) * step


def params(**changes) -> Params:
    return Params(**{**micro.DEFAULTS, **changes})


class FakeUnit:
    """A unit whose bench returns canned results and records the parameters of each run."""

    def __init__(self, results):
        self.results = iter(results)
        self.seen = []

    @contextmanager
    def session(self):
        def run(bench, p):
            self.seen.append(p)
            return next(self.results)

        yield run


class SteadyTest(unittest.TestCase):
    def test_rule(self):
        for series, expected in STEADY:
            with self.subTest(series=series):
                self.assertEqual(steady(series), expected)


class WarmUpTest(unittest.TestCase):
    def test_stops_once_steady(self):
        values = iter([9, 5, 3, 2, 2, 2, 2, 2, 7, 7])
        done = warm_up(lambda: next(values), lambda v: v, 1000, fake_clock(1))
        self.assertEqual(done.series, [9, 5, 3, 2, 2, 2, 2, 2])
        self.assertEqual((done.iterations, done.steady, done.first), (8, True, 9))

    def test_stops_when_time_is_up_after_the_iteration_under_way(self):
        values = count(10, 10)
        # 0.25 s per clock reading: the second look after the start sees 0.5 s >= 0.4 s.
        done = warm_up(lambda: next(values), lambda v: v, 0.4, fake_clock(0.25))
        self.assertEqual(done.document(), {"iterations": 2, "seconds": 0.75, "steady": False, "series": [10, 20]})

    def test_none_with_zero_seconds(self):
        calls = []
        done = warm_up(lambda: calls.append(1), lambda v: v, 0)
        self.assertEqual(done.document(), {"iterations": 0, "seconds": 0, "steady": False, "series": []})
        self.assertEqual((done.first, calls), (None, []))

    def test_counts_are_checked(self):
        verify_check("ring", params(procs=3, rounds=4), {"laps": 4, "hops": 12})
        verify_check("throughput", params(pairs=2), {"messages": 6, "per_pair": [2, 4]})
        for bench, p, check in (
            ("ring", params(procs=3, rounds=4), {"laps": 4, "hops": 11}),
            ("pingping", params(rounds=4), {"received": 7}),
            ("pingpong", params(rounds=4), {"round_trips": 3}),
            ("spawn", params(procs=4), {"alive": 3}),
            ("throughput", params(pairs=2), {"messages": 6, "per_pair": [6]}),
            ("throughput", params(pairs=1), {"messages": 0, "per_pair": [0]}),
        ):
            with self.subTest(bench=bench, check=check), self.assertRaises(CountMismatch):
                verify_check(bench, p, check)


class SessionTest(unittest.TestCase):
    def test_a_wrong_count_in_an_iteration_fails(self):
        unit = FakeUnit([Result(1.0, {"round_trips": 9})])
        with self.assertRaises(CountMismatch):
            micro.session(unit, "pingpong", params(rounds=10, warmup_s=1))

    def test_spawn_memory_comes_from_the_first_iteration(self):
        # Five warm-up iterations at 1 s (steady), then the measured run at 2 s.
        results = [Result(1.0, {"alive": 10}, (100 * i, 200 * i)) for i in range(1, 6)]
        results.append(Result(2.0, {"alive": 10}, (900, 1900)))
        p = params(procs=10, warmup_s=100)
        warmup, measured = micro.session(FakeUnit(results), "spawn", p)
        self.assertEqual((warmup.iterations, warmup.steady, warmup.series), (5, True, [1e5] * 5))
        doc = micro.document("spawn", p, "asyncio", warmup, measured)
        self.assertEqual(
            doc["metric"],
            {"us_per_spawn": 2e5, "bytes_per_process": 100 * 1024 / 10, "rss_before_kb": 100, "rss_peak_kb": 200},
        )
        self.assertEqual((doc["elapsed_s"], doc["check"]), (2.0, {"alive": 10}))

    def test_throughput_iterations_last_min_d_and_a_tenth(self):
        for seconds, warm in ((3.0, 0.1), (0.05, 0.05)):
            with self.subTest(seconds=seconds):
                results = [Result(0.1, {"messages": 2, "per_pair": [2]}) for _ in range(6)]
                unit = FakeUnit(results)
                warmup, _ = micro.session(unit, "throughput", params(pairs=1, seconds=seconds, warmup_s=100))
                self.assertTrue(warmup.steady)
                self.assertEqual([p.seconds for p in unit.seen], [warm] * 5 + [seconds])


if __name__ == "__main__":
    unittest.main()
