"""What one micro-benchmark measurement holds (its payload): one run of the program, or spawn's
search for the largest number of processes under a memory budget."""

from __future__ import annotations

from dataclasses import dataclass

from arena.measured.measurement import payload

PAGE_BYTES = 4096  # the step of a process's resident set


@payload
@dataclass(frozen=True)
class ProgramRun:
    metric: dict  # the program's `metric` object (spec/micro.md); empty when the run failed
    check: dict  # the counts it reported, compared with what the parameters demand
    elapsed_s: float | None  # as the program timed itself
    wall_s: float | None  # from start to exit, as the harness saw it
    cpu_s: float | None  # the program's CPU time (rusage of the whole tree)
    peak_rss_kb: int | None
    log: str  # its stderr
    warmup: dict | None = None  # the program's warm-up (spec/micro.md): iterations, seconds, steady, series

    def exported(self) -> dict:
        """Its numbers, flat, for `arena export` (spec/export.md)."""
        warmup = self.warmup or {}
        flat = self.metric | self._memory_resolution()
        return flat | {
            "elapsed_s": self.elapsed_s,
            "wall_s": self.wall_s,
            "cpu_s": self.cpu_s,
            # How many cores it kept busy on average, start to exit: a runtime that spreads its
            # processes over every core given shows the budget here, one that cannot shows one.
            "cores_busy": self.cpu_s / self.wall_s if self.cpu_s is not None and self.wall_s else None,
            "peak_rss_kb": self.peak_rss_kb,
            "steady": warmup.get("steady"),
            "warmup_s": warmup.get("seconds"),
        }

    def _memory_resolution(self) -> dict:
        """Spawn's bytes per process are known to a byte, or to a page of RSS shared by the N
        processes where that is more: RSS grows by pages, and some programs print whole bytes
        (Erlang's was 2,811 in each of three repetitions at 3,000,000 processes)."""
        per_process, procs = self.metric.get("bytes_per_process"), self.check.get("alive")
        if not isinstance(per_process, int | float) or per_process <= 0 or not isinstance(procs, int) or procs <= 0:
            return {}
        return {"bytes_per_process_resolution": max(1.0, PAGE_BYTES / procs) / per_process}


@payload
@dataclass(frozen=True)
class SpawnSearch:
    max_procs: int  # the largest N that ran within the budget; 0 when even the first failed
    budget_mb: int
    stopped_by: str  # what ended the search
    us_per_spawn: float | None  # at max_procs
    bytes_per_process: float | None  # at max_procs
    steps: list[dict]  # every N tried: procs, wall_s, peak_rss_kb, and its numbers or its failure

    def exported(self) -> dict:
        """Its numbers, flat, for `arena export` (spec/export.md)."""
        return {
            "max_procs": self.max_procs,
            "max_procs_resolution": 1.0,  # a doubling search: the most lies below twice what it found
            "budget_mb": self.budget_mb,
            "stopped_by": self.stopped_by,
            "us_per_spawn": self.us_per_spawn,
            "bytes_per_process": self.bytes_per_process,
        }
