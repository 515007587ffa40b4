from arena.store import Measurement, Store


def measurement(rep: int) -> Measurement:
    return Measurement(
        kind="http", impl="go", experiment="blog-ab", point='{"requests": 10}', cpus=1, repetition=rep,
        versions={"runtime": "x"}, parameters={}, metrics={"rps": 10.0 + rep}, histograms={"*": "HIST"},
        series=[{"t": 0}], server_cpu_s=1.0, server_peak_rss_kb=1000, engine_cpu_s=0.5, flags=[],
    )  # fmt: skip


def test_measurements_survive_and_name_what_is_done(tmp_path):
    db = Store(tmp_path / "a.sqlite")
    run = db.start_run("r1", "quick", {"repeat": 2}, {"cores": 2}, "abc", False)
    db.add(run, measurement(0))
    db.close()

    again = Store(tmp_path / "a.sqlite")
    assert again.last_unfinished("http")["name"] == "r1"
    assert again.done_keys(run) == {("http", "go", "blog-ab", '{"requests": 10}', 1, 0)}
    (stored,) = again.measurements(run)
    assert stored == measurement(0)
    again.finish_run(run)
    assert again.last_unfinished("http") is None


def test_only_one_process_measures_at_a_time(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    import pytest

    import arena
    from arena.store import StoreBusy

    path = tmp_path / "a.sqlite"
    code = (
        "import pathlib, time\n"
        "from arena.store import Store\n"
        f"store = Store(pathlib.Path({str(path)!r}))\n"
        "store.claim()\n"
        "print('held', flush=True)\n"
        "time.sleep(30)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(arena.__file__).parents[1])}
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(StoreBusy, match=f"pid {holder.pid}"):
            Store(path).claim()
    finally:
        holder.kill()
        holder.wait()
    Store(path).claim()  # free again once the holder is gone
