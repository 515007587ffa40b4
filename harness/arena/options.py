"""The command-line options several commands share, declared once: which implementations, which
core budgets, which PostgreSQL; and the option groups of whole families of commands (tables, stored
runs, suites). Each kind declares its command's options with these (`Kind.arguments`); the command
line assembles them (cli/main.py).

The groups are made anew for every command that takes them: argparse hands a parent's actions to
its children by reference, so a default one command set on a shared parent became every other's
(the soak's one start once made `arena run` measure every point once)."""

from __future__ import annotations

import argparse

ALL_BUDGETS = "1, 2, 4, … leaving a core for the engine"


SETUPS = "an implementation's name is every setup of it (node), impl:setup one (node:http-single)"


def impls(parser: argparse.ArgumentParser, what: str = "implementations", default: str = "all available") -> None:
    parser.add_argument("--impl", nargs="*", default=[], help=f"{what} (default: {default})")


def budgets(parser: argparse.ArgumentParser, default: str = ALL_BUDGETS) -> None:
    parser.add_argument("--cpus", help=f"core budgets, e.g. 1 or 1,2 (default: {default})")


def points(parser: argparse.ArgumentParser, what: str) -> None:
    chosen = f"only these points of {what}'s profile, by number (default: all)"
    parser.add_argument("--point", nargs="*", type=int, default=[], help=chosen)


def db_url(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db-url",
        metavar="URL",
        help="your PostgreSQL for /record (default: ARENA_DB_URL, else a throw-away one the harness starts)",
    )


def wide() -> argparse.ArgumentParser:
    """--wide, for the commands that print tables."""
    tables = argparse.ArgumentParser(add_help=False)
    tables.add_argument("--wide", action="store_true", help="every column of every table, wrapped to the window")
    return tables


def stored_runs(repeat: int | None, what: str) -> argparse.ArgumentParser:
    """The options of a command whose runs are stored: repetitions, --resume, --assert, --junit."""
    stored = argparse.ArgumentParser(add_help=False, parents=[wide()])
    stored.add_argument("--repeat", type=int, default=repeat, help=what)
    stored.add_argument(
        "--resume",
        nargs="?",
        const="last",
        metavar="RUN",
        help="continue an interrupted run of this command (default: the last one); its options are kept",
    )
    stored.add_argument(
        "--assert",
        dest="assertions",
        action="append",
        default=[],
        metavar="EXPERIMENT:METRIC<N",
        help='a bound on the run\'s own numbers, e.g. "blog-ab:p99_ms<2100" (<, <=, >, >=); the run exits 1 '
        "when a point's median breaches it (repeatable)",
    )
    stored.add_argument("--junit", metavar="FILE", help="write the assertions' outcomes as JUnit XML")
    return stored


def suites(*more: str) -> argparse.ArgumentParser:
    """--suite, for the commands whose experiments have a quick and a paper profile (and `more`)."""
    suited = argparse.ArgumentParser(add_help=False)
    suited.add_argument("--suite", choices=["quick", "paper", *more], default="quick", help="(default quick)")
    return suited
