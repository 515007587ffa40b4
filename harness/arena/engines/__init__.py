"""Load engines behind one interface (interface.py): loadgen, the own engine in Rust (loadgen.py),
and Locust's master and workers (locust/), both applying the warm-up rule of warmup_rule.py."""
