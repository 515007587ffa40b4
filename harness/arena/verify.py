"""Conformance: the contract of spec/README.md checked on a live server, with proof the work is real.

`arena verify` starts the server twice: once with short delays and bcrypt cost 4 for the whole
contract, once with cost 12 to show that bcrypt really runs at the configured cost. A failing check
says which request it sent, what it expected and what came back.
"""

from __future__ import annotations

import itertools
import json
import random
import statistics
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from arena import reference
from arena.catalog import SPEC, Manifest
from arena.client import Client, Reply
from arena.process import ServerError, free_port, running

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


class Mismatch(Exception):
    def __init__(self, request: str, expected: str, got: str) -> None:
        super().__init__(f"request:  {request}\n  expected: {expected}\n  got:      {got}")


@dataclass
class CheckResult:
    name: str
    ok: bool
    seconds: float
    detail: str = ""


@dataclass
class Context:
    client: Client
    hello: bytes
    measured: dict[str, float] = field(default_factory=dict)


def expect(reply: Reply, status: int, body: bytes | None = None, content_type: str | None = None) -> Reply:
    request = f"{reply.method} {reply.path}"
    wanted = f"{status}" + (f" {body[:120]!r}" if body is not None else "")
    if content_type:
        wanted += f" [{content_type}]"
    if reply.status != status or (body is not None and reply.body != body):
        raise Mismatch(request, wanted, reply.brief())
    if content_type and not reply.content_type.startswith(content_type):
        raise Mismatch(request, wanted, reply.brief())
    if status >= 400 and not reply.body.strip():
        raise Mismatch(request, f"{status} with a short message", f"{status} with an empty body")
    return reply


def expect_json(reply: Reply, value: object) -> None:
    expect(reply, 200, content_type="application/json")
    try:
        got = reply.json()
    except ValueError:
        raise Mismatch(f"{reply.method} {reply.path}", "a JSON body", reply.brief()) from None
    if got != value:
        raise Mismatch(f"{reply.method} {reply.path}", json.dumps(value)[:200], reply.brief())


# --- the checks on the main server -------------------------------------------------------------


def check_root(ctx: Context) -> None:
    expect(ctx.client.call("GET", "/"), 200, b"OK", "text/plain")


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
            raise Mismatch(f"GET /hello (#{i + 1} of {count})", "200 with hello.html", repr(reply))
        expect(reply, 200, ctx.hello, "text/html")
        if reply.seconds >= 0.8 * delay:
            delayed.append(i)
        elif reply.seconds > 0.5 * delay:
            raise Mismatch(
                f"GET /hello (#{i + 1})",
                f"an answer at once (< {0.5 * delay:.1f} s)",
                f"answered after {reply.seconds:.2f} s",
            )
    spaced = all(b - a == HELLO_EVERY for a, b in itertools.pairwise(delayed))
    if len(delayed) != count // HELLO_EVERY or not spaced:
        raise Mismatch(
            f"{count} x GET /hello, one after another, ARENA_HELLO_DELAY_EVERY={HELLO_EVERY}",
            f"exactly {count // HELLO_EVERY} delayed by {delay:.1f} s, {HELLO_EVERY} apart",
            f"delayed: request numbers {[i + 1 for i in delayed]}",
        )


def check_password(ctx: Context) -> None:
    c = ctx.client
    expect(c.post_json("/password/set/alice", {"password": "correct horse"}), 200, b"OK")
    expect(c.post_json("/password/verify/alice", {"password": "correct horse"}), 200, b"OK")
    expect(c.post_json("/password/verify/alice", {"password": "wrong horse"}), 403)
    expect(c.post_json("/password/verify/nobody.here", {"password": "correct horse"}), 404)
    expect(c.post_json("/password/set/alice", {"password": "battery staple"}), 200, b"OK")
    expect(c.post_json("/password/verify/alice", {"password": "correct horse"}), 403)
    expect(c.post_json("/password/verify/alice", {"password": "battery staple"}), 200, b"OK")
    # 72 bytes is bcrypt's limit, counted in UTF-8 bytes, not characters.
    expect(c.post_json("/password/set/euro_72", {"password": "€" * 24}), 200, b"OK")
    expect(c.post_json("/password/verify/euro_72", {"password": "€" * 24}), 200, b"OK")
    expect(c.post_json("/password/set/euro_75", {"password": "€" * 25}), 400)
    expect(c.post_json("/password/set/a72", {"password": "a" * 73}), 400)


