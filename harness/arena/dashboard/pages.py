"""The dashboard's pages, made from the store on every request: the runs, one run's report, a
comparison, the findings' verdicts, and the console. A run, a comparison and the findings are
reports of the table model, rendered like report.html; the runs and the console are pages of their
own (harness/web/)."""

from __future__ import annotations

import time

from arena import lifecycle
from arena.compare import history as history_model
from arena.compare import history_report
from arena.dashboard import compare
from arena.errors import UsageError
from arena.findings.runs import ledger
from arena.findings.section import grouped, section
from arena.kind import Kind, main_metrics
from arena.measured.store import Run, Store
from arena.report.render import html, vendor
from arena.report.tables import Report


def _own(*names: str) -> list[str]:
    return [(vendor.WEB / name).read_text(encoding="utf-8") for name in names]


def runs() -> str:
    store = Store()
    try:
        listed = [
            {
                "name": run.name,
                "kind": run.kind,
                "suite": run.suite,
                "started": time.strftime("%Y-%m-%d %H:%M", time.localtime(run.started)),
                "state": "finished" if run.finished else "interrupted" if run.interrupted else "unfinished",
                "measurements": count,
                "impls": impls,
                "commit": run.git_commit[:10] + (" (modified)" if run.git_dirty else ""),
            }
            for run, count, impls in store.runs()
        ]
    finally:
        store.close()
    return html.page(
        "runs.html", "Arena: runs", _own("runs.js"), _own("arena.css"), runs=listed, data=html.data(listed)
    )


def findings() -> str:
    """The verdicts on the seed studies' findings from the newest run of each kind."""
    store = Store()
    try:
        judged, read = ledger(store, [])
    finally:
        store.close()
    made = section(grouped(judged), read)
    return html.report(Report("Arena: what the seed studies found, and whether the newest runs agree", sections=[made]))


def _run(store: Store, name: str, kinds: dict[str, Kind]) -> tuple[Run, Kind]:
    found = store.run_by_name(name)
    if found is None:
        raise UsageError(f"no run named {name!r}")
    if found.kind not in kinds:
        raise UsageError(f"run {name} is a {found.kind} run, which this version cannot show")
    return found, kinds[found.kind]


def run(name: str, kinds: dict[str, Kind]) -> str:
    store = Store()
    try:
        found, kind = _run(store, name, kinds)
        return html.report(lifecycle.build_report(kind, store, found))
    finally:
        store.close()


def comparison(a: str, b: str, one_run: str | None, kinds: dict[str, Kind]) -> str:
    """Runs `a` and `b`; or, with `one_run`, implementations `a` and `b` of that run."""
    if not a or not b:
        raise UsageError("compare needs a and b: two runs (?a=RUN&b=RUN) or two implementations (?run=RUN&a=&b=)")
    store = Store()
    try:
        return html.report(compare.page(store, (f"{one_run}:{a}", f"{one_run}:{b}") if one_run else (a, b), kinds))
    finally:
        store.close()


def history(impl: str, experiments: list[str], kinds: dict[str, Kind]) -> str:
    if not impl:
        raise UsageError("history needs an implementation: /history?impl=go (and &experiment=... to narrow it)")
    store = Store()
    try:
        found = history_model.read(store, impl, experiments, main_metrics(kinds))
    finally:
        store.close()
    return html.report(history_report.report(impl, found))


def console(impls: list[dict]) -> str:
    return html.page(
        "console.html",
        "Arena: console",
        [*vendor.scripts(), *_own("console.js")],
        _own("arena.css"),
        connect_self=True,
        impls=impls,
        data=html.data(impls),
    )
