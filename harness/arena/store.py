"""results/arena.sqlite: every run and every measurement, with its provenance and validity flags.

A measurement is written in one transaction as soon as it is finished, so an interrupted run keeps
everything it finished, and `--resume` finds what is left by its key.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from arena.catalog import RESULTS

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    name TEXT UNIQUE NOT NULL,        -- also the folder results/<name>/
    started REAL NOT NULL,
    finished REAL,                    -- NULL while running or when interrupted
    suite TEXT NOT NULL,
    plan TEXT NOT NULL,               -- JSON: the options the run was started with
    host TEXT NOT NULL,               -- JSON: CPU model, cores, kernel, memory
    git_commit TEXT NOT NULL,
    git_dirty INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS measurements (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    kind TEXT NOT NULL,               -- 'http' (a scenario point) or 'micro'
    impl TEXT NOT NULL,
    experiment TEXT NOT NULL,         -- scenario or bench id
    point TEXT NOT NULL,              -- JSON of the point's parameters
    cpus INTEGER NOT NULL,
    repetition INTEGER NOT NULL,
    created REAL NOT NULL,
    versions TEXT NOT NULL,           -- JSON: runtime, framework, libraries, engine
    parameters TEXT NOT NULL,         -- JSON: the full engine scenario and server settings
    metrics TEXT NOT NULL,            -- JSON: summary numbers (rps, ok, percentiles, ...)
    histograms TEXT NOT NULL,         -- JSON: step -> serialized HdrHistogram (base64)
    series TEXT NOT NULL,             -- JSON: per-second series
    server_cpu_s REAL,
    server_peak_rss_kb INTEGER,
    engine_cpu_s REAL,
    flags TEXT NOT NULL,              -- JSON list: noisy, engine-bound, errors, crashed, ...
    UNIQUE (run_id, kind, impl, experiment, point, cpus, repetition)
);
CREATE TABLE IF NOT EXISTS notes (    -- what a run skipped, and why
    run_id INTEGER NOT NULL REFERENCES runs(id),
    text TEXT NOT NULL,
    UNIQUE (run_id, text)
);
"""


class StoreBusy(Exception):
    """Another process is running measurements on the same results folder."""


@dataclass
class Measurement:
    kind: str
    impl: str
    experiment: str
    point: str
    cpus: int
    repetition: int
    versions: dict
    parameters: dict
    metrics: dict
    histograms: dict
    series: list
    server_cpu_s: float | None
    server_peak_rss_kb: int | None
    engine_cpu_s: float | None
    flags: list[str]


def run_kind(row: sqlite3.Row) -> str:
    """What a run measured: 'http' (runs from before micro-benchmarks have no kind) or 'micro'."""
    return json.loads(row["plan"]).get("kind", "http")


def key_of(kind: str, impl: str, experiment: str, point: str, cpus: int, repetition: int) -> tuple:
    return (kind, impl, experiment, point, cpus, repetition)


class Store:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or RESULTS / "arena.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path)
        self.db.row_factory = sqlite3.Row
        self.db.executescript(SCHEMA)

    def claim(self) -> None:
        """Makes this process the only one measuring: two runs at once would disturb each other's
        numbers and could store the same measurement twice. Released when the process ends."""
        self._lock = (self.path.parent / "arena.lock").open("a+")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.seek(0)
            raise StoreBusy(
                f"another arena run is measuring (pid {self._lock.read().strip() or '?'}); wait for it to end"
            ) from None
        self._lock.truncate(0)
        self._lock.write(str(os.getpid()))
        self._lock.flush()

    def close(self) -> None:
        self.db.close()

    def start_run(self, name: str, suite: str, plan: dict, host: dict, commit: str, dirty: bool) -> int:
        with self.db:
            cursor = self.db.execute(
                "INSERT INTO runs (name, started, suite, plan, host, git_commit, git_dirty) VALUES (?,?,?,?,?,?,?)",
                (name, time.time(), suite, json.dumps(plan), json.dumps(host), commit, int(dirty)),
            )
        return int(cursor.lastrowid)

    def run_by_id(self, run_id: int) -> sqlite3.Row | None:
        return self.db.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()

    def last_run(self) -> sqlite3.Row | None:
        return self.db.execute("SELECT * FROM runs ORDER BY id DESC LIMIT 1").fetchone()

    def run_by_name(self, name: str) -> sqlite3.Row | None:
        return self.db.execute("SELECT * FROM runs WHERE name = ?", (name,)).fetchone()

    def last_unfinished(self, kind: str) -> sqlite3.Row | None:
        """The newest unfinished run of a kind ('http' for `arena run`, 'micro' for `arena micro`)."""
        rows = self.db.execute("SELECT * FROM runs WHERE finished IS NULL ORDER BY id DESC")
        return next((row for row in rows if run_kind(row) == kind), None)

    def finish_run(self, run_id: int) -> None:
        with self.db:
            self.db.execute("UPDATE runs SET finished = ? WHERE id = ?", (time.time(), run_id))

    def add_note(self, run_id: int, text: str) -> None:
        with self.db:
            self.db.execute("INSERT OR IGNORE INTO notes (run_id, text) VALUES (?, ?)", (run_id, text))

    def notes(self, run_id: int) -> list[str]:
        return [row[0] for row in self.db.execute("SELECT text FROM notes WHERE run_id = ? ORDER BY rowid", (run_id,))]

    def done_keys(self, run_id: int) -> set[tuple]:
        rows = self.db.execute(
            "SELECT kind, impl, experiment, point, cpus, repetition FROM measurements WHERE run_id = ?", (run_id,)
        )
        return {tuple(row) for row in rows}

    def add(self, run_id: int, m: Measurement) -> None:
        with self.db:
            self.db.execute(
                """INSERT INTO measurements (run_id, kind, impl, experiment, point, cpus, repetition, created,
                   versions, parameters, metrics, histograms, series, server_cpu_s, server_peak_rss_kb,
                   engine_cpu_s, flags) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)""",
                (
                    run_id, m.kind, m.impl, m.experiment, m.point, m.cpus, m.repetition, time.time(),
                    json.dumps(m.versions), json.dumps(m.parameters), json.dumps(m.metrics),
                    json.dumps(m.histograms), json.dumps(m.series), m.server_cpu_s, m.server_peak_rss_kb,
                    m.engine_cpu_s, json.dumps(m.flags),
                ),
            )  # fmt: skip

    def measurements(self, run_id: int) -> list[Measurement]:
        rows = self.db.execute("SELECT * FROM measurements WHERE run_id = ? ORDER BY id", (run_id,))
        return [
            Measurement(
                kind=r["kind"],
                impl=r["impl"],
                experiment=r["experiment"],
                point=r["point"],
                cpus=r["cpus"],
                repetition=r["repetition"],
                versions=json.loads(r["versions"]),
                parameters=json.loads(r["parameters"]),
                metrics=json.loads(r["metrics"]),
                histograms=json.loads(r["histograms"]),
                series=json.loads(r["series"]),
                server_cpu_s=r["server_cpu_s"],
                server_peak_rss_kb=r["server_peak_rss_kb"],
                engine_cpu_s=r["engine_cpu_s"],
                flags=json.loads(r["flags"]),
            )
            for r in rows
        ]
