"""Faults during a run, with real processes on 127.0.0.1: the Go server, the load engine and the
run's PostgreSQL killed mid-measurement, `./arena run` stopped by SIGTERM and SIGHUP, a results
disk that fills up, and reports and the dashboard reading the store while a run writes it. Each
test asserts what was stored (outcome, flags, reason) and that no process it caused is left."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest

from arena import lifecycle
from arena.cli.measuring import kinds
from arena.console import Console
from arena.engines import loadgen
from arena.frame.starts import Starts, start_settings
from arena.host.process import free_port
from arena.impls import catalog
from arena.impls.prepare import prepare
from arena.impls.toolchain import Toolchains
from arena.measured import store
from arena.measured.measurement import Outcome
from arena.measured.store import Store, StoreError
from arena.paths import ROOT
from arena.rest import measure
from conftest import needs_engine
from test_lifecycle import Counting, ran
from test_rest_measure import task

RUN_TIMEOUT_S = 300


@pytest.fixture(scope="module")
def go() -> catalog.Manifest:
    (manifest,) = catalog.select(catalog.load()[0], ["go"])
    built = prepare(manifest, Toolchains(say=lambda _: None), Console())
    if not built.ok:
        pytest.skip(f"the Go server cannot be built here: {built.reason}")
    return manifest


def gone(pids: list[int]) -> bool:
    """Whether none of these processes runs any more (a zombie has ended; its parent reaps it)."""
    alive = []
    for pid in pids:
        with contextlib.suppress(psutil.NoSuchProcess):
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.append(pid)
    return not alive


def settle(pids: list[int], timeout: float = 10) -> bool:
    """`gone`, allowing orphans (PostgreSQL's backends after their postmaster) a moment to notice."""
    deadline = time.monotonic() + timeout
    while not gone(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return gone(pids)


def when(check: Callable[[], object], timeout: float = 60, every: float = 0.05) -> object:
    """The first true value of `check`, polled; fails the test after `timeout`."""
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, f"waited {timeout} s for {check.__name__}"
        time.sleep(every)
    return found


def children_named(name: str, of: int = os.getpid()) -> list[psutil.Process]:
    found = []
    for proc in psutil.Process(of).children(recursive=True):
        with contextlib.suppress(psutil.NoSuchProcess):
            if proc.name() == name:
                found.append(proc)
    return found


def kill_when_measuring(target: Callable[[], int], after_s: float) -> Callable[[str], None]:
    """A `phase` callback that SIGKILLs the process `target` names `after_s` into warm-up and measurement."""

    def phase(name: str) -> None:
        if name.startswith("warm-up"):
            threading.Timer(after_s, lambda: os.kill(target(), signal.SIGKILL)).start()

    return phase


# Far more than the half second before the kill can answer, however fast the machine: the engine and
# the server must still be at work when one of them is killed. On kept-alive connections: after a
# server's death, each connection it closed lies in TIME_WAIT, and the engine's new connections that
# meet one are refused only after about 12 ms (after 10,000 requests each on a connection of its own,
# the test lasted 55 s here).
KILLED_REQUESTS = 200_000


# --- 1. the server killed ---------------------------------------------------------------------


@needs_engine
def test_a_server_killed_mid_measurement_is_stored_crashed_and_the_next_point_gets_a_new_start(go):
    killed_point, next_point = task(go, KILLED_REQUESTS, path="/", keep_alive=True), task(go, 300, path="/")
    starts = Starts(start_settings([killed_point.point, next_point.point]))
    try:
        first_pid = None

        def server() -> int:
            nonlocal first_pid
            first_pid = starts.current.server.process.pid
            return first_pid

        m = measure.measure(killed_point, loadgen.Loadgen(), None, starts, phase=kill_when_measuring(server, 0.5))
        assert "crashed" in m.flags, (m.outcome, m.reason, m.flags)
        # The engine went on against a closed port: what it saw is stored, every failure a refused connection.
        assert m.outcome is Outcome.MEASURED and m.payload.metrics["error_kinds"]["connect"] > 0
        assert "errors" in m.flags
        after = measure.measure(next_point, loadgen.Loadgen(), None, starts)
        assert after.outcome is Outcome.MEASURED and after.flags == [], (after.reason, after.flags)
        assert after.payload.points_before == 0 and starts.current.server.process.pid != first_pid
        assert after.payload.metrics["ok_requests"] == 300
        last = starts.current.server.process.pid
    finally:
        starts.close()
    assert settle([first_pid, last])


# --- 2. the load engine killed ----------------------------------------------------------------


@needs_engine
def test_a_killed_engine_fails_the_point_with_the_reason_not_as_a_crash_and_the_run_goes_on(go):
    killed_point, next_point = task(go, KILLED_REQUESTS, path="/"), task(go, 300, path="/")
    starts = Starts(start_settings([killed_point.point, next_point.point]))
    try:

        def engine() -> int:
            (found,) = children_named("loadgen")
            return found.pid

        m = measure.measure(killed_point, loadgen.Loadgen(), None, starts, phase=kill_when_measuring(engine, 0.5))
        assert m.outcome is Outcome.FAILED and m.payload is None
        assert m.reason == "the engine was killed by SIGKILL while it measured"
        assert "crashed" not in m.flags  # the server was alive: the engine died, not the server
        assert starts.current is None  # its server was stopped all the same: nothing measures on it again
        after = measure.measure(next_point, loadgen.Loadgen(), None, starts)
        assert after.outcome is Outcome.MEASURED and after.payload.metrics["ok_requests"] == 300, after.reason
        assert after.payload.points_before == 0
    finally:
        starts.close()
    assert settle([p.pid for p in children_named("loadgen")])


# --- `./arena run` in a subprocess ------------------------------------------------------------


# Runs a command with SIGHUP at its default disposition: an ignored signal stays ignored through
# exec, so under nohup the run would rightly go on after SIGHUP (as the README promises), and a test
# of how it stops must not depend on what its caller happens to ignore.
WITH_DEFAULT_SIGHUP = [
    sys.executable,
    "-c",
    "import os, signal, sys\nsignal.signal(signal.SIGHUP, signal.SIG_DFL)\nos.execv(sys.argv[1], sys.argv[1:])",
]


@contextlib.contextmanager
def arena_run(*args: str) -> Iterator[subprocess.Popen]:
    """`./arena run ARGS` on loopback, writing to the tests' results folder; every process it
    started is killed afterwards should the test fail before it ended them itself."""
    command = [*WITH_DEFAULT_SIGHUP, str(ROOT / "arena"), "run", "--impl", "go", "--cpus", "1", *args]
    run = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        yield run
    finally:
        if run.poll() is None:
            left = [run.pid, *(p.pid for p in psutil.Process(run.pid).children(recursive=True))]
            for pid in left:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            run.communicate()


def stored(started_after: float) -> tuple[store.Run, list] | None:
    """The run a test's `./arena run` started, and its measurements, once the run is in the store."""
    reader = Store()
    try:
        run = reader.last_run()
        if run is None or run.started < started_after:
            return None
        return run, reader.measurements(run.id)
    finally:
        reader.close()


def first_measurement(started_after: float) -> tuple[store.Run, list]:
    def first_stored():
        found = stored(started_after)
        return found if found and found[1] else None

    return when(first_stored, timeout=RUN_TIMEOUT_S, every=0.2)


# --- 3. the database killed -------------------------------------------------------------------


@needs_engine
def test_a_database_killed_mid_run_fails_the_points_that_need_it_keeps_the_rest_and_ends_cleanly(go):
    began = time.time()
    with arena_run("--scenario", "records-crud", "honours-basic", "--repeat", "1") as run:
        first_measurement(began)  # records-crud, the busiest point, is stored; honours-basic comes next
        engine = when(lambda: children_named("loadgen", of=run.pid), timeout=RUN_TIMEOUT_S)
        (postmaster,) = [p for p in psutil.Process(run.pid).children() if p.name() == "postgres"]
        cluster = [postmaster.pid, *(p.pid for p in postmaster.children(recursive=True))]
        postmaster.kill()  # as the OOM killer would, mid-measurement of honours-basic
        tree = [p.pid for p in psutil.Process(run.pid).children(recursive=True)] + [p.pid for p in engine]
        out, err = run.communicate(timeout=RUN_TIMEOUT_S)
    assert run.returncode == 0, err[-2000:]
    assert "Traceback" not in out + err
    done, measurements = stored(began)
    assert done.finished is not None
    by_rate = {m.point: m for m in measurements if m.experiment == "honours-basic"}
    (crud,) = [m for m in measurements if m.experiment == "records-crud"]
    assert crud.outcome is Outcome.MEASURED, crud.reason  # stored before the database died, and kept
    during, after = by_rate['{"iterations": 75, "rate": 50}'], by_rate['{"iterations": 10, "rate": 10}']
    assert during.outcome is Outcome.FAILED and during.reason.startswith(
        "the database stopped answering during the measurement (PostgreSQL at 127.0.0.1:"
    ), during.reason
    assert during.payload is not None  # what the engine saw while it lasted is kept with the failure
    assert after.outcome is Outcome.FAILED and "PostgreSQL failed" in after.reason, after.reason
    assert "crashed" not in during.flags + after.flags  # the server lived; its database died
    assert "honours-basic" in out and "FAILED" in out  # the report shows the failures, with their reasons
    assert settle(cluster + tree)


# --- 4. SIGTERM and SIGHUP --------------------------------------------------------------------


@needs_engine
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_run_stopped_by_a_signal_keeps_its_measurements_says_how_to_resume_and_leaves_no_process(go, signum):
    began = time.time()
    with arena_run("--scenario", "honours-basic", "--repeat", "2") as run:
        first_measurement(began)
        tree = [p.pid for p in psutil.Process(run.pid).children(recursive=True)]
        assert tree, "the run's server, database and engine are its children"
        run.send_signal(signum)
        out, err = run.communicate(timeout=60)
    assert run.returncode == 130, err[-2000:]
    assert "Traceback" not in out + err
    done, measurements = stored(began)
    assert done.finished is None and done.interrupted is not None and measurements
    assert all(m.outcome is Outcome.MEASURED for m in measurements), [m.reason for m in measurements]
    assert len(measurements) < 4  # it stopped before the end
    assert (
        f"interrupted: {len(measurements)} measurement(s) of run {done.name} are stored; "
        f"continue with ./arena run --resume {done.name}"
    ) in out
    assert settle(tree)


# --- 5. the results disk full -----------------------------------------------------------------


@contextlib.contextmanager
def small_disk(folder: Path, size: str = "2m") -> Iterator[Path]:
    """A tmpfs of `size` mounted on `folder`: a real file system that fills up (skips the test where
    mounting is not allowed)."""
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs for a full disk here: {mounted.stderr.strip() or 'mount failed'}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "--lazy", str(folder)], check=True)


