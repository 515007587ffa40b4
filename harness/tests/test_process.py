import os
import socket
import subprocess
import sys
import time

import psutil
import pytest

from arena.checks import records
from arena.host import steal
from arena.host.busy import busy_others
from arena.host.process import DB_POOL, Sampler, Server, ServerError, contract_env, free_port, running, tree_of
from arena.impls import catalog
from conftest import write_manifest


def test_running_server_gets_contract_env_and_budget(fake):
    port = free_port()
    with running(fake, 1, port) as server:
        assert server.alive()
        log = server.log.read_text()
    assert f"fake server on {port} cpus 1 budget budget-1" in log
    assert not server.alive()


def test_a_budget_past_the_default_pool_gets_a_connection_a_core():
    """A server of one process a core refuses a pool smaller than its processes: past the default's
    cores, every server is given one a core, unless the command set the pool itself."""
    assert "ARENA_DB_POOL" not in contract_env(8000, DB_POOL)
    assert contract_env(8000, 16)["ARENA_DB_POOL"] == "16"
    assert contract_env(8000, 16, {"ARENA_DB_POOL": "32"})["ARENA_DB_POOL"] == "32"
    assert [records.pool(cpus) for cpus in (1, 2, 3, 4, 16)] == [3, 3, 3, 4, 16]


def test_stop_ends_the_whole_tree(tmp_path):
    manifest = catalog.parse(write_manifest(tmp_path, "tree", extra_env=', FAKE_CHILD = "1"'))
    with running(manifest, 1, free_port()) as server:
        time.sleep(0.3)
        tree = server.tree()
        assert any(p.name() == "sleep" for p in tree)
    assert not any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in tree)


def test_early_exit_is_reported_with_the_log_tail(tmp_path):
    manifest = catalog.parse(write_manifest(tmp_path, "crash", extra_env=', FAKE_CRASH = "1"'))
    with (
        pytest.raises(ServerError, match=r"exited with status 3 before it was ready") as err,
        running(manifest, 1, free_port()),
    ):
        pass
    assert "crashing on purpose" in str(err.value)


def test_a_port_in_use_is_refused(fake):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        with pytest.raises(ServerError, match="already in use"), running(fake, 1, busy.getsockname()[1]):
            pass


def test_not_ready_in_time_is_an_error_and_the_process_is_stopped(tmp_path):
    manifest = catalog.parse(write_manifest(tmp_path, "slow", ready_timeout=0.2))
    server = Server(manifest, 1, free_port(), [0])
    server.start()
    try:
        with pytest.raises(ServerError, match="did not answer GET / within"):
            server.wait_ready(timeout=0.01)
    finally:
        server.stop()
    assert not server.alive()


def test_the_sampler_cuts_cpu_and_memory_to_a_window_of_its_block():
    """A process idle for 0.6 s, busy for 0.6 s, idle again: the busy window has the CPU time, the
    idle one next to none (a ratio within one run, not a timing)."""
    script = "import time; time.sleep(0.6); t = time.time()\nwhile time.time() - t < 0.6: pass\ntime.sleep(0.6)"
    process = subprocess.Popen([sys.executable, "-c", script])

    class Tree:  # the one part of a Server the sampler uses
        def tree(self):
            return tree_of(process)

    try:
        began = time.time()
        with Sampler(Tree(), interval=0.05) as sampler:
            process.wait()
    finally:
        process.kill()
    idle_cpu, _ = sampler.window(began + 0.1, began + 0.5)
    busy_cpu, busy_rss = sampler.window(began + 0.7, began + 1.1)
    assert busy_cpu > 5 * max(idle_cpu, 0.01), (idle_cpu, busy_cpu)
    assert busy_cpu <= sampler.cpu_s and 1000 < busy_rss <= sampler.peak_rss_kb


def test_the_time_the_hypervisor_took_is_read_per_core_and_cut_to_a_window(tmp_path, monkeypatch):
    """/proc/stat's steal column, summed over the cores asked for (a guest's other cores and the
    total line left out); over a window, the share of those cores' time it grew by."""
    stat = tmp_path / "stat"
    stat.write_text("cpu  9 9 9 9 9 9 9 400 0 0\ncpu0 1 2 3 4 5 6 7 100 0 0\ncpu1 1 2 3 4 5 6 7 300 0 0\nintr 5 6\n")
    monkeypatch.setattr(steal, "STAT", stat)
    assert steal.stolen_s([1]) == pytest.approx(300 * steal.TICK_S)
    assert steal.stolen_s([0, 1]) == pytest.approx(400 * steal.TICK_S)
    sampler = Sampler(None, cores=[0, 1])
    sampler.samples = [(100.0, 0.0, 0, 5.0), (110.0, 0.0, 0, 6.0)]  # 1 s stolen over 10 s of two cores
    assert sampler.stolen(102.0, 104.0) == pytest.approx(0.2 / (2.0 * 2))
    assert Sampler(None).stolen(102.0, 104.0) is None


def test_another_process_busy_on_the_machine_is_named_with_its_share_of_a_core():
    """A process outside the run's own (a server left from an earlier experiment, say) that keeps a
    core busy is named, busiest first; the run's own processes are not."""
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.2)
        found = busy_others({os.getpid()})
        mine = busy_others({os.getpid(), hog.pid})
    finally:
        hog.kill()
        hog.wait()
    named = next(b for b in found if b.pid == hog.pid)
    assert named.share > 0.5 and named.line().startswith(f"{named.name} (pid {hog.pid}) ")
    assert all(b.pid != hog.pid for b in mine)
