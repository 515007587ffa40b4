"""What a stored run is shown as: one table model (tables.py) with its charts (charts.py, pivot.py),
the seeds' published numbers beside ours (published.py), the appendix of features and provenance
(features.py, provenance.py), and its renderers (render/: terminal, Markdown, HTML)."""
