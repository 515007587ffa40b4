"""What a run is given besides its plan, the same for every kind (as Locust's `Environment` is for
its runners): the console it speaks on, the store it keeps its measurements in, claimed so that one
run measures at a time, the user's PostgreSQL, and the load engine that loads servers. A command
opens one and runs one plan on it, or several in turn (the soak after the capacity it needs, the
findings suite's runs), each a value it built."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from arena.console import Console
from arena.engines.interface import LoadEngine
from arena.engines.loadgen import Loadgen
from arena.measured.store import Store


@dataclass
class Context:
    console: Console
    store: Store
    db_url: str | None = None  # the user's PostgreSQL for /record; None: the harness starts its own
    engine: LoadEngine = field(default_factory=Loadgen)  # the open-model engine: Arena's own (loadgen/)

    @classmethod
    @contextlib.contextmanager
    def claimed(cls, console: Console, db_url: str | None = None) -> Iterator[Context]:
        """A context on the store of results/, claimed for as long as it is open: two runs at once
        would disturb each other's numbers."""
        store = Store()
        try:
            store.claim()
            yield cls(console, store, db_url)
        finally:
            store.close()
