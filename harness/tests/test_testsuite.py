"""`arena test`'s own plumbing: each part timed however it ends, longest first; the build lane
keeps what each build said for its implementation's turn, and the test lane runs a server's own
tests once it is built, with the database, keeping what they said for its turn."""

import sys
from types import SimpleNamespace

import pytest

from arena.impls import catalog
from arena.jobs.self_test import Lane, Part, time_lines, timed
from conftest import write_impl


def test_a_part_is_timed_even_when_it_fails():
    parts: list[Part] = []
    with pytest.raises(RuntimeError), timed(parts, "server"):
        raise RuntimeError("build broke")
    assert [part.name for part in parts] == ["server"]
    assert parts[0].seconds >= 0


def test_time_lines_put_the_longest_part_first_with_its_share():
    lines = time_lines([Part("ruff", 10), Part("pytest", 60), Part("go", 30)])
    assert [line.split()[0] for line in lines] == ["pytest", "go", "ruff", "in"]
    assert lines[0].split()[-1] == "60%"
    assert lines[-1].split()[-2:] == ["100", "s"]


def test_time_lines_of_nothing_are_a_zero_total():
    assert time_lines([]) == ["  in all       0 s"]


def test_the_build_lane_keeps_what_a_build_said_for_its_turn():
    # ooErlang is in no registry here: its "build" ends at once, unavailable, with the reason.
    (unavailable,) = catalog.select(catalog.load_micro()[0], ["ooerlang"])
    lane = Lane()
    try:
        done = lane.submit(unavailable).result(timeout=60)
    finally:
        lane.close()
    assert done.prepared.unavailable and not done.prepared.ok
    assert done.said == [f"  ooerlang: {done.prepared.reason}"]


def test_the_test_lane_runs_a_servers_own_tests_after_its_build_and_keeps_what_they_said(tmp_path):
    tested = f"""
        [[toolchain]]
        name = "python"
        check = ["{sys.executable}", "--version"]
        [build]
        steps = [["sh", "-c", "echo built > built.txt"]]
        outputs = ["built.txt"]
        [test]
        command = ["sh", "-c", "test -f built.txt && test -n \\"$ARENA_DB_URL\\" && echo '3 passed'"]
        [cores]
        max = 1
        how = "one thread"
    """
    manifest = catalog.parse(write_impl(tmp_path, "tested", ("server.py", ""), tested))
    (unavailable,) = catalog.select(catalog.load_micro()[0], ["ooerlang"])
    database = SimpleNamespace(url="postgresql://arena@127.0.0.1:1/arena")  # read, never connected to
    lane = Lane()
    try:
        builds = [lane.submit(m) for m in (manifest, unavailable)]
        own, none = (
            lane.test(m, b, database).result(timeout=60) for m, b in zip((manifest, unavailable), builds, strict=True)
        )
    finally:
        lane.close()
    assert own.step.outcome == "passed" and own.step.detail == "3 passed", own
    assert own.said == ["  tested: own tests: passed (3 passed)"]
    assert none.step is None and none.said == []  # its turn says why its build did not happen
