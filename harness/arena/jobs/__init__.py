"""What a command does at length, beyond one run of a kind: the findings suite's runs
(findings_suite.py), the project's own tests (self_test.py), the load engine's benchmark against wrk
and oha (engine_bench.py), the page of reference results (results.py). The command line (cli/)
only parses and calls them."""
