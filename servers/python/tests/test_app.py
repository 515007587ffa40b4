"""The endpoints and their errors, on aiohttp's test server (one process, the local store)."""

from __future__ import annotations

import asyncio
import json
import time

import bcrypt
import pytest
from arena_aiohttp.store import GET_PASSWORD
from support import HELLO


async def test_root(client):
    reply = await client.get("/")
    assert reply.status == 200
    assert await reply.text() == "OK"
    assert reply.content_type == "text/plain"


async def test_hello_every_kth_waits(client):
    """K=3, 400 ms: the 3rd and 6th wait, the others are answered at once, even while one waits."""
    times = []
    for _ in range(6):
        started = time.monotonic()
        reply = await client.get("/hello")
        assert reply.status == 200
        assert reply.content_type == "text/html"
        assert await reply.read() == HELLO
        times.append(time.monotonic() - started)
    delayed = [i + 1 for i, took in enumerate(times) if took >= 0.35]
    assert delayed == [3, 6]


async def test_hello_wait_holds_nobody(client):
    await client.get("/hello")
    await client.get("/hello")
    waiting = asyncio.ensure_future(client.get("/hello"))  # the 3rd: waits 400 ms
    await asyncio.sleep(0.05)
    started = time.monotonic()
    assert (await client.get("/hello")).status == 200
    assert time.monotonic() - started < 0.2
    assert not waiting.done()
    assert (await waiting).status == 200


async def test_password_set_verify(client, state):
    assert (await client.post("/password/set/alice", json={"password": "correct horse"})).status == 200
    stored = await state.store.call(GET_PASSWORD, "alice")
    assert stored.startswith(b"$2b$04$")  # a real bcrypt hash at the configured cost
    assert bcrypt.checkpw(b"correct horse", stored)
    assert (await client.post("/password/verify/alice", json={"password": "correct horse"})).status == 200
    wrong = await client.post("/password/verify/alice", json={"password": "wrong horse"})
    assert wrong.status == 403
    assert await wrong.text()
    assert (await client.post("/password/verify/nobody", json={"password": "x"})).status == 404
    assert (await client.post("/password/set/alice", json={"password": "battery"})).status == 200
    assert (await client.post("/password/verify/alice", json={"password": "correct horse"})).status == 403
    assert (await client.post("/password/verify/alice", json={"password": "battery"})).status == 200


async def test_password_limit_is_72_utf8_bytes(client):
    assert (await client.post("/password/set/euro", json={"password": "€" * 24})).status == 200
    assert (await client.post("/password/verify/euro", json={"password": "€" * 24})).status == 200
    assert (await client.post("/password/set/euro", json={"password": "€" * 25})).status == 400
    assert (await client.post("/password/set/a", json={"password": "a" * 73})).status == 400
    assert (await client.post("/password/set/a", json={"password": "\ud800"})).status == 400  # not encodable


@pytest.mark.parametrize(
    "path",
    ["/password/set/bad%20name", "/password/verify/semi%3Bcolon", "/password/set/" + "x" * 65, "/user/get/a%2Fb"],
)
async def test_bad_usernames(client, path):
    reply = await client.post(path, json={"password": "x"}) if "password" in path else await client.get(path)
    assert reply.status == 400
    assert await reply.text() == "invalid username"


@pytest.mark.parametrize(
    "body",
    ["{not json", "", "{}", '{"password": 12345}', '{"password": null}', '["password"]', '"password"', "NaN"],
)
async def test_bad_password_bodies(client, body):
    for path in ("/password/set/bob", "/password/verify/bob"):
        reply = await client.post(path, data=body, headers={"Content-Type": "application/json"})
        assert reply.status == 400
        assert (await reply.text()).strip()


async def test_user_set_get(client):
    value = {"name": "Ada", "tags": ["math", "教育"], "nested": {"deep": [1, 2, {"x": "ü"}]}, "none": None}
    assert (await client.post("/user/set/ada", json=value)).status == 200
    reply = await client.get("/user/get/ada")
    assert reply.status == 200
    assert reply.content_type == "application/json"
    assert json.loads(await reply.read()) == value
    assert (await client.post("/user/set/ada", json={"replaced": 1})).status == 200
    assert json.loads(await (await client.get("/user/get/ada")).read()) == {"replaced": 1}
    assert (await client.get("/user/get/nobody")).status == 404


@pytest.mark.parametrize("body", ["[1, 2]", '"text"', "42", "null", "true", "{bad", '{"a": 1', "", '{"a": Infinity}'])
async def test_user_set_needs_an_object(client, body):
    assert (await client.post("/user/set/u400", data=body)).status == 400
    assert (await client.get("/user/get/u400")).status == 404


