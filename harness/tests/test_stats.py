import math

import pytest

from arena.measured.stats import can_be_zero, log_interval, ratio, summarize, t95
from arena.report.tables import ONCE, Cell, Column, Row, Section, Table, legend


def test_one_value_has_no_interval_and_no_cov():
    s = summarize([5.0])
    assert (s.median, s.ci_low, s.ci_high, s.cov) == (5.0, None, None, None)
    assert s.show() == "5 (n=1)"
    assert ratio(s, summarize([4.0, 5.0, 6.0])).low is None


def test_a_table_with_a_cell_measured_once_says_it_has_no_interval():
    def section(*values: list[float]) -> Section:
        rows = [Row([Cell("go"), Cell.value(summarize(v))]) for v in values]
        return Section("plaintext", Table([Column("impl"), Column("rps")], rows))

    assert ONCE.startswith("n=1: no interval") and ONCE in legend([section([9.0, 10.0], [12.0])])
    assert ONCE not in legend([section([9.0, 10.0], [12.0, 13.0])])


def test_a_positive_number_gets_the_geometric_means_interval_and_is_shown_plus_minus_where_even():
    s = summarize([10.0, 12.0, 14.0])
    logs = [math.log(x) for x in (10.0, 12.0, 14.0)]
    centre = sum(logs) / 3
    half = 4.303 * (sum((x - centre) ** 2 for x in logs) / 2) ** 0.5 / 3**0.5
    assert s.median == 12.0
    assert (s.ci_low, s.ci_high) == (pytest.approx(math.exp(centre - half)), pytest.approx(math.exp(centre + half)))
    assert s.cov == pytest.approx(2.0 / 12.0) and s.noisy()
    assert s.show() == "12 ±6"  # 7.2 below and 6.2 above: even enough, shown by its wider side


def test_a_lopsided_interval_is_shown_as_its_ends():
    # Three latencies a factor apart: the geometric mean's interval reaches far above, little below.
    s = summarize([120.0, 280.0, 530.0])
    assert 0 < s.ci_low < 120 and s.ci_high > 530
    assert s.show() == f"280 [{s.ci_low:.0f}, {s.ci_high:.0f}]"


def test_a_number_that_can_be_zero_gets_the_means_interval_cut_at_zero():
    s = summarize([0.0, 2.0, 4.0])
    half = 4.303 * 2.0 / 3**0.5
    assert (s.ci_low, s.ci_high) == (0.0, pytest.approx(2.0 + half))
    slopes = summarize([-1.0, 1.0, 3.0])  # a slope may fall: its interval may too
    assert slopes.ci_low == pytest.approx(1.0 - half)


def test_a_metric_whose_zero_is_an_outcome_keeps_the_means_interval_when_every_value_is_above_zero():
    # Java's warm-ups of blog-ab in run 20261205-113017: one took 8 µs, and on the logarithms the
    # geometric mean's interval reached twelve million seconds.
    warmups = [10.818764, 8e-06, 2.147855]
    assert can_be_zero("steady_s") and can_be_zero("errors.status") and not can_be_zero("p99_ms")
    s = summarize(warmups, metric="steady_s")
    mean = sum(warmups) / 3
    stdev = (sum((x - mean) ** 2 for x in warmups) / 2) ** 0.5
    assert (s.ci_low, s.ci_high) == (0.0, pytest.approx(mean + t95(2) * stdev / 3**0.5))
    assert summarize(warmups).ci_high > 1e6  # what a time that varies by a factor would get


def test_an_interval_is_never_narrower_than_the_numbers_resolution():
    # Three repetitions that each counted ten requests: ten, give or take one, not exactly ten.
    s = summarize([10.0, 10.0, 10.0], resolution=0.1)
    assert (s.ci_low, s.ci_high) == (pytest.approx(10 / 1.1), pytest.approx(11.0))
    assert summarize([10.0, 10.0, 10.0]).ci_low == 10.0


def test_steady_values_are_not_noisy():
    assert not summarize([100.0, 101.0, 99.0]).noisy()


def test_no_values_is_an_error():
    with pytest.raises(ValueError):
        summarize([])


def test_the_geometric_interval_of_positive_values_stays_above_zero():
    # Node's p50 at 4,000 users in three repetitions: the mean's interval would reach below zero.
    spread = [364.799, 142.591, 308.735]
    low, high = log_interval(spread)
    logs = [math.log(x) for x in spread]
    half = 4.303 * (sum((x - sum(logs) / 3) ** 2 for x in logs) / 2) ** 0.5 / 3**0.5
    assert (low, high) == (pytest.approx(math.exp(sum(logs) / 3 - half)), pytest.approx(math.exp(sum(logs) / 3 + half)))
    assert 0 < low < min(spread) and high > max(spread)
    assert (summarize(spread).ci_low, summarize(spread).ci_high) == (low, high)


@pytest.mark.parametrize("values", [[5.0], [0.0, 1.0, 2.0], [-1.0, 1.0, 2.0]])
def test_no_geometric_interval_without_two_values_above_zero(values):
    assert log_interval(values) is None


def test_a_ratio_of_positive_intervals_is_taken_on_the_logarithms():
    a, b = summarize([9.0, 10.0, 11.0]), summarize([18.0, 20.0, 22.0])
    r = ratio(a, b)
    spread = math.hypot(math.log(a.ci_high / a.ci_low) / 2, math.log(b.ci_high / b.ci_low) / 2)
    assert r.value == 2.0
    assert (r.low, r.high) == (pytest.approx(2 * math.exp(-spread)), pytest.approx(2 * math.exp(spread)))
    # An interval reaching zero has no logarithm: the delta method's, as before.
    wide = summarize([0.0, 10.0, 20.0])
    relative = math.hypot((wide.ci_high - wide.ci_low) / 2 / wide.mean, (b.ci_high - b.ci_low) / 2 / b.mean)
    assert wide.ci_low == 0 and ratio(wide, b).low == pytest.approx(2 * (1 - relative))
