"""`arena run` and `arena report`: plan a run, verify, measure every task, and write its summary."""

from __future__ import annotations

import argparse
import json
import time

from arena import engine, runner, scenarios, summary
from arena.catalog import RESULTS
from arena.micro import suite as micro_suite
from arena.micro import summary as micro_summary
from arena.pipeline import UsageError, load, measured_budgets, prepare, verify_one
from arena.store import Store, StoreBusy, run_kind
from arena.toolchain import Toolchains


def _plan(args: argparse.Namespace) -> dict:
    if not 1 <= args.repeat <= 100:
        raise UsageError(f"--repeat {args.repeat}: choose 1..100")
    return {
        "suite": args.suite,
        "impl": args.impl,
        "scenario": args.scenario,
        "cpus": measured_budgets(args.cpus),
        "repeat": args.repeat,
    }


def claim(db: Store) -> None:
    try:
        db.claim()
    except StoreBusy as err:
        raise UsageError(str(err)) from None


def interrupted(db: Store, run_id: int, name: str, command: str) -> int:
    """What Ctrl-C leaves: the finished measurements, and how to go on."""
    kept = len(db.done_keys(run_id))
    print(f"\ninterrupted: {kept} measurement(s) of run {name} are stored; "
          f"continue with ./arena {command} --resume {name}")  # fmt: skip
    return 130


def open_run(db: Store, resume: str | None, kind: str, make_plan) -> tuple[int, str, dict]:
    """The run to work on: the one named by --resume (or the last unfinished one of this kind), else
    a new one with the plan `make_plan()` returns. Returns (id, name, plan)."""
    if resume:
        row = db.last_unfinished(kind) if resume == "last" else db.run_by_name(resume)
        if row is None:
            raise UsageError(f"no {kind} run to resume ({resume}); start one without --resume")
        if run_kind(row) != kind:
            raise UsageError(f"run {row['name']} is a {run_kind(row)} run; resume it with its own command")
        if row["finished"] is not None:
            raise UsageError(f"run {row['name']} is already complete; see ./arena report {row['name']}")
        return row["id"], row["name"], json.loads(row["plan"])
    plan = {"kind": kind, **make_plan()}
    name = time.strftime("%Y%m%d-%H%M%S")
    commit, dirty = runner.git_state()
    return db.start_run(name, plan["suite"], plan, runner.host_facts(), commit, dirty), name, plan


def run(args: argparse.Namespace) -> int:
    try:
        chosen = scenarios.load(args.scenario)
    except scenarios.ScenarioError as err:
        raise UsageError(str(err)) from None
    manifests = load(args.impl)
    db = Store()
    try:
        claim(db)
        run_id, name, plan = open_run(db, args.resume, "http", lambda: _plan(args))
        chosen = scenarios.load(plan["scenario"]) if args.resume else chosen
        manifests = load(plan["impl"]) if args.resume else manifests
        print(f"arena run {name}: suite {plan['suite']}, cpus {plan['cpus']}, {plan['repeat']} repetition(s)")
        print(f"results: {db.path} (run {name}); Ctrl-C keeps what is finished, --resume continues\n")

        toolchains = Toolchains()
        engine.ensure_built(toolchains)
        skipped: list[str] = []
        ready = []
        print("preparing and verifying")
        for manifest in manifests:
            prepared = prepare(manifest, toolchains)
            if not prepared.ok:
                skipped.append(f"skipped {manifest.name}: {prepared.reason}")
                continue
            for cpus in plan["cpus"]:
                ok, outcome = verify_one(manifest, cpus)
                if ok:
                    ready.append((manifest, cpus))
                else:
                    skipped.append(f"skipped {manifest.name} cpus={cpus}: conformance {outcome}")
        for line in skipped:
            print(f"  {line}")
            db.add_note(run_id, line)

        runnable = [s for s in chosen if not s.pending]
        users = runner.users_file() if any(s.users_csv for s in runnable) else None
        tasks = [
            runner.Task(manifest, point, cpus, repetition)
            for repetition in range(plan["repeat"])
            for scenario in runnable
            for point in scenarios.points(scenario, plan["suite"])
            for manifest, cpus in ready
        ]
        print(f"\nmeasuring: {len(tasks)} measurements")
        try:
            runner.execute(db, run_id, tasks, users)
        except KeyboardInterrupt:
            return interrupted(db, run_id, name, "run")
        db.finish_run(run_id)
        write_summary(db, run_id)
        return 0
    finally:
        db.close()


def write_summary(db: Store, run_id: int) -> None:
    """Prints a stored run's summary and writes it to results/<run>/summary.md."""
    row = db.run_by_id(run_id)
    plan, host = json.loads(row["plan"]), json.loads(row["host"])
    title = (f"Arena {'micro' if run_kind(row) == 'micro' else 'run'} {row['name']} ({row['suite']} suite) on "
             f"{host['cpu_model']}, {host['cores']} cores, "
             f"commit {row['git_commit'][:10]}{' (modified)' if row['git_dirty'] else ''}")  # fmt: skip
    measurements, skipped = db.measurements(run_id), db.notes(run_id)
    if run_kind(row) == "micro":
        text, markdown = micro_summary.render(title, micro_suite.load(plan["bench"]), measurements, skipped, host)
    else:
        text, markdown = summary.render(title, scenarios.load(plan["scenario"]), measurements, skipped)
    folder = RESULTS / row["name"]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "summary.md").write_text(markdown, encoding="utf-8")
    print(f"\n{text}\n\nsummary: {folder / 'summary.md'}")


def report(name: str) -> int:
    db = Store()
    try:
        row = db.last_run() if name == "last" else db.run_by_name(name)
        if row is None:
            raise UsageError(f"no run named {name} in {db.path}")
        write_summary(db, row["id"])
        return 0
    finally:
        db.close()