def check_password_errors(ctx: Context) -> None:
    c = ctx.client
    for path in ("/password/set/", "/password/verify/"):
        expect(c.post_json(path + "bad%20name", {"password": "x"}), 400)
        expect(c.post_json(path + "x" * 65, {"password": "x"}), 400)
        expect(c.post_json(path + "semi%3Bcolon", {"password": "x"}), 400)
        expect(c.call("POST", path + "bob", "{not json"), 400)
        expect(c.call("POST", path + "bob", ""), 400)
        expect(c.post_json(path + "bob", {}), 400)
        expect(c.post_json(path + "bob", {"password": 12345}), 400)
        expect(c.post_json(path + "bob", {"password": None}), 400)
        expect(c.post_json(path + "bob", ["password"]), 400)
        expect(c.post_json(path + "bob", "password"), 400)
    expect(c.post_json("/password/set/" + "x" * 64, {"password": "x"}), 200, b"OK")


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
    expect(c.post_json("/user/set/ada", value), 200, b"OK")
    expect_json(c.call("GET", "/user/get/ada"), value)
    expect(c.post_json("/user/set/ada", {"replaced": 1}), 200, b"OK")
    expect_json(c.call("GET", "/user/get/ada"), {"replaced": 1})
    expect(c.post_json("/user/set/empty_", {}), 200, b"OK")
    expect_json(c.call("GET", "/user/get/empty_"), {})
    expect(c.call("GET", "/user/get/nobody.here"), 404)


def check_user_errors(ctx: Context) -> None:
    c = ctx.client
    for body in ("[1, 2]", '"text"', "42", "null", "true", "{bad json", '{"a": 1', ""):
        expect(c.call("POST", "/user/set/u400", body), 400)
    expect(c.call("GET", "/user/get/u400"), 404)
    expect(c.post_json("/user/set/bad%20name", {"a": 1}), 400)
    expect(c.call("GET", "/user/get/bad%20name"), 400)
    expect(c.call("GET", "/user/get/" + "y" * 65), 400)


def _object_of_size(size: int) -> bytes:
    """A JSON object of exactly `size` bytes."""
    frame = b'{"pad":""}'
    return frame[:-2] + b"x" * (size - len(frame)) + frame[-2:]


def check_body_limit(ctx: Context) -> None:
    c = ctx.client
    largest = _object_of_size(65536)
    expect(c.call("POST", "/user/set/big", largest), 200, b"OK")
    expect_json(c.call("GET", "/user/get/big"), json.loads(largest))
    expect(c.call("POST", "/user/set/big2", _object_of_size(65537)), 413)
    expect(c.call("POST", "/user/set/big3", _object_of_size(300_000)), 413)
    expect(c.call("POST", "/password/set/big", b'{"password":"' + b"p" * 70000 + b'"}'), 413)
    expect(c.call("GET", "/user/get/big2"), 404)


def check_cross_connection(ctx: Context) -> None:
    """What one connection sets, every other connection reads, whichever worker serves it."""
    c = ctx.client
    for i in range(40):
        expect(c.post_json(f"/user/set/fresh{i}", {"i": i}), 200, b"OK")
        expect_json(c.call("GET", f"/user/get/fresh{i}"), {"i": i})
    writer, reader = c.session(), c.session()
    try:
        for i in range(20):
            expect(c.post_json(f"/user/set/kept{i}", {"i": i, "via": "writer"}, conn=writer), 200, b"OK")
        for i in range(20):
            expect_json(c.call("GET", f"/user/get/kept{i}", conn=reader), {"i": i, "via": "writer"})
        expect(c.post_json("/password/set/carol", {"password": "s3cret"}, conn=writer), 200, b"OK")
        expect(c.post_json("/password/verify/carol", {"password": "s3cret"}, conn=reader), 200, b"OK")
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
    for reply in replies:
        expect(reply, 200, b"OK")
        if reply.seconds < 0.9 * wait:
            raise Mismatch("GET /longPoll", f"an answer after {wait:.1f} s", f"answered after {reply.seconds:.2f} s")
    if elapsed > 2 * wait:
        raise Mismatch(
            f"{LONGPOLL_CLIENTS} concurrent GET /longPoll, ARENA_LONGPOLL_MS={LONGPOLL_MS}",
            f"all done within {2 * wait:.1f} s",
            f"the last one after {elapsed:.2f} s",
        )
    return f"last of {LONGPOLL_CLIENTS} answered after {elapsed:.2f} s"


