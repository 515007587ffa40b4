"""The table model every summary is made of: a report of sections, one per experiment or bench,
each with one table of rows and cells and the charts of arena.report.charts. The kinds build it once from
the stored measurements; the renderers (render/terminal.py, render/markdown.py, render/html.py)
write it, and none reads another's output."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from arena.measured.flags import Flag
from arena.measured.stats import NO_INTERVAL, Summary

if TYPE_CHECKING:
    from arena.report.charts import Chart

# What each validity flag on a row means; the legend lists those a report uses.
FLAGS: dict[Flag, str] = {
    Flag.NOISY: "the coefficient of variation of the table's main value over repetitions is above 10%",
    Flag.ENGINE_BOUND: "the load engine used > 90% of its cores: the number may measure the engine",
    Flag.ERRORS: (
        "requests failed past a bound: 1% of a REST point's; 0.1% of a soak's measured arrivals (failed or "
        "dropped) or polls (spec/soak.md)"
    ),
    Flag.CRASHED: "the server exited or could not be started: a REST point leaves those repetitions out of its medians",
    Flag.SHARED_CORES: "no core was left for the engine: it shared the server's cores",
    Flag.FAILED: "a repetition or point produced no measurement (see the notes)",
    Flag.MEMORY_GROWS: "a soak's memory slope lies above its bound, interval and all (spec/soak.md)",
    Flag.P99_DRIFTS: "a soak's p99 grew past its bound over the measured periods, interval and all (spec/soak.md)",
    Flag.NON_MONOTONE: (
        "a capacity start failed at a rate below one it passed (on decisive windows, where it took them): its edge "
        "rests on a probe that chance, a stall or a server changing during the search decided (spec/capacity.md)"
    ),
    Flag.PAUSE_BOUND: (
        "a capacity start's edge was set by a pause, not a queue: the probe above it broke only the p99 objective, "
        "its median under a tenth of it; such an edge moves with how often the server pauses (spec/capacity.md, "
        '"Spread")'
    ),
    Flag.STOLEN: (
        "the failure above a capacity start's edge lost 2% or more of its cores' time to the hypervisor (steal), "
        "taken once more and stolen from again: its stalls were the host's, not the server's, and may have set "
        'that edge (spec/capacity.md, "Spread")'
    ),
    Flag.CUT_SHORT: "Ctrl-C ended the soak before its last period: what it measured until then",
    Flag.UNSTEADY: (
        "a warm-up did not become steady within its bound: a REST point leaves those repetitions out of its "
        "medians; a micro-benchmark cell keeps them (see its warm-up table)"
    ),
    Flag.NEVER_STEADY: (
        "a warm-up did not become steady within its bound at a point whose profile counts it anyway "
        "(`count_unsteady`: past a server's limit its load oscillates and no steady state comes, while the seed "
        "counted its whole run): in the medians, its warm-up in the notes (spec/scenarios/README.md)"
    ),
}
CELLS = (
    "Cells: median over repetitions with its 95% interval — the geometric mean's for a number above zero, the "
    "mean's cut at zero for one that can be zero, never narrower than the number's resolution (spec/export.md, "
    '"Intervals") — as ± its wider side where it lies about evenly, else [low, high]; ≥ or ≤: the load engine was '
    "the limit, the server's own beyond the median shown"
)
ONCE = (
    f"{NO_INTERVAL}: one repetition has no spread to build an interval from; a table measured once shows its values "
    "alone, and where a table mixes them, a cell marked (n=1) is one"
)


def digits(value: float) -> int:
    """Decimals a cell gives a value: two under 10, one under 100, none above (three figures)."""
    return 2 if abs(value) < 10 else 1 if abs(value) < 100 else 0


@dataclass(frozen=True)
class Column:
    header: str
    essential: bool = True  # kept when the terminal is too narrow to show every column
    numeric: bool = False  # aligned right


@dataclass(frozen=True)
class Cell:
    """A label, or a value over repetitions: its median and 95% interval (`summary`), shown at
    `scale` with `digits` decimals, and what else it needs to say (`suffix`, e.g. "(1 failed)")."""

    text: str = "-"
    summary: Summary | None = None
    scale: float = 1.0
    digits: int = 0
    suffix: str = ""
    # How a verdict reads, for the renderers that colour it: "good" (for a claim), "bad" (against),
    # "even" (undecided), "muted" (nothing to say); "" for an ordinary cell.
    tone: str = ""

    @staticmethod
    def value(summary: Summary, scale: float = 1.0, digits: int = 0, suffix: str = "") -> Cell:
        return Cell(summary=summary, scale=scale, digits=digits, suffix=suffix)

    def show(self, once: bool = False) -> str:
        """The cell as a reader sees it; `once`: its table was measured once, and says so for all."""
        shown = self.summary.show(self.scale, self.digits, once) if self.summary is not None else self.text
        return shown + self.suffix


@dataclass(frozen=True)
class Row:
    cells: list[Cell]
    flags: list[str] = field(default_factory=list)
    seed: bool = False  # the seed's published values, not a measurement of ours


@dataclass
class Table:
    columns: list[Column]
    rows: list[Row]
    flags: bool = True  # renderers add a last column, "flags", from each row's flags

    def __post_init__(self) -> None:
        for row in self.rows:
            if len(row.cells) != len(self.columns):
                raise ValueError(f"a row of {len(row.cells)} cells in a table of {len(self.columns)} columns")

    @property
    def once(self) -> bool:
        """Whether every value it holds is of one repetition: said once for the table, not per cell."""
        values = [c.summary for row in self.rows for c in row.cells if c.summary is not None]
        return bool(values) and all(v.n < 2 for v in values)


@dataclass
class Section:
    """One experiment or bench: its heading, its table, notes under it, and its charts (drawn by
    the HTML report only; the terminal and Markdown show the table)."""

    heading: str
    table: Table | None = None
    notes: list[str] = field(default_factory=list)
    skipped: str = ""  # why it has no table (an experiment still pending)
    charts: list[Chart] = field(default_factory=list)
    folded: bool = False  # its table behind a fold, opened by the reader (HTML and Markdown: <details>)
    answer: list[str] = field(default_factory=list)  # what the table answers, in a line or two right under it


@dataclass
class Report:
    title: str
    preamble: list[str] = field(default_factory=list)  # lines under the title (the machine, ...)
    sections: list[Section] = field(default_factory=list)
    legend: list[str] = field(default_factory=list)  # what the cells and flags mean
    skipped: list[str] = field(default_factory=list)  # what the run skipped, and why
    # Sections after the results, for the files (summary.md, report.html) and not the terminal:
    # the implementations compared feature by feature, the run's provenance.
    appendix: list[Section] = field(default_factory=list)


def legend(
    sections: list[Section],
    always: tuple[str, ...] = (Flag.NOISY,),
    extra: tuple[str, ...] = (),
    cells: str = CELLS,
    flags: dict[str, str] = FLAGS,
) -> list[str]:
    """The cells' meaning (and that of a cell measured once, where there is one), `extra` lines,
    then every flag the tables use (and those in `always`), as `flags` explains them."""
    rows = [row for s in sections if s.table for row in s.table.rows]
    used = set(always) | {flag for row in rows for flag in row.flags}
    once = [ONCE] if any(c.summary is not None and c.summary.n < 2 for row in rows for c in row.cells) else []
    return [cells, *once, *extra, *(f"{flag}: {meaning}" for flag, meaning in flags.items() if flag in used)]
