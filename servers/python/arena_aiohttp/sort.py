"""/long-operation: the contract's deterministic array, its exact descending bubble sort and the
checksum (spec/README.md, "/long-operation: the deterministic array and checksum")."""

from __future__ import annotations

import re

MASK = (1 << 64) - 1
MULTIPLIER = 6364136223846793005
INCREMENT = 1442695040888963407
MAX_N = 200_000
DIGITS = re.compile(r"[0-9]+")


def lcg_array(n: int) -> list[float]:
    """n float64 values in [0, 1) from the 64-bit LCG seeded with 42 (Python ints, masked to 64 bits)."""
    values = [0.0] * n
    x = 42
    for i in range(n):
        x = (x * MULTIPLIER + INCREMENT) & MASK
        values[i] = (x >> 11) * 2.0**-53  # exact: x >> 11 < 2^53
    return values


def bubble_sort_desc(a: list[float]) -> None:
    """The contract's exact O(n²) bubble sort, descending, in place: the CPU work is the point."""
    n = len(a)
    for i in range(n):
        for j in range(1, n - i):
            if a[j - 1] < a[j]:
                a[j - 1], a[j] = a[j], a[j - 1]


def checksum(a: list[float]) -> float:
    """Σ (i+1)·a[i] in index order, in float64 (Python floats are IEEE doubles)."""
    total = 0.0
    for i, value in enumerate(a):
        total += (i + 1) * value
    return total


def long_operation(n: int) -> float:
    values = lcg_array(n)
    bubble_sort_desc(values)
    return checksum(values)


def parse_n(raw: str) -> int | None:
    """Decimal digits only (leading zeros allowed) in 1..MAX_N, else None."""
    if not DIGITS.fullmatch(raw) or len(raw.lstrip("0")) > len(str(MAX_N)):
        return None
    n = int(raw)
    return n if 1 <= n <= MAX_N else None
