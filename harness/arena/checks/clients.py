"""What real clients and proxies send that Arena's engine never does, each a
conformance check on the main server, over a raw socket to 127.0.0.1:

- HTTP/1.0 without Host: valid (RFC 9112, 3.2 requires Host of HTTP/1.1 only), and still sent by
  load balancers' health checks and old clients; answered 200, and — as nothing asked to keep it
  alive — the connection closed after the answer (RFC 9112, 9.3);
- pipelining: requests written back to back before any answer, as some proxies and benchmark
  clients do, answered each in turn, in the order sent (RFC 9112, 9.3.2);
- half-close: a client that shuts its sending side after its request (a shell's `nc -N`, some
  proxies) still gets its answer (RFC 9112, 9.6);
- another HTTP version: `GET / HTTP/2.0` on a plain connection (a client or proxy that took the
  port for h2c) is refused, not answered as HTTP/1.1: 505 (RFC 9110, 15.6.6), or the 400 of a
  parser that refuses it before any handler sees it;
- `Expect: 100-continue`, which curl sends before a large body: the server says 100 Continue
  and reads the body, or answers at once with a final status; a server that says neither makes the
  client wait for its own timeout (curl's is one second) before each such request.

Each check sends a bounded number of bytes on one connection and reads for at most `READ_S`.
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
from dataclasses import dataclass

from arena.checks.client import HOST
from arena.checks.expect import Context

READ_S = 5.0  # the longest any answer here may take
CONTINUE_WAIT_S = 1.0  # how long a client waits for 100 Continue before it sends its body anyway (curl's)


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]  # lower-cased names
    body: bytes

    def brief(self) -> str:
        return f"{self.status} {self.body[:80]!r}"


class Connection:
    """One raw connection: bytes written as given, answers read one after another from a single
    buffer (so that pipelined answers are told apart by their framing, as a client must)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.reader = sock.makefile("rb")

    @classmethod
    def to(cls, port: int) -> Connection:
        return cls(socket.create_connection((HOST, port), timeout=READ_S))

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *_: object) -> None:
        self.reader.close()
        self.sock.close()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def answer(self) -> Answer:
        """The next answer: status line, headers, and a body framed by Content-Length or chunked."""
        line = self.reader.readline(65536)
        if not line:
            raise ConnectionError("the connection closed before an answer")
        parts = line.split(None, 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
            raise ValueError(f"not an HTTP/1.x status line: {line[:80]!r}")
        headers: dict[str, str] = {}
        while (field := self.reader.readline(65536)) not in (b"\r\n", b"\n", b""):
            name, _, value = field.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        status = int(parts[1])
        if status < 200 or status in (204, 304):
            return Answer(status, headers, b"")
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body = b""
            while size := int(self.reader.readline(1024).split(b";")[0], 16):
                body += self.reader.read(size)
                self.reader.readline(1024)
            while self.reader.readline(65536) not in (b"\r\n", b"\n", b""):
                pass  # trailer fields
            return Answer(status, headers, body)
        if "content-length" in headers:
            return Answer(status, headers, self.reader.read(int(headers["content-length"])))
        return Answer(status, headers, self.reader.read())  # delimited by the server's close

    def closed_by_server(self) -> bool:
        """Whether the server closes the connection (reads nothing more) within READ_S."""
        try:
            return self.reader.read(1) == b""
        except TimeoutError:
            return False


def _broken(err: Exception) -> str:
    """What a connection that failed said, for a check's "got"."""
    return f"{type(err).__name__}: {err}"


def _head(method: str, path: str, version: str = "1.1", **headers: str) -> bytes:
    """A request head; `Content_Length="5"` is sent as `Content-Length: 5`."""
    lines = [f"{method} {path} HTTP/{version}", *(["Host: 127.0.0.1"] if version == "1.1" else [])]
    lines += [f"{name.replace('_', '-')}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _post(path: str, body: bytes, **headers: str) -> bytes:
    return _head("POST", path, Content_Type="application/json", Content_Length=str(len(body)), **headers) + body


def check_http10_without_host(ctx: Context) -> None:
    request = "GET / HTTP/1.0 (no Host header, no keep-alive)"
    with Connection.to(ctx.client.port) as conn:
        conn.send(_head("GET", "/", version="1.0"))
        try:
            answer = conn.answer()
        except (OSError, ValueError) as err:
            ctx.fail(request, "200 OK", _broken(err))
            return
        if (answer.status, answer.body) != (200, b"OK"):
            ctx.fail(request, "200 OK", answer.brief())
        elif not conn.closed_by_server():
            ctx.fail(request, "the connection closed after the answer (RFC 9112, 9.3)", f"open after {READ_S:.0f} s")


PIPELINED = 4


def check_pipelining(ctx: Context) -> None:
    """Values set first, then read back by requests written in one go, interleaved with others whose
    answers differ, so an answer out of order or missing shows."""
    expected: list[tuple[str, int, object]] = []  # path, status, the JSON value or exact bytes (None: any)
    for i in range(PIPELINED):
        ctx.expect(ctx.client.post_json(f"/user/set/piped{i}", {"i": i}), 200, b"OK")
        expected += [(f"/user/get/piped{i}", 200, {"i": i}), ("/nope", 404, None)]
    expected.append(("/", 200, b"OK"))
    with Connection.to(ctx.client.port) as conn:
        conn.send(b"".join(_head("GET", path) for path, _, _ in expected))
        for position, (path, status, value) in enumerate(expected, 1):
            request = f"{len(expected)} requests pipelined on one connection, #{position}: GET {path}"
            try:
                answer = conn.answer()
                got = json.loads(answer.body) if isinstance(value, dict) and answer.status == 200 else answer.body
            except (OSError, ValueError) as err:
                ctx.fail(request, f"{status}, in the order sent", _broken(err))
                return
            if answer.status != status or (value is not None and got != value):
                ctx.fail(request, f"{status} {value!r}, in the order sent", answer.brief())
                return


def check_half_close(ctx: Context) -> None:
    for what, payload, status, body in [
        ("GET /", _head("GET", "/"), 200, b"OK"),
        ("POST /user/set/halfclosed", _post("/user/set/halfclosed", b'{"half":"closed"}'), 200, b"OK"),
    ]:
        request = f"{what}, then the client shuts its sending side (half-close)"
        with Connection.to(ctx.client.port) as conn:
            conn.send(payload)
            conn.sock.shutdown(socket.SHUT_WR)
            try:
                answer = conn.answer()
            except (OSError, ValueError) as err:
                ctx.fail(request, f"{status} {body!r}", _broken(err))
                continue
            if (answer.status, answer.body) != (status, body):
                ctx.fail(request, f"{status} {body!r}", answer.brief())
    ctx.expect_json(ctx.client.call("GET", "/user/get/halfclosed"), {"half": "closed"})


UNSUPPORTED_VERSIONS = ("2.0", "0.9")


def check_http_version(ctx: Context) -> None:
    for version in UNSUPPORTED_VERSIONS:
        request = f"GET / HTTP/{version} (a version the contract does not speak)"
        with Connection.to(ctx.client.port) as conn:
            conn.send(f"GET / HTTP/{version}\r\nHost: 127.0.0.1\r\n\r\n".encode())
            try:
                line = conn.reader.readline(1024)
            except OSError as err:
                ctx.fail(request, "505 HTTP Version Not Supported", _broken(err))
                continue
        # The status alone: some servers answer in the version they were asked in ("HTTP/2.0 505").
        status = line.split(None, 2)[1:2]
        if line and status not in ([b"505"], [b"400"]):
            ctx.fail(
                request, "505 HTTP Version Not Supported (or 400, refused by the parser)", line[:80].decode("latin-1")
            )


def _expecting(conn: Connection, path: str, body: bytes) -> tuple[Answer, bool]:
    """Sends a POST of `body` to `path` with Expect: 100-continue, its head first; waits as curl
    does, then sends the body unless a final answer came first. Returns the final answer and whether
    100 Continue came in time."""
    length = str(len(body))
    conn.send(_head("POST", path, Content_Type="application/json", Content_Length=length, Expect="100-continue"))
    # Waited for with select, not a timeout on the socket: a buffered reader cut by a timeout is unusable.
    waited, _, _ = select.select([conn.sock], [], [], CONTINUE_WAIT_S)
    first = conn.answer() if waited else None
    if first is not None and first.status != 100:
        return first, False
    with contextlib.suppress(OSError):  # a server that answered and closed may refuse the body
        conn.send(body)
    return conn.answer(), first is not None


TOO_LARGE = 1024 * 1024  # over the contract's 64 KiB body limit


def check_expect_continue(ctx: Context) -> None:
    request = "POST /user/set/expecting [Expect: 100-continue]"
    with Connection.to(ctx.client.port) as conn:
        try:
            answer, continued = _expecting(conn, "/user/set/expecting", b'{"expect":"continue"}')
        except (OSError, ValueError) as err:
            ctx.fail(request, "100 Continue, then 200 OK", _broken(err))
            return
    if (answer.status, answer.body) != (200, b"OK"):
        ctx.fail(request, "100 Continue, then 200 OK", answer.brief())
    elif not continued:
        ctx.fail(request, f"100 Continue within {CONTINUE_WAIT_S:.0f} s", "nothing: the client waited")
    ctx.expect_json(ctx.client.call("GET", "/user/get/expecting"), {"expect": "continue"})
    request = f"POST /user/set/expect_large [Expect: 100-continue, Content-Length: {TOO_LARGE}]"
    with Connection.to(ctx.client.port) as conn:
        try:
            answer, _ = _expecting(conn, "/user/set/expect_large", b"{" + b" " * (TOO_LARGE - 2) + b"}")
        except (OSError, ValueError):
            return  # closed without an answer: refused, which the contract allows for an oversized body
    if answer.status != 413:
        ctx.fail(request, "413 (at once, or after 100 Continue and the body)", answer.brief())
