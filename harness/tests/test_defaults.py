"""Every command parsed with no options: its defaults are what `--help`, the README, docs/ and spec/ say,
so that a default cannot change silently (a parent parser shared between commands once made the
soak's one start every command's)."""

import argparse
import json
import re

import pytest

from arena.capacity.workloads import chosen, objective_of, search_parameters
from arena.cli import main as cli
from arena.cli.measuring import kinds
from arena.host import cores
from arena.impls import catalog
from arena.paths import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
# The README and each command's page: an example or a statement may stand in either.
DOCS = "\n".join([README] + [page.read_text(encoding="utf-8") for page in sorted((ROOT / "docs").glob("*.md"))])
# Lines that need more than a command's name to parse.
REQUIRED = {
    "start": ["go"],
    "worker": ["--master", "127.0.0.1"],
    "import": ["x.json"],
    "compare": ["a", "b"],
    "history": ["go"],
}
STORED = ("run", "micro", "capacity", "soak")  # the commands whose runs are planned and stored


@pytest.fixture(autouse=True)
def two_cores(monkeypatch):
    """The machine the README's numbers are stated for: two cores, one a server, one the engine."""
    monkeypatch.setattr(cores, "machine_cores", lambda: [0, 1])


def commands() -> dict[str, argparse.ArgumentParser]:
    found = next(a for a in cli.parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(found.choices)


def parsed(command: str) -> argparse.Namespace:
    return cli.parser().parse_args([command, *REQUIRED.get(command, [])])


def planned(command: str) -> dict:
    """The plan the command's kind makes of no options: the defaults as they will be measured."""
    by_command = {kind.command: kind for kind in kinds().values()}
    return by_command[command].plan(parsed(command)).document()


def test_no_two_commands_share_an_option():
    """argparse hands a parent's actions to each child by reference: one command's set_defaults
    then changes every other's. Each command owns its options."""
    owner: dict[int, str] = {}
    for name, sub in commands().items():
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert id(action) not in owner, f"{name} shares {action.option_strings} with {owner[id(action)]}"
            owner[id(action)] = name


# What a default that parses as None or [] becomes once the command uses it.
RESOLVED = {
    ("verify", "cpus"): lambda args: cores.verified_budgets(args.cpus),
    ("capacity", "repeat"): lambda args: planned("capacity")["repeat"],
    ("soak", "minutes"): lambda args: planned("soak")["minutes"],
    ("soak", "share"): lambda args: planned("soak")["share"],
}
STATED = re.compile(r"\(default:? ([\w.,]+)[:)]")


def _text(value: object) -> str:
    if isinstance(value, list):
        return ",".join(map(_text, value))
    return f"{value:g}" if isinstance(value, float) else str(value)


def test_every_default_help_states_is_the_one_parsed():
    checked = []
    for name, sub in commands().items():
        args = parsed(name)
        for action in sub._actions:
            found = STATED.search(action.help or "")
            if not found:
                continue
            stated = found.group(1)
            value = getattr(args, action.dest)
            literal = any(c.isdigit() for c in stated) or action.choices or isinstance(value, str)
            if not literal:  # prose: "(default: all)"
                continue
            if value in (None, []):
                assert (name, action.dest) in RESOLVED, f"{name} {action.dest}: help says {stated}, parsed {value!r}"
                value = RESOLVED[name, action.dest](args)
            assert _text(value) == stated, f"{name} {action.option_strings}: help says {stated}, it is {value!r}"
            checked.append((name, action.dest))
    for stored in STORED:
        assert (stored, "repeat") in checked
    assert len(checked) >= 15, checked


def _readme_line(command: str) -> str:
    """The comment of the first example of `./arena COMMAND` with no options, in the README or its
    command's page."""
    found = re.search(rf"^\./arena {command} +# (.+)$", DOCS, re.MULTILINE)
    assert found, f"neither the README nor docs/ has a line `./arena {command}   # ...`"
    return found.group(1)


def _number(pattern: str, text: str) -> float:
    found = re.search(pattern, text)
    assert found, f"{pattern!r} not in {text[:200]!r}…"
    return float(found.group(1))


@pytest.mark.parametrize(
    ("command", "repeat"),
    [
        ("run", r"(\d+) repetitions"),
        ("micro", r"(\d+) repetitions"),
        ("capacity", r"to (\d+) starts"),
        ("soak", r"(\d+) start"),
    ],
)
def test_each_readme_example_states_the_planned_repetitions_and_cores(command, repeat):
    line, plan = _readme_line(command), planned(command)
    assert _number(repeat, line) == plan["repeat"], line
    if command == "micro":  # each bench has its own budgets: the plan leaves them to spec/micro.toml
        assert plan["cpus"] is None
        (cpus,) = [a for a in commands()["micro"]._actions if a.dest == "cpus"]
        assert "each bench's own, spec/micro.toml" in cpus.help
    else:
        assert plan["cpus"] == [_number(r"(\d+) core", line)], line
    if command in ("run", "micro"):
        assert "quick suite" in line and plan["suite"] == "quick"


def test_the_readme_prose_states_the_same_repetitions():
    text = " ".join(DOCS.split())
    words = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
    found = re.search(r"on every implementation, (\w+) repetitions each", text)
    assert found and words[found.group(1)] == planned("run")["repeat"]
    soak = " ".join((ROOT / "spec" / "soak.md").read_text(encoding="utf-8").split())
    assert _number(r"`--repeat`, default (\d+)", soak) == planned("soak")["repeat"]


def test_capacity_states_the_least_and_the_most_starts_of_a_cell():
    rule, plan = search_parameters().starts, planned("capacity")
    assert plan["repeat"] == rule.most
    line = _readme_line("capacity")
    assert (_number(r"(\d+) to", line), _number(r"to (\d+) starts", line)) == (rule.least, rule.most)
    assert "more where the order is open" in line
    stated = r"within ±(\d+)% of (?:the|its) edge\W+at least (\d+),? (?:and )?at most (\d+)"
    for text in (DOCS, (ROOT / "spec" / "capacity.md").read_text(encoding="utf-8")):
        found = re.search(stated, " ".join(text.split()))
        assert found, "docs/capacity.md and spec/capacity.md state the least and the most starts"
        assert tuple(map(float, found.groups())) == (round(rule.within * 100), rule.least, rule.most)


def test_capacity_and_the_soak_measure_the_setups_their_help_names_and_no_other():
    """A plan stores names that are selected again when it runs; the default row's own name (`node`)
    selects every setup of its implementation, so a default plan that stored it measured them all."""
    rows, _ = catalog.load()
    assert catalog.select(rows, planned("capacity")["impl"]) == catalog.compared(rows)
    assert catalog.select(rows, planned("soak")["impl"]) == [m for m in rows if m.default]
    (impl,) = [a for a in commands()["capacity"]._actions if a.dest == "impl"]
    assert "each implementation's default setup, and its lightest on plaintext and json" in " ".join(impl.help.split())


def test_capacity_measures_a_runtimes_lighter_setup_only_where_its_help_says_unless_named():
    """The default run measures a setup beside the default only where the framework's own cost is
    the work (`every_setup`); a setup named is measured on every workload."""
    kind = next(kind for kind in kinds().values() if kind.command == "capacity")
    rows, _ = catalog.load()
    for options in ([], ["--impl", "node"]):
        plan = kind.plan(cli.parser().parse_args(["capacity", *options]))
        for row in catalog.select(rows, plan.impl):
            measured = [w.id for w in chosen(plan.workload) if plan.measures(row, w.id)]
            everywhere = row.default or options
            assert measured == ([w.id for w in chosen([])] if everywhere else ["plaintext", "json"]), row.name


def test_the_soak_example_states_its_length_and_share():
    line, plan = _readme_line("soak"), planned("soak")
    assert _number(r"(\d+) minutes", line) == plan["minutes"]
    assert _number(r"(\d+)% of its edge", line) == round(plan["share"] * 100)


def test_capacity_measures_every_workload_but_the_mix_at_the_objectives_spec_states():
    plan = planned("capacity")
    assert plan["slo"] == {}  # no --slo: each workload's own objective
    spec = (ROOT / "spec" / "capacity.md").read_text(encoding="utf-8")
    stated = dict(re.findall(r"^\| `(\w+)` \|[^|]+\| p99 ≤ (?:the wait \+ )?(\d+) ms \|", spec, re.MULTILINE))
    workloads = chosen(plan["workload"])
    assert [w.id for w in workloads] == [w for w in stated if w != "mix"]
    for workload in workloads:
        assert objective_of(workload, plan["slo"]).p99_ms == float(stated[workload.id]), workload.id


def test_the_readme_opens_with_both_commands_and_stays_short():
    lines = README.splitlines()
    assert len(lines) <= 200, f"the README is {len(lines)} lines: a command's details belong in docs/"
    first_screen = "\n".join(lines[:40])
    assert "./arena run " in first_screen and "./arena test " in first_screen
    for page in re.findall(r"\]\((docs/[\w.-]+)\)", README):
        assert (ROOT / page).is_file(), page


@pytest.mark.parametrize("command", ["run", "micro", "capacity", "soak"])
def test_each_kinds_plan_round_trips_through_the_stores_json(command):
    kind = next(kind for kind in kinds().values() if kind.command == command)
    plan = kind.plan(parsed(command))
    stored = json.loads(json.dumps({"kind": kind.name, **plan.document()}))
    assert kind.plans.of(stored) == plan
    assert type(kind.plans.of({"suite": plan.suite, "impl": [], "cpus": [1], "repeat": 1})) is type(plan)
