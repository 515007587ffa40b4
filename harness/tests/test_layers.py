"""The harness's dependencies point one way — command line and dashboard → lifecycle → kinds → the
run frame → shared parts, and within the shared parts from the top of their order to its bottom —
and no module imports itself back through others. A kind may build on another only from a layer
above it: the soak holds servers at a share of their capacity, with capacity's workloads and runner."""

import ast
from pathlib import Path

import arena

PACKAGE = Path(arena.__file__).parent
# Each top-level module and folder of the package, by layer: a module may import its own layer's
# shared parts and anything below, never above. A new folder must be placed here to be checked.
LAYERS = {
    "the entry point": {"__main__"},
    "command line": {"cli"},
    "jobs of many steps": {"jobs"},  # the findings suite's runs, `arena test`, `arena bench-engine`
    "dashboard": {"dashboard"},  # `arena serve`, which the command line starts
    "lifecycle": {"lifecycle"},
    "kinds built on kinds": {"soak"},
    "kinds": {"rest", "micro", "capacity"},
    "the run frame": {"frame"},
    # The shared parts in their own order, from the top: each imports only from the rows below it.
    "questions asked of stored runs": {"findings", "gates"},
    "comparisons": {"compare"},
    "what a kind is": {"kind"},
    "what a run is given": {"context"},  # the console, the claimed store, the database, the engine
    "reports": {"report"},
    "checks of an implementation": {"checks"},
    "load engines": {"engines"},
    "measurements and their store": {"measured"},
    "processes on this machine": {"host"},
    "implementations": {"impls"},
    "what a person sees": {"console"},
    "errors, paths and shared options": {"errors", "paths", "options"},
}
RANK = {part: rank for rank, parts in enumerate(reversed(LAYERS.values())) for part in parts}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports() -> dict[str, set[str]]:
    """Every module of the package and the package's modules it imports."""
    # The package itself is left out: `from arena import x` names it only as the way to x.
    modules = {module_name(path): path for path in PACKAGE.rglob("*.py") if path != PACKAGE / "__init__.py"}
    graph = {}
    for name, path in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                found.add(node.module)
                found |= {f"{node.module}.{alias.name}" for alias in node.names}
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def part(module: str) -> str:
    """The top-level module or folder of 'arena.X.Y': 'X'."""
    return module.split(".")[1]


def layer(module: str) -> int:
    return RANK[part(module)]


def test_every_module_has_a_layer():
    assert {part(module) for module in imports()} == set(RANK)


def test_dependencies_point_one_way():
    # Two folders of one layer may not import each other either: only a lower layer is below.
    wrong = [
        f"{module} imports {target}"
        for module, targets in imports().items()
        for target in targets
        if part(module) != part(target) and layer(target) >= layer(module)
    ]
    assert wrong == []


def cycles_of(graph: dict[str, set[str]]) -> list[str]:
    """Every cycle a depth-first walk meets, as 'a -> b -> a'."""
    state: dict[str, str] = {}
    found = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = "open"
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                found.append(" -> ".join([*path[path.index(target) :], target]))
            elif target not in state:
                visit(target, [*path, target])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    return found


def test_no_import_cycle():
    assert cycles_of({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a -> b -> c -> a"]
    assert cycles_of(imports()) == []


def test_the_check_sees_the_layers():
    graph = imports()
    assert "arena.lifecycle" in graph["arena.cli.measuring"] and "arena.kind" in graph["arena.lifecycle"]
    assert "arena.measured.store" in graph["arena.rest.kind"]
