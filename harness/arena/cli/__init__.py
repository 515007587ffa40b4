"""The command line: main.py parses every command and runs the short ones; the commands with a body
of their own have a module each (testsuite.py: `arena test`, benchmark.py: `arena bench-engine`).
The dashboard (`arena serve`) is a front end of its own, in dashboard/."""
