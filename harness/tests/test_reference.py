import subprocess
import sys

from arena.checks import reference
from arena.paths import SPEC


def test_checksums_match_the_contracts_reference_values():
    assert reference.checksum(1) == 0.5682303266439076
    assert reference.checksum(10) == 10.676268897597582
    assert reference.checksum(1000) == 169238.799942987


def test_users_are_deterministic_and_in_the_thesis_format():
    text = reference.users_csv(3)
    lines = text.splitlines()
    assert lines[0] == "username;password"
    assert lines[1] == "user000000;hZwMvBoOn7cyKh7i"
    assert [line.split(";")[0] for line in lines[1:]] == ["user000000", "user000001", "user000002"]
    assert all(len(line.split(";")[1]) == 16 for line in lines[1:])
    assert reference.users_csv(3) == text


def test_reference_cli_rejects_bad_input_with_a_message():
    done = subprocess.run(
        [sys.executable, str(SPEC / "reference.py"), "checksum", "0"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert "n must be in 1..200000" in done.stderr
