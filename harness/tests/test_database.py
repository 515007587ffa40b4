"""The database behind /record: a real PostgreSQL cluster started, asked, stopped and swept."""

from __future__ import annotations

import subprocess

import psutil
import psycopg
import pytest

from arena.checks import db_urls
from arena.host import database
from arena.host.database import Cluster, DatabaseError


def postgres_processes(folder) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["name", "cmdline"]):
        if proc.info["name"] == "postgres" and str(folder) in " ".join(proc.info["cmdline"] or []):
            found.append(proc)
    return found


def test_a_throw_away_cluster_serves_the_schema_counts_a_role_s_statements_and_leaves_nothing():
    with database.database() as db:
        folder = db.cluster.folder
        assert db.own and db.tree(), "the cluster's processes are known, for sampling"
        assert db.query("SELECT value FROM record WHERE name = 'r9999'") == [("value of r9999",)]
        assert db.statements() == {}, "the schema's own statements are not a server's"
        with psycopg.connect(db.url, autocommit=True) as server:  # as a server would, role arena
            server.execute("SELECT value FROM record WHERE name = %s", ("r1",))
            server.execute("SELECT value FROM record WHERE name = %s", ("r2",))
            assert db.connections() == 1
        assert sum(db.statements().values()) == 2
        db.reset_statements()
        assert db.statements() == {}
        db.query("INSERT INTO record VALUES ('c1-1', 'left over'); UPDATE record SET value = 'x' WHERE name = 'r7'")
        db.reset()
        assert db.query("SELECT count(*) FROM record WHERE name !~ '^r[0-9]+$'") == [(0,)]
        assert db.query("SELECT value FROM record WHERE name = 'r7'") == [("value of r7",)]
        size = "SELECT pg_relation_size('record')"
        fresh = db.query(size)
        for _ in range(3):  # a measurement's updates leave dead rows behind the live ones
            db.query("UPDATE record SET value = value || '.'")
        assert db.query(size) > fresh
        db.reset()
        assert db.query(size) == fresh, "the next measurement meets the table the first one met"
    assert not folder.exists()
    assert not postgres_processes(folder)


def test_an_outage_refuses_connections_until_the_cluster_is_back_on_its_port():
    with database.database() as db:
        db.outage()
        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(db.url, connect_timeout=2)
        db.back()
        with psycopg.connect(db.url) as conn:
            assert conn.execute("SELECT count(*) FROM record").fetchone() == (10000,)


def test_the_user_s_own_database_is_used_as_given_and_never_stopped():
    with database.database() as mine, database.database(mine.url) as given:
        assert not given.own and given.url == mine.url
        assert "(--db-url)" in given.described
        given.reset()  # vacuumed as the servers' role, which owns the table; no checkpoint asked
        with pytest.raises(DatabaseError, match="only a database the harness started"):
            given.outage()
        assert given.query("SELECT 1") == [(1,)]


def test_a_cluster_whose_harness_died_is_stopped_and_deleted_by_the_next_one():
    dead = subprocess.Popen(["true"])
    dead.wait()
    root = database.RESULTS / "db"
    orphan = Cluster(root / "orphan", database.free_port())
    orphan.create()
    (orphan.folder / "owner").write_text(str(dead.pid))  # as if its harness had been killed
    orphan.start()
    with database.database():
        assert not orphan.folder.exists()
    assert orphan.process.wait(timeout=10) is not None  # killed (reaped here, since this test started it)
    assert not postgres_processes(orphan.folder)


def test_every_form_of_the_url_reaches_the_records_as_libpq_reads_it():
    """The forms conformance gives the servers (checks/db_urls.py), each opened by libpq itself
    (psycopg): the trusted role without a password, the percent-encoded role, the other scheme,
    and 5432 when the cluster has it; on the user's database, the forms that need the harness's
    roles are skipped with the reason."""
    with database.database() as db:
        forms = db_urls.forms(db)
        tried = [form for form in forms if not form.skipped]
        assert len(tried) == (5 if db.cluster.port == database.DEFAULT_PORT else 4)
        for form in tried:
            with psycopg.connect(form.url, connect_timeout=5) as conn:
                assert conn.execute("SELECT value FROM record WHERE name = 'r42'").fetchone() == ("value of r42",)
        with pytest.raises(psycopg.OperationalError, match="password"):
            psycopg.connect(db.url.replace(":arena@", "@"), connect_timeout=5)  # only the trusted role is
        given = database.Database(url=db.url, admin_url=db.admin_url)
        skipped = [form for form in db_urls.forms(given) if form.skipped]
        assert len(skipped) == 2 and all("--db-url" in form.skipped for form in skipped)
