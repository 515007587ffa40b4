"""`arena serve`: the dashboard, an aiohttp application on 127.0.0.1.

Pages: runs (every stored run, to filter and open), run (its report.html, made afresh from the
store), compare (two runs, or two implementations of one run) and console (the honours report's
page: a tab per implementation, started and stopped from the page, with requests and a small load
sent to it and every answer logged with its response time).

Only this dashboard's own pages may use it: a request whose Host is not this address (DNS
rebinding) or whose Origin is another site's is refused with 403, and every change (POST) must come
with this origin's Origin and a JSON body, which no other site can send without the browser
asking first. The console sends only to servers it started (dashboard/servers.py), and stops them
all when the dashboard stops, Ctrl-C included.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from dataclasses import dataclass, field

from aiohttp import ClientError, ClientSession, ClientTimeout, TCPConnector, web

from arena.dashboard import pages
from arena.dashboard.servers import Servers
from arena.errors import ArenaError, UsageError
from arena.kind import Kind

METHODS = ("GET", "PUT", "POST", "DELETE")
EXCERPT = 300  # characters of a response body the console shows
TIMEOUT_S = 30  # one request's bound (a long operation of the default n takes well under it)
MAX_COUNT, MAX_RATE = 10_000, 1_000  # "send N at R per second": bounded in count and time
SERVERS = web.AppKey("servers", Servers)
CLIENT = web.AppKey("client", ClientSession)
LOADS = web.AppKey("loads", dict)
KINDS = web.AppKey("kinds", dict)


@dataclass
class Load:
    """A console's "send N at R per second": an open schedule, each answer kept as it comes."""

    count: int
    rate: float
    started: float = field(default_factory=time.monotonic)
    answers: list[tuple[float, float, int]] = field(default_factory=list)  # (s since start, ms, status)
    done: bool = False

    def summary(self, since: int) -> dict:
        times = sorted(ms for _, ms, _ in self.answers)
        shown = {"count": self.count, "answered": len(times), "done": self.done, "answers": self.answers[since:]}
        if times:
            shown |= {
                "mean_ms": statistics.fmean(times),
                "p50_ms": times[int(0.50 * (len(times) - 1))],
                "p99_ms": times[int(0.99 * (len(times) - 1))],
                "errors": sum(1 for *_, status in self.answers if not 200 <= status < 300),
            }
        return shown


def _allowed(request: web.Request, port: int) -> str:
    """Why `request` is refused, or ''."""
    own = {f"127.0.0.1:{port}", f"localhost:{port}"}
    if request.host not in own:
        return f"Host {request.host!r} is not this dashboard"
    origin = request.headers.get("Origin")
    if origin is not None and origin.removeprefix("http://") not in own:
        return f"requests from {origin} are refused"
    if request.method not in ("GET", "HEAD"):
        if origin is None:
            return "a change must come from the dashboard's own page (no Origin)"
        if request.content_type != "application/json":
            return "a change must send JSON"
    return ""


def guard(port: int):
    @web.middleware
    async def middleware(request: web.Request, handler):
        if why := _allowed(request, port):
            return web.json_response({"error": why}, status=403)
        try:
            return await handler(request)
        except ArenaError as err:  # bad input or a server that would not start: said, never a traceback
            if request.path.startswith("/api/"):
                return web.json_response({"error": str(err)}, status=400)
            return web.Response(text=f"{err}\n", status=400)

    return middleware


async def _body(request: web.Request) -> dict:
    try:
        body = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise UsageError("the body is not JSON") from None
    if not isinstance(body, dict):
        raise UsageError("the body must be a JSON object")
    return body


def _number(body: dict, key: str, low: float, high: float, default: float | None = None) -> float:
    value = body.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise UsageError(f"{key} must be a number in {low:g}..{high:g}")
    return value


async def _send(app: web.Application, impl: str, body: dict) -> dict:
    """One request to a server the console started: its status, time and the start of its body."""
    method = str(body.get("method", "GET")).upper()
    if method not in METHODS:
        raise UsageError(f"method {method}: choose one of {', '.join(METHODS)}")
    url = app[SERVERS].url(impl, str(body.get("path", "/")))
    payload = body.get("body")
    data = None if payload is None else json.dumps(payload).encode()
    headers = {"Content-Type": "application/json"} if data is not None else {}
    started = time.perf_counter()
    try:
        async with app[CLIENT].request(method, url, data=data, headers=headers) as response:
            text = await response.text(errors="replace")
            ms = (time.perf_counter() - started) * 1000
            return {"status": response.status, "ms": ms, "body": text[:EXCERPT], "type": response.content_type}
    except (TimeoutError, ClientError) as err:
        ms = (time.perf_counter() - started) * 1000
        return {"status": 0, "ms": ms, "body": f"no answer: {err or type(err).__name__}", "type": ""}


async def _load(app: web.Application, impl: str, body: dict, load: Load) -> None:
    async def one(at: float) -> None:
        await asyncio.sleep(max(0.0, load.started + at - time.monotonic()))
        answer = await _send(app, impl, body)
        load.answers.append((time.monotonic() - load.started, answer["ms"], answer["status"]))

    try:
        await asyncio.gather(*(one(i / load.rate) for i in range(load.count)))
    finally:
        load.done = True


