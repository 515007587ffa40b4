"""`--assert EXPERIMENT:METRIC<N` (gates/assertion.py): parsed strictly, judged on the median of
every point of its experiment, and a metric the run never measured breaches it — a typo in a CI
job's bound must fail the job, never pass it."""

import pytest

from arena.errors import UsageError
from arena.gates import assertion
from arena.measured.measurement import Measurement, Outcome
from test_rest_tables import blog


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("blog-ab:p99_ms<2100", ("blog-ab", "p99_ms", "<", 2100.0)),
        (" blog-ab : rps >= 1_000 ", ("blog-ab", "rps", ">=", 1000.0)),
        ("json:edge>2.5e4", ("json", "edge", ">", 25000.0)),
    ],
)
def test_a_bound_is_read_as_written(text, parsed):
    made = assertion.parse(text)
    assert (made.experiment, made.metric, made.op, made.bound) == parsed


@pytest.mark.parametrize("text", ["blog-ab:p99_ms", "blog-ab:p99_ms=3", "p99_ms<3", "blog-ab:p99_ms<1e999"])
def test_a_malformed_bound_is_refused_in_one_line(text):
    with pytest.raises(UsageError, match="--assert"):
        assertion.parse(text)


def test_the_median_of_each_point_is_judged_and_a_metric_never_measured_breaches():
    runs = [blog("go", 490.0, 0), blog("go", 480.0, 1), blog("go", 300.0, 2), blog("node", 200.0, 0)]
    judged = assertion.judge(assertion.parse("blog-ab:rps>=400"), runs)
    assert [(j.where.split()[0], j.value, j.ok) for j in judged] == [
        ("go", 480.0, True),
        ("node:express-cluster", 200.0, False),
    ]  # named by its setup
    (typo,) = assertion.judge(assertion.parse("blog-ab:rsp>=400"), runs[:1])
    assert not typo.ok and typo.detail == "no rsp measured here"
    (nothing,) = assertion.judge(assertion.parse("json:edge>1"), runs)
    assert not nothing.ok and "stored no measurement" in nothing.detail
    failed = Measurement("rest", "go", "blog-ab", "{}", 1, 0, Outcome.FAILED, "gone")
    (only_failed,) = assertion.judge(assertion.parse("blog-ab:rps>=400"), [failed])
    assert not only_failed.ok  # a failed repetition counts for nothing
