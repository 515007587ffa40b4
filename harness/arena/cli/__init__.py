"""The command line: main.py assembles it from the modules that own the commands, a module per
family (impls.py, measuring.py, findings.py, compare.py, stored.py) or per command with a body of
its own (testsuite.py: `arena test`, benchmark.py: `arena bench-engine`). The dashboard (`arena
serve`) is a front end of its own, in dashboard/."""
