"""The catalog of implementations: every `servers/<impl>/arena.toml` and `micro/<impl>/arena.toml`,
parsed and checked.

The harness learns everything about an implementation from its manifest; the format is documented
in servers/README.md and micro/README.md. A micro manifest's `[[variant]]` tables are rows of their
own, run from the same folder and build. So are a server's `[[setup]]` tables: a number belongs to
a setup (the server or framework, the process model), and an implementation may have several, its
default first. The default's row is named as the implementation (`node`), so that what was stored
before setups existed reads as it; another's is `impl:setup` (`node:http-single`).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from arena.errors import ArenaError, UsageError
from arena.paths import MICRO, ROOT, SERVERS

PAYLOADS = ("copied", "shared")
# A setup's process model: one process whatever the budget, a process a core, or one process whose
# threads (or schedulers) the budget sizes.
PROCESSES = {"single": "one process", "cluster": "a process a core", "threads": "threads a core"}
# TechEmpower's classification of an entry, lightest first: a platform answers with the runtime's
# own server and no framework, a micro-framework adds routing and little else, a full-stack one
# much more. A runtime's lightest setup is the one ordered against the others' (like for like).
CLASSES = ("platform", "micro", "full-stack")
SETUP_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")


class ManifestError(ArenaError):
    """A manifest that is missing, unreadable or incomplete."""


@dataclass(frozen=True)
class Toolchain:
    name: str
    check: list[str]
    install: str | None


@dataclass(frozen=True)
class Setup:
    """What a number belongs to besides the runtime: the server or framework that answers, how
    the processes use the budget, its class, and the studies that measured it."""

    name: str  # "express-cluster"
    server: str
    processes: str  # a key of PROCESSES
    klass: str  # one of CLASSES ("class" in the manifest)
    seeds: list[str]  # the studies that measured this setup
    versus: str = ""  # the setup of the same implementation this one adds its framework to
    changes: str = ""  # what it changes from the default setup ("" for the default)

    @property
    def lightness(self) -> int:
        return CLASSES.index(self.klass) if self.klass in CLASSES else len(CLASSES)


# An implementation that declares no setup has one, unnamed and unclassified (a micro row's too).
UNDECLARED = Setup(name="", server="", processes="", klass="", seeds=[])


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
    setup: Setup = UNDECLARED
    default: bool = True  # the implementation's default setup (its row is named as the folder)
    setups: int = 1  # how many setups its implementation declares

    @property
    def shown(self) -> str:
        """The row as people read it: its setup spelled out where its implementation has several
        (`node:express-cluster` for the row `node`), else its name (`go`)."""
        return self.label if self.setups > 1 else self.name

    @property
    def impl(self) -> str:
        """The implementation this row is a setup of: its folder's name."""
        return self.folder.name

    @property
    def label(self) -> str:
        """The row's name with its setup always spelled out (`node:express-cluster`), where the
        implementation declares setups."""
        return f"{self.impl}:{self.setup.name}" if self.setup.name else self.name

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
    variants = [_variant(base, table, where) for table in _get(data, "variant", list, where, default=[])]
    return [*_setups(base, _get(data, "setup", list, where, default=[]), where), *variants]


def _setup(table: dict, where: str, default: bool) -> Setup:
    name = _get(table, "name", str, where)
    where = f"{where} {name}"
    if not SETUP_NAME.match(name):
        raise ManifestError(f"{where}: 'name' must be lower-case letters, digits and '-'")
    processes = _get(table, "processes", str, where)
    if processes not in PROCESSES:
        raise ManifestError(f"{where}: 'processes' must be one of {', '.join(PROCESSES)}, got {processes!r}")
    klass = _get(table, "class", str, where)
    if klass not in CLASSES:
        raise ManifestError(f"{where}: 'class' must be one of {', '.join(CLASSES)}, got {klass!r}")
    changes = _get(table, "changes", str, where, default="")
    if not default and not changes:
        raise ManifestError(f"{where}: missing 'changes' (what it changes from the default setup)")
    seeds = _get(table, "seeds", list, where, default=[])
    if not all(isinstance(seed, str) for seed in seeds):
        raise ManifestError(f"{where}: 'seeds' must be a list of strings")
    return Setup(
        name=name,
        server=_get(table, "server", str, where),
        processes=processes,
        klass=klass,
        seeds=seeds,
        versus=_get(table, "versus", str, where, default=""),
        changes=changes,
    )


