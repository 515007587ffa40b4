"""Every form of `ARENA_DB_URL` the contract accepts (spec/README.md), as PostgreSQL's own clients
accept it (libpq's connection URIs): either scheme, with or without a password, with or without a
port, and with percent-encoded parts. Each form is one check: the server started with it must serve
a seeded record from `/record`.

The main checks already use `postgresql://user:password@host:port/db`; the other forms need roles
and a port only the harness's own cluster has (arena/host/database.py): with the user's database
(`--db-url`) those forms are skipped, with the reason, and the two that need nothing of the
database (the other scheme, every part percent-encoded) are tried on it.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from urllib.parse import quote, unquote, urlsplit

from arena.checks.client import Client
from arena.checks.expect import Context
from arena.checks.records import SEEDED
from arena.checks.result import CheckResult, Problem, Severity
from arena.host import cores
from arena.host.database import DEFAULT_PORT, ENCODED_ROLE, TRUSTED_ROLE, Database
from arena.host.process import ServerError, free_port, running
from arena.impls.catalog import Manifest


@dataclass(frozen=True)
class Form:
    name: str
    url: str = ""
    skipped: str = ""  # why this form cannot be tried against this database


def _every_char_encoded(text: str) -> str:
    return "".join(f"%{byte:02X}" for byte in text.encode())


def forms(db: Database) -> list[Form]:
    """The forms to try on `db`, built from the URL the servers are given."""
    given = urlsplit(db.url)
    user, password = unquote(given.username or ""), unquote(given.password or "")
    where, database = f"{given.hostname}:{given.port or DEFAULT_PORT}", unquote(given.path.lstrip("/"))
    other = "postgres" if given.scheme == "postgresql" else "postgresql"
    found = [
        Form(f"{other}:// scheme", f"{other}://{given.netloc}{given.path}"),
        Form(
            "user, password and database percent-encoded",
            f"{given.scheme}://{_every_char_encoded(user)}:{_every_char_encoded(password)}@{where}/"
            + _every_char_encoded(database),
        ),
    ]
    if not db.own:
        reason = "needs the harness's own PostgreSQL (its roles and port): run without --db-url"
        return [*found, Form("without a password", skipped=reason), Form("without a port", skipped=reason)]
    name, secret = ENCODED_ROLE
    found += [
        Form(
            "name and password with @ : / % ? # and a space",
            f"postgresql://{quote(name, safe='')}:{quote(secret, safe='')}@{where}/{database}",
        ),
        Form("without a password (a trusted role)", f"postgresql://{TRUSTED_ROLE}@{where}/{database}"),
    ]
    if given.port == DEFAULT_PORT:
        plain = f"{quote(user, safe='')}:{quote(password, safe='')}@{given.hostname}"
        found.append(Form("without a port (5432)", f"{given.scheme}://{plain}/{quote(database, safe='')}"))
    else:
        taken = (
            f"another program holds port {DEFAULT_PORT}, so the harness's PostgreSQL listens on port {given.port},"
            " which a URL without a port cannot reach: this form is not tried (docs/commands.md)"
        )
        found.append(Form("without a port (5432)", skipped=taken))
    return found


def check_form(manifest: Manifest, budget: list[int], settings: dict[str, str], form: Form) -> CheckResult:
    """The server started with `form`'s URL serves a seeded record."""
    name = f"ARENA_DB_URL {form.name}"
    if form.skipped:
        return CheckResult(name, 0.0, skipped=form.skipped)
    started, ctx = time.monotonic(), Context(client=Client(0), hello=b"")
    path = f"/record?name={SEEDED['name']}"
    try:
        with running(manifest, len(budget), free_port(), {**settings, "ARENA_DB_URL": form.url}, budget) as server:
            ctx.client = Client(server.port)
            ctx.expect_json(ctx.client.call("GET", path), SEEDED)
    except ServerError as err:
        ctx.problems.append(Problem(Severity.FAIL, f"started with ARENA_DB_URL={form.url}: {err}"))
    except OSError as err:
        ctx.fail(f"GET {path} with ARENA_DB_URL={form.url}", "200", f"{type(err).__name__}: {err}")
    return CheckResult(name, time.monotonic() - started, ctx.problems)


def check_forms(
    manifest: Manifest, budget: list[int], db: Database, settings: dict[str, str], report: Callable[[CheckResult], None]
) -> list[CheckResult]:
    """Every form, reported in order. A form's start times nothing, so the forms run side by side, as
    many at once as the budget fits in the machine's cores, each start on cores of its own: a JVM's
    five starts took 17-30 s one after another on one core."""
    width, machine = len(budget), cores.machine_cores()  # a budget fits in the machine (cores.check_budget)
    slots: queue.SimpleQueue[list[int]] = queue.SimpleQueue()
    for first in range(0, len(machine) - width + 1, width):
        slots.put(machine[first : first + width])

    def check(form: Form) -> CheckResult:
        taken = slots.get()
        try:
            return check_form(manifest, taken, settings, form)
        finally:
            slots.put(taken)

    with ThreadPoolExecutor(max_workers=len(machine) // width) as pool:
        results = list(pool.map(check, forms(db)))
    for result in results:
        report(result)
    return results
