"""/record on PostgreSQL through asyncpg's connection pool (spec/README.md, "/record").

Each worker process has its own pool of `Config.pool_per_worker` connections, so the whole server
holds at most ARENA_DB_POOL. A request runs exactly one parameterised statement on a pooled
connection: no transaction around it, no reset query after it (asyncpg's default reset runs
`RESET ALL` and three more statements on every release; the pool's `reset` hook replaces it, as
these connections never change session state), no cache in front of it.

The pool connects lazily (min_size 0), so the server starts whether or not the database is up.
While it is down, a request answers 503 at once (connection refused) or once a connect times out;
connections it broke are closed and replaced on the next acquire, so /record serves again as soon
as the database is back, without a restart.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass

import asyncpg

from arena_aiohttp.config import Database

NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
MAX_VALUE_BYTES = 1024
CONNECT_TIMEOUT_S = 2.5  # opening one connection
QUERY_TIMEOUT_S = 4.0  # one statement, once it has a connection
WAIT_HEALTHY_S = 60.0  # for a free connection while the database answers: a busy pool queues requests
WAIT_DOWN_S = 2.0  # for a free connection while connecting fails: answer 503 within the contract's 5 s

INSERT = "INSERT INTO record (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING name, value"
SELECT = "SELECT name, value FROM record WHERE name = $1"
UPDATE = "UPDATE record SET value = $2 WHERE name = $1 RETURNING name, value"
DELETE = "DELETE FROM record WHERE name = $1 RETURNING name, value"

# What a lost, refused or timed-out database raises: each is answered 503.
UNAVAILABLE = (OSError, asyncio.TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError)


class DatabaseUnavailable(Exception):
    """No database (ARENA_DB_URL unset) or none reachable now."""


@dataclass(frozen=True)
class Record:
    name: str
    value: str

    def as_json(self) -> dict[str, str]:
        return {"name": self.name, "value": self.value}


def valid_name(name: object) -> bool:
    return isinstance(name, str) and NAME.fullmatch(name) is not None


def value_problem(value: object) -> str | None:
    """Why `value` cannot be a record's value, or None: a string of at most 1,024 bytes of UTF-8
    without U+0000 (PostgreSQL's text cannot hold it)."""
    if not isinstance(value, str):
        return "value must be a string"
    try:
        encoded = value.encode("utf-8")
    except UnicodeEncodeError:
        return "value is not valid Unicode"
    if len(encoded) > MAX_VALUE_BYTES:
        return f"value is longer than {MAX_VALUE_BYTES} bytes"
    if "\x00" in value:
        return "value must not hold U+0000"
    return None


async def _no_reset(connection: asyncpg.Connection) -> None:
    """Nothing to undo: the statements here change no session state."""


class Records:
    """The records' pool of one process; `None` database: every call raises DatabaseUnavailable."""

    def __init__(self, database: Database | None, size: int) -> None:
        self._database = database
        self._size = size
        self._pool: asyncpg.Pool | None = None
        self._failing_since: float | None = None  # monotonic time of the first failure in a row

    async def start(self) -> None:
        if self._database is None:
            return
        db = self._database
        self._pool = await asyncpg.create_pool(
            host=db.host,
            port=db.port,
            user=db.user,
            password=db.password,
            database=db.database,
            ssl=False,
            min_size=0,
            max_size=self._size,
            timeout=CONNECT_TIMEOUT_S,
            command_timeout=QUERY_TIMEOUT_S,
            reset=_no_reset,
        )

    async def close(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            try:
                await asyncio.wait_for(pool.close(), 2.0)
            except (TimeoutError, *UNAVAILABLE):
                pool.terminate()

    async def _one(self, statement: str, *args: str) -> Record | None:
        if self._pool is None:
            raise DatabaseUnavailable("no database: ARENA_DB_URL is not set")
        wait = WAIT_DOWN_S if self._failing_since is not None else WAIT_HEALTHY_S
        try:
            async with self._pool.acquire(timeout=wait) as connection:
                row = await connection.fetchrow(statement, *args)
        except UNAVAILABLE as err:
            if self._failing_since is None:
                self._failing_since = time.monotonic()
                print(f"python server: database unavailable: {type(err).__name__}: {err}", flush=True)
            raise DatabaseUnavailable("database unavailable") from err
        if self._failing_since is not None:
            self._failing_since = None
            print("python server: database available again", flush=True)
        return None if row is None else Record(row["name"], row["value"])

    async def create(self, name: str, value: str) -> Record | None:
        """The new record, or None when the name exists (left unchanged)."""
        return await self._one(INSERT, name, value)

    async def read(self, name: str) -> Record | None:
        return await self._one(SELECT, name)

    async def update(self, name: str, value: str) -> Record | None:
        return await self._one(UPDATE, name, value)

    async def delete(self, name: str) -> Record | None:
        return await self._one(DELETE, name)
