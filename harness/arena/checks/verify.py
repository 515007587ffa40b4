"""Conformance: the contract of spec/README.md checked on a live server, with proof the work is real.

`arena verify` starts the server twice: once with short delays and bcrypt cost 4 for the whole
contract, once with cost 12 to show that bcrypt really runs at the configured cost; then once for
each other form of `ARENA_DB_URL` (db_urls.py), and with malformed settings, which must make it
exit at start. A check reports every expectation
it finds broken, each with the request it sent, what it expected and what came back.

Timing is judged one way, because a loaded machine can make a server late but never early. A time
that shows work was skipped or the contract ignored — a long-poll answered before its wait,
bcrypt faster than its cost allows, the wrong requests delayed — fails. A time that is merely
late past its bound is a warning while it stays within 1.5 times the bound, and fails beyond.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import json
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from arena.checks import abuse, clients, db_urls, overload, records, reference
from arena.checks.client import Client, Reply
from arena.checks.expect import Context, mismatch
from arena.checks.result import CheckResult, Problem, Severity, show_check, verdict
from arena.console import Console
from arena.engines.interface import LoadEngine
from arena.host import cores
from arena.host.database import Database, DatabaseError, database
from arena.host.process import Server, ServerError, free_port, running
from arena.impls import build
from arena.impls.catalog import Manifest
from arena.impls.prepare import prepare
from arena.impls.toolchain import Toolchains, runtime_version
from arena.paths import RESULTS, ROOT, SPEC

HELLO_EVERY = 5
HELLO_DELAY_MS = 1000
LONGPOLL_MS = 1000
LONGPOLL_CLIENTS = 50
SORT_N = 300
BCRYPT_SAMPLES = 5
COST_RATIO = 30

MAIN_SETTINGS = {
    "ARENA_BCRYPT_COST": "4",
    "ARENA_LONGPOLL_MS": str(LONGPOLL_MS),
    "ARENA_HELLO_DELAY_MS": str(HELLO_DELAY_MS),
    "ARENA_HELLO_DELAY_EVERY": str(HELLO_EVERY),
    "ARENA_SORT_N": str(SORT_N),
}
COSTLY_SETTINGS = {**MAIN_SETTINGS, "ARENA_BCRYPT_COST": "12"}
# Settings out of their range and one that is not an integer: each must stop the server at start.
MALFORMED_SETTINGS = [("ARENA_BCRYPT_COST", "3"), ("ARENA_SORT_N", "abc"), ("ARENA_DB_POOL", "0")]


# --- the checks on the main server -------------------------------------------------------------


def check_root(ctx: Context) -> None:
    ctx.expect(ctx.client.call("GET", "/"), 200, b"OK", "text/plain")


def check_hello_delay(ctx: Context) -> None:
    """Exactly every K-th /hello waits; the others, sent while it waits, are answered at once."""
    count = 4 * HELLO_EVERY
    replies: list[Reply | BaseException | None] = [None] * count

    def fetch(i: int) -> None:
        try:
            replies[i] = ctx.client.call("GET", "/hello")
        except Exception as err:
            replies[i] = err

    threads = []
    for i in range(count):
        thread = threading.Thread(target=fetch, args=(i,))
        thread.start()
        threads.append(thread)
        # Send the next one when this is answered, or once it is clearly being held.
        thread.join(timeout=0.15)
    for thread in threads:
        thread.join(timeout=HELLO_DELAY_MS / 1000 + 10)

    delay = HELLO_DELAY_MS / 1000
    delayed = []
    for i, reply in enumerate(replies):
        if not isinstance(reply, Reply):
            ctx.fail(f"GET /hello (#{i + 1} of {count})", "200 with hello.html", repr(reply))
            continue
        ctx.expect(reply, 200, ctx.hello, "text/html")
        if reply.seconds >= 0.8 * delay:
            delayed.append(i)
        elif reply.seconds > 0.5 * delay:
            ctx.late(f"GET /hello (#{i + 1})", 0.5 * delay, reply.seconds, "an answer at once")
    spaced = all(b - a == HELLO_EVERY for a, b in itertools.pairwise(delayed))
    if len(delayed) != count // HELLO_EVERY or not spaced:
        ctx.fail(
            f"{count} x GET /hello, one after another, ARENA_HELLO_DELAY_EVERY={HELLO_EVERY}",
            f"exactly {count // HELLO_EVERY} delayed by {delay:.1f} s, {HELLO_EVERY} apart",
            f"delayed: request numbers {[i + 1 for i in delayed]}",
        )


def check_password(ctx: Context) -> None:
    c = ctx.client
    ctx.expect(c.post_json("/password/set/alice", {"password": "correct horse"}), 200, b"OK")
    ctx.expect(c.post_json("/password/verify/alice", {"password": "correct horse"}), 200, b"OK")
    ctx.expect(c.post_json("/password/verify/alice", {"password": "wrong horse"}), 403)
    ctx.expect(c.post_json("/password/verify/nobody.here", {"password": "correct horse"}), 404)
    ctx.expect(c.post_json("/password/set/alice", {"password": "battery staple"}), 200, b"OK")
    ctx.expect(c.post_json("/password/verify/alice", {"password": "correct horse"}), 403)
    ctx.expect(c.post_json("/password/verify/alice", {"password": "battery staple"}), 200, b"OK")
    # 72 bytes is bcrypt's limit, counted in UTF-8 bytes, not characters.
    ctx.expect(c.post_json("/password/set/euro_72", {"password": "€" * 24}), 200, b"OK")
    ctx.expect(c.post_json("/password/verify/euro_72", {"password": "€" * 24}), 200, b"OK")
    ctx.expect(c.post_json("/password/set/euro_75", {"password": "€" * 25}), 400)
    ctx.expect(c.post_json("/password/set/a72", {"password": "a" * 73}), 400)


def check_password_errors(ctx: Context) -> None:
    c = ctx.client
    for path in ("/password/set/", "/password/verify/"):
        ctx.expect(c.post_json(path + "bad%20name", {"password": "x"}), 400)
        ctx.expect(c.post_json(path + "x" * 65, {"password": "x"}), 400)
        ctx.expect(c.post_json(path + "semi%3Bcolon", {"password": "x"}), 400)
        ctx.expect(c.call("POST", path + "bob", "{not json"), 400)
        ctx.expect(c.call("POST", path + "bob", ""), 400)
        ctx.expect(c.post_json(path + "bob", {}), 400)
        ctx.expect(c.post_json(path + "bob", {"password": 12345}), 400)
        ctx.expect(c.post_json(path + "bob", {"password": None}), 400)
        ctx.expect(c.post_json(path + "bob", ["password"]), 400)
        ctx.expect(c.post_json(path + "bob", "password"), 400)
    ctx.expect(c.post_json("/password/set/" + "x" * 64, {"password": "x"}), 200, b"OK")


def check_user(ctx: Context) -> None:
    c = ctx.client
    value = {
        "name": "Ada Lovelace",
        "age": 36,
        "ratio": 0.25,
        "tags": ["math", "教育"],
        "ok": True,
        "none": None,
        "nested": {"deep": {"deeper": [1, 2, {"x": "ü"}]}},
    }
    ctx.expect(c.post_json("/user/set/ada", value), 200, b"OK")
    ctx.expect_json(c.call("GET", "/user/get/ada"), value)
    ctx.expect(c.post_json("/user/set/ada", {"replaced": 1}), 200, b"OK")
    ctx.expect_json(c.call("GET", "/user/get/ada"), {"replaced": 1})
    ctx.expect(c.post_json("/user/set/empty_", {}), 200, b"OK")
    ctx.expect_json(c.call("GET", "/user/get/empty_"), {})
    ctx.expect(c.call("GET", "/user/get/nobody.here"), 404)


def check_user_errors(ctx: Context) -> None:
    c = ctx.client
    for body in ("[1, 2]", '"text"', "42", "null", "true", "{bad json", '{"a": 1', ""):
        ctx.expect(c.call("POST", "/user/set/u400", body), 400)
    ctx.expect(c.call("GET", "/user/get/u400"), 404)
    ctx.expect(c.post_json("/user/set/bad%20name", {"a": 1}), 400)
    ctx.expect(c.call("GET", "/user/get/bad%20name"), 400)
    ctx.expect(c.call("GET", "/user/get/" + "y" * 65), 400)


def _object_of_size(size: int) -> bytes:
    """A JSON object of exactly `size` bytes."""
    frame = b'{"pad":""}'
    return frame[:-2] + b"x" * (size - len(frame)) + frame[-2:]


def check_body_limit(ctx: Context) -> None:
    c = ctx.client
    largest = _object_of_size(65536)
    ctx.expect(c.call("POST", "/user/set/big", largest), 200, b"OK")
    ctx.expect_json(c.call("GET", "/user/get/big"), json.loads(largest))
    ctx.expect(c.call("POST", "/user/set/big2", _object_of_size(65537)), 413)
    ctx.expect(c.call("POST", "/user/set/big3", _object_of_size(300_000)), 413)
    ctx.expect(c.call("POST", "/password/set/big", b'{"password":"' + b"p" * 70000 + b'"}'), 413)
    ctx.expect(c.call("GET", "/user/get/big2"), 404)


def check_cross_connection(ctx: Context) -> None:
    """What one connection sets, every other connection reads, whichever worker serves it."""
    c = ctx.client
    for i in range(40):
        ctx.expect(c.post_json(f"/user/set/fresh{i}", {"i": i}), 200, b"OK")
        ctx.expect_json(c.call("GET", f"/user/get/fresh{i}"), {"i": i})
    writer, reader = c.session(), c.session()
    try:
        for i in range(20):
            ctx.expect(c.post_json(f"/user/set/kept{i}", {"i": i, "via": "writer"}, conn=writer), 200, b"OK")
        for i in range(20):
            ctx.expect_json(c.call("GET", f"/user/get/kept{i}", conn=reader), {"i": i, "via": "writer"})
        ctx.expect(c.post_json("/password/set/carol", {"password": "s3cret"}, conn=writer), 200, b"OK")
        ctx.expect(c.post_json("/password/verify/carol", {"password": "s3cret"}, conn=reader), 200, b"OK")
    finally:
        writer.close()
        reader.close()


def check_long_poll(ctx: Context) -> str:
    """All long-polls wait their time together: none holds a thread another one needs."""
    wait = LONGPOLL_MS / 1000
    barrier = threading.Barrier(LONGPOLL_CLIENTS)

    def poll(_: int) -> Reply:
        barrier.wait(timeout=10)
        return ctx.client.call("GET", "/longPoll")

    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=LONGPOLL_CLIENTS) as pool:
        replies = list(pool.map(poll, range(LONGPOLL_CLIENTS)))
    elapsed = time.monotonic() - started
    early = [reply.seconds for reply in replies if ctx.expect(reply, 200, b"OK").seconds < 0.9 * wait]
    if early:
        ctx.fail("GET /longPoll", f"an answer after {wait:.1f} s", f"{len(early)} answered after {min(early):.2f} s")
    if elapsed > 2 * wait:
        request = f"{LONGPOLL_CLIENTS} concurrent GET /longPoll, ARENA_LONGPOLL_MS={LONGPOLL_MS}"
        ctx.late(request, 2 * wait, elapsed, "all answered")
    return f"last of {LONGPOLL_CLIENTS} answered after {elapsed:.2f} s"


def check_long_operation(ctx: Context) -> None:
    c = ctx.client
    for n, path in [(1, "?n=1"), (10, "?n=10"), (1000, "?n=1000"), (2, "?n=2"), (777, "?n=0777"), (SORT_N, "")]:
        ctx.expect_json(
            c.call("GET", "/long-operation" + path), {"message": "done", "n": n, "checksum": reference.checksum(n)}
        )


def check_long_operation_errors(ctx: Context) -> None:
    for n in ("0", "200001", "-1", "abc", "1.5", "", "1e3", "%2B5", "99999999999999999999999"):
        ctx.expect(ctx.client.call("GET", f"/long-operation?n={n}"), 400)


def check_routing(ctx: Context) -> None:
    c = ctx.client
    for path in ("/nope", "/user/get/", "/user/get/a/b", "/hello/x", "/password/set/", "/longpoll"):
        ctx.expect(c.call("GET", path), 404)
    for method, path in [
        ("POST", "/"),
        ("DELETE", "/hello"),
        ("GET", "/password/set/u"),
        ("GET", "/password/verify/u"),
        ("GET", "/user/set/u"),
        ("POST", "/user/get/u"),
        ("PUT", "/longPoll"),
        ("POST", "/long-operation"),
        ("QUERY", "/"),  # a method newer than some parsers' lists (found by the fuzzer: 501)
        ("QUERY", "/hello"),
    ]:
        ctx.expect(c.call(method, path, b"{}" if method not in ("DELETE", "QUERY") else None), 405)


def check_fuzzer_finds(ctx: Context) -> None:
    """What the fuzzer (arena verify --fuzz) once found, kept as cases every server must pass: a
    multipart Content-Type without a boundary made a server answer 500 on every endpoint."""
    c = ctx.client
    multipart = {"Content-Type": "multipart/form-data"}
    ctx.expect(c.call("GET", "/", headers=multipart), 200)
    reply = c.call("POST", "/user/set/fuzzed", b'{"a":1}', headers=multipart)
    if reply.status >= 500:
        ctx.fail("POST /user/set/fuzzed [Content-Type: multipart/form-data]", "not a 5xx", reply.brief())
    ctx.expect(c.call("GET", "/hello"), 200)


OVERFLOW_N = b"GET /long-operation?n=99999999999999999999999 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
MALFORMED = [
    b"GARBAGE\r\n\r\n",
    b"\r\n" * 2000,
    b"GET / HTTP/9.9\r\nHost: x\r\n\r\n",
    b"GET /user/get/\x00\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nX-Note: a\x00b\r\n\r\n",  # RFC 9110 5.5; the fuzzer found it let through
    b"POST /user/set/u1 HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}",
    b'POST /user/set/u1 HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"a":',
    b"POST /user/set/u1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nqq\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 2_000_000 + b"\r\n\r\n",
    OVERFLOW_N,
    b"POST /password/set/u1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\n"
    b"Connection: close\r\n\r\n\xff\xfe\xfd\xfc\xfb",
    b"POST /user/set/u1 HTTP/1.1\r\nHost: x\r\nContent-Length: 20000\r\nConnection: close\r\n\r\n"
    + b"[" * 10_000
    + b"]" * 10_000,
    random.Random(7).randbytes(8192),
]


def check_malformed_burst(ctx: Context) -> None:
    """Garbage, truncated and oversized requests: answered with 4xx or closed; then business as usual."""
    c = ctx.client
    with ThreadPoolExecutor(max_workers=16) as pool:
        answers = list(pool.map(c.raw, MALFORMED * 5))
    for payload, answer in zip(MALFORMED * 5, answers, strict=True):
        status = answer[9:12]
        if answer and not (status.startswith(b"4") or status in (b"501", b"505")):
            ctx.fail(
                f"raw {payload[:60]!r}...",
                "a 4xx answer (501/505 for an unsupported feature or version) or a closed connection",
                answer[:120].decode(errors="replace"),
            )
    overflow = answers[MALFORMED.index(OVERFLOW_N)]
    request = "GET /long-operation?n=99999999999999999999999, then the client shuts its sending side"
    refused = (b"HTTP/1.1 400", b"HTTP/1.0 400")
    if not overflow and c.raw(OVERFLOW_N, half_close=False).startswith(refused):
        # Answered 400 while the client kept its sending side open: what failed is the half-close.
        ctx.fail(request, "400, half-closed too (see the half-close check)", "no answer after the half-close")
    elif not overflow.startswith(refused):
        ctx.fail(request, "400", overflow[:120].decode(errors="replace") or "(connection closed, no answer)")
    ctx.expect(c.call("GET", "/"), 200, b"OK")
    ctx.expect(c.post_json("/user/set/after_burst", {"still": "serving"}), 200, b"OK")
    ctx.expect_json(c.call("GET", "/user/get/after_burst"), {"still": "serving"})


def timed_verifies(ctx: Context, users: list[tuple[str, int]], count: int) -> list[list[float]]:
    """Seconds per verify of each user (with the status it expects), `count` rounds taking the users
    in turns, so that a runtime still warming slows each alike; on one kept-alive connection, so
    that what is timed is the request's own work rather than connection set-up."""
    conn = ctx.client.session()
    times: list[list[float]] = [[] for _ in users]
    try:
        for _ in range(count):
            for (user, status), seconds in zip(users, times, strict=True):
                answer = ctx.client.post_json(f"/password/verify/{user}", {"password": "tick tock"}, conn=conn)
                seconds.append(ctx.expect(answer, status).seconds)
        return times
    finally:
        conn.close()


