"""How fast this machine runs a fixed piece of work on one core right now, stored with every run.

A virtual machine shares its host's cores with other guests, and nothing inside it accounts for the
time it is not given: the same work just takes longer, in wall and in CPU time alike (seen here as
10-30% more CPU seconds for the same requests in one findings suite than in the one before it, from
one run onwards). Two runs whose numbers differ can then be told apart from a machine that changed
speed between them only by a yardstick measured with each.
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
