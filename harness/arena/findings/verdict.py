"""What a measurement says of a finding: the four verdicts of spec/findings.md, and how the verdicts
of its cases (points, budgets) and tests combine into one: every case for the claim to agree, and a
case against it only where it stays against after Holm's correction over the finding's comparisons
(spec/findings.md, "Many cases")."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum

# What a finding may spend on deciding wrongly: the chance that a claim with no effect behind it is
# still decided, over all its cases together (Holm's family-wise error), and the 95% of each interval.
ALPHA = 0.05


class Verdict(StrEnum):
    AGREES = "agrees"
    DISAGREES = "disagrees"
    NO_DIFFERENCE = "no difference measured"
    NOT_TESTED = "not tested"
    UNTESTABLE = "untestable"


@dataclass(frozen=True)
class Evidence:
    """One comparison a case made: what it says on its own at 95% (for, against or neither), and
    the two-sided p of its estimate against the claim's boundary (1 for an order, a band's nearest
    edge), which Holm's correction over a finding's comparisons ranks."""

    verdict: Verdict
    p: float


@dataclass(frozen=True)
class Said:
    """A verdict and what it rests on, as a person reads it; for an order, its effect: how many
    times better the claimed side is at the narrowest of its margins, with the interval
    ("go/node x1.80 [1.60, 2.00]"), and that margin as a number, to find the narrowest of several."""

    verdict: Verdict
    because: str
    effect: str = ""
    margin: float | None = None
    evidence: tuple[Evidence, ...] = ()  # each comparison it made; none for a count of events
    looks: int = 1  # how many times its numbers were read for a verdict: each reading spends 1/looks


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


def holm(ps: list[float], alpha: float = ALPHA) -> list[bool]:
    """Which of `ps` Holm's step-down rejects, at family-wise `alpha`: the smallest against
    alpha / m, the next against alpha / (m - 1), and so on until one is not rejected."""
    rejected = [False] * len(ps)
    for rank, i in enumerate(sorted(range(len(ps)), key=ps.__getitem__)):
        if ps[i] > alpha / (len(ps) - rank):
            break
        rejected[i] = True
    return rejected


def corrected(cases: list[Said]) -> tuple[list[Said], int]:
    """The cases with each one against the claim kept against only where Holm's correction over
    every comparison they made (`Evidence`) rejects one of its comparisons against it; else
    undecided, saying why. The number of comparisons corrected over, too. A case against with no
    comparisons (a count of events, which no chance makes) stays against.

    A case whose numbers were read for a verdict more than once (more repetitions measured where
    the first reading left it open) spends the error over its readings: each p times the readings
    (Bonferroni's bound over them), for and against."""
    family = [(i, e) for i, said in enumerate(cases) for e in said.evidence if said.verdict is not Verdict.NOT_TESTED]
    ps = [min(1.0, e.p * cases[i].looks) for i, e in family]
    rejected = holm(ps)
    kept = {i for (i, e), r in zip(family, rejected, strict=True) if r and e.verdict is Verdict.DISAGREES}
    out = []
    for i, said in enumerate(cases):
        if said.verdict is Verdict.DISAGREES and said.evidence and i not in kept:
            least = min(e.p for e in said.evidence if e.verdict is Verdict.DISAGREES) * said.looks
            why = f"; against on its own (p = {least:.2g}), not after Holm's correction over {len(family)} comparisons"
            said = dataclasses.replace(said, verdict=Verdict.NO_DIFFERENCE, because=said.because + why)
        elif said.verdict is Verdict.AGREES and said.looks > 1 and any(e.p * said.looks > ALPHA for e in said.evidence):
            why = f"; for at 95%, not at {1 - ALPHA / said.looks:.1%}, its numbers read {said.looks} times"
            said = dataclasses.replace(said, verdict=Verdict.NO_DIFFERENCE, because=said.because + why)
        out.append(said)
    return out, len(family)
