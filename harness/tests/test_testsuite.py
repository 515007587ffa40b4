"""`arena test`'s account of its own time: each part timed however it ends, longest first."""

import pytest

from arena.cli.testsuite import Part, time_lines, timed


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