def check_long_operation(ctx: Context) -> None:
    c = ctx.client
    for n, path in [(1, "?n=1"), (10, "?n=10"), (1000, "?n=1000"), (2, "?n=2"), (777, "?n=0777"), (SORT_N, "")]:
        expect_json(
            c.call("GET", "/long-operation" + path), {"message": "done", "n": n, "checksum": reference.checksum(n)}
        )


def check_long_operation_errors(ctx: Context) -> None:
    for n in ("0", "200001", "-1", "abc", "1.5", "", "1e3", "%2B5", "99999999999999999999999"):
        expect(ctx.client.call("GET", f"/long-operation?n={n}"), 400)


def check_routing(ctx: Context) -> None:
    c = ctx.client
    for path in ("/nope", "/user/get/", "/user/get/a/b", "/hello/x", "/password/set/", "/longpoll"):
        expect(c.call("GET", path), 404)
    for method, path in [
        ("POST", "/"),
        ("DELETE", "/hello"),
        ("GET", "/password/set/u"),
        ("GET", "/password/verify/u"),
        ("GET", "/user/set/u"),
        ("POST", "/user/get/u"),
        ("PUT", "/longPoll"),
        ("POST", "/long-operation"),
    ]:
        expect(c.call(method, path, b"{}" if method != "DELETE" else None), 405)


OVERFLOW_N = b"GET /long-operation?n=99999999999999999999999 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
MALFORMED = [
    b"GARBAGE\r\n\r\n",
    b"\r\n" * 2000,
    b"GET / HTTP/9.9\r\nHost: x\r\n\r\n",
    b"GET /user/get/\x00\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n",
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
            raise Mismatch(
                f"raw {payload[:60]!r}...",
                "a 4xx answer (501/505 for an unsupported feature or version) or a closed connection",
                answer[:120].decode(errors="replace"),
            )
    overflow = answers[MALFORMED.index(OVERFLOW_N)]
    if not overflow.startswith((b"HTTP/1.1 400", b"HTTP/1.0 400")):
        raise Mismatch(
            "GET /long-operation?n=99999999999999999999999",
            "400",
            overflow[:120].decode(errors="replace") or "(connection closed, no answer)",
        )
    expect(c.call("GET", "/"), 200, b"OK")
    expect(c.post_json("/user/set/after_burst", {"still": "serving"}), 200, b"OK")
    expect_json(c.call("GET", "/user/get/after_burst"), {"still": "serving"})


def timed_verifies(ctx: Context, user: str, status: int, count: int) -> list[float]:
    """Seconds per verify, on one kept-alive connection so that what is timed is the request's
    own work rather than connection set-up."""
    conn = ctx.client.session()
    try:
        return [
            expect(
                ctx.client.post_json(f"/password/verify/{user}", {"password": "tick tock"}, conn=conn), status
            ).seconds
            for _ in range(count)
        ]
    finally:
        conn.close()


def check_bcrypt_cost4(ctx: Context) -> None:
    """Median verify time at cost 4, compared with cost 12 on the second server."""
    expect(ctx.client.post_json("/password/set/timed", {"password": "tick tock"}), 200, b"OK")
    # Unmeasured first: a JIT-compiled runtime is still cold here, and cost 4 is cheap enough
    # that warming up would otherwise be what we time.
    timed_verifies(ctx, "timed", 200, BCRYPT_SAMPLES * 10)
    ctx.measured["cost4"] = statistics.median(timed_verifies(ctx, "timed", 200, BCRYPT_SAMPLES * 2))


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
    ("bcrypt cost 4: verify timed", check_bcrypt_cost4),
    ("malformed burst: 4xx or closed, then still serving", check_malformed_burst),
]


