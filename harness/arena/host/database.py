"""PostgreSQL behind `/record`: a throw-away cluster the harness starts, or the user's own.

`database(url)` gives a `Database` for a command that needs one: the user's when `--db-url` or
`ARENA_DB_URL` names it, else a fresh cluster under `results/db/` that lives as long as the block
and is stopped and deleted however the block ends (Ctrl-C included). A cluster left behind by a
harness that was killed is stopped by the next one (`_sweep`).

The cluster's settings (`SETTINGS`) are stated in one place:
- loopback only, on a free port, its socket in its own folder;
- `synchronous_commit = off`, as TechEmpower's PostgreSQL runs: a commit is answered before its
  WAL reaches the disk, so a crash of the machine may lose the last fraction of a second of
  commits (never corrupt the database). Arena's records are throw-away; what is measured is the
  servers' drivers and pools, not the disk;
- `pg_stat_statements` loaded, so that conformance counts the statements a server sends;
- enough connections for every pool a check opens at once.

Servers connect as the role `arena` (password `arena`) to the database `arena`; the harness asks
its questions as the superuser, so its own statements are never counted as a server's. Two more
roles, members of `arena`, let conformance try the other forms of `ARENA_DB_URL` (spec/README.md):
`TRUSTED_ROLE` logs in without a password (trusted from 127.0.0.1, as a local database often is),
and `ENCODED_ROLE`'s name and password hold characters a URL must percent-encode. The cluster
listens on PostgreSQL's own port, 5432, when that is free, so that a URL without a port reaches it.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import stat
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import psutil
import psycopg

from arena.errors import ArenaError
from arena.host.process import cpu_list, free_port, port_in_use
from arena.impls.catalog import Toolchain
from arena.impls.toolchain import Toolchains
from arena.paths import RESULTS, SPEC

SCHEMA = SPEC / "data" / "record.sql"
SEEDED = "^r[0-9]+$"  # the names record.sql seeds
LOCK_TIMEOUT = "-c lock_timeout=10s"
ROLE = "arena"
TRUSTED_ROLE = "arena_trusted"
ENCODED_ROLE = ("arena user@host", "p@ss:w/rd %?#")  # name, password
DEFAULT_PORT = 5432
SETTINGS = {
    "listen_addresses": "127.0.0.1",
    "synchronous_commit": "off",
    "shared_preload_libraries": "pg_stat_statements",
    "pg_stat_statements.track": "top",
    "max_connections": "200",
}
TOOLCHAIN = Toolchain(
    name="postgresql",
    check=["sh", "-c", "ls /usr/lib/postgresql/*/bin/initdb"],
    install="apt-get install -y postgresql postgresql-contrib",
)
START_TIMEOUT = 30.0
STOP_GRACE = 10.0


class DatabaseError(ArenaError):
    """PostgreSQL could not be prepared, started or asked; the message says which and why."""


def _bin(program: str) -> str:
    """The newest installed PostgreSQL's program."""
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{program}"), key=lambda p: int(Path(p).parts[-3]))
    if not found:
        raise DatabaseError(f"PostgreSQL's {program} is missing: install it with apt-get install -y postgresql")
    return found[-1]


