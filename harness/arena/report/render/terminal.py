"""A report, or any table of the model, on the terminal (rich).

On a terminal a table that is wider than the window keeps its essential columns and says which it
hid (`--wide` shows them all, wrapped; summary.md always has them). When the output is not a
terminal (CI, a log file) every column is printed and nothing is wrapped.
"""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from arena.console import Console as Shell
from arena.report.tables import Report, Table

UNBOUNDED = 100_000
TONE_STYLES = {"good": "green", "bad": "bold red", "even": "yellow", "muted": "dim"}


def _rich(t: Table, keep: list[int]) -> RichTable:
    shown = RichTable(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
    for i in keep:
        column = t.columns[i]
        shown.add_column(column.header, justify="right" if column.numeric else "left", overflow="fold")
    if t.flags:
        shown.add_column("flags", overflow="fold")
    for row in t.rows:
        cells = [Text(row.cells[i].show(t.once), style=TONE_STYLES.get(row.cells[i].tone, "")) for i in keep]
        shown.add_row(*cells, *([", ".join(row.flags)] if t.flags else []), style="dim" if row.seed else None)
    return shown


def fitted(t: Table, console: Console, wide: bool) -> tuple[RichTable, list[str]]:
    """The table as rich draws it, and the headers of the columns left out to fit the window."""
    every = list(range(len(t.columns)))
    shown = _rich(t, every)
    unbounded = console.options.update_width(UNBOUNDED)  # a table measures within the width it is offered
    if wide or not console.is_terminal or console.measure(shown, options=unbounded).maximum <= console.width:
        return shown, []
    essential = [i for i in every if t.columns[i].essential]
    return _rich(t, essential), [t.columns[i].header for i in every if i not in essential]


def table(shell: Shell, t: Table) -> None:
    """A table on the harness's console, its columns fitted to the window unless `--wide`."""
    _table(t, shell.out, shell.wide)


def report(shell: Shell, r: Report) -> None:
    """A report on the harness's console: its tables, then its notes and legend."""
    _report(r, shell.out, shell.wide)


def _table(t: Table, console: Console, wide: bool) -> None:
    shown, hidden = fitted(t, console, wide)
    console.print(shown)
    if hidden:
        console.print(f"  (not shown to fit the window: {', '.join(hidden)}; --wide shows every column)")


def _report(r: Report, console: Console, wide: bool) -> None:
    console.print(r.title, style="bold")
    for line in r.preamble:
        console.print(line)
    console.print()
    for section in r.sections:
        console.print(section.heading, style="bold")
        if section.skipped:
            console.print(f"  skipped: {section.skipped}")
        if section.table is not None:
            _table(section.table, console, wide)
        for line in section.answer:
            console.print(f"  {line}", style="bold")
        for note in section.notes:
            console.print(f"  {note}")
        console.print()
    for line in r.legend + r.skipped:
        console.print(line)