def fill(folder: Path) -> Path:
    """Fills the disk of `folder` to the last byte with one file, returned."""
    filler = folder / "filler"
    with contextlib.suppress(OSError), filler.open("wb", buffering=0) as out:
        while True:
            out.write(b"\0" * 4096)
    return filler


class FillingTheDisk(Counting):
    """The counting kind, whose disk another program fills while it measures task `full_at`."""

    def __init__(self, manifest, disk: Path, full_at: int) -> None:
        super().__init__(manifest)
        self.disk, self.full_at = disk, full_at

    def measure(self, task, phase):
        if task.point.i == self.full_at:
            fill(self.disk)
        return super().measure(task, phase)


def test_a_full_results_disk_is_one_line_keeps_what_was_stored_and_the_run_resumes_once_freed(
    fake, tmp_path, monkeypatch
):
    with small_disk(tmp_path / "results") as disk:
        monkeypatch.setattr(store, "RESULTS", disk)
        with pytest.raises(StoreError) as raised:
            ran(FillingTheDisk(fake, disk, full_at=2))
        line = str(raised.value)
        assert "\n" not in line and line == raised.value.line()
        assert "cannot store a measurement: database or disk is full" in line
        assert "2 measurement(s) of run" in line and "continue with ./arena counting --resume" in line

        (disk / "filler").unlink()
        with contextlib.closing(sqlite3.connect(disk / "arena.sqlite")) as db:
            assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        kept = Store()
        assert [m.payload.value for m in kept.measurements(kept.last_run().id)] == [0, 1]
        kept.close()
        monkeypatch.setattr(lifecycle, "RESULTS", disk)
        assert ran(Counting(fake), resume="last") == 0
        again = Store()
        assert [m.payload.value for m in again.measurements(again.last_run().id)] == [0, 1, 2, 3]
        again.close()