def check_bcrypt_cost4(ctx: Context) -> None:
    """The fastest verify at cost 4, compared with cost 12 on the second server. Bcrypt's times are
    compared by their fastest samples: load only ever adds time, so the fastest is the sample it
    disturbed least, and a cost-4 time inflated by a busy machine cannot pass for a cost 12 that
    does too little work."""
    ctx.expect(ctx.client.post_json("/password/set/timed", {"password": "tick tock"}), 200, b"OK")
    # Unmeasured first: a JIT-compiled runtime is still cold here, and cost 4 is cheap enough
    # that warming up would otherwise be what we time.
    timed_verifies(ctx, [("timed", 200)], BCRYPT_SAMPLES * 10)
    (times,) = timed_verifies(ctx, [("timed", 200)], BCRYPT_SAMPLES * 2)
    ctx.measured["cost4"] = min(times)


Check = Callable[[Context], str | None]  # a check may return a note of what it measured

MAIN_CHECKS: list[tuple[str, Check]] = [
    ("GET / answers OK", check_root),
    ("/hello: every K-th delayed, others at once, exact bytes", check_hello_delay),
    ("/password: set, verify 200/403/404, 72-byte limit", check_password),
    ("/password: bad usernames and bodies give 400", check_password_errors),
    ("/user: set and get equal JSON, 404 unknown", check_user),
    ("/user: non-objects and bad usernames give 400", check_user_errors),
    ("64 KiB body accepted, larger gives 413", check_body_limit),
    ("data set on one connection reads back on another", check_cross_connection),
    (f"{LONGPOLL_CLIENTS} concurrent /longPoll of {LONGPOLL_MS} ms end within 2 s", check_long_poll),
    ("/long-operation checksums equal the reference", check_long_operation),
    ("/long-operation: bad n gives 400", check_long_operation_errors),
    ("unknown paths 404, wrong methods 405", check_routing),
    ("the fuzzer's finds: no 5xx for a multipart Content-Type without a boundary", check_fuzzer_finds),
    ("bcrypt cost 4: verify timed", check_bcrypt_cost4),
    ("malformed burst: 4xx or closed, then still serving", check_malformed_burst),
    ("HTTP/1.0 without Host: 200, then the connection closed", clients.check_http10_without_host),
    (f"{2 * clients.PIPELINED + 1} pipelined requests answered in order", clients.check_pipelining),
    ("a client that half-closes after its request is answered", clients.check_half_close),
    ("HTTP/2.0 and HTTP/0.9 request lines refused: 505 (or 400)", clients.check_http_version),
    ("Expect: 100-continue: 100 then 200; an oversized body 413", clients.check_expect_continue),
    ("/record: create, read, update, delete; 409 and 404", records.check_record_crud),
    ("/record: bad names, bodies and values give 400, 413, 405", records.check_record_errors),
    ("/record: injected SQL is data", records.check_record_injection),
    ("/record: one SQL statement a request (pg_stat_statements)", records.check_record_statements),
    (f"/record: at most ARENA_DB_POOL={records.POOL} (or one a core) connections in total", records.check_record_pool),
    ("/record: concurrent creates of one name, one 201", records.check_record_race),
    ("/record: 503 while the database is down, serving again after", records.check_record_outage),
]


