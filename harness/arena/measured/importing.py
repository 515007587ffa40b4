"""`arena import FILE`: another machine's `arena export` (JSON, spec/export.md) into this store, so
that a team merges the results of several hosts. The run keeps its provenance — its name, times,
host, commit and plan — and every measurement its envelope and typed payload; a run the store
already holds is refused. Anything the file gets wrong is refused with where, before anything is
written."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from arena.errors import UsageError
from arena.measured.export import READABLE, SCHEMA
from arena.measured.measurement import Measurement, Outcome, decode, kind_named, suite_named
from arena.measured.store import Run, Store

RUN_FIELDS = ("name", "kind", "suite", "started", "git_commit", "host", "plan")


def read(path: Path) -> tuple[Run, list[str], list[Measurement]]:
    try:
        raw = path.read_bytes()
        # gzip's magic number: an export kept compressed (`arena export --out RUN.json.gz`)
        document = json.loads((gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode("utf-8"))
    except (gzip.BadGzipFile, EOFError) as err:
        raise UsageError(f"{path} is not a whole gzip file: {err}") from err
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror or err}") from err
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise UsageError(f"{path} is not JSON: {err}") from err
    if not isinstance(document, dict) or document.get("schema") not in READABLE:
        found = document.get("schema") if isinstance(document, dict) else type(document).__name__
        raise UsageError(
            f"{path}: not an arena export of schema {SCHEMA} (it says {found!r}): ./arena export writes one"
        )
    given = document.get("run")
    if not isinstance(given, dict) or any(key not in given for key in RUN_FIELDS):
        raise UsageError(f"{path}: its run lacks one of {', '.join(RUN_FIELDS)}")
    try:
        kind, plan = kind_named(str(given["kind"])), dict(given["plan"])
        suite = suite_named(kind, str(given["suite"]))
        run = Run(
            id=0,
            name=str(given["name"]),
            kind=kind,
            suite=suite,
            plan={**plan, "kind": kind, **({"suite": suite} if "suite" in plan else {})},
            host=dict(given["host"]),
            git_commit=str(given["git_commit"]),
            git_dirty=bool(given.get("git_dirty", False)),
            finished=_time(given.get("finished")),
            started=float(given["started"]),
            interrupted=_time(given.get("interrupted")),
            paused=float(given.get("paused") or 0.0),
        )
    except (TypeError, ValueError) as err:
        raise UsageError(f"{path}: its run is malformed: {err}") from err
    rows = document.get("measurements")
    if not isinstance(rows, list):
        raise UsageError(f"{path}: measurements must be a list")
    measurements = [_measurement(path, i, row) for i, row in enumerate(rows)]
    notes = [str(note) for note in given.get("notes", [])]
    return run, notes, measurements


def _time(value: object) -> float | None:
    return None if value is None else float(value)


def _measurement(path: Path, i: int, row: object) -> Measurement:
    try:
        if not isinstance(row, dict):
            raise TypeError(f"an object, not {type(row).__name__}")
        payload = None
        if row.get("payload") is not None:
            payload = decode(json.dumps({"type": row["payload_type"], **row["payload"]}))
        return Measurement(
            kind=kind_named(str(row["kind"])),
            impl=str(row["impl"]),
            experiment=str(row["experiment"]),
            point=json.dumps(row["point"]),
            cpus=int(row["cpus"]),
            repetition=int(row["repetition"]),
            outcome=Outcome(row["outcome"]),
            reason=str(row.get("reason", "")),
            versions=dict(row.get("versions") or {}),
            parameters=dict(row.get("parameters") or {}),
            flags=[str(flag) for flag in row.get("flags", [])],
            payload=payload,
        )
    except (KeyError, TypeError, ValueError) as err:
        raise UsageError(f"{path}: measurement {i + 1} is malformed: {err!r}") from err


def into(store: Store, path: Path) -> tuple[Run, int]:
    """The run of `path` stored here; (the run as named here, its number of measurements)."""
    run, notes, measurements = read(path)
    return store.import_run(run, notes, measurements), len(measurements)
