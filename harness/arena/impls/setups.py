"""What a stored row's name says of its setup, for the reports of runs measured before setups
existed or since: the implementation it is a setup of, its name with the setup spelled out where
that implementation has several, each implementation's lightest setup (the one runtimes are
ordered by, like for like), and the setup it adds its framework to. The names are the catalog's
(impls/catalog.py): `node` is the default setup of node, `node:http-single` another; a name the
catalog no longer has is a setup of its own, as it was stored."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

from arena.impls import catalog
from arena.impls.catalog import Manifest


@dataclass(frozen=True)
class Setups:
    rows: dict[str, Manifest]  # every server row of the catalog, by name

    def impl(self, name: str) -> str:
        """The implementation a row is a setup of."""
        return self.rows[name].impl if name in self.rows else name.split(":")[0]

    def canonical(self, name: str) -> str:
        """The row as reports and findings name it: its setup spelled out where its implementation
        has several (`node:express-cluster` for `node`, as stored), else as stored (`go`)."""
        row = self.rows.get(name)
        return row.shown if row else name

    def lightest(self, names: Iterable[str]) -> list[str]:
        """Of the rows given, each implementation's lightest setup (catalog.lightest), in the
        order given; a row the catalog no longer has stands for its implementation where it is
        the only one given."""
        names = list(names)
        by_impl: dict[str, list[str]] = {}
        for name in names:
            by_impl.setdefault(self.impl(name), []).append(name)
        best = set()
        for found in by_impl.values():
            rows = [self.rows[n] for n in found if n in self.rows]
            best.add(catalog.lightest(rows).name if rows else found[0])
        return [name for name in names if name in best]

    def setup(self, name: str, versions: dict | None = None) -> str:
        """The setup a measurement of the row belongs to: as it recorded it, else, stored before
        setups were recorded, the one its row names now (an implementation's default); "" for a
        row the catalog no longer has, or one that declares none (a micro-benchmark's)."""
        if versions and versions.get("setup"):
            return versions["setup"]
        row = self.rows.get(name)
        return row.setup.name if row else ""

    def versus(self, name: str) -> str | None:
        """The row of the setup this one adds its framework to (`versus` in its manifest)."""
        row = self.rows.get(name)
        if row is None or not row.setup.versus:
            return None
        return next(
            (m.name for m in self.rows.values() if m.impl == row.impl and m.setup.name == row.setup.versus), None
        )


@functools.cache
def known() -> Setups:
    """The setups of the servers as checked out now (read once a process)."""
    manifests, _ = catalog.load()
    return Setups({m.name: m for m in manifests})
