"""The machine's cores and the core budgets asked for: which cores a budget takes, and which are
left for the load engine."""

from __future__ import annotations

import os

from arena.errors import UsageError


def machine_cores() -> list[int]:
    """The cores this process may run on (what taskset or a container allows)."""
    return sorted(os.sched_getaffinity(0))


def check_budget(cpus: int) -> None:
    count = len(machine_cores())
    if not 1 <= cpus <= count:
        raise UsageError(f"--cpus {cpus}: this machine gives Arena {count} core(s); choose 1..{count}")


def take(cpus: int) -> list[int]:
    """The first `cpus` cores; the budget was checked when the command line was read."""
    cores = machine_cores()
    if not 1 <= cpus <= len(cores):
        raise ValueError(f"a budget of {cpus} core(s) on a machine of {len(cores)}")
    return cores[:cpus]


def split(cpus: int) -> tuple[list[int], list[int], bool]:
    """Server cores, engine cores, and whether they had to share (no core left for the engine)."""
    server = take(cpus)
    rest = [core for core in machine_cores() if core not in server]
    return (server, rest, False) if rest else (server, machine_cores(), True)


def parse_budgets(text: str) -> list[int]:
    """`--cpus 1,2` as [1, 2], each checked against the machine."""
    try:
        budgets = [int(part) for part in text.split(",")]
    except ValueError:
        raise UsageError(f"--cpus {text!r}: give core counts such as 1 or 1,2") from None
    for cpus in budgets:
        check_budget(cpus)
    return budgets


def verified_budgets(text: str | None) -> list[int]:
    """Budgets to verify: those asked for, else 1 and, when the machine has them, 2."""
    if text is not None:
        return parse_budgets(text)
    return [1, 2] if len(machine_cores()) >= 2 else [1]


def measured_budgets(text: str | None) -> list[int]:
    """Budgets to measure: those asked for, else 1, 2, 4, … as long as a core is left for the
    load engine. A budget that takes every core makes the engine share the server's cores
    (flagged shared-cores); it is measured only when asked for."""
    if text is not None:
        return parse_budgets(text)
    cores = len(machine_cores())
    budgets = [2**k for k in range(cores.bit_length()) if 2**k < cores]
    return budgets or [1]


def all_budgets(machine: int) -> list[int]:
    """1, 2, 4, … up to the machine's cores."""
    return [2**k for k in range(machine.bit_length()) if 2**k <= machine]
