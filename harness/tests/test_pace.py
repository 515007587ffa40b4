"""The machine's pace (host/pace.py): a process that shares its core slows it, as a host's other
guests slow a virtual machine."""

import os
import subprocess
import sys
import time

from arena.host.cores import machine_cores
from arena.host.pace import pace_mib_s


def test_the_pace_falls_when_another_process_takes_half_of_its_core():
    allowed = os.sched_getaffinity(0)
    core = machine_cores()[0]
    os.sched_setaffinity(0, {core})
    try:
        alone = pace_mib_s()
        spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        try:
            os.sched_setaffinity(spinner.pid, {core})
            time.sleep(0.2)  # started and spinning on the same core
            shared = pace_mib_s()
        finally:
            spinner.kill()
            spinner.wait()
    finally:
        os.sched_setaffinity(0, allowed)
    assert alone > 0 and shared < 0.75 * alone, (alone, shared)
