"""A report as Markdown: results/<run>/summary.md."""

from __future__ import annotations

from arena.report.tables import Report, Section, Table


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def table(t: Table) -> str:
    flags = ["flags"] if t.flags else []
    headers = [c.header for c in t.columns] + flags
    lines = ["| " + " | ".join(map(_escape, headers)) + " |"]
    lines.append("|" + "".join("---:|" if c.numeric else "---|" for c in t.columns) + "---|" * len(flags))
    for row in t.rows:
        cells = [cell.show(t.once) for cell in row.cells] + ([", ".join(row.flags)] if t.flags else [])
        lines.append("| " + " | ".join(map(_escape, cells)) + " |")
    return "\n".join(lines)


def report(r: Report) -> str:
    out = [f"# {r.title}", ""]
    for line in r.preamble:
        out += [line, ""]
    for part in r.sections:
        out += section(part)
    first, *rest = r.legend or [""]
    out += [first, ""]
    out += [f"- {line}" for line in rest + r.skipped]
    out.append("")
    for part in r.appendix:
        out += section(part)
    return "\n".join(out).rstrip() + "\n"


def section(given: Section, level: int = 2) -> list[str]:
    """One section: its heading at `level`, its table, the line that answers it, its notes."""
    out = [f"{'#' * level} {given.heading}", ""]
    if given.skipped:
        out += [f"Skipped: {given.skipped}.", ""]
    if given.table is not None and given.folded:
        # GitHub and most viewers fold a <details> block; the table inside it needs blank lines around.
        rows = f"{len(given.table.rows)} row(s)"
        out += [f"<details><summary>{rows}</summary>", "", table(given.table), "", "</details>", ""]
    elif given.table is not None:
        out += [table(given.table), ""]
    if given.answer:
        out += [*(f"**{line}**  " for line in given.answer), ""]
    if given.notes:
        out += [*(f"- {note}" for note in given.notes), ""]
    return out