# --- 6. reading while a run writes ------------------------------------------------------------


@contextlib.contextmanager
def dashboard() -> Iterator[str]:
    """`arena serve` on a free port of loopback, stopped with Ctrl-C afterwards."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "harness")}
    serve = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        when(lambda: answer(f"{base}/runs")[0] == 200, timeout=30, every=0.2)
        yield base
    finally:
        serve.send_signal(signal.SIGINT)
        serve.wait(timeout=30)


def answer(url: str) -> tuple[int | None, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()
    except OSError:
        return None, ""


@needs_engine
def test_reports_and_the_dashboard_read_the_store_while_a_run_writes_it(go, capsys):
    Store().close()  # the store exists before its readers and the run open it
    began = time.time()
    with dashboard() as base, arena_run("--scenario", "honours-basic", "--repeat", "1") as run:
        # A reader that holds one snapshot for the whole run, as a long report would: the run's
        # writes must not wait for it.
        held = sqlite3.connect(store.RESULTS / "arena.sqlite")
        held.execute("BEGIN")
        held.execute("SELECT count(*) FROM measurements").fetchone()
        name = when(lambda: (found := stored(began)) and found[0].name, timeout=RUN_TIMEOUT_S, every=0.2)
        reports, pages = 0, []
        while run.poll() is None:
            assert lifecycle.report(name, kinds(), Console()) == 0
            reports += 1
            pages += [answer(f"{base}/runs"), answer(f"{base}/run/{name}")]
        held.rollback()
        held.close()
        out, err = run.communicate()
    assert run.returncode == 0, err[-2000:]
    assert "locked" not in out + err + capsys.readouterr().err
    assert reports >= 1 and pages
    assert all(status == 200 for status, _ in pages), [body[:300] for status, body in pages if status != 200]
    done, measurements = stored(began)
    assert done.finished is not None and len(measurements) == 2
    assert all(m.outcome is Outcome.MEASURED for m in measurements), [m.reason for m in measurements]
