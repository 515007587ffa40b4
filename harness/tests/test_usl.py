"""The Universal Scalability Law's fit against a published data set and its published coefficients
(Schwartz's book, as usl4j reproduces it), against curves made of the law itself, and its refusals."""

import csv
from pathlib import Path

import pytest

from arena.measured.usl import FitError, fit, model

DATA = Path(__file__).with_name("data") / "usl-schwartz.csv"


def published() -> tuple[list[float], list[float]]:
    rows = list(csv.DictReader(line for line in DATA.open() if not line.startswith("#")))
    return [float(r["concurrency"]) for r in rows], [float(r["throughput"]) for r in rows]


def test_the_books_example_gives_the_books_coefficients_within_two_hundredths_of_a_percent():
    found = fit(*published())
    assert found.lam == pytest.approx(995.6486, rel=2e-4)
    assert found.sigma == pytest.approx(0.02671591, rel=2e-4)
    assert found.kappa == pytest.approx(7.690945e-4, rel=2e-4)
    assert found.peak_n == pytest.approx(35.57, abs=0.01)  # sqrt((1 - sigma) / kappa)
    assert len(found.residuals) == 32 and max(abs(r) for r in found.residuals) < 500  # of ~12,000


@pytest.mark.parametrize(
    ("lam", "sigma", "kappa", "peak"),
    [(1000, 0.05, 0.001, 30.8), (480, 0.0, 0.0, None), (2000, 0.3, 0.0, None)],
)
def test_a_curve_of_the_law_itself_gives_back_its_coefficients(lam, sigma, kappa, peak):
    levels = [1, 2, 4, 8, 16, 32, 64]
    found = fit(levels, [model(n, lam, sigma, kappa) for n in levels])
    assert found.lam == pytest.approx(lam, rel=1e-4)
    assert found.sigma == pytest.approx(sigma, abs=1e-5) and found.kappa == pytest.approx(kappa, abs=1e-7)
    if peak:
        assert found.peak_n == pytest.approx(peak, abs=0.1)
    else:  # without crosstalk no peak: none, or one far beyond any level measured
        assert found.peak_n is None or found.peak_n > 1000


def test_fewer_than_four_levels_are_refused():
    with pytest.raises(FitError, match="4 or more levels; got 3"):
        fit([1, 2, 4, 4], [100, 190, 350, 352])
