"""Time the hypervisor took from this machine's cores: a virtual machine's core that was ready to
run while its host ran something else (the steal column of /proc/stat). A server or an engine
stalled so answers late for a reason of neither: on this project's two-core virtual machine, 15-19%
of the cores' time was stolen for minutes at a stretch, in stalls that broke a p99 of 10 ms at a
few hundred arrivals a second where the same server passed 50,000 an hour before
(spec/capacity.md, "Spread")."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

STAT = Path("/proc/stat")
TICK_S = 1 / os.sysconf("SC_CLK_TCK")
STEAL = 7  # the column of a core's line after its name: user nice system idle iowait irq softirq steal


def stolen_s(cores: Iterable[int]) -> float:
    """Seconds stolen from `cores` since boot; 0.0 where the kernel counts none (not a guest)."""
    wanted = {f"cpu{core}" for core in cores}
    ticks = 0
    for line in STAT.read_text().splitlines():
        name, *columns = line.split()
        if name in wanted and len(columns) > STEAL:
            ticks += int(columns[STEAL])
    return ticks * TICK_S