def check_bcrypt_cost12(ctx: Context) -> str:
    c = ctx.client
    if "cost4" not in ctx.measured:
        ctx.fail("(cost 4 timing)", "a cost-4 time from the first server", "none: its check failed")
        return ""
    ctx.expect(c.post_json("/password/set/timed", {"password": "tick tock"}), 200, b"OK")
    # In turns, after one of each unmeasured: this server is fresh, and a JIT still compiling
    # bcrypt's loop made Java's known users, timed first, twice as slow as its unknown ones after.
    users = [("timed", 200), ("ghost", 404)]
    timed_verifies(ctx, users, 1)
    known, unknown = timed_verifies(ctx, users, BCRYPT_SAMPLES)
    cost4, cost12, ghost = ctx.measured["cost4"], min(known), min(unknown)
    ctx.measured.update(cost12=cost12, unknown12=ghost)
    if cost12 < COST_RATIO * cost4:
        ctx.fail(
            "POST /password/verify at ARENA_BCRYPT_COST=12 and =4",
            f"the fastest at cost 12 >= {COST_RATIO}x the fastest at cost 4",
            f"cost 12 {cost12 * 1000:.1f} ms, cost 4 {cost4 * 1000:.2f} ms ({cost12 / cost4:.1f}x)",
        )
    if ghost < 0.5 * cost12:
        ctx.fail(
            "POST /password/verify/ghost (unknown user) at cost 12",
            "hashed anyway: at least half the time of a known user's verify",
            f"{ghost * 1000:.1f} ms against {cost12 * 1000:.1f} ms",
        )
    return (
        f"fastest verify: cost 12 {cost12 * 1000:.0f} ms, cost 4 {cost4 * 1000:.1f} ms ({cost12 / cost4:.0f}x); "
        f"unknown user {ghost * 1000:.0f} ms"
    )


