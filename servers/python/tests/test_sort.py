"""/long-operation's array, sort and checksum against the contract's reference (spec/reference.py)."""

from __future__ import annotations

import importlib.util
import json

import pytest
from arena_aiohttp.sort import bubble_sort_desc, checksum, lcg_array, long_operation, parse_n
from support import FOLDER


def reference():
    spec = importlib.util.spec_from_file_location("reference", FOLDER.parent.parent / "spec" / "reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("n", "expected"), [(1, 0.5682303266439076), (10, 10.676268897597582), (1000, 169238.799942987)]
)
def test_published_checksums(n, expected):
    assert long_operation(n) == expected
    assert json.dumps(long_operation(n)) == repr(expected)  # printed in the shortest round-trip form


@pytest.mark.parametrize("n", [2, 3, 77, 300, 777])
def test_matches_the_reference(n):
    assert long_operation(n) == reference().checksum(n)


def test_sorted_descending_and_a_permutation():
    values = lcg_array(500)
    ordered = list(values)
    bubble_sort_desc(ordered)
    assert ordered == sorted(values, reverse=True)
    assert all(0.0 <= v < 1.0 for v in values)
    assert checksum([0.5, 0.25]) == 0.5 + 2 * 0.25


@pytest.mark.parametrize(
    ("raw", "n"),
    [
        ("1", 1),
        ("0777", 777),
        ("200000", 200000),
        ("0" * 30 + "7", 7),
        *((bad, None) for bad in ("0", "200001", "", "+5", " 5", "5 ", "1e3", "1.5", "-1", "9" * 30, "\u0661")),
    ],
)
def test_parse_n(raw, n):
    assert parse_n(raw) == n
