"""Getting one implementation ready to run: its toolchain installed and its build up to date, or
the reason it cannot be."""

from __future__ import annotations

from dataclasses import dataclass

from arena.console import Console, indent
from arena.impls import build as builder
from arena.impls.catalog import Manifest
from arena.impls.toolchain import Toolchains


@dataclass(frozen=True)
class Prepared:
    manifest: Manifest
    ok: bool
    reason: str = ""
    unavailable: bool = False  # it cannot be had here (no toolchain), as opposed to a failed build


def prepare(manifest: Manifest, toolchains: Toolchains, console: Console, force: bool = False) -> Prepared:
    """Installs what is missing and builds what changed; one line says how it went."""
    if manifest.unavailable:
        console.line(f"  {manifest.name}: unavailable: {manifest.unavailable}")
        return Prepared(manifest, False, f"unavailable: {manifest.unavailable}", unavailable=True)
    available = toolchains.ensure(manifest)
    if not available.ok:
        console.line(f"  {manifest.name}: unavailable: {available.reason}")
        return Prepared(manifest, False, f"unavailable: {available.reason}", unavailable=True)
    with builder.exclusive(manifest):
        if not force and builder.up_to_date(manifest):
            console.line(f"  {manifest.name}: build up to date")
            return Prepared(manifest, True)
        with console.working(f"  {manifest.name}: building"):
            result = builder.build(manifest, force=force)
    if result.ok:
        console.line(f"  {manifest.name}: built in {result.seconds:.1f} s")
    else:
        console.line(f"  {manifest.name}: build FAILED: {result.message}; log {result.log}")
        console.line(indent(builder.tail(result.log)))
        return Prepared(manifest, False, f"build failed: {result.message} (log {result.log})")
    return Prepared(manifest, True)
