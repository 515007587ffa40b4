"""Charts of the metrics a table already shows, pivoted from the table itself (arena.report.tables): a
column as grouped bars, or a row of columns as a line. The picture and the numbers beside it come
from the same cells, so they cannot disagree."""

from __future__ import annotations

import re
from collections.abc import Callable

from arena.report.charts import BAR, LINE, LINEAR, LOG, Chart, Series, Value
from arena.report.tables import Cell, Table


def value_of(cell: Cell, flags: list[str]) -> Value | None:
    """A cell as a chart value: its median and interval at the cell's scale, or a seed's number."""
    if cell.summary is not None:
        s, k = cell.summary, cell.scale
        interval = (s.ci_low * k, s.ci_high * k) if s.n > 1 else (None, None)
        return Value(s.median * k, *interval, tuple(flags))
    number = re.fullmatch(r"~?([-+]?[0-9][0-9,]*\.?[0-9]*(?:e[-+]?[0-9]+)?)", cell.text.strip())
    return Value(float(number.group(1).replace(",", ""))) if number else None


def bars(
    table: Table,
    column: int,
    series_of: int,
    category_of: Callable[[list[Cell]], str],
    title: str,
    y_label: str,
    x_label: str,
    y_scale: str = LINEAR,
    note: str = "",
    folded: bool = False,
) -> Chart | None:
    """Column `column` of `table` as grouped bars: a series per distinct text in column
    `series_of` (the implementation), a category per distinct `category_of` a row's cells (its
    budget and point). None when the column holds no number."""
    series: dict[str, dict[str, Value]] = {}
    seeds: set[str] = set()
    categories: list[str] = []
    for row in table.rows:
        value = value_of(row.cells[column], row.flags)
        if value is None:
            continue
        label = row.cells[series_of].show()
        category = category_of(row.cells)
        categories += [] if category in categories else [category]
        series.setdefault(label, {})[category] = value
        seeds |= {label} if row.seed else set()
    if not series:
        return None
    made = [Series(label, [found.get(c) for c in categories], seed=label in seeds) for label, found in series.items()]
    return Chart(title, BAR, x_label, y_label, made, categories, y_scale=y_scale, note=note, folded=folded)


def scale_for(numbers: list[float]) -> str:
    """LOG for positive numbers that span more than a decade, else LINEAR."""
    return LOG if numbers and min(numbers) > 0 and max(numbers) / min(numbers) > 10 else LINEAR


def lines(
    table: Table,
    columns: dict[int, float],
    label_of: Callable[[list[Cell]], str],
    title: str,
    x_label: str,
    y_label: str,
    note: str = "",
) -> Chart | None:
    """`table` as lines: a series per row (named `label_of` its cells), a point per column of
    `columns` (column index -> x) that holds a number; each axis logarithmic when it spans more than
    a decade."""
    made = []
    for row in table.rows:
        found = [(x, value_of(row.cells[i], row.flags)) for i, x in columns.items()]
        found = [(x, v) for x, v in found if v is not None]
        if found:
            made.append(Series(label_of(row.cells), [v for _, v in found], [x for x, _ in found], seed=row.seed))
    if not made:
        return None
    xs = [x for s in made for x in s.xs]
    ys = [v.y for s in made for v in s.values if v is not None]
    return Chart(title, LINE, x_label, y_label, made, x_scale=scale_for(xs), y_scale=scale_for(ys), note=note)