COSTLY_CHECKS: list[tuple[str, Check]] = [
    (f"bcrypt honours its cost (cost 12 >= {COST_RATIO}x cost 4; unknown users hashed too)", check_bcrypt_cost12),
    ("/record with no ARENA_DB_URL: 503, the rest serves", records.check_record_without_database),
]


def _run_checks(
    checks: list[tuple[str, Check]],
    ctx: Context,
    alive: Callable[[], bool],
    report: Callable[[CheckResult], None],
) -> list[CheckResult]:
    results = []
    for name, check in checks:
        started, ctx.problems = time.monotonic(), []
        note = ""
        ctx.skipped = ""
        try:
            note = check(ctx) or ""
        except (OSError, ValueError) as err:
            said = f"the server did not answer properly: {type(err).__name__}: {err}"
            ctx.problems.append(Problem(Severity.FAIL, said))
        except DatabaseError as err:
            ctx.problems.append(Problem(Severity.FAIL, str(err)))
        if not alive():
            ctx.problems.append(Problem(Severity.FAIL, "the server process exited during this check"))
        result = CheckResult(name, time.monotonic() - started, ctx.problems, note, ctx.skipped)
        results.append(result)
        report(result)
    return results


def check_malformed_setting(manifest: Manifest, cores: list[int], name: str, value: str) -> CheckResult:
    """spec/README.md: a malformed setting makes the server exit at start, non-zero, with a message."""
    started, problems = time.monotonic(), []
    request = f"start {manifest.name} with {name}={value}"
    server = Server(manifest, len(cores), free_port(), cores, {**MAIN_SETTINGS, name: value})
    try:
        server.start()
        server.wait_ready()
        problems.append(Problem(Severity.FAIL, mismatch(request, "exit at start, non-zero", "it served")))
    except ServerError:
        status = server.process.returncode if server.process else None
        said = server.output()
        if status is None:
            got = f"neither exited nor answered within {manifest.ready_timeout:.0f} s"
            problems.append(Problem(Severity.FAIL, mismatch(request, "exit at start, non-zero", got)))
        elif status == 0:
            problems.append(Problem(Severity.FAIL, mismatch(request, "a non-zero exit status", "0")))
        elif not said.strip():
            problems.append(Problem(Severity.FAIL, mismatch(request, "a message saying why", "nothing printed")))
        elif name not in said:
            problems.append(Problem(Severity.WARN, mismatch(request, f"a message naming {name}", said[-200:])))
    finally:
        server.stop()
    return CheckResult(f"exits at start with {name}={value}", time.monotonic() - started, problems)