async def test_invalid_utf8_and_deep_nesting_are_400(client):
    assert (await client.post("/user/set/u", data=b'{"a":"\xff\xfe"}')).status == 400
    assert (await client.post("/user/set/u", data=b"[" * 10_000 + b"]" * 10_000)).status == 400
    assert (await client.get("/")).status == 200


async def test_body_limit(client):
    def sized(size: int) -> bytes:
        return b'{"pad":"' + b"x" * (size - 10) + b'"}'

    assert (await client.post("/user/set/big", data=sized(65_536))).status == 200
    assert len(await (await client.get("/user/get/big")).read()) == 65_536
    too_large = await client.post("/user/set/big2", data=sized(65_537))
    assert too_large.status == 413
    assert await too_large.text() == "body larger than 65536 bytes"
    assert (await client.post("/user/set/big3", data=sized(300_000))).status == 413
    assert (await client.get("/user/get/big2")).status == 404


async def test_chunked_body_over_the_limit(client):
    async def chunks():
        for _ in range(20):
            yield b"x" * 8192

    assert (await client.post("/user/set/chunky", data=chunks())).status == 413


async def test_long_poll_waits_without_holding(client):
    started = time.monotonic()
    replies = await asyncio.gather(*(client.get("/longPoll") for _ in range(30)))
    took = time.monotonic() - started
    assert all(reply.status == 200 for reply in replies)
    assert 0.3 <= took < 1.5


@pytest.mark.parametrize(
    ("query", "n", "checksum"),
    [("?n=1", 1, 0.5682303266439076), ("?n=10", 10, 10.676268897597582), ("?n=1000", 1000, 169238.799942987)],
)
async def test_long_operation(client, query, n, checksum):
    reply = await client.get("/long-operation" + query)
    assert reply.status == 200
    assert reply.content_type == "application/json"
    assert json.loads(await reply.read()) == {"message": "done", "n": n, "checksum": checksum}


async def test_long_operation_default_and_leading_zeros(client):
    assert json.loads(await (await client.get("/long-operation")).read())["n"] == 300
    assert json.loads(await (await client.get("/long-operation?n=0010")).read())["checksum"] == 10.676268897597582


@pytest.mark.parametrize(
    "n", ["0", "200001", "-1", "abc", "1.5", "", "1e3", "%2B5", "99999999999999999999999", "\u0661"]
)
async def test_long_operation_bad_n(client, n):
    assert (await client.get(f"/long-operation?n={n}")).status == 400


@pytest.mark.parametrize(
    "path", ["/nope", "/user/get/", "/user/get/a/b", "/hello/x", "/password/set/", "/longpoll", "/hello/"]
)
async def test_unknown_paths(client, path):
    reply = await client.get(path)
    assert reply.status == 404
    assert (await reply.text()).strip()


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/"),
        ("DELETE", "/hello"),
        ("GET", "/password/set/u"),
        ("GET", "/user/set/u"),
        ("POST", "/user/get/u"),
        ("PUT", "/longPoll"),
        ("POST", "/long-operation"),
        ("PATCH", "/record"),
        ("QUERY", "/"),
    ],
)
async def test_wrong_methods(client, method, path):
    reply = await client.request(method, path)
    assert reply.status == 405
    assert (await reply.text()).strip()


async def test_record_without_database_is_503_and_400_first(client):
    reply = await client.get("/record?name=r42")
    assert reply.status == 503
    assert "ARENA_DB_URL" in await reply.text()
    assert (await client.put("/record", json={"name": "x", "value": "y"})).status == 503
    assert (await client.get("/record?name=bad%20name")).status == 400  # checked before the database
    assert (await client.put("/record", json={"name": "x", "value": 5})).status == 400


@pytest.mark.parametrize(
    "body",
    [
        "[1, 2]",
        "{bad json",
        "",
        '{"value": "x"}',
        '{"name": "e1"}',
        '{"name": "e1", "value": 5}',
        '{"name": "e1", "value": null}',
        '{"name": "bad name", "value": "x"}',
        '{"name": "", "value": "x"}',
        json.dumps({"name": "e1", "value": "é" * 512 + "x"}),
        json.dumps({"name": "e1", "value": "nul\u0000"}),
    ],
)
async def test_record_bad_bodies(client, body):
    assert (await client.put("/record", data=body)).status == 400
    assert (await client.post("/record", data=body)).status == 400


async def test_record_body_over_the_limit(client):
    assert (await client.put("/record", data=b'{"name":"e","value":"' + b"v" * 70_000 + b'"}')).status == 413