@dataclass
class Cluster:
    """A throw-away PostgreSQL cluster in `folder`, run as the `postgres` user when the harness is root
    (initdb refuses root)."""

    folder: Path
    port: int
    process: subprocess.Popen | None = None
    cores: list[int] = field(default_factory=list)

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def log(self) -> Path:
        return self.folder / "postgres.log"

    def _user(self) -> dict:
        return {"user": "postgres", "group": "postgres"} if os.geteuid() == 0 else {}

    def create(self) -> None:
        if os.geteuid() == 0:
            shut = [p for p in self.folder.parents if p.exists() and not p.stat().st_mode & stat.S_IXOTH]
            if shut:
                raise DatabaseError(
                    f"PostgreSQL runs as the postgres user, which cannot enter {shut[0]}: "
                    "make it searchable (chmod o+x) or pass --db-url"
                )
        self.folder.mkdir(parents=True)
        (self.folder / "owner").write_text(str(os.getpid()))
        password = self.folder / "pwfile"
        password.write_text("postgres\n")
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
            shutil.chown(password, "postgres", "postgres")
        command = [
            _bin("initdb"),
            "--no-sync",
            "--username=postgres",
            f"--pwfile={password}",
            "--auth-local=scram-sha-256",
            "--auth-host=scram-sha-256",
            "--encoding=UTF8",
            "--locale=C",
            "-D",
            str(self.data),
        ]
        done = subprocess.run(command, capture_output=True, text=True, check=False, **self._user())
        if done.returncode != 0:
            raise DatabaseError(f"initdb failed in {self.data}: {(done.stderr or done.stdout).strip()[-300:]}")
        rules = self.data / "pg_hba.conf"  # the first matching line wins: the trusted role's goes first
        rules.write_text(f"host {ROLE} {TRUSTED_ROLE} 127.0.0.1/32 trust\n" + rules.read_text())

    def start(self) -> None:
        settings = [
            arg
            for key, value in {**SETTINGS, "port": str(self.port), "unix_socket_directories": str(self.folder)}.items()
            for arg in ("-c", f"{key}={value}")
        ]
        command = [_bin("postgres"), "-D", str(self.data), *settings]
        if self.cores:
            command = ["taskset", "--cpu-list", cpu_list(self.cores), *command]
        with self.log.open("a") as out:
            self.process = subprocess.Popen(
                command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, **self._user()
            )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise DatabaseError(f"PostgreSQL exited at start (status {self.process.returncode}); see {self.log}")
            with contextlib.suppress(psycopg.OperationalError):
                psycopg.connect(self.admin_url, connect_timeout=2).close()
                return
            time.sleep(0.1)
        raise DatabaseError(f"PostgreSQL did not accept connections within {START_TIMEOUT:.0f} s; see {self.log}")

    def stop(self) -> None:
        """A fast shutdown (SIGINT: every session ended, nothing waited for), then SIGKILL."""
        if self.process is None or self.process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.process.pid, signal.SIGINT)
        try:
            self.process.wait(timeout=STOP_GRACE)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=STOP_GRACE)

    @property
    def admin_url(self) -> str:
        return f"postgresql://postgres:postgres@127.0.0.1:{self.port}/postgres"

    def url(self, database: str) -> str:
        return f"postgresql://{ROLE}:{ROLE}@127.0.0.1:{self.port}/{database}"

    def tree(self) -> list[psutil.Process]:
        if self.process is None or self.process.poll() is not None:
            return []
        with contextlib.suppress(psutil.NoSuchProcess):
            root = psutil.Process(self.process.pid)
            return [root, *root.children(recursive=True)]
        return []


@dataclass
class Database:
    """What a command knows of its database: the servers' URL, the harness's own, and — when the
    harness started it — the cluster, which it may stop and start again (the outage check)."""

    url: str  # ARENA_DB_URL for the servers
    admin_url: str  # the harness's questions
    cluster: Cluster | None = None

    @property
    def own(self) -> bool:
        return self.cluster is not None

    @property
    def described(self) -> str:
        where = urlsplit(self.url)
        return f"PostgreSQL at {where.hostname}:{where.port}{where.path}" + (
            " (started by the harness)" if self.own else " (--db-url)"
        )

    def tree(self) -> list[psutil.Process]:
        """The cluster's processes (none known for the user's own database)."""
        return self.cluster.tree() if self.cluster else []

    def pin(self, cores: list[int]) -> None:
        """Runs the cluster, and every backend it forks later, on these cores."""
        if not self.cluster:
            return
        self.cluster.cores = cores
        for proc in self.cluster.tree():
            with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
                proc.cpu_affinity(cores)

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        try:
            # A question that waits on a lock (VACUUM FULL behind a server's open transaction)
            # fails after LOCK_TIMEOUT rather than hanging the command.
            with psycopg.connect(self.admin_url, autocommit=True, connect_timeout=5, options=LOCK_TIMEOUT) as conn:
                cursor = conn.execute(sql, params)
                return cursor.fetchall() if cursor.description else []
        except psycopg.Error as err:
            raise DatabaseError(f"the harness's question to PostgreSQL failed: {err}".strip()) from err

    def statements(self) -> dict[str, int]:
        """Calls per statement sent by the servers' role since the last `reset_statements`."""
        rows = self.query(
            "SELECT s.query, s.calls FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid "
            "WHERE r.rolname = %s AND s.query NOT LIKE %s",
            (self.role, "%pg_stat_%"),
        )
        return {query: int(calls) for query, calls in rows}

    def reset_statements(self) -> None:
        self.query("SELECT pg_stat_statements_reset()")

    def connections(self) -> int:
        """Client connections of the servers' role open now."""
        rows = self.query(
            "SELECT count(*) FROM pg_stat_activity WHERE usename = %s AND backend_type = 'client backend' "
            "AND pid <> pg_backend_pid()",
            (self.role,),
        )
        return int(rows[0][0])

    @property
    def role(self) -> str:
        return urlsplit(self.url).username or ROLE

    def reset(self) -> None:
        """The table as spec/data/record.sql leaves it: the seeded records, with their values, and no
        other (a measurement's records, or a cut-off iteration's, would collide with the next one's);
        rewritten without the dead rows of the updates before, and, in the harness's own cluster,
        checkpointed. A measurement after a million updates then meets the table, autovacuum and
        checkpoints that the first one met (spec/capacity.md, "Spread")."""
        self.query(f"DELETE FROM record WHERE name !~ '{SEEDED}'")
        self.query(SCHEMA.read_text())
        self.query("VACUUM (FULL, ANALYZE) record")
        if self.own:
            self.query("CHECKPOINT")

    def outage(self) -> None:
        """Stops the cluster (the outage check); `back` starts it again on the same port."""
        if not self.cluster:
            raise DatabaseError("only a database the harness started can be stopped")
        self.cluster.stop()

    def back(self) -> None:
        if self.cluster:
            self.cluster.start()


