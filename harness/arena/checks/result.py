"""The outcome of a conformance check: every problem it found, each a failure or a warning, rather
than the first one only (as the TechEmpower toolset's verifications report pass, warn or fail)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from arena.console import Console, indent


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
    skipped: str = ""  # why it could not run here (it neither passed nor failed)

    @property
    def status(self) -> str:
        """'fail' when any problem fails it, 'warn' when there are only warnings, 'skip' when it could
        not run, else 'pass'."""
        severities = {p.severity for p in self.problems}
        if Severity.FAIL in severities:
            return Severity.FAIL
        return Severity.WARN if severities else "skip" if self.skipped else "pass"

    @property
    def ok(self) -> bool:
        return self.status != Severity.FAIL

    def detail(self) -> str:
        problems = "\n".join(f"{p.severity}: {p.text}" for p in self.problems)
        return problems or (f"skipped: {self.skipped}" if self.skipped else self.note)


def verdict(results: list[CheckResult]) -> str:
    """'14/15 checks passed, 2 with warnings, 1 skipped' (a check with warnings only has passed; a
    skipped one is not counted as passed)."""
    skipped = sum(r.status == "skip" for r in results)
    passed = sum(r.ok for r in results) - skipped
    warned = sum(r.status == Severity.WARN for r in results)
    return (
        f"{passed}/{len(results)} checks passed"
        + (f", {warned} with warnings" if warned else "")
        + (f", {skipped} skipped" if skipped else "")
    )


def show_check(console: Console, result: CheckResult, verbose: bool = False) -> None:
    """A check's outcome on the console: every one when verbose, else only those with problems."""
    if result.status == "pass" and not verbose:
        return
    console.line(f"    {result.status:4}  {result.name}  ({result.seconds:.1f} s)")
    if result.detail():
        console.line(indent(result.detail(), "          "))
