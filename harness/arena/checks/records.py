"""Conformance of `/record` (spec/README.md, "/record: records on PostgreSQL"), on a live server and
its live database: the answers, the statements the server sent (pg_stat_statements), the
connections it held (pg_stat_activity), concurrent creates, injection, and the database going away
and coming back.

The server runs with `ARENA_DB_POOL` = `POOL`, small enough that a pool that ignores it shows, or
on a budget of more cores, one a core (`pool`): a server of one process a core refuses fewer.
"""

from __future__ import annotations

import functools
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import quote

from arena.checks.client import Reply
from arena.checks.expect import Context

POOL = 3
OUTAGE_BOUND_S = 5.0  # the contract's: 503 within 5 s of losing the database, serving within 5 s of its return
SEEDED = {"name": "r42", "value": "value of r42"}  # spec/data/record.sql
INJECTIONS = ["x' OR '1'='1", "'; DROP TABLE record; --", 'a"); DELETE FROM record; --', "$1 \\ %s ? :name"]


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _path(name: str) -> str:
    return "/record?name=" + quote(name, safe="")


def _body(name: object, value: object, **extra: object) -> dict:
    return {"name": name, "value": value, **extra}


def check_record_crud(ctx: Context) -> None:
    c, name = ctx.client, "crud.one-1"
    first, second = _body(name, "first"), _body(name, "second")
    ctx.expect_json(c.call("PUT", "/record", _json(_body(name, "first", extra=1))), first, 201)
    ctx.expect(c.call("PUT", "/record", _json(second)), 409)
    ctx.expect_json(c.call("GET", _path(name)), first)  # the conflict left it unchanged
    ctx.expect_json(c.call("POST", "/record", _json(second)), second)
    ctx.expect_json(c.call("GET", _path(name)), second)
    ctx.expect(c.call("POST", "/record", _json(_body("crud.nobody", "x"))), 404)
    ctx.expect(c.call("GET", _path("crud.nobody")), 404)  # an update creates nothing
    ctx.expect_json(c.call("DELETE", _path(name)), second)
    ctx.expect(c.call("DELETE", _path(name)), 404)
    ctx.expect(c.call("GET", _path(name)), 404)
    ctx.expect_json(c.call("GET", _path(SEEDED["name"])), SEEDED)
    for record in (_body("crud.empty", ""), _body("crud.widest", "é" * 512), _body("crud_x.Y-9", "ünï cødé ✓")):
        ctx.expect_json(c.call("PUT", "/record", _json(record)), record, 201)
        ctx.expect_json(c.call("GET", _path(record["name"])), record)
        ctx.expect_json(c.call("DELETE", _path(record["name"])), record)
    ctx.expect_json(c.call("GET", "/record?name=r%34%32"), SEEDED)  # percent-decoded


def check_record_errors(ctx: Context) -> None:
    c = ctx.client
    for path in ("/record", "/record?name=", "/record?name=bad%20name", "/record?name=" + "y" * 65, "/record?nam=r1"):
        ctx.expect(c.call("GET", path), 400)
        ctx.expect(c.call("DELETE", path), 400)
    bodies = [
        "[1, 2]",
        '"text"',
        "42",
        "null",
        "{bad json",
        "",
        _json({"value": "x"}),
        _json({"name": "err1"}),
        _json(_body("err1", 5)),
        _json(_body("err1", None)),
        _json(_body("err1", ["x"])),
        _json(_body("bad name", "x")),
        _json(_body(5, "x")),
        _json(_body("", "x")),
        _json(_body("y" * 65, "x")),
        _json(_body("err1", "é" * 512 + "x")),
        _json(_body("err1", "nul\u0000")),
    ]
    for body in bodies:
        ctx.expect(c.call("PUT", "/record", body), 400)
        ctx.expect(c.call("POST", "/record", body), 400)
    ctx.expect(c.call("PUT", "/record", b'{"name":"err1","value":"' + b"v" * 70000 + b'"}'), 413)
    ctx.expect(c.call("PATCH", "/record", _json(_body("err1", "x"))), 405)
    ctx.expect(c.call("GET", _path("err1")), 404)  # none of it was stored


def check_record_injection(ctx: Context) -> None:
    """Names and values that would change an SQL statement built by pasting text are data only."""
    c, db = ctx.client, ctx.db
    before = db.query("SELECT count(*) FROM record")[0][0]
    for i, text in enumerate(INJECTIONS):
        record = _body(f"inj{i}", text)
        ctx.expect_json(c.call("PUT", "/record", _json(record)), record, 201)
        ctx.expect_json(c.call("GET", _path(record["name"])), record)
        ctx.expect(c.call("GET", _path(text)), 400)  # not a valid name: refused before any SQL
        ctx.expect(c.call("DELETE", _path(text)), 400)
        ctx.expect_json(c.call("DELETE", _path(record["name"])), record)
    after = db.query("SELECT count(*) FROM record")[0][0]
    if after != before:
        ctx.fail("the injection requests above", f"{before} records in the table, as before", f"{after}")
    ctx.expect_json(c.call("GET", _path(SEEDED["name"])), SEEDED)


