"""The catalog of implementations: every `servers/<impl>/arena.toml` and `micro/<impl>/arena.toml`,
parsed and checked.

The harness learns everything about an implementation from its manifest; the format is documented
in servers/README.md and micro/README.md. A manifest's `[[variant]]` tables are rows of their own,
run from the same folder and build.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from arena.errors import ArenaError, UsageError
from arena.paths import MICRO, ROOT, SERVERS

PAYLOADS = ("copied", "shared")


class ManifestError(ArenaError):
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
    warm_s: float = 0.0  # the least full load a start takes to reach steady state (a JIT's tiers)
    payload: str = ""  # micro-benchmarks: what an idiomatic send does, "copied" or "shared"
    features: dict[str, str] = field(default_factory=dict)  # [features]: FEATURES -> this implementation's answer
    unavailable: str = ""  # why this runtime cannot be had here at all (the row stays, with the reason)

    @property
    def build_key(self) -> str:
        """Names the folder's build: variants share it, and servers/go and micro/go do not."""
        return f"{self.folder.parent.name}-{self.folder.name}"

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


def _read(path: Path) -> tuple[dict, str]:
    where = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
    try:
        return tomllib.loads(path.read_text(encoding="utf-8")), where
    except (OSError, UnicodeDecodeError) as err:
        raise ManifestError(f"{where}: cannot read: {err}") from err
    except tomllib.TOMLDecodeError as err:
        raise ManifestError(f"{where}: invalid TOML: {err}") from err


def _toolchains(tables: list, where: str) -> list[Toolchain]:
    return [
        Toolchain(
            name=_get(tc, "name", str, f"{where} [[toolchain]]"),
            check=_argv(tc.get("check"), f"{where} [[toolchain]] check"),
            install=tc.get("install"),
        )
        for tc in tables
    ]


def _run(run: dict, where: str) -> tuple[list[str], dict[str, str]]:
    env = _get(run, "env", dict, f"{where} [run]", default={})
    if not all(isinstance(v, str) for v in env.values()):
        raise ManifestError(f"{where} [run] env: values must be strings")
    return _argv(run.get("command"), f"{where} [run] command"), env


def _cores(cores: dict, where: str) -> tuple[int, str]:
    max_cpus = _get(cores, "max", int, f"{where} [cores]")
    if max_cpus < 0:
        raise ManifestError(f"{where} [cores] max: must be 0 (no limit) or a positive number of cores")
    return max_cpus, _get(cores, "how", str, f"{where} [cores]")


# The thesis' feature comparison (its Tables 3 and 4), row by row: what `[features]` answers for an
# implementation as it is written here (its runtime, framework and libraries), in a few words.
FEATURES = {
    "multi_threading": "Multi-threading",
    "lightweight_threads": "Lightweight threading",
    "event_based": "Event based asynchronous programming",
    "explicit_concurrency": "Explicit concurrency",
    "mutable_state": "Mutable variables",
    "communication": "Inter-process communication method",
    "error_handling": "Error handling",
}


def _features(data: dict, where: str) -> dict[str, str]:
    features = _get(data, "features", dict, where, default={})
    unknown = [key for key in features if key not in FEATURES]
    if unknown:
        raise ManifestError(f"{where} [features]: unknown {', '.join(unknown)}; known: {', '.join(FEATURES)}")
    if not all(isinstance(value, str) and value for value in features.values()):
        raise ManifestError(f"{where} [features]: every answer must be a non-empty string")
    return features


def _payload(data: dict, where: str) -> str:
    payload = _get(data, "payload", str, where, default="")
    if payload and payload not in PAYLOADS:
        raise ManifestError(f"{where}: 'payload' must be one of {', '.join(PAYLOADS)}, got {payload!r}")
    return payload


def parse(path: Path) -> Manifest:
    """Reads and checks one manifest; raises ManifestError with the file and field at fault."""
    return parse_rows(path)[0]


def parse_rows(path: Path) -> list[Manifest]:
    """The manifest's own row, then one per `[[variant]]`."""
    data, where = _read(path)
    name = _get(data, "name", str, where)
    if name != path.parent.name:
        raise ManifestError(f"{where}: name '{name}' differs from its folder '{path.parent.name}'")
    if "unavailable" in data:
        return [_unavailable(data, path, where)]
    build = _get(data, "build", dict, where)
    steps = [_argv(step, f"{where} [build] steps") for step in _get(build, "steps", list, f"{where} [build]")]
    test = _get(data, "test", dict, where, default={})
    run = _get(data, "run", dict, where)
    command, env = _run(run, where)
    max_cpus, how = _cores(_get(data, "cores", dict, where), where)

    base = Manifest(
        name=name,
        folder=path.parent,
        language=_get(data, "language", str, where),
        runtime=_get(data, "runtime", str, where),
        framework=_get(data, "framework", str, where),
        libraries=_get(data, "libraries", list, where, default=[]),
        seeds=_get(data, "seeds", list, where, default=[]),
        version=_argv(data.get("version"), f"{where} version"),
        toolchains=_toolchains(_get(data, "toolchain", list, where, default=[]), where),
        build_steps=steps,
        build_outputs=_get(build, "outputs", list, f"{where} [build]", default=[]),
        build_inputs=_get(build, "inputs", list, f"{where} [build]", default=[]),
        test_command=_argv(test["command"], f"{where} [test] command") if "command" in test else None,
        run_command=command,
        run_env=env,
        max_cpus=max_cpus,
        cores_how=how,
        ready_timeout=float(_get(run, "ready_timeout", (int, float), f"{where} [run]", default=60.0)),
        warm_s=float(_get(run, "warm_s", (int, float), f"{where} [run]", default=0.0)),
        payload=_payload(data, where),
        features=_features(data, where),
    )
    return [base, *(_variant(base, table, where) for table in _get(data, "variant", list, where, default=[]))]


