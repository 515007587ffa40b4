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
    for section in r.sections:
        out += _section(section)
    first, *rest = r.legend or [""]
    out += [first, ""]
    out += [f"- {line}" for line in rest + r.skipped]
    out.append("")
    for section in r.appendix:
        out += _section(section)
    return "\n".join(out).rstrip() + "\n"


def _section(section: Section) -> list[str]:
    out = [f"## {section.heading}", ""]
    if section.skipped:
        out += [f"Skipped: {section.skipped}.", ""]
    if section.table is not None and section.folded:
        # GitHub and most viewers fold a <details> block; the table inside it needs blank lines around.
        rows = f"{len(section.table.rows)} row(s)"
        out += [f"<details><summary>{rows}</summary>", "", table(section.table), "", "</details>", ""]
    elif section.table is not None:
        out += [table(section.table), ""]
    if section.answer:
        out += [*(f"**{line}**  " for line in section.answer), ""]
    if section.notes:
        out += [*(f"- {note}" for note in section.notes), ""]
    return out
