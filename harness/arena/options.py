"""The command-line options several commands share, declared once: which implementations, which
core budgets, which PostgreSQL. Each kind declares its command's options with these
(`Kind.arguments`); the command line assembles them (cli/main.py)."""

from __future__ import annotations

import argparse

ALL_BUDGETS = "1, 2, 4, … leaving a core for the engine"


def impls(parser: argparse.ArgumentParser, what: str = "implementations") -> None:
    parser.add_argument("--impl", nargs="*", default=[], help=f"{what} (default: all available)")


def budgets(parser: argparse.ArgumentParser, default: str = ALL_BUDGETS) -> None:
    parser.add_argument("--cpus", help=f"core budgets, e.g. 1 or 1,2 (default: {default})")


def db_url(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db-url",
        metavar="URL",
        help="your PostgreSQL for /record (default: ARENA_DB_URL, else a throw-away one the harness starts)",
    )
