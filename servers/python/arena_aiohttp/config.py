"""The ARENA_* settings of spec/README.md, read once at start-up.

A setting that is set but malformed raises ConfigError naming the variable; the entry point prints
it and exits non-zero, so the server never runs with a silently different setting.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import unquote

DIGITS = re.compile(r"[0-9]+")
# postgresql://user[:password]@host[:port]/database, each part percent-encoded where it must be.
DB_URL = re.compile(
    r"(?:postgresql|postgres)://(?P<user>[^:@/?#\s]+)(?::(?P<password>[^@/?#\s]*))?@"
    r"(?P<host>\[[0-9A-Fa-f:.]+\]|[^:@/?#\[\]\s]+)(?::(?P<port>[0-9]+))?/(?P<database>[^/?#\s]+)"
)


class ConfigError(ValueError):
    """A setting that is set but malformed."""


@dataclass(frozen=True)
class Database:
    """ARENA_DB_URL, taken apart and percent-decoded, as asyncpg.connect's keyword arguments take it."""

    user: str
    password: str | None
    host: str
    port: int
    database: str


@dataclass(frozen=True)
class Config:
    host: str = "127.0.0.1"
    port: int = 8080
    cpus: int = 1
    bcrypt_cost: int = 10
    longpoll_ms: int = 5000
    hello_delay_ms: int = 2000
    hello_delay_every: int = 10
    sort_n: int = 50000
    data_dir: str = "../../spec/data"
    db: Database | None = None
    db_pool: int = 8

    @property
    def workers(self) -> int:
        """Worker processes serving HTTP: one per core of the budget."""
        return self.cpus

    @property
    def pool_per_worker(self) -> int:
        """Each worker's share of ARENA_DB_POOL, rounded down, so that the total stays within it."""
        return self.db_pool // self.workers


def _integer(env: Mapping[str, str], name: str, default: int, low: int, high: int | None = None) -> int:
    raw = env.get(name)
    if raw is None:
        return default
    if not DIGITS.fullmatch(raw):
        raise ConfigError(f"{name}={raw!r} is not a non-negative integer")
    value = int(raw) if len(raw.lstrip("0")) <= 15 else -1  # longer: out of every range
    if value < low or (high is not None and value > high) or value < 0:
        span = f"{low}..{high}" if high is not None else f">= {low}"
        raise ConfigError(f"{name}={raw} is out of range ({span})")
    return value


def _text(env: Mapping[str, str], name: str, default: str | None) -> str | None:
    """A setting that is text: set but empty is malformed, as a number's is (spec/README.md)."""
    raw = env.get(name)
    if raw == "":
        raise ConfigError(f"{name} is set but empty (leave it unset for its default)")
    return default if raw is None else raw


def parse_db_url(raw: str) -> Database:
    """A libpq-style connection URI: a scheme, user, host and database are required; password and
    port are optional; user, password and database may be percent-encoded. Query parameters are
    not part of the contract, so a URL with one is refused like any other malformed one."""
    found = DB_URL.fullmatch(raw)
    if not found:
        raise ConfigError("ARENA_DB_URL is not of the form postgresql://user[:password]@host[:port]/database")
    port = int(found["port"]) if found["port"] else 5432
    if not 1 <= port <= 65535:
        raise ConfigError(f"ARENA_DB_URL: port {found['port']} is out of range (1..65535)")
    host = found["host"]
    if host.startswith("["):
        host = host[1:-1]
    try:
        user = unquote(found["user"], errors="strict")
        password = None if found["password"] is None else unquote(found["password"], errors="strict")
        database = unquote(found["database"], errors="strict")
    except UnicodeDecodeError as err:
        raise ConfigError("ARENA_DB_URL: a percent-encoded part is not UTF-8") from err
    return Database(user=user, password=password, host=host, port=port, database=database)


def load(env: Mapping[str, str]) -> Config:
    """The configuration from `env` (os.environ); raises ConfigError on the first malformed setting."""
    cpus = _integer(env, "ARENA_CPUS", 1, 1, 1024)
    db_pool = _integer(env, "ARENA_DB_POOL", 8, 1, 1000)
    if db_pool < cpus:
        raise ConfigError(
            f"ARENA_DB_POOL={db_pool} is below the {cpus} worker processes of ARENA_CPUS={cpus}: "
            "each needs at least one connection"
        )
    db_url = _text(env, "ARENA_DB_URL", None)
    return Config(
        host=_text(env, "ARENA_HOST", "127.0.0.1"),
        port=_integer(env, "ARENA_PORT", 8080, 1, 65535),
        cpus=cpus,
        bcrypt_cost=_integer(env, "ARENA_BCRYPT_COST", 10, 4, 31),
        longpoll_ms=_integer(env, "ARENA_LONGPOLL_MS", 5000, 0),
        hello_delay_ms=_integer(env, "ARENA_HELLO_DELAY_MS", 2000, 0),
        hello_delay_every=_integer(env, "ARENA_HELLO_DELAY_EVERY", 10, 1),
        sort_n=_integer(env, "ARENA_SORT_N", 50000, 1, 200000),
        data_dir=_text(env, "ARENA_DATA_DIR", "../../spec/data"),
        db=parse_db_url(db_url) if db_url is not None else None,
        db_pool=db_pool,
    )
