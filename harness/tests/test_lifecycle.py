"""The run lifecycle with a kind of its own: measures, keeps what is done on Ctrl-C, resumes only
what is left, refuses a resume by another kind, and writes the summary from the table model."""

import json
import time
from dataclasses import dataclass

import pytest

from arena import lifecycle
from arena.console import Console
from arena.context import Context
from arena.errors import UsageError
from arena.kind import Batch, Cut, Plan, Task
from arena.measured.measurement import Measurement, Outcome, payload
from arena.measured.store import Store
from arena.paths import RESULTS
from arena.report.tables import Cell, Column, Report, Row, Section, Table, legend


@payload
@dataclass(frozen=True)
class Counted:
    value: int

    def exported(self) -> dict:
        return {"value": self.value}


@dataclass(frozen=True)
class Step:
    i: int
    experiment: str = "count"

    @property
    def key(self) -> str:
        return json.dumps({"i": self.i})

    @property
    def label(self) -> str:
        return f"i={self.i}"


@dataclass(frozen=True)
class CountingPlan(Plan):
    n: int = 0


class Counting:
    """A kind whose task i measures the value i, and that is interrupted at task `stop`."""

    name = "counting"
    command = "counting"
    plans = CountingPlan

    def __init__(self, manifest, stop: int | None = None, cut: bool = False, enough: int | None = None) -> None:
        self.manifest, self.stop, self.cut, self.measured = manifest, stop, cut, []
        self.enough = enough  # once this many are measured, the rest are not needed

    def check(self, plan: CountingPlan) -> None:
        pass

    def headline(self, plan: CountingPlan) -> str:
        return f"{plan.n} steps"

    def experiments(self, plan: CountingPlan) -> list[str]:
        return ["count"]

    def prepare(self, plan: CountingPlan, stored: list[Measurement], context: Context) -> Batch:
        tasks = [Task(self.name, self.manifest, Step(i), 1, 0, 0.01) for i in range(plan.n)]
        return Batch(tasks, self.measure, ["skipped nothing: a note"], needless=self.needless)

    def needless(self, task: Task) -> str | None:
        return f"{self.enough} are enough" if self.enough and len(self.measured) >= self.enough else None

    def measure(self, task: Task, phase) -> Measurement:
        phase("count")
        if task.point.i == self.stop and not self.cut:
            raise KeyboardInterrupt
        self.measured.append(task.point.i)
        made = Measurement(
            self.name,
            task.manifest.name,
            "count",
            task.point.key,
            1,
            0,
            Outcome.MEASURED,
            payload=Counted(task.point.i),
        )
        if task.point.i == self.stop:
            raise Cut(made)  # a long task stopped halfway: what it measured so far
        return made

    def outcome(self, m: Measurement) -> str:
        return f"value {m.payload.value}"

    def report(self, run, title: str, measurements: list[Measurement], skipped: list[str]) -> Report:
        rows = [Row([Cell(m.impl), Cell(str(m.payload.value))]) for m in measurements]
        sections = [Section("count", Table([Column("impl"), Column("value", numeric=True)], rows))]
        return Report(title, sections=sections, legend=legend(sections), skipped=skipped)


def ran(kind: Counting, resume: str | None = None, assertions: tuple[str, ...] = (), junit: str | None = None) -> int:
    """A run of four steps by the lifecycle, on a context of its own, as a command runs one."""
    with Context.claimed(Console()) as context:
        gates = lifecycle.Gates(list(assertions), junit)
        return lifecycle.run(kind, CountingPlan("quick", [], [1], 1, n=4), context, resume, gates)


def test_interrupt_keeps_what_is_done_and_resume_does_the_rest(fake, capsys):
    first = Counting(fake, stop=2)
    assert ran(first) == 130
    out = capsys.readouterr().out
    assert "interrupted: 2 measurement(s) of run" in out and "./arena counting --resume" in out
    assert first.measured == [0, 1]
    store = Store()
    interrupted = store.last_run()
    store.close()
    assert interrupted.finished is None and interrupted.interrupted is not None
    assert lifecycle.report(interrupted.name, {"counting": first}, Console()) == 0
    summary = (RESULTS / interrupted.name / "summary.md").read_text()
    assert "| finished | no: interrupted at " in summary and f"--resume {interrupted.name} continues it" in summary

    rest = Counting(fake)
    assert ran(rest, resume="last") == 0
    out = capsys.readouterr().out
    assert rest.measured == [2, 3]
    assert "resuming: 2 of 4 measurements already stored" in out
    store = Store()
    run = store.last_run()
    assert run.kind == "counting" and run.finished is not None
    assert sorted(m.payload.value for m in store.measurements(run.id)) == [0, 1, 2, 3]
    summary = (RESULTS / run.name / "summary.md").read_text()
    assert "| impl | value |" in summary and "| fake | 3 |" in summary and "- skipped nothing: a note" in summary
    finished = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(run.finished))
    assert f"| finished | {finished} |" in summary  # written after the run was marked finished
    store.close()


def test_a_task_cut_short_is_stored_before_the_run_stops_and_not_measured_again(fake, capsys):
    assert ran(Counting(fake, stop=2, cut=True)) == 130
    assert "interrupted: 3 measurement(s) of run" in capsys.readouterr().out
    rest = Counting(fake)
    assert ran(rest, resume="last") == 0
    assert rest.measured == [3]


def test_tasks_a_kind_finds_needless_are_left_unmeasured_and_unstored(fake, capsys):
    """A kind that repeats until it is precise enough says, as each task comes due, that it is not
    needed: the run goes on without it, and stores what it measured only."""
    kind = Counting(fake, enough=2)
    assert ran(kind) == 0
    assert kind.measured == [0, 1]
    assert capsys.readouterr().out.count("[not needed] ") == 2
    store = Store()
    assert [m.payload.value for m in store.measurements(store.last_run().id)] == [0, 1]
    store.close()


def test_a_run_is_resumed_only_by_its_own_command(fake):
    store = Store()
    store.start_run("h1", "quick", {"kind": "rest"}, {}, "abc", False)
    store.close()
    with pytest.raises(UsageError, match="h1 is a rest run; resume it with its own command"):
        ran(Counting(fake), resume="h1")
    with pytest.raises(UsageError, match="no counting run to resume"):
        ran(Counting(fake), resume="last")


def test_an_assertion_breached_fails_the_run_and_names_the_point_in_junit(fake, tmp_path, capsys):
    junit = tmp_path / "assertions.xml"
    given = ("count:value<3", "count:value>=0")
    assert ran(Counting(fake), assertions=given, junit=str(junit)) == 1  # i=3 measured 3
    out = capsys.readouterr().out
    assert "assertions: 1 breached of 8" in out and "BREACHED" in out
    xml = junit.read_text()
    assert xml.count("<testcase") == 8 and xml.count("<failure") == 1
    assert 'classname="count:value&lt;3" name="fake count i=3 cpus=1"' in xml
    assert ran(Counting(fake), assertions=("count:value<=3",)) == 0


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("count:value<", "write it as"),
        ("value<3", "write it as"),
        ("count:value=3", "write it as"),
        ("count:value<three", "write it as"),
        ("blog-ab:p99_ms<2100", "this run does not measure blog-ab; it measures count"),
    ],
)
def test_a_malformed_assertion_is_refused_before_anything_is_measured(fake, given, said):
    kind = Counting(fake)
    with pytest.raises(UsageError, match=said):
        ran(kind, assertions=(given,))
    assert kind.measured == []
