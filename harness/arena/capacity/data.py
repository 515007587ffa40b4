"""The rows that fill a workload's templates, and its setup steps run once over them."""

from __future__ import annotations

import time
from pathlib import Path

from arena.capacity.probe import Runner
from arena.capacity.workloads import Workload
from arena.checks import reference
from arena.engines.interface import EngineError
from arena.host.database import Database
from arena.paths import RESULTS

SETUP_CONCURRENCY = 8
SETUP_MAX_S = 120


def data_file(workload: Workload, db: Database) -> Path | None:
    """The rows that fill a workload's templates, as a file the engine reads."""
    if workload.data is None:
        return None
    if workload.data["kind"] == "users":
        return reference.users_file(workload.data["rows"])
    names = [row[0] for row in db.query("SELECT name FROM record ORDER BY name")]
    path = RESULTS / "data" / "records.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("name\n" + "\n".join(names) + "\n", encoding="ascii")
    return path


def set_up(runner: Runner) -> float:
    """Runs the workload's setup steps once over every data row; returns how long it took. A setup
    that fails any request is an EngineError: the search would measure a server without its data."""
    workload = runner.workload
    rows = workload.data["rows"] if workload.data and "rows" in workload.data else 1
    model = {"kind": "fixed", "requests": rows, "concurrency": SETUP_CONCURRENCY}
    began = time.monotonic()
    ran = runner.run(runner.document(model, workload.setup, SETUP_MAX_S), f"the setup of {workload.id}")
    requests = ran.result["requests"]
    if requests["ok"] != rows:
        raise EngineError(
            f"setup of {workload.id}: {requests['ok']} of {rows} requests succeeded ({requests['errors']})"
        )
    return time.monotonic() - began
