"""Request bodies: at most 64 KiB, read within a time limit, JSON in UTF-8 only.

Errors are raised as aiohttp's HTTP exceptions with a short text body; aiohttp turns them into
the answer.
"""

from __future__ import annotations

import asyncio
import json
import re

from aiohttp import web

from arena_aiohttp.protocol import DRAIN_LIMIT

MAX_BODY = 65_536
BODY_TIMEOUT_S = 10.0  # for the whole body, so that a client that stops sending cannot hold a request
USERNAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
MAX_PASSWORD_BYTES = 72


def bad_request(message: str) -> web.HTTPBadRequest:
    return web.HTTPBadRequest(text=message)


def too_large(close: bool) -> web.HTTPRequestEntityTooLarge:
    error = web.HTTPRequestEntityTooLarge(max_size=MAX_BODY, text=f"body larger than {MAX_BODY} bytes")
    if close:
        error.force_close()
    return error


def declared_too_large(request: web.BaseRequest) -> web.HTTPRequestEntityTooLarge | None:
    """The 413 for a body whose Content-Length is over the limit, before any of it is read: the
    connection is kept (the body read and thrown away after the answer) up to DRAIN_LIMIT, closed
    beyond."""
    length = request.content_length
    if length is not None and length > MAX_BODY:
        return too_large(close=length > DRAIN_LIMIT)
    return None


async def read_body(request: web.BaseRequest) -> bytes:
    """The whole body, at most MAX_BODY bytes (413 beyond, 400 when it does not arrive in time)."""
    if error := declared_too_large(request):
        raise error
    body = bytearray()
    try:
        async with asyncio.timeout(BODY_TIMEOUT_S):
            while chunk := await request.content.read(MAX_BODY + 1 - len(body)):
                body += chunk
                if len(body) > MAX_BODY:  # a chunked body: its size shows only as it comes
                    raise too_large(close=True)
    except TimeoutError:
        error = bad_request(f"body not received within {BODY_TIMEOUT_S:.0f} s")
        error.force_close()
        raise error from None
    return bytes(body)


def _no_constants(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def parse_json(body: bytes) -> object:
    """The JSON value of `body` (UTF-8, RFC 8259: no NaN or Infinity), or a 400."""
    try:
        return json.loads(body.decode("utf-8"), parse_constant=_no_constants)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise bad_request("body is not valid JSON") from None


async def json_object(request: web.BaseRequest) -> tuple[bytes, dict]:
    """The body and its value, which must be a JSON object."""
    body = await read_body(request)
    value = parse_json(body)
    if not isinstance(value, dict):
        raise bad_request("body must be a JSON object")
    return body, value


def username(request: web.Request) -> str:
    """The {username} path segment, already percent-decoded by aiohttp, or a 400."""
    name = request.match_info["username"]
    if not USERNAME.fullmatch(name):
        raise bad_request("invalid username")
    return name


async def password(request: web.Request) -> bytes:
    """The body's `password`, as the UTF-8 bytes bcrypt hashes, at most 72 of them."""
    _, value = await json_object(request)
    given = value.get("password")
    if not isinstance(given, str):
        raise bad_request("password must be a string")
    try:
        encoded = given.encode("utf-8")
    except UnicodeEncodeError:
        raise bad_request("password is not valid Unicode") from None
    if len(encoded) > MAX_PASSWORD_BYTES:
        raise bad_request(f"password longer than {MAX_PASSWORD_BYTES} bytes")
    return encoded