def conformance(
    manifest: Manifest,
    cores: list[int],
    db: Database,
    report: Callable[[CheckResult], None],
    forms_checked: str = "",
) -> list[CheckResult]:
    """Every check of the contract on `manifest` with the given core budget, `/record` on `db`; the
    forms of `ARENA_DB_URL` (one start each) as one skipped check when `forms_checked` says where
    they were checked already."""
    pool = records.pool(len(cores))
    ctx = Context(client=Client(0), hello=(SPEC / "data" / "hello.html").read_bytes(), db=db, pool=pool)
    db.reset()  # the seeded records, as the checks expect them, whatever ran before (a fuzzer deletes some)
    results: list[CheckResult] = []
    with_db = {**MAIN_SETTINGS, "ARENA_DB_URL": db.url, "ARENA_DB_POOL": str(pool)}
    for settings, checks in ((with_db, MAIN_CHECKS), (COSTLY_SETTINGS, COSTLY_CHECKS)):
        started = time.monotonic()
        try:
            with running(manifest, len(cores), free_port(), settings, cores) as server:
                ctx.client = Client(server.port)
                results += _run_checks(checks, ctx, server.alive, report)
        except ServerError as err:
            name = f"server starts (ARENA_BCRYPT_COST={settings['ARENA_BCRYPT_COST']})"
            failed = CheckResult(name, time.monotonic() - started, [Problem(Severity.FAIL, str(err))])
            report(failed)
            results.append(failed)
    if forms_checked:
        results.append(CheckResult("the forms of ARENA_DB_URL", 0.0, skipped=forms_checked))
        report(results[-1])
    else:
        results += db_urls.check_forms(manifest, cores, db, with_db, report)
    for name, value in MALFORMED_SETTINGS:
        results.append(check_malformed_setting(manifest, cores, name, value))
        report(results[-1])
    return results


