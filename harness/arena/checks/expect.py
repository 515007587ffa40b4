"""What a conformance check expects of an answer, and the problems it found: the context every check
of `verify.py` and `records.py` shares."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from arena.checks.client import Client, Reply
from arena.checks.result import Problem, Severity
from arena.host.database import Database
from arena.host.process import Processes

LATE = 1.5  # a time late past its bound by up to this factor is a warning; beyond, a failure


def mismatch(request: str, expected: str, got: str) -> str:
    return f"request:  {request}\n  expected: {expected}\n  got:      {got}"


@dataclass
class Context:
    """What the checks share: the client, the contract's data, what was measured, and the problems
    the check that runs now has found so far."""

    client: Client
    hello: bytes
    db: Database | None = None  # the database behind /record
    pool: int = 0  # the ARENA_DB_POOL the server was given
    server: Processes | None = None  # the server's processes, whose memory the abuse checks watch
    measured: dict[str, float] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    skipped: str = ""  # why the check that runs now could not run here

    def skip(self, reason: str) -> None:
        self.skipped = reason

    def fail(self, request: str, expected: str, got: str) -> None:
        self.problems.append(Problem(Severity.FAIL, mismatch(request, expected, got)))

    def late(self, request: str, bound_s: float, took_s: float, what: str) -> None:
        """`took_s` is past `bound_s`: a warning within LATE times the bound, else a failure."""
        severity = Severity.WARN if took_s <= LATE * bound_s else Severity.FAIL
        expected = f"{what} within {bound_s:.2f} s"
        self.problems.append(Problem(severity, mismatch(request, expected, f"{took_s:.2f} s")))

    def expect(self, reply: Reply, status: int, body: bytes | None = None, content_type: str | None = None) -> Reply:
        """Records what is wrong with `reply`, if anything, and returns it."""
        request = f"{reply.method} {reply.path}"
        wanted = f"{status}" + (f" {body[:120]!r}" if body is not None else "")
        if content_type:
            wanted += f" [{content_type}]"
        if (
            reply.status != status
            or (body is not None and reply.body != body)
            or (content_type and not reply.content_type.startswith(content_type))
        ):
            self.fail(request, wanted, reply.brief())
        elif status >= 400 and not reply.body.strip():
            self.fail(request, f"{status} with a short message", f"{status} with an empty body")
        return reply

    def expect_json(self, reply: Reply, value: object, status: int = 200) -> None:
        """`status` with a JSON body equal to `value`."""
        if self.expect(reply, status, content_type="application/json").status != status:
            return
        try:
            got = reply.json()
        except ValueError:
            self.fail(f"{reply.method} {reply.path}", "a JSON body", reply.brief())
            return
        if got != value:
            self.fail(f"{reply.method} {reply.path}", f"{status} {json.dumps(value)[:200]}", reply.brief())