def check_bcrypt_cost12(ctx: Context) -> str:
    c = ctx.client
    if "cost4" not in ctx.measured:
        raise Mismatch("(cost 4 timing)", "a cost-4 median from the first server", "none: its check failed")
    expect(c.post_json("/password/set/timed", {"password": "tick tock"}), 200, b"OK")
    known = timed_verifies(ctx, "timed", 200, BCRYPT_SAMPLES)
    unknown = timed_verifies(ctx, "ghost", 404, BCRYPT_SAMPLES)
    cost4, cost12, ghost = ctx.measured["cost4"], statistics.median(known), statistics.median(unknown)
    ctx.measured.update(cost12=cost12, unknown12=ghost)
    if cost12 < COST_RATIO * cost4:
        raise Mismatch(
            "POST /password/verify at ARENA_BCRYPT_COST=12 and =4",
            f"median at cost 12 >= {COST_RATIO}x cost 4",
            f"cost 12 {cost12 * 1000:.1f} ms, cost 4 {cost4 * 1000:.2f} ms ({cost12 / cost4:.1f}x)",
        )
    if ghost < 0.5 * cost12:
        raise Mismatch(
            "POST /password/verify/ghost (unknown user) at cost 12",
            "hashed anyway: at least half the time of a known user's verify",
            f"{ghost * 1000:.1f} ms against {cost12 * 1000:.1f} ms",
        )
    return (
        f"verify median: cost 12 {cost12 * 1000:.0f} ms, cost 4 {cost4 * 1000:.1f} ms ({cost12 / cost4:.0f}x); "
        f"unknown user {ghost * 1000:.0f} ms"
    )


COSTLY_CHECKS: list[tuple[str, Check]] = [
    (f"bcrypt honours its cost (cost 12 >= {COST_RATIO}x cost 4; unknown users hashed too)", check_bcrypt_cost12),
]


def _run_checks(
    checks: list[tuple[str, Check]],
    ctx: Context,
    alive: Callable[[], bool],
    report: Callable[[CheckResult], None],
) -> list[CheckResult]:
    results = []
    for name, check in checks:
        started = time.monotonic()
        try:
            note = check(ctx)
            result = CheckResult(name, True, time.monotonic() - started, note or "")
        except Mismatch as err:
            result = CheckResult(name, False, time.monotonic() - started, str(err))
        except (OSError, ValueError) as err:
            result = CheckResult(
                name,
                False,
                time.monotonic() - started,
                f"the server did not answer properly: {type(err).__name__}: {err}",
            )
        if result.ok and not alive():
            result = CheckResult(name, False, result.seconds, "the server process exited during this check")
        results.append(result)
        report(result)
    return results


def conformance(
    manifest: Manifest,
    cores: list[int],
    report: Callable[[CheckResult], None],
) -> list[CheckResult]:
    """Every check of the contract on `manifest` with the given core budget."""
    ctx = Context(client=Client(0), hello=(SPEC / "data" / "hello.html").read_bytes())
    results: list[CheckResult] = []
    for settings, checks in ((MAIN_SETTINGS, MAIN_CHECKS), (COSTLY_SETTINGS, COSTLY_CHECKS)):
        started = time.monotonic()
        try:
            with running(manifest, len(cores), free_port(), settings, cores) as server:
                ctx.client = Client(server.port)
                results += _run_checks(checks, ctx, server.alive, report)
        except ServerError as err:
            failed = CheckResult(
                f"server starts (ARENA_BCRYPT_COST={settings['ARENA_BCRYPT_COST']})",
                False,
                time.monotonic() - started,
                str(err),
            )
            report(failed)
            results.append(failed)
    return results
