"""One attempt at a task of a kind that loads servers (frame/attempt.py): the cores split, the start
and the database readied the same way for every kind, and a failure stored with its reason and,
where the server died, flagged crashed."""

from dataclasses import dataclass, field

from arena.frame.attempt import Attempt
from arena.kind import Task
from arena.measured.measurement import Outcome
from arena.rest import scenarios


@dataclass
class Database:
    """What an attempt asks of the database: to begin from its seeded records, on given cores."""

    own: bool
    url: str = "postgresql://127.0.0.1/arena"
    asked: list[str] = field(default_factory=list)

    def reset(self) -> None:
        self.asked.append("reset")

    def pin(self, cores: list[int]) -> None:
        self.asked.append(f"pin {cores}")


class Starts:
    """A repetition's start that served two points before this one, three seconds ago."""

    def server(self, task, cores, phase):
        phase("start")
        return "the server", 2, 3.0004


def task(fake) -> Task:
    point = scenarios.points(scenarios.load(["blog-ab"])[0], "quick")[0]
    return Task("rest", fake, point, 1, 0, 1.0)


def test_the_database_begins_from_its_records_on_the_engines_cores_and_is_sampled_only_when_ours(fake):
    attempt = Attempt(task(fake))
    ours = Database(own=True)
    assert attempt.on_database(ours) is ours
    assert ours.asked == ["reset", f"pin {attempt.engine_cores}"]
    assert attempt.parameters["db_cores"] == attempt.engine_cores
    users = Database(own=False)
    assert Attempt(task(fake)).on_database(users) is None  # the user's own is not ours to measure
    assert users.asked == ["reset", f"pin {attempt.engine_cores}"]


def test_a_start_records_what_it_served_before_and_a_failure_keeps_its_reason(fake):
    attempt = Attempt(task(fake))
    phases = []
    assert attempt.start(Starts(), phases.append) == "the server" and phases == ["start"]
    assert attempt.parameters["start"] == {"points_before": 2, "process_age_s": 3.0}
    assert (attempt.points_before, attempt.process_age_s) == (2, 3.0004)  # exact for the payload
    failed = attempt.failed(OSError("connection reset"), crashed=True)
    assert failed.outcome is Outcome.FAILED and failed.reason == "connection reset" and "crashed" in failed.flags
    assert failed.parameters["start"]["points_before"] == 2
