"""The `arena` command line, assembled from the modules that own its commands: implementations
(list, build, start, verify), measuring (run, micro, capacity, soak, worker), findings, compare and
history, stored runs (report, export, import, serve), bench-engine and test.

Every problem the user can act on arrives here as an ArenaError and leaves as one line on stderr
and an exit status; Ctrl-C, SIGTERM and SIGHUP as status 130 after every server is stopped.
"""

from __future__ import annotations

import argparse
import signal

from arena.cli import benchmark, compare, findings, impls, measuring, selftest, stored
from arena.console import Console
from arena.errors import ArenaError


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="arena", description="Compare how server runtimes handle concurrency.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    impls.add_parsers(sub)
    measuring.add_parsers(sub)
    findings.add_parsers(sub)
    compare.add_parsers(sub)
    stored.add_parsers(sub)
    benchmark.add_parsers(sub)
    selftest.add_parsers(sub)
    return p


def _stop(signum: int, _frame: object) -> None:
    """The first stop signal ends the command through KeyboardInterrupt; those after it are ignored,
    so that a second Ctrl-C (or a supervisor's SIGTERM after it) cannot cut short the stopping of
    servers and databases that the first one began, and leave them running."""
    for stop in STOP_SIGNALS:
        if signal.getsignal(stop) is _stop:
            signal.signal(stop, signal.SIG_IGN)
    raise KeyboardInterrupt(f"signal {signum}")


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def handle_stop_signals() -> None:
    """Ctrl-C, SIGTERM and SIGHUP stop the command the same way, through KeyboardInterrupt, even when
    the shell that started us in the background had told SIGINT to be ignored. SIGHUP is a closed
    terminal or a lost SSH session, unless `nohup` asked us to outlive it (and set it to be ignored)."""
    for stop in STOP_SIGNALS:
        if stop != signal.SIGHUP or signal.getsignal(stop) is not signal.SIG_IGN:
            signal.signal(stop, _stop)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    console = Console(wide=getattr(args, "wide", False))
    handle_stop_signals()
    try:
        return args.func(args, console)
    except ArenaError as err:
        console.error(err.line())
        return err.status
    except KeyboardInterrupt:
        console.error("interrupted; every server it started has been stopped")
        return 130
