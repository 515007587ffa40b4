"""Fuzzing a server from the contract (spec/api.yaml) with Schemathesis, a property-based API fuzzer
pinned in the harness's lock: it generates valid and invalid requests for every operation (the
schema's examples, its boundaries, then random data, and stateful sequences) and checks every
answer — never a 5xx, a status and Content-Type the contract documents, a body that matches its
schema. The server must still answer GET / afterwards.

The server runs with the settings that keep a fuzzed request short (bcrypt cost 4, a 10 ms long
poll and /hello delay) and the fuzzer's `n` of /long-operation is capped at 2,000: the contract's
200,000 is a bubble sort of minutes by design, which would measure patience, not robustness.
What a fuzzer found once is kept as a conformance case for every server (verify.py,
`check_fuzzer_finds` and `check_routing`).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import yaml

from arena.checks.client import Client
from arena.checks.result import CheckResult, Problem, Severity
from arena.host.database import Database
from arena.host.process import ServerError, free_port, running
from arena.impls.catalog import Manifest
from arena.paths import RESULTS, SPEC

SETTINGS = {"ARENA_BCRYPT_COST": "4", "ARENA_LONGPOLL_MS": "10", "ARENA_HELLO_DELAY_MS": "10", "ARENA_SORT_N": "100"}
MAX_SORT_N = 2000
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"
SEED = 20261124  # fixed: a run fuzzes the same cases everywhere, and again the next time
TIMEOUT_S = 900
MAX_EXAMPLES = 10_000


def schema() -> Path:
    """spec/api.yaml as the fuzzer gets it: /long-operation's n capped (see above)."""
    document = yaml.safe_load((SPEC / "api.yaml").read_text(encoding="utf-8"))
    for parameter in document["paths"]["/long-operation"]["get"]["parameters"]:
        if parameter["name"] == "n":
            parameter["schema"]["maximum"] = MAX_SORT_N
    path = RESULTS / "fuzz" / "api.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _summary(output: str) -> str:
    """Schemathesis's count line ('1733 generated, 1733 passed'), or its last words."""
    found = re.findall(r"^\s*(\d+ generated, .*)$", output, flags=re.MULTILINE)
    if found:
        return found[-1].strip()
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def _failures(output: str) -> list[str]:
    """Each failure Schemathesis printed: its operation, what was wrong, and how to reproduce it."""
    found = []
    for block in re.split(r"^_{5,} ", output, flags=re.MULTILINE)[1:]:
        operation = block.split(" _", 1)[0].strip()
        wrong = re.findall(r"^- (ST\d+ .*)$", block, flags=re.MULTILINE)
        curl = re.findall(r"^\s+(curl .*)$", block, flags=re.MULTILINE)
        found.append(f"{operation}: {'; '.join(wrong) or 'failed'}" + (f" — {curl[0][:300]}" if curl else ""))
    return found


def fuzz(manifest: Manifest, cores: list[int], db: Database, examples: int) -> CheckResult:
    """Fuzzes `manifest` on `cores` with at most `examples` cases an operation and phase."""
    name = f"fuzz: {examples} examples an operation, no 5xx, every answer as the contract says"
    started = time.monotonic()
    log = RESULTS / "fuzz" / f"{manifest.name}-cpus{len(cores)}.log"
    settings = {**SETTINGS, "ARENA_DB_URL": db.url}
    try:
        with running(manifest, len(cores), free_port(), settings, cores) as server:
            command = [
                *(sys.executable, "-m", "schemathesis.cli", "run", str(schema())),
                *("--url", f"http://127.0.0.1:{server.port}", "--checks", CHECKS),
                *("--max-examples", str(examples), "--seed", str(SEED), "--workers", "1"),
                *("--request-timeout", "30", "--generation-database", "none", "--no-color"),
            ]
            try:
                done = subprocess.run(
                    command, capture_output=True, text=True, timeout=TIMEOUT_S, check=False, cwd=log.parent
                )
                output = done.stdout + done.stderr
            except subprocess.TimeoutExpired:
                output, done = f"the fuzzer did not finish within {TIMEOUT_S} s", None
            log.write_text(output, encoding="utf-8")
            problems = [Problem(Severity.FAIL, f"{failure} (log {log})") for failure in _failures(output)]
            if done is None or (done.returncode != 0 and not problems):
                problems.append(Problem(Severity.FAIL, f"{_summary(output)} (log {log})"))
            if not server.alive():
                problems.append(Problem(Severity.FAIL, f"the server died while fuzzed (log {server.log})"))
            elif Client(server.port).call("GET", "/").status != 200:
                problems.append(Problem(Severity.FAIL, "GET / no longer answers 200 after the fuzzing"))
    except (ServerError, OSError) as err:
        problems = [Problem(Severity.FAIL, str(err))]
        output = ""
    finally:
        db.reset()  # the fuzzer created and deleted records at random: the seeded ones come back
    return CheckResult(name, time.monotonic() - started, problems, note=_summary(output))