@dataclass(frozen=True)
class Verdict:
    status: str  # passed | failed | skipped
    detail: str


def abuse_list(window_s: int, warm_s: float = 0) -> list[tuple[str, Check]]:
    """The abuse checks, each abuse held for `window_s` (abuse.WINDOW_S in `arena verify --abuse`),
    after a warm-up of at most abuse.WARM_MAX_S or the server's own `warm_s`, whichever is longer."""
    held = functools.partial
    at_most_s = max(abuse.WARM_MAX_S, warm_s)
    return [
        (
            f"warm-up: normal clients until their rate stops climbing ({abuse.WARM_S}-{at_most_s:g} s)",
            held(abuse.warm_up, at_most_s=at_most_s),
        ),
        (
            f"{abuse.SLOW_CONNECTIONS} slowloris connections for {window_s} s: others answered within "
            f"{abuse.BOUND_S:.0f} s",
            held(abuse.check_slowloris, window_s=window_s),
        ),
        (
            f"{abuse.IDLE_CONNECTIONS:,} idle connections: others answered within {abuse.BOUND_S:.0f} s",
            abuse.check_idle_connections,
        ),
        (
            f"oversized headers from {abuse.VOLUME_CLIENTS} clients for {window_s} s: 4xx or closed, others answered",
            held(abuse.check_oversized_headers, window_s=window_s),
        ),
        (
            f"oversized bodies from {abuse.VOLUME_CLIENTS} clients for {window_s} s: 4xx or closed, others answered",
            held(abuse.check_oversized_bodies, window_s=window_s),
        ),
        (
            "ambiguous Content-Length / Transfer-Encoding: never a hidden request served",
            held(abuse.check_ambiguous_framing, window_s=window_s),
        ),
    ]


