"""The runs kept in reference/ as exports: each imports as it is, whatever schema it was written in,
and judges the seeds' findings as it did when it was exported — so that a change to how runs are
stored or named (the REST kind was `http` in export schema 1) loses no verdict of a kept run."""

import gzip
import json

import pytest

from arena.cli.measuring import kinds
from arena.findings import catalog
from arena.findings import runs as findings_runs
from arena.findings.judge import judge_all
from arena.findings.section import exported
from arena.measured import importing
from arena.measured.store import Store
from arena.paths import ROOT

KEPT = sorted((ROOT / "reference").rglob("*.json.gz"))


def said(verdicts: list[dict]) -> dict[str, tuple]:
    """What a verdict says, by finding: its verdict, its cases, its effect and its tests' verdicts."""
    return {v["id"]: (v["verdict"], v["cases"], v["effect"], [t["verdict"] for t in v["tests"]]) for v in verdicts}


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
    assert said(exported(judged)) == said(document["findings"])
