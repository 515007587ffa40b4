"""Writers of the table model (arena.report.tables): the terminal, summary.md and report.html, and
the pinned charting scripts the HTML inlines (vendor.py)."""