def _on_a_fresh_start(
    manifest: Manifest,
    cpus: int,
    cores: list[int],
    checks: Callable[[Server], list[tuple[str, Check]]],
    report: Callable[[CheckResult], None],
) -> list[CheckResult]:
    """The checks `checks` makes for a fresh start of `manifest` (the contract's main settings, its
    processes given for their memory), run on it; a server that does not start is one failed check."""
    ctx = Context(client=Client(0), hello=b"")
    try:
        with running(manifest, cpus, free_port(), MAIN_SETTINGS, cores) as server:
            ctx.client, ctx.server = Client(server.port), server
            return _run_checks(checks(server), ctx, server.alive, report)
    except ServerError as err:
        failed = CheckResult("server starts", 0.0, [Problem(Severity.FAIL, str(err))])
        report(failed)
        return [failed]


def abuse_checks(
    manifest: Manifest, cores: list[int], report: Callable[[CheckResult], None], window_s: int = abuse.WINDOW_S
) -> list[CheckResult]:
    """The abuse checks (arena/checks/abuse.py) on a fresh start of `manifest`, its memory watched,
    each abuse held for `window_s`."""
    return _on_a_fresh_start(manifest, len(cores), cores, lambda _: abuse_list(window_s, manifest.warm_s), report)


OVERLOAD_CHECK = (
    f"overload: 2x the sustained rate for {overload.OVERLOAD_S} s, then back to normal latency "
    f"within {overload.RECOVERY_S} s"
)


def overload_check(
    manifest: Manifest, cpus: int, engine: LoadEngine, report: Callable[[CheckResult], None]
) -> CheckResult:
    """The overload run (arena/checks/overload.py) on a fresh start of `manifest` with `cpus` cores, the
    engine on the cores left; not part of the conformance checks."""
    server_cores, engine_cores, shared = cores.split(cpus)

    def check(server: Server) -> list[tuple[str, Check]]:
        return [(OVERLOAD_CHECK, functools.partial(overload.check, engine, server, engine_cores, shared))]

    (result,) = _on_a_fresh_start(manifest, cpus, server_cores, check, report)
    return result