def _setups(base: Manifest, tables: list, where: str) -> list[Manifest]:
    """The default setup's row (the manifest's own run), then one row per other setup, each with
    what it changes: its run, cores, framework, libraries and the features that differ."""
    if not tables:
        return [base]
    where = f"{where} [[setup]]"
    setups = [_setup(table, where, default=i == 0) for i, table in enumerate(tables)]
    names = [setup.name for setup in setups]
    if len(set(names)) < len(names):
        raise ManifestError(f"{where}: two setups share a name ({', '.join(names)})")
    for setup in setups:
        if setup.versus and setup.versus not in names:
            raise ManifestError(f"{where} {setup.name}: 'versus' names no setup of this file: {setup.versus!r}")
    if set(tables[0]) & {"run", "cores", "framework", "libraries", "features"}:
        raise ManifestError(f"{where} {names[0]}: the default setup is the manifest's own: change its [run] there")
    rows = [replace(base, setup=setups[0], setups=len(setups))]
    for table, setup in zip(tables[1:], setups[1:], strict=True):
        here = f"{where} {setup.name}"
        changes: dict = {"name": f"{base.name}:{setup.name}", "setup": setup, "default": False, "setups": len(setups)}
        if "run" in table:
            run = _get(table, "run", dict, here)
            changes["run_command"], changes["run_env"] = _run(run, here)
            changes["ready_timeout"] = float(_get(run, "ready_timeout", (int, float), here, default=base.ready_timeout))
            changes["warm_s"] = float(_get(run, "warm_s", (int, float), here, default=base.warm_s))
        if "cores" in table:
            changes["max_cpus"], changes["cores_how"] = _cores(_get(table, "cores", dict, here), here)
        if "framework" in table:
            changes["framework"] = _get(table, "framework", str, here)
        if "libraries" in table:
            changes["libraries"] = _get(table, "libraries", list, here)
        if "features" in table:
            changes["features"] = base.features | _features(table, here)
        rows.append(replace(base, **changes))
    return rows


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


def selected_by(manifest: Manifest) -> set[str]:
    """What selects a row on the command line: its name, its setup spelled out (`node:express-cluster`
    for the default `node`), and, for a row of an implementation with setups, the implementation's
    name, which selects every setup of it."""
    return {manifest.name, manifest.label} | ({manifest.impl} if manifest.setup.name else set())


def select(manifests: list[Manifest], wanted: list[str]) -> list[Manifest]:
    """The rows named (all when none is), in the catalog's order; an unknown name is an error that
    lists the known."""
    if not wanted:
        return manifests
    known = {name for m in manifests for name in selected_by(m)}
    unknown = [n for n in wanted if n not in known]
    if unknown:
        shown = ", ".join(sorted(known)) or "none"
        raise UsageError(f"unknown implementation(s): {', '.join(unknown)} (known: {shown})")
    return [m for m in manifests if selected_by(m) & set(wanted)]


def one(manifests: list[Manifest], name: str) -> Manifest:
    """The one row a name starts: an implementation's name is its default setup."""
    (found,) = [m for m in select(manifests, [name]) if m.default or name in (m.name, m.label)]
    return found


def lightest(rows: list[Manifest]) -> Manifest:
    """Of one implementation's setups, the lightest: a platform setup where it has one, else the
    lightest class it has; of two as light, one whose processes use the budget as its default's do
    (Node.js's node:http on a cluster, as its Express), else the first declared."""
    model = next((m.setup.processes for m in rows if m.default), "")
    return min(rows, key=lambda m: (m.setup.lightness, m.setup.processes != model))


def names(rows: list[Manifest]) -> list[str]:
    """Names that select exactly these rows again, as a plan stores them: a default row of an
    implementation with several setups by its setup spelled out (`node:express-cluster`), since its
    own name (`node`) selects every setup of it."""
    return [m.shown for m in rows]


def compared(manifests: list[Manifest]) -> list[Manifest]:
    """What a comparison of runtimes measures when none is named: each implementation's default
    setup, and its lightest where that is another, so that runtimes are ordered like for like and
    each framework's cost shows beside."""
    chosen = []
    for impl in dict.fromkeys(m.impl for m in manifests):
        rows = [m for m in manifests if m.impl == impl]
        light = lightest(rows)
        chosen += [m for m in rows if m.default or m is light]
    return chosen


def for_seed(manifests: list[Manifest], seed: str) -> list[Manifest]:
    """What a study's experiment measures when none is named: of each implementation, the setups
    that study measured, else its default."""
    chosen = []
    for impl in dict.fromkeys(m.impl for m in manifests):
        rows = [m for m in manifests if m.impl == impl]
        chosen += [m for m in rows if seed in m.setup.seeds] or [m for m in rows if m.default]
    return chosen


Source = Callable[[], tuple[list[Manifest], list[ManifestError]]]


def rows(wanted: list[str], source: Source, warn: Callable[[str], None]) -> list[Manifest]:
    """The rows of `source` (load or load_micro) named, all when none is; `warn` hears of every
    manifest skipped because it does not parse."""
    manifests, errors = source()
    for error in errors:
        warn(f"skipping a manifest: {error}")
    return select(manifests, wanted)


def servers_and_micro(wanted: list[str], warn: Callable[[str], None]) -> tuple[list[Manifest], list[Manifest]]:
    """The REST servers and the micro-benchmark rows named (all when none is named); a name may be
    both (servers/go and micro/go), and must be one of them."""
    groups = []
    for manifests, errors in (load(), load_micro()):
        for error in errors:
            warn(f"skipping a manifest: {error}")
        groups.append(manifests)
    known = {name for group in groups for m in group for name in selected_by(m)}
    unknown = [n for n in wanted if n not in known]
    if unknown:
        raise UsageError(f"unknown implementation(s): {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    servers, micro = ([m for m in group if not wanted or selected_by(m) & set(wanted)] for group in groups)
    return servers, micro
