"""A small HTTP client for conformance checks: one request per call, timed, on 127.0.0.1 only."""

from __future__ import annotations

import http.client
import json
import socket
import time
from dataclasses import dataclass

HOST = "127.0.0.1"


@dataclass
class Reply:
    method: str
    path: str
    status: int
    content_type: str
    body: bytes
    seconds: float

    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    def json(self) -> object:
        return json.loads(self.body)

    def brief(self, limit: int = 200) -> str:
        shown = self.text()
        if len(shown) > limit:
            shown = shown[:limit] + f"... ({len(self.body)} bytes)"
        return f"{self.status} [{self.content_type or 'no content-type'}] {shown!r}"


class Client:
    """Requests to one port. `call` opens a fresh connection; `session` keeps one alive."""

    def __init__(self, port: int, timeout: float = 15.0, host: str = HOST) -> None:
        self.port = port
        self.timeout = timeout
        self.host = host  # loopback, or the address a server was told to listen on (ARENA_HOST)

    def session(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)

    def call(
        self,
        method: str,
        path: str,
        body: bytes | str | None = None,
        conn: http.client.HTTPConnection | None = None,
        json_body: bool = True,
        headers: dict[str, str] | None = None,  # sent as given, over the JSON Content-Type
    ) -> Reply:
        own = conn is None
        conn = conn or self.session()
        if isinstance(body, str):
            body = body.encode()
        headers = ({"Content-Type": "application/json"} if body is not None and json_body else {}) | (headers or {})
        started = time.monotonic()
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            data = response.read()
        finally:
            if own:
                conn.close()
        return Reply(
            method, path, response.status, response.getheader("Content-Type", ""), data, time.monotonic() - started
        )

    def post_json(self, path: str, value: object, conn: http.client.HTTPConnection | None = None) -> Reply:
        return self.call("POST", path, json.dumps(value), conn=conn)

    def raw(self, payload: bytes, read_timeout: float = 3.0, half_close: bool = True) -> bytes:
        """Sends bytes as they are, then (`half_close`) shuts the sending side, and returns what came
        back before the server closed or went quiet."""
        with socket.create_connection((HOST, self.port), timeout=read_timeout) as sock:
            try:
                sock.sendall(payload)
                if half_close:
                    sock.shutdown(socket.SHUT_WR)
            except OSError:
                return b""
            received = b""
            try:
                while chunk := sock.recv(65536):
                    received += chunk
            except OSError:
                pass
            return received