def verified(
    manifest: Manifest, cpus: int, db: Database, console: Console, verbose: bool = False, forms_checked: str = ""
) -> Verdict:
    """The conformance checks on `manifest` with `cpus` cores: every check when verbose, else those
    with problems, then one line; the forms of `ARENA_DB_URL` skipped when `forms_checked` says why."""
    if manifest.cpus_for(cpus) != cpus:
        return Verdict("skipped", f"{manifest.shown} uses at most {manifest.max_cpus} core(s)")
    started = time.monotonic()
    with console.working(f"  verify {manifest.shown} --cpus {cpus}"):
        results = conformance(
            manifest, cores.take(cpus), db, lambda result: show_check(console, result, verbose), forms_checked
        )
    line = verdict(results)
    console.line(f"  verify {manifest.shown} --cpus {cpus}: {line} ({time.monotonic() - started:.0f} s)")
    return Verdict("passed" if all(r.ok for r in results) else "failed", line)


VERDICTS = RESULTS / "verified"


@functools.cache
def _checks_digest() -> str:
    """The checks themselves: the harness and the contract in spec/ (read once a process)."""
    digest = hashlib.sha256()
    for path in sorted([*(ROOT / "harness" / "arena").rglob("*.py"), *SPEC.rglob("*")]):
        if path.is_file():
            digest.update(str(path.relative_to(ROOT)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _fingerprint(manifest: Manifest, cpus: int) -> str:
    """What a verdict depends on: the implementation's sources and build, its runtime's version,
    the core budget, and the checks."""
    key = f"{build.source_digest(manifest)} {runtime_version(manifest)} {cpus} {_checks_digest()}"
    return hashlib.sha256(key.encode()).hexdigest()


def passed_before(manifest: Manifest, cpus: int, db: Database, console: Console) -> Verdict:
    """The conformance checks, unless it passed on this very build, runtime, budget and checks,
    when its verdict stands (`arena verify` and `arena test` always run it)."""
    stamp = VERDICTS / f"{manifest.name}-cpus{cpus}.json"
    fingerprint = _fingerprint(manifest, cpus)
    try:
        earlier = json.loads(stamp.read_text())
    except (OSError, ValueError):
        earlier = {}
    if earlier.get("fingerprint") == fingerprint:
        console.line(
            f"  verify {manifest.shown} --cpus {cpus}: {earlier['detail']} on {earlier['when']}, "
            "for this build, runtime and checks (arena verify runs it again)"
        )
        return Verdict("passed", earlier["detail"])
    found = verified(manifest, cpus, db, console)
    if found.status == "passed":
        stamp.parent.mkdir(parents=True, exist_ok=True)
        when = time.strftime("%Y-%m-%d %H:%M")
        stamp.write_text(json.dumps({"fingerprint": fingerprint, "detail": found.detail, "when": when}))
    return found


def ready_on_database(
    stack: contextlib.ExitStack,
    db_url: str | None,
    manifests: list[Manifest],
    budgets: list[int],
    toolchains: Toolchains,
    console: Console,
) -> tuple[Database, list[tuple[Manifest, int]], list[str]]:
    """The database a measuring command's batch uses (the user's, or a cluster entered on `stack`,
    which the batch closes when it ends), and what of `manifests` passed conformance on it (`ready`)."""
    db = stack.enter_context(database(db_url))
    console.line(f"preparing and verifying; /record uses {db.described}")
    chosen, skipped = ready(manifests, budgets, toolchains, db, console)
    return db, chosen, skipped


def ready(
    manifests: list[Manifest], budgets: list[int], toolchains: Toolchains, db: Database, console: Console
) -> tuple[list[tuple[Manifest, int]], list[str]]:
    """What a measuring command may load: each implementation that builds, at each budget where it
    passes conformance (`passed_before`), and what was skipped, with the reason, said as well."""
    chosen, skipped = [], []
    for manifest in manifests:
        prepared = prepare(manifest, toolchains, console)
        if not prepared.ok:
            skipped.append(f"skipped {manifest.shown}: {prepared.reason}")
            continue
        for cpus in budgets:
            found = passed_before(manifest, cpus, db, console)
            if found.status == "passed":
                chosen.append((manifest, cpus))
            else:
                skipped.append(f"skipped {manifest.shown} cpus={cpus}: conformance {found.detail}")
    for line in skipped:
        console.line(f"  {line}")
    return chosen, skipped
