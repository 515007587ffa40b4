"""The charts of the table model (arena.report.tables): what a picture shows, as plain data, for the HTML
renderer to draw. None of it knows how it is drawn.

A bar chart has categories (the seed's x axis: cores, rate, a point) and a series per
implementation; a line chart has a series per implementation over a numeric x. Every value may
carry its 95% interval (drawn as whiskers) and the validity flags of the row it came from (drawn on
the bar). Charts of metrics a table already shows are pivots of that table (arena/report/pivot.py), so a
picture never disagrees with the numbers beside it; curves and timelines that no table holds are
built by the kinds from their stored measurements.
"""

from __future__ import annotations

from dataclasses import dataclass, field

BAR, LINE = "bar", "line"
# How an axis is scaled. PERCENTILE is a log axis of 1/(1-p), labelled 90%, 99%, 99.9%, ...:
# the tail of a latency distribution spread out as HdrHistogram plots it.
CATEGORY, LINEAR, LOG, PERCENTILE = "category", "linear", "log", "percentile"


@dataclass(frozen=True)
class Value:
    y: float
    low: float | None = None  # 95% interval; None for one repetition or a seed's number
    high: float | None = None
    flags: tuple[str, ...] = ()  # validity flags of the row it came from
    tip: str = ""  # more to say on hover: a run's name, commit and versions


@dataclass(frozen=True)
class Series:
    label: str  # the implementation, or "go (seed)" for a seed's published numbers
    values: list[Value | None]  # bars: one per category (None: no bar there); lines: one per x
    xs: list[float] = field(default_factory=list)  # lines only
    seed: bool = False
    dashed_before: float | None = None  # lines: drawn dashed left of this x (a warm-up before its measurement)
    # Lines: marks on the line of this label, drawn as points in its colour, without a line or a
    # legend entry of their own; `mark` says which: EDGE (a capacity's edge), PASSED or FAILED (probes).
    mark_of: str | None = None
    mark: str = "edge"


EDGE_MARK, PASSED_MARK, FAILED_MARK = "edge", "passed", "failed"


@dataclass(frozen=True)
class Chart:
    title: str
    kind: str  # BAR or LINE
    x_label: str
    y_label: str
    series: list[Series]
    categories: list[str] = field(default_factory=list)  # bars only
    x_scale: str = CATEGORY
    y_scale: str = LINEAR
    note: str = ""  # a line under the chart: what differs between ours and the seed's, ...
    folded: bool = False  # drawn under "more charts", one click open: a detail, not the answer
    base: float | None = None  # bars: where they rise from (1 for ratios on a log axis); else the axis' end

    def __post_init__(self) -> None:
        for s in self.series:
            expected = len(self.categories) if self.kind == BAR else len(s.xs)
            if len(s.values) != expected:
                raise ValueError(f"{self.title}: series {s.label} has {len(s.values)} values for {expected} places")
