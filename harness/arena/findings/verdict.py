"""What a measurement says of a finding: the four verdicts of spec/findings.md, and how the verdicts
of its cases (points, budgets) and tests combine into one."""

from __future__ import annotations

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
    """A verdict and what it rests on, as a person reads it."""

    verdict: Verdict
    because: str


def combined(verdicts: list[Verdict]) -> Verdict:
    """A claim holds where every tested case agrees; one case against it is a disagreement; cases
    whose intervals overlap leave it undecided. Untested cases count only when nothing was tested."""
    tested = [v for v in verdicts if v is not Verdict.NOT_TESTED]
    if not tested:
        return Verdict.NOT_TESTED
    if Verdict.DISAGREES in tested:
        return Verdict.DISAGREES
    if all(v is Verdict.AGREES for v in tested):
        return Verdict.AGREES
    return Verdict.NO_DIFFERENCE
