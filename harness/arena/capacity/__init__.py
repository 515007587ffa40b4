"""`arena capacity`'s kind of measurement: where each runtime breaks (spec/capacity.md). The
workloads and the search's parameters (workloads.py), the search (search.py), one probe (probe.py),
one search on one server start as a measurement (kind.py, result.py), and its tables and curves
(tables.py)."""
