"""The runs kept in reference/ as exports: each imports as it is, whatever schema it was written in,
and judges the seeds' findings as it did when it was exported — so that a change to how runs are
stored or named (the REST kind was `http` in export schema 1, a runtime's setups were unnamed
before 2026-12-07) loses no verdict of a kept run. A finding whose tests changed since the run was
measured (`[[finding.changed]]` in spec/findings.toml, logged with the day) is judged again, as
docs/results.md shows it, and not held to its old verdict."""

import gzip
import json
import re
import time

import pytest

from arena.cli.measuring import kinds
from arena.findings import catalog
from arena.findings import runs as findings_runs
from arena.findings.judge import judge_all
from arena.findings.section import exported
from arena.impls import setups
from arena.measured import importing
from arena.measured.store import Store
from arena.paths import ROOT

KEPT = sorted((ROOT / "reference").rglob("*.json.gz"))


def said(verdicts: list[dict], named=lambda effect: effect) -> dict[str, tuple]:
    """What a verdict says, by finding: its verdict, its cases, its effect (its rows `named` as they
    are named now) and its tests' verdicts."""
    return {
        v["id"]: (v["verdict"], v["cases"], named(v["effect"]), [t["verdict"] for t in v["tests"]]) for v in verdicts
    }


def named_now(effect: str) -> str:
    """An effect exported before setups were named, its servers' rows named as now: `node` is its
    default setup, `node:express-cluster` (impls/setups.py); a micro-benchmark's `java-platform`
    is no server's."""
    known = setups.known()
    for name in known.rows:
        if known.canonical(name) != name:
            effect = re.sub(rf"(?<![\w:-]){re.escape(name)}(?![\w:-])", known.canonical(name), effect)
    return effect


@pytest.mark.parametrize("path", KEPT, ids=[f"{p.parent.name}/{p.name}" for p in KEPT])
def test_a_kept_run_imports_and_judges_as_it_was_exported(path, tmp_path):
    kinds()  # every kind's payload type is known before one is read back
    document = json.loads(gzip.decompress(path.read_bytes()))
    store = Store(tmp_path / "arena.sqlite")
    try:
        run, count = importing.into(store, path)
        assert count == len(document["measurements"])
        assert run.kind in kinds() and all(m.kind == run.kind for m in store.measurements(run.id))
        judged = judge_all(findings_runs.index(store, [run]), catalog.load())
    finally:
        store.close()
    day = time.strftime("%Y-%m-%d", time.gmtime(document["run"]["started"]))
    changed = {f.id for f in catalog.load() if f.changed_since(day)}
    now, then = said(exported(judged)), said(document["findings"], named_now)
    assert {k: v for k, v in now.items() if k not in changed} == {k: v for k, v in then.items() if k not in changed}
