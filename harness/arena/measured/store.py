"""results/arena.sqlite: every run and every measurement, with its provenance and validity flags.

A measurement is written in one transaction as soon as it is finished, so an interrupted run keeps
everything it finished, and `--resume` finds what is left by its key. A store written before
measurements had a typed outcome (schema 0), before runs recorded an interruption (schema 1) or a
stop (schema 2), while the REST kind was named `http` (schema 3), or while a kind without profiles
stored its own name as its suite (schema 4), is upgraded in place when it is opened.

The store is in WAL mode: a report or the dashboard reading while a run writes neither waits for
the run nor makes it wait, and a write that cannot be made (a full disk) is rolled back whole, as a
StoreError, leaving what was stored before intact.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ArenaError, UsageError
from arena.measured.measurement import RENAMED_KINDS, Measurement, Outcome, decode, encode
from arena.paths import RESULTS

SCHEMA_VERSION = 5
# How long a connection waits for another's write (a store opened as another is upgraded): never
# reached by WAL's readers, and far above any single write.
BUSY_TIMEOUT_S = 30
TABLES = [
    """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    name TEXT UNIQUE NOT NULL,        -- also the folder results/<name>/
    started REAL NOT NULL,
    finished REAL,                    -- NULL while running or when interrupted
    interrupted REAL,                 -- when Ctrl-C or a signal stopped it last; NULL otherwise
    paused REAL NOT NULL DEFAULT 0,   -- seconds it stood stopped before --resume continued it
    suite TEXT NOT NULL,              -- the profile: quick, paper or findings; '' for capacity and soak
    plan TEXT NOT NULL,               -- JSON: the kind and the options the run was started with
    host TEXT NOT NULL,               -- JSON: CPU model, cores, kernel, memory
    git_commit TEXT NOT NULL,
    git_dirty INTEGER NOT NULL
)""",
    """
CREATE TABLE IF NOT EXISTS measurements (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    kind TEXT NOT NULL,               -- 'rest' (a scenario point), 'micro', 'capacity' or 'soak'
    impl TEXT NOT NULL,
    experiment TEXT NOT NULL,         -- scenario or bench id
    point TEXT NOT NULL,              -- JSON of the point's parameters
    cpus INTEGER NOT NULL,
    repetition INTEGER NOT NULL,
    created REAL NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('measured', 'failed', 'not run')),
    reason TEXT NOT NULL,             -- why it failed or was not run; '' when measured
    versions TEXT NOT NULL,           -- JSON: runtime, framework, libraries, engine
    parameters TEXT NOT NULL,         -- JSON: what was asked (engine scenario, settings, cores, ...)
    flags TEXT NOT NULL,              -- JSON list: engine-bound, errors, crashed, shared-cores
    payload TEXT,                     -- JSON {"type": ..., ...}: the kind's own result, or NULL
    UNIQUE (run_id, kind, impl, experiment, point, cpus, repetition)
)""",
    """
