"""Where the repository's parts are: the contract (spec/), the implementations (servers/, micro/)
and what runs write (results/). Every other module finds a folder here."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec"
SERVERS = ROOT / "servers"
MICRO = ROOT / "micro"
# Tests point this elsewhere so they never touch a user's results.
RESULTS = Path(os.environ.get("ARENA_RESULTS") or ROOT / "results")
