"""The numbers a seed study published, as a spec file gives them (`[[published]]` in a scenario,
`[[bench.published]]` in spec/micro.toml): shown beside ours as rows of their own."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Published:
    table: str  # where in the seed: figure or table, and what it measured
    metric: str  # the metric of ours it compares with
    point: dict  # the point's parameters it belongs to
    values: list[dict]  # {"impl": ..., "value": ...}, with "cpus" or "rate" where the seed gives them


def parse(tables: list[dict]) -> list[Published]:
    """Raises KeyError or TypeError on a table that lacks a field; the caller names the file."""
    return [Published(t["table"], t["metric"], dict(t.get("point", {})), list(t["values"])) for t in tables]
