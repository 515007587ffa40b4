"""The outcome of a conformance check: every problem it found, each a failure or a warning, rather
than the first one only (as the TechEmpower toolset's verifications report pass, warn or fail)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Severity(StrEnum):
    WARN = "warn"  # worth a look, yet not proof that the contract is broken (a loaded machine)
    FAIL = "fail"  # the contract is broken


@dataclass(frozen=True)
class Problem:
    severity: Severity
    text: str


@dataclass
class CheckResult:
    name: str
    seconds: float
    problems: list[Problem] = field(default_factory=list)
    note: str = ""  # what the check measured, when it passed

    @property
    def status(self) -> str:
        """'fail' when any problem fails it, 'warn' when there are only warnings, else 'pass'."""
        severities = {p.severity for p in self.problems}
        return Severity.FAIL if Severity.FAIL in severities else Severity.WARN if severities else "pass"

    @property
    def ok(self) -> bool:
        return self.status != Severity.FAIL

    def detail(self) -> str:
        return "\n".join(f"{p.severity}: {p.text}" for p in self.problems) or self.note


def verdict(results: list[CheckResult]) -> str:
    """'14/15 checks passed, 2 with warnings' (a check with warnings only has passed)."""
    passed = sum(r.ok for r in results)
    warned = sum(r.status == Severity.WARN for r in results)
    return f"{passed}/{len(results)} checks passed" + (f", {warned} with warnings" if warned else "")
