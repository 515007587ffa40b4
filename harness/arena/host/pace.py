"""How fast this machine runs a fixed piece of work on one core right now, stored with every run.

A virtual machine shares its host's cores with other guests, and nothing inside it accounts for the
time it is not given: the same work just takes longer, in wall and in CPU time alike (seen here as
10-30% more CPU seconds for the same requests in one findings suite than in the one before it, from
one run onwards). A yardstick measured with each run tells such a change from the runtimes' own.
This one times in-cache arithmetic only: it read the same 1,721-1,733 MiB/s through a findings suite
whose servers needed up to 1.4 times the CPU seconds of an earlier one for the same requests (runs
20261130-051337 ... 064723), a slowdown in their path through the kernel and memory that it misses.
"""

from __future__ import annotations

import hashlib
import statistics
import time

BLOCK = bytes(1 << 20)
BLOCKS_A_SAMPLE = 4
SECONDS = 0.5


def pace_mib_s(seconds: float = SECONDS) -> float:
    """MiB of SHA-256 a second on one core: the median of samples of a few milliseconds over
    `seconds`, so that one preemption moves one sample, not the answer."""
    rates = []
    end = time.perf_counter() + seconds
    while (start := time.perf_counter()) < end or not rates:
        digest = hashlib.sha256()
        for _ in range(BLOCKS_A_SAMPLE):
            digest.update(BLOCK)
        rates.append(BLOCKS_A_SAMPLE / (time.perf_counter() - start))
    return round(statistics.median(rates), 1)