CREATE TABLE IF NOT EXISTS notes (    -- what a run skipped, and why
    run_id INTEGER NOT NULL REFERENCES runs(id),
    text TEXT NOT NULL,
    UNIQUE (run_id, text)
)""",
]
MEASUREMENTS = TABLES[1]


class StoreBusy(ArenaError):
    """Another process is running measurements on the same results folder."""


class StoreError(ArenaError):
    """A write the store could not make (a full disk, a read-only folder); nothing of it was kept."""


@dataclass(frozen=True)
class Run:
    id: int
    name: str
    kind: str  # 'rest' for `arena run`, 'micro' for `arena micro`, ... (arena/kind.py)
    suite: str  # the profile its points came from; '' for a kind without profiles
    plan: dict
    host: dict
    git_commit: str
    git_dirty: bool
    finished: float | None
    started: float = 0.0
    interrupted: float | None = None  # when a stop signal ended it last, if it has not finished since
    paused: float = 0.0  # seconds it stood stopped before a resume continued it (`Store.resume_run`)

    @property
    def measuring_s(self) -> float | None:
        """Its time from start to finish, less the time it stood stopped; None until it finishes."""
        return None if self.finished is None else self.finished - self.started - self.paused

    @staticmethod
    def of(row: sqlite3.Row) -> Run:
        plan = json.loads(row["plan"])
        as_stored = {
            key: row[key]
            for key in ("id", "name", "suite", "git_commit", "finished", "started", "interrupted", "paused")
        }
        kind = plan.get("kind", "rest")  # runs from before micro-benchmarks have no kind: REST's
        return Run(**as_stored, kind=kind, plan=plan, host=json.loads(row["host"]), git_dirty=bool(row["git_dirty"]))


class Store:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or RESULTS / "arena.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S)
        self.db.row_factory = sqlite3.Row
        # One explicit transaction: an upgrade that fails half-way leaves the store as it was. A
        # current store is only read here, so that opening it (a report, a dashboard page) takes no
        # write lock from a run.
        try:
            self.db.execute("PRAGMA journal_mode = WAL")
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            if version == SCHEMA_VERSION:
                return
            self.db.execute("BEGIN")
            if "metrics" in self._columns("measurements"):
                _upgrade_from_0(self.db)
            for table in TABLES:
                self.db.execute(table)
            if "interrupted" not in self._columns("runs"):  # schema 1
                self.db.execute("ALTER TABLE runs ADD COLUMN interrupted REAL")
            if "paused" not in self._columns("runs"):  # schema 2
                self.db.execute("ALTER TABLE runs ADD COLUMN paused REAL NOT NULL DEFAULT 0")
            if version < 4:  # schema 3: the REST kind was named `http`
                _rename_kinds(self.db)
            if version < 5:  # schema 4: capacity and soak runs named their kind as their suite
                _clear_kind_suites(self.db)
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            self.db.commit()
        except (sqlite3.Error, KeyError, ValueError) as err:
            self.db.rollback()
            raise ArenaError(f"{self.path}: cannot open or upgrade the store: {err}") from err

    def _columns(self, table: str) -> set[str]:
        return {row["name"] for row in self.db.execute(f"PRAGMA table_info({table})")}

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

    @contextmanager
    def _writing(self, what: str) -> Iterator[None]:
        """One write transaction, committed whole or, when the disk cannot take it, not at all."""
        try:
            with self.db:
                yield
        except sqlite3.OperationalError as err:
            raise StoreError(f"{self.path}: cannot store {what}: {err}") from err

    def close(self) -> None:
        """Closes the database and gives up the claim, if this store holds it."""
        self.db.close()
        if hasattr(self, "_lock"):
            self._lock.close()

    def start_run(self, name: str, suite: str, plan: dict, host: dict, commit: str, dirty: bool) -> Run:
        """A new run named `name`, or `name-2`, `name-3`, ... when runs started within the same second."""
        with self._writing("a new run"):
            cursor = self.db.execute(
                "INSERT INTO runs (name, started, suite, plan, host, git_commit, git_dirty) VALUES (?,?,?,?,?,?,?)",
                (self._unique(name), time.time(), suite, json.dumps(plan), json.dumps(host), commit, int(dirty)),
            )
        return self._run("id = ?", cursor.lastrowid)

    def _unique(self, name: str) -> str:
        """`name`, or `name-2`, `name-3`, ... when another run has it."""
        taken = {row[0] for row in self.db.execute("SELECT name FROM runs WHERE name GLOB ?", (f"{name}*",))}
        return next(n for n in (name, *(f"{name}-{i}" for i in range(2, len(taken) + 2))) if n not in taken)

    def import_run(self, run: Run, notes: list[str], measurements: list[Measurement]) -> Run:
        """Another store's run, as it was recorded there (its times, host, commit and plan), in one
        transaction: all of it or nothing. Named as there, or `name-2`, ... when the name is taken
        here by another run; refused when this store already holds it (the same start, host and
        commit)."""
        for row in self.db.execute(
            "SELECT * FROM runs WHERE started = ? AND git_commit = ?", (run.started, run.git_commit)
        ):
            if Run.of(row).host == run.host:
                raise UsageError(
                    f"run {run.name} of {run.host.get('name', 'its host')} is already here, as {row['name']}"
                )
        name = self._unique(run.name)
        with self._writing("the imported run"), _refusing_duplicates(run.name):
            cursor = self.db.execute(
                """INSERT INTO runs (name, started, finished, interrupted, paused, suite, plan, host, git_commit,
                   git_dirty) VALUES (?,?,?,?,?,?,?,?,?,?)""",
                (
                    name,
                    run.started,
                    run.finished,
                    run.interrupted,
                    run.paused,
                    run.suite,
                    json.dumps(run.plan),
                    json.dumps(run.host),
                    run.git_commit,
                    int(run.git_dirty),
                ),
            )
            run_id = cursor.lastrowid
            self.db.executemany(
                "INSERT OR IGNORE INTO notes (run_id, text) VALUES (?, ?)", [(run_id, n) for n in notes]
            )
            for m in measurements:
                self._insert(run_id, m)
        return self._run("id = ?", run_id)

    def _run(self, where: str, *args: object) -> Run | None:
        row = self.db.execute(f"SELECT * FROM runs WHERE {where} ORDER BY id DESC LIMIT 1", args).fetchone()
        return Run.of(row) if row else None

    def last_run(self) -> Run | None:
        return self._run("1")

    def run_by_name(self, name: str) -> Run | None:
        return self._run("name = ?", name)

    def named(self, name: str) -> Run:
        """The run a command line names: 'last', 'last~N' (the Nth before the last), or a run's
        name; a UsageError when there is none."""
        if name == "last" or name.startswith("last~"):
            back = name.removeprefix("last").removeprefix("~") or "0"
            if not back.isdigit():
                raise UsageError(f"{name}: write last, or last~N with N a whole number (last~1: the run before)")
            row = self.db.execute("SELECT * FROM runs ORDER BY id DESC LIMIT 1 OFFSET ?", (int(back),)).fetchone()
            if row is None:
                raise UsageError(f"no run {name} in {self.path}: it holds {self.count()} run(s)")
            return Run.of(row)
        found = self.run_by_name(name)
        if found is None:
            raise UsageError(f"no run named {name} in {self.path}")
        return found

    def count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]

    def runs(self) -> list[tuple[Run, int, list[str]]]:
        """Every run, newest first (by when it started: a run imported from elsewhere takes its place
        in time, not the order it arrived in), with its number of measurements and its implementations."""
        query = "SELECT run_id, COUNT(*), GROUP_CONCAT(DISTINCT impl) FROM measurements GROUP BY run_id"
        counted = {row[0]: (row[1], sorted(row[2].split(",")) if row[2] else []) for row in self.db.execute(query)}
        rows = self.db.execute("SELECT * FROM runs ORDER BY started DESC, id DESC")
        return [(run, *counted.get(run.id, (0, []))) for run in map(Run.of, rows)]

    def last_unfinished(self, kind: str) -> Run | None:
        """The newest unfinished run of a kind ('rest' for `arena run`, 'micro' for `arena micro`, ...)."""
        rows = self.db.execute("SELECT * FROM runs WHERE finished IS NULL ORDER BY id DESC")
        return next((run for run in map(Run.of, rows) if run.kind == kind), None)

    def finish_run(self, run_id: int) -> Run:
        """Marks the run finished and returns it as stored now."""
        with self._writing("the end of the run"):
            self.db.execute("UPDATE runs SET finished = ? WHERE id = ?", (time.time(), run_id))
        return self._run("id = ?", run_id)

    def extend_run(self, run_id: int, repeat: int) -> Run:
        """Raises a finished run's repetitions to `repeat` and opens it again, so that a resume
        measures the rest: its plan keeps the repetitions at which its numbers were read before
        (`looked`), whose verdicts spend their error over each such reading (spec/findings.md)."""
        run = self._run("id = ?", run_id)
        plan = {**run.plan, "repeat": repeat, "looked": [*run.plan.get("looked", []), run.plan.get("repeat", 3)]}
        with self._writing("the run's new repetitions"):
            self.db.execute("UPDATE runs SET plan = ?, finished = NULL WHERE id = ?", (json.dumps(plan), run_id))
        return self._run("id = ?", run_id)

    def resume_run(self, run_id: int) -> Run:
        """Counts the time the run stood stopped, from its last sign of life (its start, its newest
        measurement or its interruption) to now, as paused: a signal may not have been recorded
        (a machine that restarts sends none), and a run's measuring time leaves the stop out."""
        (last,) = self.db.execute(
            "SELECT MAX(COALESCE(MAX(m.created), r.started), COALESCE(r.interrupted, r.started))"
            " FROM runs r LEFT JOIN measurements m ON m.run_id = r.id WHERE r.id = ?",
            (run_id,),
        ).fetchone()
        with self._writing("the resume"):
            self.db.execute("UPDATE runs SET paused = paused + ? WHERE id = ?", (max(0.0, time.time() - last), run_id))
        return self._run("id = ?", run_id)

    def interrupt_run(self, run_id: int) -> None:
        """Records that a stop signal ended the run before its end (a resume may finish it later)."""
        with self._writing("the interruption"):
            self.db.execute("UPDATE runs SET interrupted = ? WHERE id = ?", (time.time(), run_id))

    def add_note(self, run_id: int, text: str) -> None:
        with self._writing("a note"):
            self.db.execute("INSERT OR IGNORE INTO notes (run_id, text) VALUES (?, ?)", (run_id, text))

    def notes(self, run_id: int) -> list[str]:
        return [row[0] for row in self.db.execute("SELECT text FROM notes WHERE run_id = ? ORDER BY rowid", (run_id,))]

    def done_keys(self, run_id: int) -> set[tuple]:
        rows = self.db.execute(
            "SELECT kind, impl, experiment, point, cpus, repetition FROM measurements WHERE run_id = ?", (run_id,)
        )
        return {tuple(row) for row in rows}

    def add(self, run_id: int, m: Measurement) -> None:
        with self._writing("a measurement"):
            self._insert(run_id, m)

    def _insert(self, run_id: int, m: Measurement) -> None:
        self.db.execute(
            """INSERT INTO measurements (run_id, kind, impl, experiment, point, cpus, repetition, created,
               outcome, reason, versions, parameters, flags, payload) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)""",
            (
                run_id,
                m.kind,
                m.impl,
                m.experiment,
                m.point,
                m.cpus,
                m.repetition,
                time.time(),
                m.outcome.value,
                m.reason,
                json.dumps(m.versions),
                json.dumps(m.parameters),
                json.dumps(m.flags),
                encode(m.payload),
            ),
        )

    def measurements(self, run_id: int) -> list[Measurement]:
        rows = self.db.execute("SELECT * FROM measurements WHERE run_id = ? ORDER BY id", (run_id,))
        return [_measurement(row) for row in rows]


