"""The per-implementation pipeline shared by the commands: select, install, build, verify."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from arena import build as builder
from arena import catalog
from arena.catalog import Manifest, ManifestError
from arena.report import indent
from arena.toolchain import Toolchains
from arena.verify import CheckResult, conformance


class UsageError(Exception):
    """Bad input on the command line: reported in one line, exit status 2."""


def machine_cores() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def cores_for(cpus: int) -> list[int]:
    available = machine_cores()
    if not 1 <= cpus <= len(available):
        count = len(available)
        raise UsageError(f"--cpus {cpus}: this machine gives Arena {count} core(s); choose 1..{count}")
    return available[:cpus]


def cpu_budgets(text: str | None) -> list[int]:
    """`--cpus 1,2` as a list; by default 1 and, when the machine has them, 2."""
    if text is None:
        return [1, 2] if len(machine_cores()) >= 2 else [1]
    return parse_budgets(text)


def measured_budgets(text: str | None) -> list[int]:
    """Budgets to measure: by default 1, 2, 4, … as long as a core is left for the load engine.

    A budget that takes every core makes the engine share the server's cores (flagged
    shared-cores); it is measured only when asked for.
    """
    if text is not None:
        return parse_budgets(text)
    cores = len(machine_cores())
    budgets = [2**k for k in range(cores.bit_length()) if 2**k < cores]
    return budgets or [1]


def parse_budgets(text: str) -> list[int]:
    try:
        budgets = [int(part) for part in text.split(",")]
    except ValueError:
        raise UsageError(f"--cpus {text!r}: give core counts such as 1 or 1,2") from None
    for cpus in budgets:
        cores_for(cpus)
    return budgets


def load(names: list[str], source=catalog.load) -> list[Manifest]:
    """The rows named (all when none is named) of the servers, or of `source` (catalog.load_micro)."""
    manifests, errors = source()
    for error in errors:
        print(f"warning: skipping a manifest: {error}", file=sys.stderr)
    try:
        return catalog.select(manifests, names)
    except ManifestError as err:
        raise UsageError(str(err)) from None


def load_both(names: list[str]) -> tuple[list[Manifest], list[Manifest]]:
    """The REST servers and the micro-benchmark rows named (all when none is named); a name may be
    both (servers/go and micro/go)."""
    groups = []
    for loaded, errors in (catalog.load(), catalog.load_micro()):
        for error in errors:
            print(f"warning: skipping a manifest: {error}", file=sys.stderr)
        groups.append(loaded)
    known = {m.name for group in groups for m in group}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UsageError(f"unknown implementation(s): {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    servers, micro = ([m for m in group if not names or m.name in names] for group in groups)
    return servers, micro


@dataclass
class Prepared:
    manifest: Manifest
    ok: bool
    reason: str = ""
    unavailable: bool = False  # its toolchain cannot be had here, as opposed to a failed build


def prepare(manifest: Manifest, toolchains: Toolchains, force: bool = False) -> Prepared:
    """Toolchain installed and build up to date, or the reason the implementation is unavailable."""
    available = toolchains.ensure(manifest)
    if not available.ok:
        print(f"  {manifest.name}: unavailable: {available.reason}")
        return Prepared(manifest, False, available.reason, unavailable=True)
    print(f"  {manifest.name}: building...", end="", flush=True)
    result = builder.build(manifest, force=force)
    if result.skipped:
        print(" up to date")
    elif result.ok:
        print(f" built in {result.seconds:.1f} s")
    else:
        print(f" FAILED: {result.message}\n{indent(builder.tail(result.log))}")
        return Prepared(manifest, False, f"build failed: {result.message} (log {result.log})")
    return Prepared(manifest, True)


def print_check(result: CheckResult) -> None:
    mark = "pass" if result.ok else "FAIL"
    print(f"    {mark}  {result.name}  ({result.seconds:.1f} s)")
    if result.detail:
        print(indent(result.detail, "          "))


def verify_one(manifest: Manifest, cpus: int) -> tuple[bool, str]:
    """Runs the conformance suite; (passed, one-line outcome)."""
    budget = manifest.cpus_for(cpus)
    if budget != cpus:
        return False, f"skipped: {manifest.name} uses at most {manifest.max_cpus} core(s)"
    print(f"  verify {manifest.name} --cpus {cpus}")
    results = conformance(manifest, cores_for(cpus), print_check)
    failed = [r for r in results if not r.ok]
    return not failed, f"{len(results) - len(failed)}/{len(results)} checks passed"
