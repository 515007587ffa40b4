"""`arena test`'s own plumbing: each part timed however it ends, longest first; the build lane
keeps what each build said for its implementation's turn."""

import pytest

from arena.impls import catalog
from arena.jobs.self_test import Lane, Part, time_lines, timed


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
