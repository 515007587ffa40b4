"""Arena's own load engine (loadgen/, Rust) behind the engine interface: built with cargo, run
pinned to its cores, its JSON result parsed."""

from __future__ import annotations

import json
import signal
import subprocess
import tempfile
from pathlib import Path

from arena.engines.interface import EngineError, EngineRun
from arena.host.process import cpu_list
from arena.impls.build import tail
from arena.impls.catalog import Toolchain
from arena.impls.toolchain import Toolchains
from arena.paths import RESULTS, ROOT

LOADGEN = ROOT / "loadgen"
BINARY = LOADGEN / "target" / "release" / "loadgen"
BUILD_TIMEOUT = 1800
CHECK_TIMEOUT = 60
# The engine's crate is edition 2024: Debian 12's `cargo` (rustc 1.63) cannot build it, its
# `cargo-web` (a current Rust from bookworm-security) can.
CARGO = Toolchain(
    "rust-2024", ["sh", "-c", "cargo --version && rustc --edition 2024 --print sysroot"], "apt-get install -y cargo-web"
)


class Loadgen:
    name = "loadgen"

    def ensure(self, toolchains: Toolchains) -> None:
        """`cargo build --release --locked`; cargo itself skips the work when nothing changed."""
        available = toolchains.ensure_tool(CARGO, "the load engine")
        if not available.ok:
            raise EngineError(f"the load engine cannot be built: {available.reason}")
        log = RESULTS / "logs" / "build-loadgen.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        try:
            with log.open("w") as out:
                done = subprocess.run(
                    ["cargo", "build", "--release", "--locked", "--quiet"],
                    cwd=LOADGEN,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    timeout=BUILD_TIMEOUT,
                    check=False,
                )
        except FileNotFoundError:
            raise EngineError("cargo is missing; the load engine needs Rust (apt-get install cargo-web)") from None
        except subprocess.TimeoutExpired:
            raise EngineError(f"building the load engine took over {BUILD_TIMEOUT} s (log {log})") from None
        if done.returncode != 0:
            last = tail(log, 1) or "no output"
            raise EngineError(f"building the load engine failed: {last} (log {log})")

    def check(self, scenario: dict) -> float | None:
        done = _call([str(BINARY), "check", "-"], json.dumps(scenario), CHECK_TIMEOUT)
        if done.returncode != 0:
            raise EngineError(f"the engine refuses the scenario: {_said(done.stderr)}")
        return json.loads(done.stdout)["planned_s"]

    def run(self, scenario: dict, cores: list[int], timeout: float) -> EngineRun:
        with tempfile.NamedTemporaryFile("w", suffix=".json", dir=_scratch(), delete=False) as file:
            json.dump(scenario, file)
            path = Path(file.name)
        try:
            command = [
                "taskset",
                "--cpu-list",
                cpu_list(cores),
                str(BINARY),
                "run",
                str(path),
                "--threads",
                str(len(cores)),
            ]
            done = _call(command, None, timeout)
        finally:
            path.unlink(missing_ok=True)
        if done.returncode < 0:  # killed from outside (the OOM killer, a user): it has no last words
            raise EngineError(f"the engine was killed by {signal.Signals(-done.returncode).name} while it measured")
        if done.returncode != 0:
            raise EngineError(f"the engine exited {done.returncode}: {_said(done.stderr)}")
        try:
            result = json.loads(done.stdout)
        except json.JSONDecodeError as err:
            raise EngineError(f"the engine printed no valid JSON ({err}); stderr: {_said(done.stderr)}") from None
        usage = result["engine"]
        return EngineRun(
            result=result,
            cpu_s=usage["cpu_user_s"] + usage["cpu_system_s"],
            wall_s=usage["wall_s"],
            version=f"{usage['name']} {usage['version']}",
        )


def _call(command: list[str], stdin: str | None, timeout: float) -> subprocess.CompletedProcess:
    if not BINARY.exists():
        raise EngineError(f"the load engine is not built ({BINARY}); ./arena build builds it")
    try:
        # subprocess.run kills the engine if we are interrupted or time out while it runs.
        return subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise EngineError(f"the engine did not finish within {timeout:.0f} s") from None
    except OSError as err:
        raise EngineError(f"cannot start the engine: {err}") from None


def _said(stderr: str) -> str:
    """The engine's last words: its last non-empty stderr line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return lines[-1][:500] if lines else "nothing on stderr"


def _scratch() -> Path:
    folder = RESULTS / "tmp"
    folder.mkdir(parents=True, exist_ok=True)
    return folder
