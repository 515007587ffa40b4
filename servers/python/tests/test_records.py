"""/record on a live PostgreSQL: ARENA_DB_URL names it (`arena test` gives a throw-away one, with the
contract's `record` table); without it these tests are skipped."""

from __future__ import annotations

import asyncio
import os
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from arena_aiohttp.app import State, make_app
from arena_aiohttp.config import parse_db_url
from arena_aiohttp.records import Records
from arena_aiohttp.store import LocalCounter, LocalStore
from support import HELLO

from conftest import quick_config

URL = os.environ.get("ARENA_DB_URL")
pytestmark = pytest.mark.skipif(not URL, reason="ARENA_DB_URL is not set: no database to test /record on")
POOL = 2


@pytest.fixture
async def records():
    records = Records(parse_db_url(URL), POOL)
    await records.start()
    yield records
    await records.close()


@pytest.fixture
async def db_client(aiohttp_client, records):
    hasher = ThreadPoolExecutor(max_workers=1)
    state = State(quick_config(), HELLO, LocalStore(), LocalCounter(), records, hasher)
    yield await aiohttp_client(make_app(state))
    hasher.shutdown()


def fresh(prefix: str) -> str:
    return f"{prefix}.{uuid.uuid4().hex[:12]}"


async def test_create_read_update_delete(db_client):
    c, name = db_client, fresh("crud")
    created = await c.put("/record", json={"name": name, "value": "first", "extra": 1})
    assert created.status == 201
    assert await created.json() == {"name": name, "value": "first"}
    assert (await c.put("/record", json={"name": name, "value": "second"})).status == 409
    assert await (await c.get(f"/record?name={name}")).json() == {"name": name, "value": "first"}
    updated = await c.post("/record", json={"name": name, "value": "ünï ✓"})
    assert (updated.status, await updated.json()) == (200, {"name": name, "value": "ünï ✓"})
    deleted = await c.delete(f"/record?name={name}")
    assert (deleted.status, await deleted.json()) == (200, {"name": name, "value": "ünï ✓"})
    assert (await c.delete(f"/record?name={name}")).status == 404
    assert (await c.get(f"/record?name={name}")).status == 404
    assert (await c.post("/record", json={"name": name, "value": "x"})).status == 404  # nothing created
    assert (await c.get(f"/record?name={name}")).status == 404


async def test_seeded_record_and_percent_decoding(db_client):
    reply = await db_client.get("/record?name=r%34%32")
    assert (reply.status, await reply.json()) == (200, {"name": "r42", "value": "value of r42"})


async def test_injected_sql_is_data(db_client):
    for text in ["x' OR '1'='1", "'; DROP TABLE record; --", "$1 \\ %s ? :name", ""]:
        name = fresh("inj")
        assert (await db_client.put("/record", json={"name": name, "value": text})).status == 201
        assert (await (await db_client.get(f"/record?name={name}")).json())["value"] == text
        assert (await db_client.delete(f"/record?name={name}")).status == 200
    assert (await db_client.get("/record?name=x'%20OR%20'1'='1")).status == 400


async def test_concurrent_creates_one_wins(db_client):
    name = fresh("race")
    replies = await asyncio.gather(
        *(db_client.put("/record", json={"name": name, "value": f"from {k}"}) for k in range(16))
    )
    statuses = sorted(reply.status for reply in replies)
    assert statuses == [201] + [409] * 15
    winner = next(reply for reply in replies if reply.status == 201)
    assert await (await db_client.get(f"/record?name={name}")).json() == await winner.json()
    await db_client.delete(f"/record?name={name}")


async def test_the_pool_never_exceeds_its_share(db_client, records):
    replies = await asyncio.gather(*(db_client.get(f"/record?name=r{i}") for i in range(60)))
    assert all(reply.status == 200 for reply in replies)
    assert records._pool.get_size() <= POOL
