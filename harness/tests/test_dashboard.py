"""arena serve: its pages in a real headless Chromium — the runs page lists runs and opens one, the
compare and history pages draw, the console starts the Go server, sends a long operation and shows its response
time — its guard against other sites, and `arena serve` itself stopping every server it started
on Ctrl-C. Screenshots of every page go to results/screenshots/."""

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from contextlib import contextmanager

import psutil
import pytest
from aiohttp import web

from arena.console import Console
from arena.dashboard.app import application
from arena.dashboard.servers import Servers, Started
from arena.engines import loadgen
from arena.errors import UsageError
from arena.host.process import free_port, running
from arena.impls import catalog
from arena.measured.store import Store
from arena.paths import ROOT
from arena.report.render.browser import chromium
from conftest import needs_engine, write_manifest
from test_report_html import SCREENSHOTS, charts_drawn, report_of
from test_rest_measure import measured, task


class FakeRest:
    """The REST kind's report, on the fake scenario the measurements were made with."""

    name, command = "rest", "run"

    def report(self, run, title, measurements, skipped):
        made = report_of(measurements)
        made.title = title
        return made

    def main_metrics(self, m):
        return {"rps": True, "p99_ms": False}


@pytest.fixture(scope="module")
def runs(fake_measurements, tmp_path_factory):
    """Three stored runs: the first repetition, the second, and one of two fake implementations."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    other = catalog.parse(write_manifest(tmp_path_factory.mktemp("servers"), "other"))
    pair = [fake_measurements[0], measured(task(other), loadgen.Loadgen())]
    store = Store()
    names = []
    for i, stored in enumerate([[fake_measurements[0]], [fake_measurements[1]], pair]):
        run = store.start_run(f"dash-{i}", "quick", {"kind": "rest", "scenario": []}, {"cores": 2}, "abc", False)
        for m in stored:
            store.add(run.id, m)
        store.finish_run(run.id)
        names.append(run.name)
    store.close()
    return names


@contextmanager
def dashboard(manifests):
    """The dashboard on a free port, served from a thread; its cleanup stops what it started."""
    port = free_port()
    servers = Servers(manifests, Console())
    app = application(servers, port, {"rest": FakeRest()})
    loop = asyncio.new_event_loop()
    ready = threading.Event()

    async def serve():
        runner = web.AppRunner(app)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        ready.set()
        return runner

    runner = None

    def main():
        nonlocal runner
        asyncio.set_event_loop(loop)
        runner = loop.run_until_complete(serve())
        loop.run_forever()

    thread = threading.Thread(target=main, daemon=True)
    thread.start()
    assert ready.wait(10)
    try:
        yield f"http://127.0.0.1:{port}", servers
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(60)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


def open_by_click(page, selector: str) -> int:
    """Clicks what opens another page and returns the charts that page drew. Every page sets
    chartsDrawn, so waiting without the navigation could read the page being left (CI saw 0)."""
    with page.expect_navigation():
        page.click(selector)
    return charts_drawn(page)


def status_of(url: str, method: str = "GET", headers: dict | None = None, body: bytes | None = None) -> int:
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as err:
        return err.code


@needs_engine
def test_runs_compare_and_console_work_in_chromium(runs):
    go = catalog.select(catalog.load()[0], ["go"])
    with dashboard(go) as (base, servers), chromium() as browser:
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        errors = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        outside = []
        page.on("request", lambda r: None if r.url.startswith(base) else outside.append(r.url))

        page.goto(f"{base}/runs")
        assert page.locator("#runs tbody tr").count() >= 2
        page.fill("#filter", runs[0])
        assert page.locator("#runs tbody tr:visible").count() == 1
        page.screenshot(path=str(SCREENSHOTS / "dashboard-runs.png"), full_page=True)
        assert open_by_click(page, f"text={runs[0]}") == page.locator("canvas[data-chart]").count() > 0

        page.goto(f"{base}/runs")
        page.click("nav >> text=findings")
        assert "Findings of the seed studies" in page.inner_text("main")
        assert page.locator("td.tone").count() >= 60  # a verdict badge per finding

        page.goto(f"{base}/runs")
        page.check(f"input[name=a][value='{runs[0]}']")
        page.check(f"input[name=b][value='{runs[1]}']")
        assert open_by_click(page, "#compare-runs") >= 2  # ratio bars, overlaid percentiles
        assert "B/A" in page.content()
        page.screenshot(path=str(SCREENSHOTS / "dashboard-compare.png"), full_page=True)

        page.goto(f"{base}/runs")
        page.select_option("#one-run", runs[2])
        page.select_option("#impl-a", "fake")
        page.select_option("#impl-b", "other")
        assert open_by_click(page, "#compare-impls") >= 2
        assert f"{runs[2]}:other compared with {runs[2]}:fake" in page.title() + page.inner_text("h1")
        assert "verdict" in page.inner_text("main")

        page.goto(f"{base}/runs")
        page.select_option("#history-impl", "fake")
        assert open_by_click(page, "#show-history") >= 1  # a line per point and number
        assert "the history of fake" in page.inner_text("h1") and runs[0] in page.inner_text("main")
        page.screenshot(path=str(SCREENSHOTS / "dashboard-history.png"), full_page=True)

        page.goto(f"{base}/console")
        page.click("#start")
        page.wait_for_selector("#status:has-text('running at')", timeout=300_000)  # a first start builds go
        page.fill("#long-n", "1000")
        page.click("#long")
        row = page.locator("#log tbody tr").first
        row.wait_for(timeout=30_000)
        cells = row.locator("td").all_inner_texts()
        assert cells[1:4] == ["go", "GET /long-operation?n=1000", "200"], cells
        assert float(cells[4]) > 0 and '"checksum"' in cells[5]
        page.fill("#path", "/hello")
        page.fill("#count", "40")
        page.fill("#rate", "40")
        page.click("#load")
        page.wait_for_selector("#load-stats:has-text('40/40 answered')", timeout=30_000)
        assert "p99" in page.inner_text("#load-stats")
        page.screenshot(path=str(SCREENSHOTS / "dashboard-console.png"), full_page=True)
        started = servers.started["go"].server.process.pid
        assert errors == [] and outside == []
    assert not psutil.pid_exists(started) or psutil.Process(started).status() == psutil.STATUS_ZOMBIE


@needs_engine
def test_the_guard_refuses_other_sites_and_bad_input():
    with dashboard([]) as (base, _):
        port = base.rsplit(":", 1)[1]
        json_post = {"Content-Type": "application/json", "Origin": base}
        assert status_of(f"{base}/runs") == 200
        assert status_of(f"{base}/runs", headers={"Host": f"evil.example:{port}"}) == 403
        assert status_of(f"{base}/runs", headers={"Origin": "http://evil.example"}) == 403
        start = f"{base}/api/servers/go/start"
        assert status_of(start, "POST", {"Content-Type": "application/json"}, b"{}") == 403  # no Origin
        assert status_of(start, "POST", {**json_post, "Origin": "http://evil.example"}, b"{}") == 403
        assert status_of(start, "POST", {**json_post, "Content-Type": "text/plain"}, b"{}") == 403
        assert status_of(start, "POST", json_post, b"not json") == 400
        assert status_of(start, "POST", json_post, b'{"cpus": "many"}') == 400
        assert status_of(start, "POST", json_post, b"{}") == 400  # no such implementation offered
        assert status_of(f"{base}/run/nothing-here") == 400
        assert status_of(f"{base}/compare?a=x") == 400
        assert status_of(f"{base}/history") == 400
        assert status_of(f"{base}/history?impl=cobol") == 400


def test_arena_serve_stops_every_server_it_started_on_ctrl_c(tmp_path):
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "harness")}
    serve = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while status_of_or_none(f"{base}/runs") != 200:
            assert time.monotonic() < deadline and serve.poll() is None
            time.sleep(0.2)
        body = json.dumps({"cpus": 1}).encode()
        answer = urllib.request.urlopen(
            urllib.request.Request(
                f"{base}/api/servers/go/start",
                data=body,
                method="POST",
                headers={"Content-Type": "application/json", "Origin": base},
            ),
            timeout=300,
        )
        started_url = json.load(answer)["url"]
        assert status_of(started_url) == 200
        serve.send_signal(signal.SIGINT)
        output, _ = serve.communicate(timeout=60)
    finally:
        if serve.poll() is None:
            serve.kill()
    assert serve.returncode == 0, output
    assert status_of_or_none(started_url) is None  # the Go server is gone with it
    assert "console: go stopped" in output


def status_of_or_none(url: str) -> int | None:
    try:
        return status_of(url)
    except OSError:
        return None


@pytest.mark.parametrize(
    ("target", "sent_to"),
    [
        ("/hello?x=1", "/hello?x=1"),
        ("/user/get/a%2Fb", "/user/get/a%2Fb"),
        ("//evil.example/x", None),
        ("http://evil.example/", None),
        ("hello", None),
        ("/@evil.example", "/@evil.example"),  # a path on the server, not a user@host
        ("/..//evil.example", "/evil.example"),  # dot segments end on the server's own root
    ],
)
def test_the_console_sends_only_to_the_server_it_started(fake, target, sent_to):
    """Whatever path the page asks for, the request goes to 127.0.0.1 and the port of the server
    the console started, or nowhere (arena/dashboard/servers.py)."""
    servers = Servers([fake], Console())
    with running(fake, 1, free_port()) as server:
        servers.started[fake.name] = Started(server, f"http://127.0.0.1:{server.port}/")
        if sent_to is None:
            with pytest.raises(UsageError):
                servers.url(fake.name, target)
        else:
            made = servers.url(fake.name, target)
            assert (made.host, made.port) == ("127.0.0.1", server.port)
            assert str(made).endswith(sent_to)