@contextmanager
def _refusing_duplicates(name: str) -> Iterator[None]:
    try:
        yield
    except sqlite3.IntegrityError as err:
        raise UsageError(f"run {name} holds one measurement twice (the same point and repetition): {err}") from err


def _measurement(row: sqlite3.Row) -> Measurement:
    as_stored = {key: row[key] for key in ("kind", "impl", "experiment", "point", "cpus", "repetition", "reason")}
    as_json = {key: json.loads(row[key]) for key in ("versions", "parameters", "flags")}
    return Measurement(
        **as_stored, **as_json, outcome=Outcome(row["outcome"]), payload=decode(row["payload"]), run=row["run_id"]
    )


def _rename_kinds(db: sqlite3.Connection) -> None:
    """Every run and measurement of a renamed kind under its name now (RENAMED_KINDS), in the
    transaction the caller holds; a run stored before runs named their kind was a REST run."""
    kind_of_run = "json_extract(plan, '$.kind')"
    for old, new in RENAMED_KINDS.items():
        db.execute("UPDATE measurements SET kind = ? WHERE kind = ?", (new, old))
        db.execute(f"UPDATE runs SET plan = json_set(plan, '$.kind', ?) WHERE {kind_of_run} = ?", (new, old))
    db.execute(f"UPDATE runs SET plan = json_set(plan, '$.kind', 'rest') WHERE {kind_of_run} IS NULL")


