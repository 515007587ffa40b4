"""The contract's endpoints (spec/README.md) as an aiohttp application.

aiohttp's router answers unknown paths 404 (an empty or multi-segment username matches no route)
and known paths with another method 405. Handlers raise aiohttp's HTTP exceptions for errors,
each with a short text message.
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol

import bcrypt
from aiohttp import HttpVersion11, web

from arena_aiohttp import bodies, sort, store
from arena_aiohttp.config import Config
from arena_aiohttp.records import DatabaseUnavailable, Record, Records, valid_name, value_problem


class Store(Protocol):
    async def call(self, op: int, key: str, value: bytes = b"") -> bytes | None: ...


class Counter(Protocol):
    def next(self) -> int: ...


@dataclass
class State:
    """Everything a worker's handlers share."""

    config: Config
    hello: bytes
    store: Store
    counter: Counter
    records: Records
    hasher: ThreadPoolExecutor  # bcrypt runs here, off the event loop (it releases the GIL)


STATE = web.AppKey("state", State)


def state(request: web.Request) -> State:
    return request.app[STATE]


def ok() -> web.Response:
    return web.Response(text="OK")


async def root(request: web.Request) -> web.Response:
    return ok()


async def hello(request: web.Request) -> web.Response:
    """Every K-th /hello of the whole server waits; the count is taken first, so the wait holds up
    only this request."""
    s = state(request)
    if s.counter.next() % s.config.hello_delay_every == 0:
        await asyncio.sleep(s.config.hello_delay_ms / 1000)
    return web.Response(body=s.hello, content_type="text/html")


async def _hash(s: State, password: bytes) -> bytes:
    salt = bcrypt.gensalt(rounds=s.config.bcrypt_cost)
    return await asyncio.get_running_loop().run_in_executor(s.hasher, bcrypt.hashpw, password, salt)


async def set_password(request: web.Request) -> web.Response:
    s = state(request)
    name = bodies.username(request)
    password = await bodies.password(request)
    await s.store.call(store.SET_PASSWORD, name, await _hash(s, password))
    return ok()


async def verify_password(request: web.Request) -> web.Response:
    s = state(request)
    name = bodies.username(request)
    password = await bodies.password(request)
    stored = await s.store.call(store.GET_PASSWORD, name)
    if stored is None:
        await _hash(s, password)  # the same work as a known user's, so the time tells nothing
        raise web.HTTPNotFound(text="unknown user")
    matches = await asyncio.get_running_loop().run_in_executor(s.hasher, bcrypt.checkpw, password, stored)
    if not matches:
        raise web.HTTPForbidden(text="wrong password")
    return ok()


async def set_user(request: web.Request) -> web.Response:
    s = state(request)
    name = bodies.username(request)
    body, _ = await bodies.json_object(request)
    await s.store.call(store.SET_USER, name, body)  # the JSON text as sent: read back, it is equal
    return ok()


async def get_user(request: web.Request) -> web.Response:
    s = state(request)
    name = bodies.username(request)
    found = await s.store.call(store.GET_USER, name)
    if found is None:
        raise web.HTTPNotFound(text="unknown user")
    return web.Response(body=found, content_type="application/json")


async def long_poll(request: web.Request) -> web.Response:
    await asyncio.sleep(state(request).config.longpoll_ms / 1000)  # a timer: nothing is held
    return ok()


async def long_operation(request: web.Request) -> web.Response:
    """Sorts on the event loop, in the request, as the honours report's server did: this worker
    serves nothing else meanwhile (the other workers do)."""
    raw = request.query.get("n")
    n = state(request).config.sort_n if raw is None else sort.parse_n(raw)
    if n is None:
        raise bodies.bad_request(f"n must be decimal digits, 1..{sort.MAX_N}")
    result = {"message": "done", "n": n, "checksum": sort.long_operation(n)}
    return web.Response(text=json.dumps(result), content_type="application/json")


def _query_name(request: web.Request) -> str:
    name = request.query.get("name")
    if not valid_name(name):
        raise bodies.bad_request("name missing or invalid")
    return name


async def _body_record(request: web.Request) -> tuple[str, str]:
    _, value = await bodies.json_object(request)
    name, text = value.get("name"), value.get("value")
    if not valid_name(name):
        raise bodies.bad_request("name missing or invalid")
    if problem := value_problem(text):
        raise bodies.bad_request(problem)
    return name, text


def _record(record: Record | None, status: int = 200) -> web.Response:
    if record is None:
        raise web.HTTPNotFound(text="no such record")
    return web.json_response(record.as_json(), status=status)


async def _ask(request: web.Request, action: str, *args: str) -> Record | None:
    try:
        return await getattr(state(request).records, action)(*args)
    except DatabaseUnavailable as err:
        raise web.HTTPServiceUnavailable(text=str(err)) from None


async def create_record(request: web.Request) -> web.Response:
    name, value = await _body_record(request)
    created = await _ask(request, "create", name, value)
    if created is None:
        raise web.HTTPConflict(text="record exists")
    return _record(created, 201)


async def read_record(request: web.Request) -> web.Response:
    return _record(await _ask(request, "read", _query_name(request)))


async def update_record(request: web.Request) -> web.Response:
    name, value = await _body_record(request)
    return _record(await _ask(request, "update", name, value))


async def delete_record(request: web.Request) -> web.Response:
    return _record(await _ask(request, "delete", _query_name(request)))


async def expect_continue(request: web.Request) -> web.StreamResponse | None:
    """`Expect: 100-continue`: a body declared over the limit is refused at once (and the
    connection closed, as its body may or may not follow); else 100 Continue, then the handler."""
    if request.headers.get("Expect", "").lower() != "100-continue":
        raise web.HTTPExpectationFailed(text="unsupported Expect")
    if error := bodies.declared_too_large(request):
        error.force_close()
        return error
    if request.version == HttpVersion11:
        await request.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    return None


ROUTES = [
    ("GET", "/", root),
    ("GET", "/hello", hello),
    ("POST", "/password/set/{username}", set_password),
    ("POST", "/password/verify/{username}", verify_password),
    ("POST", "/user/set/{username}", set_user),
    ("GET", "/user/get/{username}", get_user),
    ("GET", "/longPoll", long_poll),
    ("GET", "/long-operation", long_operation),
    ("PUT", "/record", create_record),
    ("GET", "/record", read_record),
    ("POST", "/record", update_record),
    ("DELETE", "/record", delete_record),
]


def make_app(s: State) -> web.Application:
    app = web.Application(client_max_size=bodies.MAX_BODY)
    app[STATE] = s
    for method, path, handler in ROUTES:
        if method == "GET":  # and HEAD, as aiohttp's add_get does
            app.router.add_get(path, handler, expect_handler=expect_continue)
        else:
            app.router.add_route(method, path, handler, expect_handler=expect_continue)
    return app
