"""The validity flags a measurement or a table's row carries: how far to trust its number. Each is
stored by its value; what it means is said once, in report/tables.py's FLAGS, for every legend."""

from __future__ import annotations

from enum import StrEnum


class Flag(StrEnum):
    NOISY = "noisy"
    ENGINE_BOUND = "engine-bound"
    ERRORS = "errors"
    CRASHED = "crashed"
    SHARED_CORES = "shared-cores"
    FAILED = "failed"
    UNSTEADY = "unsteady"
    NEVER_STEADY = "never-steady"
    MEMORY_GROWS = "memory-grows"
    P99_DRIFTS = "p99-drifts"
    CUT_SHORT = "cut-short"
    NON_MONOTONE = "non-monotone"
    PAUSE_BOUND = "pause-bound"
    STOLEN = "stolen"