def _variant(base: Manifest, table: dict, where: str) -> Manifest:
    where = f"{where} [[variant]]"
    suffix = _get(table, "name", str, where)
    where = f"{where} {suffix}"
    command, env = _run(_get(table, "run", dict, where), where)
    changes: dict = {"name": f"{base.name}-{suffix}", "run_command": command, "run_env": env}
    for key in ("runtime", "framework"):
        if key in table:
            changes[key] = _get(table, key, str, where)
    if "version" in table:
        changes["version"] = _argv(table["version"], f"{where} version")
    if "toolchain" in table:
        changes["toolchains"] = _toolchains(_get(table, "toolchain", list, where), where)
    if "cores" in table:
        changes["max_cpus"], changes["cores_how"] = _cores(_get(table, "cores", dict, where), where)
    if "payload" in table:
        changes["payload"] = _payload(table, where)
    return replace(base, **changes)


def _unavailable(data: dict, path: Path, where: str) -> Manifest:
    """A runtime that cannot be had here: its row, with the reason, and nothing to build or run."""
    return Manifest(
        name=data["name"],
        folder=path.parent,
        language=_get(data, "language", str, where),
        runtime=_get(data, "runtime", str, where),
        framework=_get(data, "framework", str, where, default="-"),
        libraries=[],
        seeds=_get(data, "seeds", list, where, default=[]),
        version=[],
        toolchains=[],
        build_steps=[],
        build_outputs=[],
        build_inputs=[],
        test_command=None,
        run_command=[],
        run_env={},
        max_cpus=0,
        cores_how="-",
        unavailable=_get(data, "unavailable", str, where),
    )


def load(folder: Path = SERVERS) -> tuple[list[Manifest], list[ManifestError]]:
    """Every manifest under `folder`, sorted by name, and the errors of those that did not parse."""
    manifests, errors = [], []
    for path in sorted(folder.glob("*/arena.toml")):
        try:
            manifests.extend(parse_rows(path))
        except ManifestError as err:
            errors.append(err)
    return manifests, errors


def load_micro(folder: Path = MICRO) -> tuple[list[Manifest], list[ManifestError]]:
    """Like `load`, for micro-benchmark folders, whose rows must say what a send does."""
    manifests, errors = load(folder)
    for m in [m for m in manifests if not m.payload and not m.unavailable]:
        manifests.remove(m)
        errors.append(ManifestError(f"{m.folder / 'arena.toml'}: {m.name}: missing 'payload' (copied or shared)"))
    return manifests, errors


def select(manifests: list[Manifest], names: list[str]) -> list[Manifest]:
    """The manifests named (all when none is named); an unknown name is an error that lists the known."""
    if not names:
        return manifests
    by_name = {m.name: m for m in manifests}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        known = ", ".join(by_name) or "none"
        raise UsageError(f"unknown implementation(s): {', '.join(unknown)} (known: {known})")
    return [by_name[n] for n in names]


Source = Callable[[], tuple[list[Manifest], list[ManifestError]]]


def rows(names: list[str], source: Source, warn: Callable[[str], None]) -> list[Manifest]:
    """The rows of `source` (load or load_micro) named, all when none is; `warn` hears of every
    manifest skipped because it does not parse."""
    manifests, errors = source()
    for error in errors:
        warn(f"skipping a manifest: {error}")
    return select(manifests, names)


def servers_and_micro(names: list[str], warn: Callable[[str], None]) -> tuple[list[Manifest], list[Manifest]]:
    """The REST servers and the micro-benchmark rows named (all when none is named); a name may be
    both (servers/go and micro/go), and must be one of them."""
    groups = []
    for manifests, errors in (load(), load_micro()):
        for error in errors:
            warn(f"skipping a manifest: {error}")
        groups.append(manifests)
    known = {m.name for group in groups for m in group}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UsageError(f"unknown implementation(s): {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    servers, micro = ([m for m in group if not names or m.name in names] for group in groups)
    return servers, micro
