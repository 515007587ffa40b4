"""Locust across hosts, for real: the server and the master in one network namespace, two workers
in two others, joined by veth pairs on a bridge of private addresses that exist only for this test
(10.199.0.0/24), bounded by the scenario's length and torn down afterwards. `arena run` measures
thesis-userinfo's quick point with `--remote-workers`, and `arena worker` runs in each worker's
namespace; nothing else is reachable from them. Skipped, with the reason, where the machine does
not allow network namespaces (not root, no `ip`)."""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys

import pytest

from arena.measured.store import Store
from arena.paths import ROOT
from arena.rest.result import RestResult

SUBNET = "10.199.0"
MASTER = f"{SUBNET}.1"
RUN_TIMEOUT_S = 600


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=10)


def why_not() -> str:
    """Why this machine cannot run the test, or ''."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    if shutil.which("ip") is None:
        return "no ip command (iproute2)"
    probe = f"arena-probe-{os.getpid()}"
    try:
        ip("netns", "add", probe)
        ip("netns", "del", probe)
    except (subprocess.CalledProcessError, OSError) as err:
        return f"ip netns add fails here: {err}"
    return ""


@contextlib.contextmanager
def namespaces():
    """(server namespace, [worker namespaces]), wired to one bridge in the server's."""
    tag = os.getpid() % 100000
    server, workers = f"arena{tag}-srv", [f"arena{tag}-w1", f"arena{tag}-w2"]
    made = []
    try:
        for name in (server, *workers):
            ip("netns", "add", name)
            made.append(name)
            ip("-n", name, "link", "set", "lo", "up")
        ip("-n", server, "link", "add", "br0", "type", "bridge")
        ip("-n", server, "addr", "add", f"{MASTER}/24", "dev", "br0")
        ip("-n", server, "link", "set", "br0", "up")
        for k, worker in enumerate(workers, start=1):
            near, far = f"a{tag}v{k}", f"a{tag}w{k}"
            ip("link", "add", near, "type", "veth", "peer", "name", far)
            ip("link", "set", near, "netns", server)
            ip("link", "set", far, "netns", worker)
            ip("-n", server, "link", "set", near, "master", "br0", "up")
            ip("-n", worker, "addr", "add", f"{SUBNET}.{k + 1}/24", "dev", far)
            ip("-n", worker, "link", "set", far, "up")
        yield server, workers
    finally:
        for name in made:  # a namespace takes its veth ends with it
            subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=10)


def arena(namespace: str, *args: str, **popen) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "harness")}
    command = ["ip", "netns", "exec", namespace, sys.executable, "-m", "arena", *args]
    return subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True, **popen
    )


@pytest.mark.skipif(bool(reason := why_not()), reason=reason or "network namespaces work here")
def test_a_run_with_its_workers_on_two_other_hosts():
    with namespaces() as (server, workers):
        started = [arena(ns, "worker", "--master", MASTER) for ns in workers]
        try:
            run = arena(
                server,
                "run",
                "--engine",
                "locust",
                "--workers",
                "2",
                "--remote-workers",
                "--host",
                MASTER,
                "--impl",
                "go",
                "--scenario",
                "thesis-userinfo",
                "--repeat",
                "1",
            )
            output, _ = run.communicate(timeout=RUN_TIMEOUT_S)
        finally:
            for worker in started:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(worker.pid, signal.SIGTERM)
                worker.wait(timeout=30)
        assert run.returncode == 0, output[-3000:]

    store = Store()
    last = store.last_run()
    (m,) = [m for m in store.measurements(last.id) if m.kind == "rest"]
    store.close()
    assert m.measured and json.loads(m.point) == {"engine": "locust", "users": 1000}, m.reason
    assert isinstance(m.payload, RestResult)
    assert m.parameters["engine"]["target"].startswith(f"http://{MASTER}:")
    workers = m.payload.engine_workers
    assert len(workers) == 2 and all(w["cpu_s"] > 0 for w in workers)
    assert m.payload.metrics["ok_requests"] > 0 and m.payload.histograms["*"].startswith("HISTF")
    assert m.versions["engine"].startswith("locust ")
