#!/usr/bin/env python3
"""Reference for the contract's deterministic data (see README.md in this folder).

- the /long-operation array, its descending bubble sort and checksum;
- the thesis' users.csv (`username;password`, header line).

Standard library only, so any checkout can run it:

    python3 spec/reference.py checksum 1000
    python3 spec/reference.py users --count 1000 --out users.csv
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator

MASK64 = (1 << 64) - 1
LCG_MUL = 6364136223846793005
LCG_INC = 1442695040888963407
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
PASSWORD_LENGTH = 16
MAX_N = 200_000


def lcg(seed: int) -> Iterator[int]:
    """The 64-bit LCG every implementation uses; yields the state after each step."""
    x = seed
    while True:
        x = (x * LCG_MUL + LCG_INC) & MASK64
        yield x


def array(n: int) -> list[float]:
    steps = lcg(42)
    return [(next(steps) >> 11) * 2.0**-53 for _ in range(n)]


def checksum(n: int) -> float:
    """The answer of GET /long-operation?n=N, computed exactly as the servers must."""
    if not 1 <= n <= MAX_N:
        raise ValueError(f"n must be in 1..{MAX_N}, got {n}")
    a = array(n)
    for i in range(n):
        for j in range(1, n - i):
            if a[j - 1] < a[j]:
                a[j - 1], a[j] = a[j], a[j - 1]
    total = 0.0
    for i, value in enumerate(a):
        total += (i + 1) * value
    return total


def user(i: int) -> tuple[str, str]:
    steps = lcg(1000 + i)
    password = "".join(ALPHABET[(next(steps) >> 33) % len(ALPHABET)] for _ in range(PASSWORD_LENGTH))
    return f"user{i:06d}", password


def users_csv(count: int) -> str:
    lines = ["username;password"] + [";".join(user(i)) for i in range(count)]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sum_cmd = sub.add_parser("checksum", help="print the /long-operation checksum for n")
    sum_cmd.add_argument("n", type=int)
    users_cmd = sub.add_parser("users", help="write users.csv")
    users_cmd.add_argument("--count", type=int, required=True)
    users_cmd.add_argument("--out", default="-", help="file to write, '-' for stdout")
    args = parser.parse_args(argv)

    if args.command == "checksum":
        if not 1 <= args.n <= MAX_N:
            parser.error(f"n must be in 1..{MAX_N}")
        print(repr(checksum(args.n)))
        return 0
    if not 0 <= args.count <= 1_000_000:
        parser.error("--count must be in 0..1000000")
    text = users_csv(args.count)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w", encoding="ascii") as out:
            out.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