# --- routes ----------------------------------------------------------------------------------------


async def home(request: web.Request) -> web.Response:
    raise web.HTTPFound("/runs")


async def _page(make, *args) -> web.Response:
    """A page made in a worker thread (it reads the store and may merge many histograms)."""
    return web.Response(text=await asyncio.to_thread(make, *args), content_type="text/html")


async def runs_page(request: web.Request) -> web.Response:
    return await _page(pages.runs)


async def run_page(request: web.Request) -> web.Response:
    return await _page(pages.run, request.match_info["name"], request.app[KINDS])


async def findings_page(request: web.Request) -> web.Response:
    return await _page(pages.findings)


async def compare_page(request: web.Request) -> web.Response:
    query = request.query
    return await _page(pages.comparison, query.get("a", ""), query.get("b", ""), query.get("run"), request.app[KINDS])


async def history_page(request: web.Request) -> web.Response:
    query = request.query
    return await _page(
        pages.history, query.get("impl", ""), [e for e in query.getall("experiment", []) if e], request.app[KINDS]
    )


async def console_page(request: web.Request) -> web.Response:
    return await _page(pages.console, request.app[SERVERS].state())


async def servers_state(request: web.Request) -> web.Response:
    return web.json_response(request.app[SERVERS].state())


async def start(request: web.Request) -> web.Response:
    body = await _body(request)
    cpus = int(_number(body, "cpus", 1, 1024, 1))
    impl = request.match_info["impl"]
    return web.json_response(await asyncio.to_thread(request.app[SERVERS].start, impl, cpus))


async def stop(request: web.Request) -> web.Response:
    await _body(request)
    await asyncio.to_thread(request.app[SERVERS].stop, request.match_info["impl"])
    return web.json_response({"stopped": request.match_info["impl"]})


async def send(request: web.Request) -> web.Response:
    return web.json_response(await _send(request.app, request.match_info["impl"], await _body(request)))


async def start_load(request: web.Request) -> web.Response:
    body = await _body(request)
    impl = request.match_info["impl"]
    request.app[SERVERS].url(impl, str(body.get("path", "/")))  # refused now rather than N times
    load = Load(int(_number(body, "count", 1, MAX_COUNT)), _number(body, "rate", 0.1, MAX_RATE))
    previous = request.app[LOADS].get(impl)
    if previous is not None and not previous[0].done:
        previous[1].cancel()
    task = asyncio.create_task(_load(request.app, impl, body, load))
    request.app[LOADS][impl] = (load, task)
    return web.json_response({"count": load.count, "rate": load.rate, "seconds": load.count / load.rate})


async def load_state(request: web.Request) -> web.Response:
    found = request.app[LOADS].get(request.match_info["impl"])
    if found is None:
        return web.json_response({"error": "no load was sent to it"}, status=404)
    since = request.query.get("since", "0")
    return web.json_response(found[0].summary(int(since) if since.isdigit() else 0))


def application(servers: Servers, port: int, kinds: dict[str, Kind]) -> web.Application:
    app = web.Application(middlewares=[guard(port)], client_max_size=1024 * 1024)
    app[SERVERS] = servers
    app[KINDS] = kinds
    app[LOADS] = {}

    async def client(app: web.Application):
        connector = TCPConnector(limit=200)
        async with ClientSession(connector=connector, timeout=ClientTimeout(total=TIMEOUT_S)) as session:
            app[CLIENT] = session
            yield
        for _, task in app[LOADS].values():
            task.cancel()
        await asyncio.to_thread(servers.close)

    app.cleanup_ctx.append(client)
    app.router.add_get("/", home)
    app.router.add_get("/runs", runs_page)
    app.router.add_get("/run/{name}", run_page)
    app.router.add_get("/compare", compare_page)
    app.router.add_get("/findings", findings_page)
    app.router.add_get("/history", history_page)
    app.router.add_get("/console", console_page)
    app.router.add_get("/api/servers", servers_state)
    app.router.add_post("/api/servers/{impl}/start", start)
    app.router.add_post("/api/servers/{impl}/stop", stop)
    app.router.add_post("/api/servers/{impl}/send", send)
    app.router.add_post("/api/servers/{impl}/load", start_load)
    app.router.add_get("/api/servers/{impl}/load", load_state)
    return app


def serve(port: int, servers: Servers, kinds: dict[str, Kind], say) -> None:
    """Serves until Ctrl-C or SIGTERM, then stops every server the console started."""
    if not 1 <= port <= 65535:
        raise UsageError(f"--port {port}: choose 1..65535")
    say(f"arena serve: http://127.0.0.1:{port}/ (Ctrl-C stops it, and every server its console started)")
    try:
        web.run_app(application(servers, port, kinds), host="127.0.0.1", port=port, print=None, handle_signals=True)
    except OSError as err:
        raise UsageError(f"cannot listen on 127.0.0.1:{port}: {err.strerror or err}; choose another --port") from None
    finally:
        servers.close()
