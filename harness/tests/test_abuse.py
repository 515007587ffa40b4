"""The abuse checks can fail: the fake server answers one connection at a time, so one slowloris
connection that never finishes its headers keeps every other client waiting past the bound."""

from arena import abuse
from arena.client import Client
from arena.expect import Context
from arena.process import free_port, running


def test_a_server_that_one_slow_client_blocks_fails_the_slowloris_check(fake, monkeypatch):
    monkeypatch.setattr(abuse, "SLOW_CONNECTIONS", 3)
    monkeypatch.setattr(abuse, "SLOW_SECONDS", 2)
    with running(fake, 1, free_port()) as server:
        ctx = Context(client=Client(server.port), hello=b"")
        abuse.check_slowloris(ctx)
    assert ctx.problems and "GET / during 3 slowloris connections" in ctx.problems[0].text
