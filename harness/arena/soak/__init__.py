"""`arena soak`'s kind of measurement: each implementation held for minutes or hours at a share of
its capacity (spec/soak.md). Its parameters (parameters.py), the rate from a stored edge
(edges.py), one soak on one server start, period after period (periods.py), its trends
(trend.py), the measurement (kind.py, result.py), and its tables and timelines (tables.py)."""
