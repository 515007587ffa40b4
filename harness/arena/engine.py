"""The load engine (loadgen/): built with cargo, run pinned to its cores, its JSON result parsed."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

from arena.build import tail
from arena.catalog import RESULTS, ROOT, Toolchain
from arena.process import cpu_list
from arena.toolchain import Toolchains

LOADGEN = ROOT / "loadgen"
BINARY = LOADGEN / "target" / "release" / "loadgen"
BUILD_TIMEOUT = 1800
# The engine's crate is edition 2024: Debian 12's `cargo` (rustc 1.63) cannot build it, its
# `cargo-web` (a current Rust from bookworm-security) can.
CARGO = Toolchain(
    "rust-2024", ["sh", "-c", "cargo --version && rustc --edition 2024 --print sysroot"], "apt-get install -y cargo-web"
)


class EngineError(Exception):
    """The engine could not be built, or a run produced no result."""


def ensure_built(toolchains: Toolchains) -> None:
    """`cargo build --release --locked`; cargo itself skips the work when nothing changed."""
    available = toolchains.ensure_tool(CARGO, "the load engine")
    if not available.ok:
        raise EngineError(available.reason)
    log = RESULTS / "logs" / "build-loadgen.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    try:
        with log.open("w") as out:
            done = subprocess.run(
                ["cargo", "build", "--release", "--locked", "--quiet"],
                cwd=LOADGEN, stdout=out, stderr=subprocess.STDOUT, timeout=BUILD_TIMEOUT, check=False,
            )  # fmt: skip
    except FileNotFoundError:
        raise EngineError(
            "cargo is not installed; the load engine needs Rust (rustup or apt-get install cargo)"
        ) from None
    except subprocess.TimeoutExpired:
        raise EngineError(f"building the load engine took over {BUILD_TIMEOUT} s (log {log})") from None
    if done.returncode != 0:
        raise EngineError(f"building the load engine failed (log {log}):\n{tail(log)}")


def run(scenario: dict, cores: list[int], timeout: float) -> dict:
    """One engine run of `scenario` on `cores`; the parsed result document."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", dir=_scratch(), delete=False) as file:
        json.dump(scenario, file)
        path = Path(file.name)
    command = ["taskset", "--cpu-list", cpu_list(cores), str(BINARY), "run", str(path), "--threads", str(len(cores))]
    try:
        # subprocess.run kills the engine if we are interrupted or time out while it runs.
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise EngineError(f"the engine did not finish within {timeout:.0f} s") from None
    finally:
        path.unlink(missing_ok=True)
    if done.returncode != 0:
        raise EngineError(f"the engine exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError as err:
        raise EngineError(f"the engine printed no valid JSON ({err}); stderr: {done.stderr.strip()[-500:]}") from None


def _scratch() -> Path:
    folder = RESULTS / "tmp"
    folder.mkdir(parents=True, exist_ok=True)
    return folder
