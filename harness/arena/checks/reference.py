"""The contract's reference data, taken from spec/reference.py so there is one source of truth, and
the files of it that load engines read."""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path

from arena.paths import RESULTS, SPEC

_spec = importlib.util.spec_from_file_location("arena_spec_reference", SPEC / "reference.py")
assert _spec is not None and _spec.loader is not None
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)

checksum = lru_cache(maxsize=None)(_module.checksum)
user = _module.user
users_csv = _module.users_csv


def users_file(rows: int) -> Path:
    """The first `rows` reference users as the `;`-separated file an engine's data reads, written
    once into results/data/."""
    path = RESULTS / "data" / f"users-{rows}.csv"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(users_csv(rows), encoding="ascii")
    return path
