"""Writers of the table model (arena.tables): terminal and Markdown."""
