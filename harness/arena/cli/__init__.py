"""The command line: main.py assembles it from the modules that own the commands, a module per
family (impls.py, measuring.py, findings.py, compare.py, stored.py) or per command (selftest.py:
`arena test`, benchmark.py: `arena bench-engine`); each turns its arguments into a call, and what
a command does at length lives below it (jobs/, the kinds, lifecycle.py). The dashboard (`arena
serve`) is a front end of its own, in dashboard/."""