def check_record_statements(ctx: Context) -> str:
    """Exactly one statement for every request that reaches the database, none for a refused one."""
    c, db = ctx.client, ctx.db
    db.reset_statements()
    sent = 0
    for i in range(10):
        name = f"count{i}"
        replies = [
            c.call("PUT", "/record", _json(_body(name, "a"))),  # 201
            c.call("PUT", "/record", _json(_body(name, "b"))),  # 409
            c.call("GET", _path(name)),
            c.call("GET", _path(f"count.missing{i}")),  # 404
            c.call("POST", "/record", _json(_body(name, "c"))),
            c.call("POST", "/record", _json(_body(f"count.missing{i}", "c"))),  # 404
            c.call("DELETE", _path(name)),
            c.call("DELETE", _path(name)),  # 404
        ]
        sent += len(replies)
        for reply, status in zip(replies, (201, 409, 200, 404, 200, 404, 200, 404), strict=True):
            ctx.expect(reply, status)
        ctx.expect(c.call("GET", "/record?name=bad%20name"), 400)  # refused before the database
    statements = db.statements()
    counted = sum(statements.values())
    if counted != sent:
        busiest = sorted(statements.items(), key=lambda s: -s[1])
        listed = "; ".join(f"{calls} x {query[:80]!r}" for query, calls in busiest)
        ctx.fail(
            f"{sent} requests that reach the database (and 10 refused with 400)",
            f"{sent} statements from the server's role (pg_stat_statements)",
            f"{counted}: {listed[:600]}",
        )
    return f"{counted} statements for {sent} requests"


def pool(cpus: int) -> int:
    """The ARENA_DB_POOL conformance gives a server on `cpus` cores."""
    return max(POOL, cpus)


def check_record_pool(ctx: Context) -> str:
    """Many concurrent requests never hold more than ARENA_DB_POOL connections, over every worker."""
    c, db = ctx.client, ctx.db
    stop, peak, statuses = threading.Event(), [0], []

    def watch() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], db.connections())
            time.sleep(0.02)

    def load(k: int) -> None:
        conn = c.session()
        try:
            for i in range(15):
                statuses.append(c.call("GET", _path(f"r{(k * 15 + i) % 10000}"), conn=conn).status)
        finally:
            conn.close()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        with ThreadPoolExecutor(max_workers=48) as pool:
            list(pool.map(load, range(48)))
    finally:
        stop.set()
        watcher.join()
    bad = [s for s in statuses if s != 200]
    if bad:
        ctx.fail(
            "48 connections x 15 GET /record of seeded records, at once",
            "200 each",
            f"{len(bad)} others: {sorted(set(bad))}",
        )
    if peak[0] > ctx.pool:
        ctx.fail(
            f"the same load, with ARENA_DB_POOL={ctx.pool}",
            f"at most {ctx.pool} connections of the server (pg_stat_activity)",
            f"{peak[0]}",
        )
    return f"at most {peak[0]} database connection(s) under 48 concurrent clients"


def check_record_race(ctx: Context) -> None:
    """Concurrent creates of one new name: one 201, the others 409, and the winner's value stays."""
    c, racers = ctx.client, 16

    def create(name: str, barrier: threading.Barrier, k: int) -> Reply:
        barrier.wait(timeout=10)
        return c.call("PUT", "/record", _json(_body(name, f"from {k}")))

    for round_ in range(5):
        name, barrier = f"race{round_}", threading.Barrier(racers)
        with ThreadPoolExecutor(max_workers=racers) as pool:
            replies = list(pool.map(functools.partial(create, name, barrier), range(racers)))
        created = [r for r in replies if r.status == 201]
        others = sorted({r.status for r in replies if r.status != 201})
        if len(created) != 1 or others not in ([409], []):
            ctx.fail(
                f"{racers} concurrent PUT /record of the new name {name}",
                f"one 201 and {racers - 1} 409",
                f"{len(created)} x 201, others {others}",
            )
        elif created:
            ctx.expect_json(c.call("GET", _path(name)), created[0].json())
        c.call("DELETE", _path(name))


def check_record_outage(ctx: Context) -> str:
    """The database stops: /record answers 503 within 5 s, the rest keeps serving; it comes back:
    /record serves again within 5 s, with no restart."""
    c, db = ctx.client, ctx.db
    if not db.own:
        ctx.skip("the database is the user's (--db-url), not the harness's to stop")
        return ""
    request = f"GET {_path(SEEDED['name'])} while PostgreSQL is stopped"
    db.outage()
    try:
        refused = c.call("GET", _path(SEEDED["name"]))
        ctx.expect(refused, 503)
        if refused.seconds > OUTAGE_BOUND_S:
            ctx.late(request, OUTAGE_BOUND_S, refused.seconds, "a 503")
        ctx.expect(c.call("GET", "/"), 200, b"OK")
        ctx.expect(c.call("GET", "/user/get/nobody.here"), 404)
    finally:
        db.back()
    back = time.monotonic()
    while True:
        reply = c.call("GET", _path(SEEDED["name"]))
        waited = time.monotonic() - back
        if reply.status == 200 or waited > OUTAGE_BOUND_S * 3:
            break
        time.sleep(0.1)
    ctx.expect_json(reply, SEEDED)
    if reply.status == 200 and waited > OUTAGE_BOUND_S:
        ctx.late("GET /record after PostgreSQL came back", OUTAGE_BOUND_S, waited, "serving again")
    return f"{refused.status} in {refused.seconds:.2f} s while stopped; serving {waited:.1f} s after it was back"


def check_record_without_database(ctx: Context) -> None:
    """Started with no ARENA_DB_URL: /record answers 503 with a message, the rest serves."""
    c = ctx.client
    for reply in (c.call("GET", _path(SEEDED["name"])), c.call("PUT", "/record", _json(_body("nodb", "x")))):
        ctx.expect(reply, 503)
        if reply.seconds > OUTAGE_BOUND_S:
            ctx.late(f"{reply.method} {reply.path} with no ARENA_DB_URL", OUTAGE_BOUND_S, reply.seconds, "a 503")
    ctx.expect(c.call("GET", "/"), 200, b"OK")