def _clear_kind_suites(db: sqlite3.Connection) -> None:
    """The suite of every run whose kind has no profiles (it held the kind's name) made empty, in the
    run and in its stored plan (measurement.suite_named)."""
    db.execute(
        "UPDATE runs SET suite = '', plan = json_set(plan, '$.suite', '') WHERE suite = json_extract(plan, '$.kind')"
    )


# --- schema 0: outcomes were sentinel keys inside `metrics` ----------------------------------------

_V0_MICRO_RUN = ("elapsed_s", "wall_s", "check")


def _upgrade_from_0(db: sqlite3.Connection) -> None:
    """Rewrites every measurement of a schema-0 store in the envelope-and-payload shape, in the
    transaction the caller holds. The payloads written are those of rest/result.py (RestResult) and
    micro/result.py (ProgramRun, SpawnSearch)."""
    db.execute("ALTER TABLE measurements RENAME TO measurements_v0")
    db.execute(MEASUREMENTS)
    for row in db.execute("SELECT * FROM measurements_v0 ORDER BY id").fetchall():
        outcome, reason, flags, payload = _upgraded(row)
        db.execute(
            """INSERT INTO measurements (id, run_id, kind, impl, experiment, point, cpus, repetition, created,
               outcome, reason, versions, parameters, flags, payload) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)""",
            (
                row["id"],
                row["run_id"],
                row["kind"],
                row["impl"],
                row["experiment"],
                row["point"],
                row["cpus"],
                row["repetition"],
                row["created"],
                outcome,
                reason,
                row["versions"],
                row["parameters"],
                json.dumps(flags),
                json.dumps(payload) if payload else None,
            ),
        )
    db.execute("DROP TABLE measurements_v0")


