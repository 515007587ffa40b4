"""What a measuring kind's plan runs on, prepared once for its batch: the load engines built, the
database `/record` uses, the implementations that build and pass conformance on each budget (and
what was skipped, with the reason), and the exit stack that ends them when the batch ends."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from arena.checks import verify
from arena.console import Console
from arena.engines.interface import LoadEngine
from arena.host.database import Database
from arena.impls.catalog import Manifest
from arena.impls.toolchain import Toolchains


@dataclass
class Servers:
    db: Database
    ready: list[tuple[Manifest, int]]  # each implementation and budget that passed conformance
    skipped: list[str]
    stack: contextlib.ExitStack  # the database and the servers kept between tasks: the batch closes it

    @contextlib.contextmanager
    def closing_on_error(self) -> Iterator[None]:
        """What a kind prepares on top of these; if it fails (Ctrl-C included), they are ended too."""
        try:
            yield
        except BaseException:
            self.stack.close()
            raise


def engines_built(engines: Iterable[LoadEngine], console: Console) -> Toolchains:
    """Each engine installed and built (skipped when up to date); the toolchains, for the servers."""
    toolchains = Toolchains(say=console.line)
    with console.working("building the load engine"):
        for engine in engines:
            engine.ensure(toolchains)
    return toolchains


def ready(
    toolchains: Toolchains, db_url: str | None, manifests: list[Manifest], budgets: list[int], console: Console
) -> Servers:
    """The database (the user's at `db_url`, or a cluster of the harness's own) and what of
    `manifests` builds and passes conformance on it at each budget."""
    stack = contextlib.ExitStack()
    try:
        db, chosen, skipped = verify.ready_on_database(stack, db_url, manifests, budgets, toolchains, console)
    except BaseException:
        stack.close()
        raise
    return Servers(db, chosen, skipped, stack)
