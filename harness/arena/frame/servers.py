"""What a measuring kind's plan runs on, prepared once for its batch: the load engines built, the
database `/record` uses, the implementations that build and pass conformance on each budget (and
what was skipped, with the reason), and the exit stack that ends them when the batch ends — the
scaffolding every kind that loads servers shares, written once."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from arena.checks import verify
from arena.console import Console
from arena.context import Context
from arena.engines.interface import LoadEngine
from arena.host.database import Database
from arena.impls import catalog
from arena.impls.catalog import Manifest
from arena.impls.toolchain import Toolchains
from arena.kind import Batch, Plan, Task
from arena.measured.measurement import Measurement


@dataclass
class Servers:
    db: Database
    ready: list[tuple[Manifest, int]]  # each implementation and budget that passed conformance
    skipped: list[str]
    stack: contextlib.ExitStack  # the database and the servers kept between tasks: the batch closes it

    def batch(
        self,
        tasks: list[Task],
        measure: Callable[[Task, Callable[[str], None]], Measurement],
        skipped: Iterable[str] = (),
        needless: Callable[[Task], str | None] = lambda _: None,
    ) -> Batch:
        """The kind's tasks on these servers: what they skipped beside what was skipped here, and
        these ended when measuring ends, however it ends."""
        return Batch(tasks, measure, self.skipped + list(skipped), self.stack.close, needless)

    @contextlib.contextmanager
    def closing_on_error(self) -> Iterator[None]:
        """What a kind prepares on top of these; if it fails (Ctrl-C included), they are ended too."""
        try:
            yield
        except BaseException:
            self.stack.close()
            raise


def prepared(plan: Plan, context: Context, engines: Iterable[LoadEngine]) -> Servers:
    """What every kind that loads servers begins with: its engines built, and the implementations
    the plan names that build and pass conformance on its budgets, on the database."""
    return ready_for(plan, context, engines_built(engines, context.console))


def ready_for(plan: Plan, context: Context, toolchains: Toolchains, manifests: list[Manifest] | None = None) -> Servers:
    """`prepared`, the engines built already (a kind that has them check its points first); of the
    rows the plan names, or of `manifests` where the kind chose them (rest/kind.py: a study's setups)."""
    if manifests is None:
        manifests = catalog.rows(plan.impl, catalog.load, context.console.warn)
    return ready(toolchains, context.db_url, manifests, plan.cpus, context.console)


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
