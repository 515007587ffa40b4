"""Runs the program as the harness does, at small sizes, with both kinds of process and both modes."""

import json
import os
import subprocess
import sys
import unittest
from pathlib import Path

from warmup import steady

HERE = Path(__file__).resolve().parent
CASES = [
    (["pingping", "--size", "100", "--rounds", "300"], {"received": 600}),
    (["pingpong", "--size", "3000", "--rounds", "300"], {"round_trips": 300}),
    (["spawn", "--procs", "500"], {"alive": 500}),
    (["ring", "--procs", "20", "--size", "50", "--rounds", "30"], {"laps": 30, "hops": 600}),
    (["ring", "--procs", "2", "--size", "1", "--rounds", "300"], {"laps": 300, "hops": 600}),
]
WARMUP = ["--warmup-s", "0.2"]  # unless a test says otherwise: short, so that the suite stays quick
# Runs the benchmark with a sender whose copy-mode buffers are one byte off: the receiver must fail.
CORRUPT = """
import sys, common, micro
make = common.Payload.make
common.Payload.make = lambda self, seq: make(self, seq + 1)
sys.exit(micro.main(sys.argv[1:]))
"""


def run(args: list[str], unit: str, script: list[str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *(script or ["micro.py"]), *args],
        cwd=HERE,
        env={**os.environ, "MICRO_UNIT": unit},
        capture_output=True,
        text=True,
        timeout=60,
    )


class MicroTest(unittest.TestCase):
    def output(self, args: list[str], unit: str) -> dict:
        done = run(args if "--warmup-s" in args else [*args, *WARMUP], unit)
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        self.assertEqual(len(lines), 1, done.stdout)
        doc = json.loads(lines[0])
        warmup = doc["warmup"]
        self.assertEqual(list(warmup), ["iterations", "seconds", "steady", "series"])
        self.assertEqual(warmup["iterations"], len(warmup["series"]))
        self.assertEqual(warmup["steady"], steady(warmup["series"]))
        return doc

    def test_benches(self):
        for unit in ("asyncio", "threads"):
            for mode, payload in (("idiomatic", "shared"), ("copy", "copied")):
                for args, check in CASES:
                    with self.subTest(unit=unit, mode=mode, args=args):
                        doc = self.output([*args, "--mode", mode], unit)
                        self.assertEqual(doc["check"], check)
                        self.assertEqual((doc["bench"], doc["mode"], doc["payload"]), (args[0], mode, payload))
                        self.assertEqual(doc["cpus"], 1)
                        self.assertGreater(doc["elapsed_s"], 0)
                        self.assertGreaterEqual(doc["warmup"]["iterations"], 1)
                        self.assertGreater(doc["warmup"]["seconds"], 0)
                        self.assertTrue(all(value > 0 for value in doc["warmup"]["series"]))

    def test_no_warmup(self):
        for unit in ("asyncio", "threads"):
            for args in (["pingpong", "--rounds", "50"], ["spawn", "--procs", "20"]):
                with self.subTest(unit=unit, args=args):
                    doc = self.output([*args, "--warmup-s", "0"], unit)
                    self.assertEqual(doc["warmup"], {"iterations": 0, "seconds": 0, "steady": False, "series": []})

    def test_warmup_until_steady_or_time_is_up(self):
        for unit in ("asyncio", "threads"):
            with self.subTest(unit=unit):
                doc = self.output(["ring", "--procs", "3", "--rounds", "50", "--warmup-s", "1.5"], unit)
                warmup = doc["warmup"]
                if warmup["steady"]:
                    self.assertFalse(any(steady(warmup["series"][:k]) for k in range(warmup["iterations"])))
                else:
                    self.assertGreaterEqual(warmup["seconds"], 1.5)
                self.assertEqual(doc["check"], {"laps": 50, "hops": 150})

    def test_spawn_metrics(self):
        for unit in ("asyncio", "threads"):
            with self.subTest(unit=unit):
                metric = self.output(["spawn", "--procs", "200"], unit)["metric"]
                self.assertGreaterEqual(metric["rss_peak_kb"], metric["rss_before_kb"])
                self.assertGreater(metric["us_per_spawn"], 0)

    def test_throughput(self):
        for unit in ("asyncio", "threads"):
            for mode in ("idiomatic", "copy"):
                with self.subTest(unit=unit, mode=mode):
                    args = ["throughput", "--pairs", "3", "--size", "200", "--seconds", "0.1", "--mode", mode]
                    doc = self.output(args, unit)
                    check = doc["check"]
                    self.assertEqual(len(check["per_pair"]), 3)
                    self.assertEqual(sum(check["per_pair"]), check["messages"])
                    self.assertGreater(check["messages"], 0)
                    self.assertEqual(doc["params"], {"pairs": 3, "size": 200, "seconds": 0.1})

    def test_defaults_and_ignored_options(self):
        doc = self.output(["spawn", "--size", "7", "--procs", "10", "--rounds", "2"], "asyncio")
        self.assertEqual(doc["params"], {"procs": 10})
        self.assertEqual(doc["mode"], "idiomatic")

    def test_bad_arguments(self):
        for args in (
            [],
            ["nosuchbench"],
            ["pingpong", "--size", "0"],
            ["pingpong", "--rounds", "-3"],
            ["pingpong", "--size", "abc"],
            ["pingpong", "--mode", "weird"],
            ["pingpong", "--bogus", "1"],
            ["pingpong", "size", "1"],
            ["pingpong", "--size"],
            ["ring", "--procs", "1"],
            ["throughput", "--seconds", "0"],
            ["throughput", "--seconds", "nan"],
            ["pingpong", "--warmup-s", "-1"],
            ["pingpong", "--warmup-s", "-0.5"],
            ["pingpong", "--warmup-s", "soon"],
            ["pingpong", "--warmup-s", "inf"],
            ["pingpong", "--warmup-s", ""],
            ["pingpong", "--warmup-s"],
            ["pingpong", "--warmup_s", "1"],
        ):
            with self.subTest(args=args):
                done = run(args, "asyncio")
                self.assertEqual(done.returncode, 2)
                self.assertEqual(done.stdout, "")
                self.assertEqual(len(done.stderr.splitlines()), 1, done.stderr)
        self.assertEqual(run(["pingpong"], "fibers").returncode, 2)

    def test_wrong_copy_fails(self):
        for unit in ("asyncio", "threads"):
            for bench in ("pingping", "pingpong", "throughput", "ring"):
                with self.subTest(unit=unit, bench=bench):
                    done = run([bench, "--mode", "copy", "--rounds", "10", "--procs", "3"], unit, ["-c", CORRUPT])
                    self.assertEqual(done.returncode, 1, done.stderr)
                    self.assertIn("expected", done.stderr)
                    self.assertEqual(done.stdout, "")


if __name__ == "__main__":
    unittest.main()
