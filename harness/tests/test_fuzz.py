"""The fuzzer against a server that does not keep the contract: the fake server answers 200 with
the same JSON to everything, so Schemathesis must find answers the contract does not allow, and
the check fails naming them; the fuzzer's schema caps /long-operation's n."""

import json

import yaml

from arena.checks import fuzz
from arena.host import database
from arena.paths import SPEC


def test_a_server_that_ignores_the_contract_fails_the_fuzzing(fake):
    with database.database() as db:
        result = fuzz.fuzz(fake, [0], db, examples=5)
        assert db.query("SELECT count(*) FROM record WHERE name = 'r42'")[0][0] == 1  # the seeds are back
    assert not result.ok
    found = "\n".join(p.text for p in result.problems)
    assert "ST" in found and "curl" in found  # what was wrong, and how to reproduce it
    assert "generated" in result.note


def test_the_fuzzers_schema_caps_the_sort():
    made = json.loads(fuzz.schema().read_text())
    (n,) = made["paths"]["/long-operation"]["get"]["parameters"]
    assert n["schema"]["maximum"] == fuzz.MAX_SORT_N < 200_000
    contract = yaml.safe_load((SPEC / "api.yaml").read_text())  # unchanged
    assert contract["paths"]["/long-operation"]["get"]["parameters"][0]["schema"]["maximum"] == 200_000
