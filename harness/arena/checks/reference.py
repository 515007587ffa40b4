"""The contract's reference data, taken from spec/reference.py so there is one source of truth."""

from __future__ import annotations

import importlib.util
from functools import lru_cache

from arena.impls.catalog import SPEC

_spec = importlib.util.spec_from_file_location("arena_spec_reference", SPEC / "reference.py")
assert _spec is not None and _spec.loader is not None
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)

checksum = lru_cache(maxsize=None)(_module.checksum)
user = _module.user
users_csv = _module.users_csv
