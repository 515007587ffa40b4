"""ARENA_* settings: defaults, ranges, and every form of ARENA_DB_URL the contract accepts."""

from __future__ import annotations

import pytest
from arena_aiohttp.config import Config, ConfigError, Database, load, parse_db_url


def test_defaults():
    cfg = load({})
    assert cfg == Config()
    assert (cfg.port, cfg.cpus, cfg.bcrypt_cost, cfg.sort_n, cfg.db_pool, cfg.db) == (8080, 1, 10, 50000, 8, None)


def test_values_and_leading_zeros():
    cfg = load({"ARENA_PORT": "09090", "ARENA_CPUS": "3", "ARENA_LONGPOLL_MS": "0", "ARENA_DB_POOL": "8"})
    assert (cfg.port, cfg.cpus, cfg.longpoll_ms) == (9090, 3, 0)
    assert (cfg.workers, cfg.pool_per_worker) == (3, 2)  # 8 // 3: at most 6 connections in total


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("ARENA_PORT", "0"),
        ("ARENA_PORT", "65536"),
        ("ARENA_PORT", " 80"),
        ("ARENA_CPUS", "0"),
        ("ARENA_CPUS", "-1"),
        ("ARENA_BCRYPT_COST", "3"),
        ("ARENA_BCRYPT_COST", "32"),
        ("ARENA_LONGPOLL_MS", "1.5"),
        ("ARENA_HELLO_DELAY_EVERY", "0"),
        ("ARENA_SORT_N", "abc"),
        ("ARENA_SORT_N", "200001"),
        ("ARENA_SORT_N", "+5"),
        ("ARENA_DB_POOL", "0"),
        ("ARENA_DB_POOL", "1001"),
        ("ARENA_HELLO_DELAY_MS", "9" * 40),
        ("ARENA_SORT_N", "\u0661\u0662"),  # digits, but not ASCII ones
    ],
)
def test_malformed_values_name_their_variable(name, value):
    with pytest.raises(ConfigError, match=name):
        load({name: value})


def test_pool_must_cover_every_worker():
    with pytest.raises(ConfigError, match="ARENA_DB_POOL"):
        load({"ARENA_CPUS": "4", "ARENA_DB_POOL": "3"})
    assert load({"ARENA_CPUS": "4", "ARENA_DB_POOL": "4"}).pool_per_worker == 1


@pytest.mark.parametrize("name", ["ARENA_DB_URL", "ARENA_HOST", "ARENA_DATA_DIR", "ARENA_PORT"])
def test_a_setting_set_but_empty_is_malformed(name):
    with pytest.raises(ConfigError, match=name):
        load({name: ""})


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("postgresql://arena:secret@127.0.0.1:5433/arena", Database("arena", "secret", "127.0.0.1", 5433, "arena")),
        ("postgres://arena:secret@127.0.0.1:5433/arena", Database("arena", "secret", "127.0.0.1", 5433, "arena")),
        ("postgresql://arena@localhost/arena", Database("arena", None, "localhost", 5432, "arena")),
        ("postgresql://arena:@localhost/arena", Database("arena", "", "localhost", 5432, "arena")),
        (
            "postgresql://arena%20user%40host:p%40ss%3Aw%2Frd%20%25%3F%23@127.0.0.1:5433/my%2Fdb",
            Database("arena user@host", "p@ss:w/rd %?#", "127.0.0.1", 5433, "my/db"),
        ),
        ("postgresql://%61%62:%63@[::1]:5433/%64", Database("ab", "c", "::1", 5433, "d")),
    ],
)
def test_db_url_forms(url, expected):
    assert parse_db_url(url) == expected
    assert load({"ARENA_DB_URL": url}).db == expected


@pytest.mark.parametrize(
    "url",
    [
        "mysql://u@h/db",
        "postgresql://h/db",  # no user
        "postgresql://u@h",  # no database
        "postgresql://u@h/",
        "postgresql://u@/db",  # no host
        "postgresql://u@h:port/db",
        "postgresql://u@h:70000/db",
        "postgresql://u@h/db?sslmode=disable",
        "postgresql://u@h/db/extra",
        "postgresql://u%ff@h/db",  # not UTF-8 once decoded
        "postgresql://u p@h/db",
    ],
)
def test_malformed_db_urls(url):
    with pytest.raises(ConfigError, match="ARENA_DB_URL"):
        load({"ARENA_DB_URL": url})