def _upgraded(row: sqlite3.Row) -> tuple[str, str, list[str], dict | None]:
    """(outcome, reason, flags, payload) of one schema-0 measurement."""
    metrics, series = json.loads(row["metrics"]), json.loads(row["series"])
    flags = [flag for flag in json.loads(row["flags"]) if flag != "failed"]  # now an outcome
    usage = {"cpu_s": row["server_cpu_s"], "peak_rss_kb": row["server_peak_rss_kb"]}
    if metrics.get("not_run"):
        return "not run", metrics["failure"].removeprefix("not run: "), flags, None
    if row["kind"] == "micro" and "max_procs" in metrics:
        found = {
            k: metrics.get(k) for k in ("max_procs", "budget_mb", "stopped_by", "us_per_spawn", "bytes_per_process")
        }
        search = {"type": "SpawnSearch", **found, "steps": series}
        if metrics["max_procs"]:
            return "measured", "", flags, search
        return "failed", metrics["stopped_by"], flags, search
    if "failure" in metrics:
        if row["kind"] == "micro":
            failed_run = {
                "type": "ProgramRun",
                "metric": {},
                "check": {},
                "elapsed_s": None,
                "wall_s": None,
                **usage,
                "log": metrics.get("log", ""),
            }
            return "failed", metrics["failure"], flags, failed_run
        return "failed", metrics["failure"], flags, None
    if row["kind"] == "micro":
        program = {
            "type": "ProgramRun",
            "metric": {k: v for k, v in metrics.items() if k not in _V0_MICRO_RUN},
            "check": metrics.get("check", {}),
            "elapsed_s": metrics.get("elapsed_s"),
            "wall_s": metrics.get("wall_s"),
            **usage,
            "log": "",
        }
        return "measured", "", flags, program
    http = {
        "type": "RestResult",
        "metrics": metrics,
        "histograms": json.loads(row["histograms"]),
        "series": series,
        "server_cpu_s": row["server_cpu_s"],
        "server_peak_rss_kb": row["server_peak_rss_kb"],
        "engine_cpu_s": row["engine_cpu_s"],
    }
    return "measured", "", flags, http
