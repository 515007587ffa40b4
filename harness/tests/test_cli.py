import signal
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli import main as cli


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["verify", "--cpus", "99"], "--cpus 99: this machine gives Arena"),
        (["verify", "--cpus", "one"], "give core counts such as 1 or 1,2"),
        (["verify", "no-such-impl"], "unknown implementation(s): no-such-impl"),
        (["start", "go", "--set", "BCRYPT=4"], "expected ARENA_NAME=value"),
        (["start", "go", "--port", "70000"], "--port 70000"),
        (["micro", "--bench", "pingpang"], "unknown bench(es): pingpang (known: pingping, pingpong"),
        (["micro", "--impl", "cobol"], "unknown implementation(s): cobol"),
        (["micro", "--cpus", "99"], "--cpus 99: this machine gives Arena"),
        (["micro", "--repeat", "0"], "--repeat 0: choose 1..100"),
        (["micro", "--resume", "no-such-run"], "no micro run to resume (no-such-run)"),
        (["list", "cobol"], "unknown implementation(s): cobol"),
        (["run", "--engine", "locust", "--scenario", "blog-ab"], "Locust runs closed models only, not blog-ab (fixed)"),
        (["run", "--engine", "locust", "--scenario", "honours-basic", "thesis-userinfo"], "not honours-basic (open)"),
        (["run", "--workers", "2"], "--workers and --remote-workers are Locust's"),
        (["run", "--engine", "locust", "--remote-workers", "--scenario", "thesis-userinfo"], "needs --workers N"),
        (["run", "--engine", "locust", "--workers", "0"], "--workers 0: choose 1..64"),
        (["run", "--host", "10.0.0.1"], "loadgen sends only to loopback"),
        (["run", "--engine", "locust", "--host", "example.org"], "--host example.org: an IP address"),
        (["worker", "--master", "here:5557"], "--master here:5557: an IP address"),
        (["worker", "--master", "127.0.0.1:99999"], "a port in 1..65535"),
        (["verify", "--fuzz", "--examples", "0"], "--examples 0: choose 1..10000"),
        (["bench-engine", "--open", "0"], "--open: give rates a second in 1..1,000,000"),
    ],
)
def test_bad_input_is_one_clear_line_and_status_2(argv, message, capsys):
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err


def test_unknown_command_is_an_argparse_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["fly"])
    assert exit_.value.code == 2


def test_measured_budgets_leave_a_core_for_the_engine(monkeypatch):
    from arena.host import cores

    for count, budgets in [(1, [1]), (2, [1]), (4, [1, 2]), (8, [1, 2, 4]), (9, [1, 2, 4, 8])]:
        monkeypatch.setattr(cores, "machine_cores", lambda n=count: list(range(n)))
        assert cores.measured_budgets(None) == budgets
    assert cores.measured_budgets("1,2") == [1, 2]


def test_a_missing_engine_toolchain_is_one_line_and_status_1(monkeypatch, capsys):
    from arena.engines import loadgen
    from arena.impls.catalog import Toolchain

    missing = Toolchain("rust-2024", ["false"], None)  # not there, and nothing can install it
    monkeypatch.setattr(loadgen, "CARGO", missing)
    assert cli.main(["run", "--impl", "go", "--scenario", "blog-ab", "--repeat", "1"]) == 1
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0, err
    assert "arena: the load engine cannot be built: rust-2024 is missing" in err
    assert "Traceback" not in err


STOPPING = """
import time
from arena.cli.main import handle_stop_signals
handle_stop_signals()
try:
    print("ready", flush=True)
    time.sleep(60)
except KeyboardInterrupt:
    print("stopping", flush=True)
    time.sleep(1)  # stopping servers: what a second signal must not cut short
    print("stopped", flush=True)
"""


def test_signals_after_the_first_do_not_cut_its_stopping_short():
    here = Path(cli.__file__).parents[2]
    child = subprocess.Popen([sys.executable, "-c", STOPPING], cwd=here, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "ready\n"
        child.send_signal(signal.SIGTERM)
        assert child.stdout.readline() == "stopping\n"
        for again in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            child.send_signal(again)
        assert child.stdout.readline() == "stopped\n"
        assert child.wait(timeout=10) == 0
    finally:
        child.kill()
        child.wait()