def _prepare(cluster: Cluster) -> None:
    """The servers' role and database, pg_stat_statements, and spec/data/record.sql."""
    with psycopg.connect(cluster.admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {ROLE} LOGIN PASSWORD '{ROLE}'")
        conn.execute(f"CREATE DATABASE {ROLE} OWNER {ROLE}")
        conn.execute(f"CREATE ROLE {TRUSTED_ROLE} LOGIN IN ROLE {ROLE}")
        name, password = ENCODED_ROLE
        conn.execute(f"CREATE ROLE \"{name}\" LOGIN PASSWORD '{password}' IN ROLE {ROLE}")
    admin = cluster.admin_url.rsplit("/", 1)[0] + f"/{ROLE}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    with psycopg.connect(cluster.url(ROLE), autocommit=True) as conn:
        conn.execute(SCHEMA.read_text())
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("SELECT pg_stat_statements_reset()")  # the schema's statements are not a server's


def _sweep(root: Path) -> None:
    """Stops and deletes clusters whose harness is gone (killed before it could stop them)."""
    for folder in root.glob("*"):
        owner = folder / "owner"
        with contextlib.suppress(OSError, ValueError):
            if psutil.pid_exists(int(owner.read_text())):
                continue
        pidfile = folder / "data" / "postmaster.pid"
        with contextlib.suppress(OSError, ValueError, ProcessLookupError):
            os.kill(int(pidfile.read_text().split()[0]), signal.SIGKILL)
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def database(url: str | None = None, cores: list[int] | None = None) -> Iterator[Database]:
    """The user's database at `url` (or ARENA_DB_URL), or a fresh cluster on `cores` for the block."""
    url = url or os.environ.get("ARENA_DB_URL")
    if url:
        yield Database(url=url, admin_url=url)
        return
    installed = Toolchains().ensure_tool(TOOLCHAIN, "the database of /record")
    if not installed.ok:
        raise DatabaseError(f"{installed.reason}; or pass --db-url")
    root = RESULTS / "db"
    root.mkdir(parents=True, exist_ok=True)
    _sweep(root)
    port = free_port() if port_in_use(DEFAULT_PORT) else DEFAULT_PORT
    cluster = Cluster(root / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}", port, cores=cores or [])
    try:
        try:
            cluster.create()
            cluster.start()
            _prepare(cluster)
        except psycopg.Error as err:
            raise DatabaseError(f"preparing PostgreSQL failed: {err}".strip()) from err
        admin = cluster.admin_url.rsplit("/", 1)[0] + f"/{ROLE}"
        yield Database(url=cluster.url(ROLE), admin_url=admin, cluster=cluster)
    finally:
        cluster.stop()
        shutil.rmtree(cluster.folder, ignore_errors=True)
