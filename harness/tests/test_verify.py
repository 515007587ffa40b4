"""The conformance checks must fail, with a useful message, against a server that breaks the contract,
and report every broken expectation of a check rather than the first."""

import threading
import time
from types import SimpleNamespace

import pytest

from arena.checks import verify
from arena.checks.client import Client, Reply
from arena.checks.result import CheckResult, Severity
from arena.console import Console
from arena.host.process import free_port, running
from arena.impls import catalog
from conftest import write_manifest


def reply(status: int, body: bytes, content_type: str = "text/plain", seconds: float = 0.01) -> Reply:
    return Reply("GET", "/x", status, content_type, body, seconds)


def context() -> verify.Context:
    return verify.Context(client=Client(0), hello=b"")


def test_expect_accepts_a_matching_reply():
    ctx = context()
    ctx.expect(reply(200, b"OK"), 200, b"OK", "text/plain")
    assert ctx.problems == []


@pytest.mark.parametrize(
    ("got", "status", "body", "content_type"),
    [
        (reply(500, b"oops"), 200, b"OK", None),
        (reply(200, b"KO"), 200, b"OK", None),
        (reply(200, b"OK", "text/html"), 200, b"OK", "text/plain"),
        (reply(404, b""), 404, None, None),
    ],
)
def test_expect_reports_request_expected_and_got(got, status, body, content_type):
    ctx = context()
    assert ctx.expect(got, status, body, content_type) is got
    (problem,) = ctx.problems
    assert problem.severity is Severity.FAIL
    assert "request:  GET /x" in problem.text and "expected:" in problem.text and "got:" in problem.text


def test_every_broken_expectation_is_reported():
    ctx = context()
    for body in (b"A", b"B", b"OK", b"C"):
        ctx.expect(reply(200, body), 200, b"OK")
    assert [p.text.rsplit("'", 2)[-2] for p in ctx.problems] == ["A", "B", "C"]


@pytest.mark.parametrize(("took", "severity"), [(2.9, Severity.WARN), (3.0, Severity.WARN), (3.1, Severity.FAIL)])
def test_late_is_a_warning_up_to_half_again_the_bound(took, severity):
    ctx = context()
    ctx.late("GET /longPoll", 2.0, took, "all answered")
    assert [p.severity for p in ctx.problems] == [severity]


def test_wrong_checksum_fails_the_long_operation_check(fake):
    with running(fake, 1, free_port()) as server:
        ctx = verify.Context(client=Client(server.port), hello=b"")
        verify.check_long_operation(ctx)
    texts = [p.text for p in ctx.problems]
    assert len(texts) == 6  # every n asked for, not only the first
    assert "0.5682303266439076" in texts[0] and "0.5" in texts[0]


def test_a_malformed_setting_must_stop_the_server(tmp_path):
    strict = catalog.parse(write_manifest(tmp_path, "strict", extra_env=', FAKE_STRICT = "1"'))
    good = verify.check_malformed_setting(strict, [0], "ARENA_BCRYPT_COST", "3")
    assert good.status == "pass", good.detail()
    lenient = catalog.parse(write_manifest(tmp_path, "lenient"))
    bad = verify.check_malformed_setting(lenient, [0], "ARENA_BCRYPT_COST", "3")
    assert bad.status == "fail" and "it served" in bad.detail()


def test_object_of_size_is_exact_json():
    import json

    body = verify._object_of_size(65536)
    assert len(body) == 65536
    assert isinstance(json.loads(body), dict)


def test_a_passed_conformance_stands_until_the_build_runtime_budget_or_checks_change(fake, monkeypatch):
    runs = []

    def verified(manifest, cpus, db, console, verbose=False):
        runs.append(cpus)
        return verify.Verdict(outcome[0], "17/17 checks passed")

    monkeypatch.setattr(verify, "verified", verified)
    console = Console()
    outcome = ["passed"]
    assert verify.passed_before(fake, 1, None, console).status == "passed"
    assert verify.passed_before(fake, 1, None, console).status == "passed"
    assert runs == [1]  # the second stood on the first
    assert verify.passed_before(fake, 2, None, console).status == "passed" and runs == [1, 2]  # another budget
    (fake.folder / "server.py").write_text((fake.folder / "server.py").read_text() + "\n# changed\n")
    assert verify.passed_before(fake, 1, None, console).status == "passed" and runs == [1, 2, 1]  # other sources
    outcome[0] = "failed"
    (fake.folder / "server.py").write_text((fake.folder / "server.py").read_text() + "\n# again\n")
    assert verify.passed_before(fake, 1, None, console).status == "failed"
    assert verify.passed_before(fake, 1, None, console).status == "failed" and runs == [1, 2, 1, 1, 1]  # never kept


def test_the_url_forms_are_one_skipped_check_where_another_budget_checked_them(fake, monkeypatch):
    # Only the forms' part of conformance: the other checks are left out, the server really starts.
    for checks in ("MAIN_CHECKS", "COSTLY_CHECKS", "MALFORMED_SETTINGS"):
        monkeypatch.setattr(verify, checks, [])
    tried = []
    monkeypatch.setattr(verify.db_urls, "check_forms", lambda _m, cores, _db, _s, _r: tried.append(cores) or [])
    db = SimpleNamespace(url="postgresql://arena:secret@127.0.0.1:5432/arena", reset=lambda: None)
    assert verify.conformance(fake, [0], db, print) == [] and tried == [[0]]
    (skipped,) = verify.conformance(fake, [0], db, print, forms_checked="checked with --cpus 1 above")
    assert skipped.status == "skip" and skipped.detail() == "skipped: checked with --cpus 1 above"
    assert tried == [[0]]  # not started for them again


@pytest.mark.parametrize(("budget", "at_once"), [([0], 2), ([0, 1], 1)])
def test_the_url_forms_start_side_by_side_each_on_cores_of_its_own_and_report_in_order(monkeypatch, budget, at_once):
    monkeypatch.setattr(verify.db_urls.cores, "machine_cores", lambda: [0, 1])
    forms = [verify.db_urls.Form(f"form {n}", f"postgresql://u@h/{n}") for n in range(5)]
    monkeypatch.setattr(verify.db_urls, "forms", lambda _db: forms)
    lock, running_on, most = threading.Lock(), [], []

    def check_form(_manifest, cores, _settings, form):
        with lock:
            assert not set(cores) & {core for taken in running_on for core in taken}  # no core shared
            running_on.append(cores)
            most.append(len(running_on))
        time.sleep(0.05)
        with lock:
            running_on.remove(cores)
        return CheckResult(form.name, 0.05)

    monkeypatch.setattr(verify.db_urls, "check_form", check_form)
    reported = []
    results = verify.db_urls.check_forms(None, budget, None, {}, reported.append)
    assert [r.name for r in results] == [r.name for r in reported] == [f.name for f in forms]
    assert max(most) == at_once
