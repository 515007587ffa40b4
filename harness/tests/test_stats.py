import pytest

from arena.measured.stats import ratio, summarize
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


def test_interval_uses_students_t():
    s = summarize([10.0, 12.0, 14.0])
    assert s.median == 12.0
    half = 4.303 * 2.0 / 3**0.5
    assert s.ci_low == pytest.approx(12.0 - half)
    assert s.ci_high == pytest.approx(12.0 + half)
    assert s.cov == pytest.approx(2.0 / 12.0)
    assert s.noisy()
    assert s.show() == "12 ±5"


def test_steady_values_are_not_noisy():
    assert not summarize([100.0, 101.0, 99.0]).noisy()


def test_no_values_is_an_error():
    with pytest.raises(ValueError):
        summarize([])
