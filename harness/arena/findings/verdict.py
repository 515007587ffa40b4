"""What a measurement says of a finding: the four verdicts of spec/findings.md, and how the verdicts
of its cases (points, budgets) and tests combine into one."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum


class Verdict(StrEnum):
    AGREES = "agrees"
    DISAGREES = "disagrees"
    NO_DIFFERENCE = "no difference measured"
    NOT_TESTED = "not tested"
    UNTESTABLE = "untestable"


@dataclass(frozen=True)
class Said:
    """A verdict and what it rests on, as a person reads it; for an order, its effect: how many
    times better the claimed side is at the narrowest of its margins, with the interval
    ("go/node x1.80 [1.60, 2.00]"), and that margin as a number, to find the narrowest of several."""

    verdict: Verdict
    because: str
    effect: str = ""
    margin: float | None = None


@dataclass(frozen=True)
class Tally:
    """How many cases of a claim were for it, against it, undecided (their intervals overlap) and
    not judged: a verdict over several conditions says how it was reached."""

    agree: int = 0
    disagree: int = 0
    undecided: int = 0
    untested: int = 0

    @classmethod
    def of(cls, verdicts: list[Verdict]) -> Tally:
        return cls(
            *(verdicts.count(v) for v in (Verdict.AGREES, Verdict.DISAGREES, Verdict.NO_DIFFERENCE)),
            sum(1 for v in verdicts if v in (Verdict.NOT_TESTED, Verdict.UNTESTABLE)),
        )

    def __add__(self, other: Tally) -> Tally:
        return Tally(*(a + b for a, b in zip(dataclasses.astuple(self), dataclasses.astuple(other), strict=True)))

    @property
    def judged(self) -> int:
        return self.agree + self.disagree + self.undecided

    def show(self) -> str:
        """'3 for, 1 against, 2 undecided' (what was judged), or '-'."""
        parts = [(self.agree, "for"), (self.disagree, "against"), (self.undecided, "undecided")]
        return ", ".join(f"{count} {what}" for count, what in parts if count) or "-"


def combined(verdicts: list[Verdict], least: int = 1) -> Verdict:
    """A claim holds where every tested case agrees, and at least `least` were tested (a claim made
    in every condition does not agree on one); one case against it is a disagreement, which the
    tally beside it says is one of how many; cases whose intervals overlap leave it undecided.
    Untested cases count only when nothing was tested."""
    tested = [v for v in verdicts if v is not Verdict.NOT_TESTED]
    if not tested:
        return Verdict.NOT_TESTED
    if Verdict.DISAGREES in tested:
        return Verdict.DISAGREES
    if all(v is Verdict.AGREES for v in tested):
        return Verdict.AGREES if len(tested) >= least else Verdict.NOT_TESTED
    return Verdict.NO_DIFFERENCE


def of_sign(sign: int) -> Verdict:
    """The verdict of a comparison's sign: +1 for the claim, -1 against it, 0 not told apart."""
    return {1: Verdict.AGREES, -1: Verdict.DISAGREES, 0: Verdict.NO_DIFFERENCE}[sign]


def banded(low: float, high: float, band_low: float, band_high: float) -> Verdict:
    """An interval against a band (spec/findings.md, "Bands"): all of it inside, for; all of it
    outside, against; else undecided."""
    if band_low <= low and high <= band_high:
        return Verdict.AGREES
    if high < band_low or low > band_high:
        return Verdict.DISAGREES
    return Verdict.NO_DIFFERENCE


def telling(said: list[Said], verdict: Verdict) -> Said:
    """The case that tells the verdict: one against it when it disagrees, the narrowest margin of
    those for it when it agrees, else the first undecided one."""
    against = [s for s in said if s.verdict is verdict]
    with_margin = [s for s in against if s.margin is not None]
    if verdict is Verdict.AGREES and with_margin:
        return min(with_margin, key=lambda s: s.margin)
    return (against or said or [Said(verdict, "")])[0]
