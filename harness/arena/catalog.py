"""The catalog of implementations: every `servers/<impl>/arena.toml`, parsed and checked.

The harness learns everything about an implementation from its manifest; the format is documented
in servers/README.md.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec"
SERVERS = ROOT / "servers"
# Tests point this elsewhere so they never touch a user's results.
RESULTS = Path(os.environ.get("ARENA_RESULTS") or ROOT / "results")


class ManifestError(Exception):
    """A manifest that is missing, unreadable or incomplete."""


@dataclass(frozen=True)
class Toolchain:
    name: str
    check: list[str]
    install: str | None


@dataclass(frozen=True)
class Manifest:
    name: str
    folder: Path
    language: str
    runtime: str
    framework: str
    libraries: list[str]
    seeds: list[str]
    version: list[str]
    toolchains: list[Toolchain]
    build_steps: list[list[str]]
    build_outputs: list[str]
    build_inputs: list[str]  # folders beside the implementation's own that its build reads
    test_command: list[str] | None
    run_command: list[str]
    run_env: dict[str, str]
    max_cpus: int
    cores_how: str
    ready_timeout: float = 60.0
    notes: list[str] = field(default_factory=list)

    def cpus_for(self, wanted: int) -> int:
        """The core budget this implementation actually gets for a wanted budget."""
        return wanted if self.max_cpus == 0 else min(wanted, self.max_cpus)

    def command(self, cpus: int) -> list[str]:
        return [part.replace("{cpus}", str(cpus)) for part in self.run_command]

    def env(self, cpus: int) -> dict[str, str]:
        return {key: value.replace("{cpus}", str(cpus)) for key, value in self.run_env.items()}


def _get(table: dict, key: str, kind: type, where: str, default=None):
    if key not in table:
        if default is not None:
            return default
        raise ManifestError(f"{where}: missing '{key}'")
    value = table[key]
    if not isinstance(value, kind):
        raise ManifestError(f"{where}: '{key}' must be a {kind.__name__}, got {type(value).__name__}")
    return value


def _argv(value: object, where: str) -> list[str]:
    if not (isinstance(value, list) and value and all(isinstance(part, str) for part in value)):
        raise ManifestError(f"{where}: must be a non-empty list of strings (a command and its arguments)")
    return value


def parse(path: Path) -> Manifest:
    """Reads and checks one manifest; raises ManifestError with the file and field at fault."""
    where = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise ManifestError(f"{where}: cannot read: {err}") from err
    except tomllib.TOMLDecodeError as err:
        raise ManifestError(f"{where}: invalid TOML: {err}") from err

    name = _get(data, "name", str, where)
    if name != path.parent.name:
        raise ManifestError(f"{where}: name '{name}' differs from its folder '{path.parent.name}'")
    toolchains = [
        Toolchain(
            name=_get(tc, "name", str, f"{where} [[toolchain]]"),
            check=_argv(tc.get("check"), f"{where} [[toolchain]] check"),
            install=tc.get("install"),
        )
        for tc in _get(data, "toolchain", list, where, default=[])
    ]
    build = _get(data, "build", dict, where)
    steps = [_argv(step, f"{where} [build] steps") for step in _get(build, "steps", list, f"{where} [build]")]
    test = _get(data, "test", dict, where, default={})
    run = _get(data, "run", dict, where)
    run_env = _get(run, "env", dict, f"{where} [run]", default={})
    if not all(isinstance(v, str) for v in run_env.values()):
        raise ManifestError(f"{where} [run] env: values must be strings")
    cores = _get(data, "cores", dict, where)
    max_cpus = _get(cores, "max", int, f"{where} [cores]")
    if max_cpus < 0:
        raise ManifestError(f"{where} [cores] max: must be 0 (no limit) or a positive number of cores")

    return Manifest(
        name=name,
        folder=path.parent,
        language=_get(data, "language", str, where),
        runtime=_get(data, "runtime", str, where),
        framework=_get(data, "framework", str, where),
        libraries=_get(data, "libraries", list, where, default=[]),
        seeds=_get(data, "seeds", list, where, default=[]),
        version=_argv(data.get("version"), f"{where} version"),
        toolchains=toolchains,
        build_steps=steps,
        build_outputs=_get(build, "outputs", list, f"{where} [build]", default=[]),
        build_inputs=_get(build, "inputs", list, f"{where} [build]", default=[]),
        test_command=_argv(test["command"], f"{where} [test] command") if "command" in test else None,
        run_command=_argv(run.get("command"), f"{where} [run] command"),
        run_env=run_env,
        max_cpus=max_cpus,
        cores_how=_get(cores, "how", str, f"{where} [cores]"),
        ready_timeout=float(_get(run, "ready_timeout", (int, float), f"{where} [run]", default=60.0)),
    )


def load(folder: Path = SERVERS) -> tuple[list[Manifest], list[ManifestError]]:
    """Every manifest under `folder`, sorted by name, and the errors of those that did not parse."""
    manifests, errors = [], []
    for path in sorted(folder.glob("*/arena.toml")):
        try:
            manifests.append(parse(path))
        except ManifestError as err:
            errors.append(err)
    return manifests, errors


def select(manifests: list[Manifest], names: list[str]) -> list[Manifest]:
    """The manifests named (all when none is named); an unknown name is an error that lists the known."""
    if not names:
        return manifests
    by_name = {m.name: m for m in manifests}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        known = ", ".join(by_name) or "none"
        raise ManifestError(f"unknown implementation(s): {', '.join(unknown)} (known: {known})")
    return [by_name[n] for n in names]
