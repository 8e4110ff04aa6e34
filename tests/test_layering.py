"""Imports point downwards: the engine knows no RL library and nothing above it, the envs know
no policies or training code, and the package's import graph has no cycle (DESIGN.md "Layers").

The graph holds every import of every module, also those inside functions (lazy imports
count: a lazy import upwards is still a dependency upwards).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "gin3_env"
RL_LIBRARIES = {"gymnasium", "gym", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib", "ray", "pyspiel"}

# The layer of each part of the package (its first name below gin3_env); a module may import
# modules of its own layer or lower ones. "" is the package's __init__, the facade that
# re-exports the engine and the envs and wires the policy loader into the envs.
LAYERS: dict[str, int] = {
    "engine": 0,
    "files": 0,
    "argparsing": 0,
    "signals": 0,  # stop signals as an exception (stdlib only), for the evaluate and train commands
    "observation": 1,
    "render": 1,
    "visual": 1,
    "envs": 2,
    "vector": 3,  # its batched players take the heuristic's config and the model loader from policies
    "": 3,
    "policies": 3,
    "evaluation": 4,
    "interop": 4,
    "training": 4,
    "benchmarks": 5,
    "play": 6,
    "cli": 7,
    "__main__": 8,
}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add(("." * node.level) + (node.module or ""))
    return names


def module_name(path: Path) -> str:
    parts = ["gin3_env", *path.relative_to(PACKAGE).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(module: str, is_package: bool, node: ast.ImportFrom | ast.Import) -> list[str]:
    """The gin3_env modules an import statement loads (a name imported from a package counts
    as its submodule when there is one)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "gin3_env"]
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join([*base, node.module] if node.module else base)
    else:
        target = node.module or ""
    if target.split(".")[0] != "gin3_env":
        return []
    out = []
    for alias in node.names:
        sub = f"{target}.{alias.name}"
        out.append(sub if sub in MODULES else target)
    return out


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        is_package = path.name == "__init__.py"
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import | ast.ImportFrom):
                targets.update(t for t in _resolve(module, is_package, node) if t != module)
        edges[module] = targets
    return edges


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_every_module_has_a_layer() -> None:
    unknown = sorted({layer_of(m) for m in MODULES} - set(LAYERS))
    assert not unknown, f"parts of the package with no layer in tests/test_layering.py: {unknown}"


def test_imports_point_down_the_layers() -> None:
    wrong = []
    for module, targets in graph().items():
        for target in targets:
            if target in MODULES and LAYERS[layer_of(target)] > LAYERS[layer_of(module)]:
                wrong.append(f"{module} -> {target}")
    assert not wrong, "imports pointing up the layers:\n" + "\n".join(sorted(wrong))


def test_the_import_graph_has_no_cycle() -> None:
    edges = graph()
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in MODULES:
                continue
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for module in sorted(MODULES):
        if module not in state:
            cycle = visit(module)
            assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_graph_sees_lazy_and_relative_imports() -> None:
    edges = graph()
    assert "gin3_env.engine.hand" in edges["gin3_env.engine.determinise"]
    assert "gin3_env.play.commands" in edges["gin3_env.cli"]  # imported inside main()
    assert "gin3_env.observation.encoding" in edges["gin3_env.envs.aec_hand"]


@pytest.mark.parametrize("path", sorted((PACKAGE / "engine").glob("*.py")), ids=lambda p: p.name)
def test_engine_imports_no_rl_library(path: Path) -> None:
    for name in imported_modules(path):
        assert name.split(".")[0] not in RL_LIBRARIES, f"{path.name} imports {name}"
        assert not name.startswith(".."), f"{path.name} imports {name} from above the engine"


@pytest.mark.parametrize("path", sorted((PACKAGE / "observation").glob("*.py")), ids=lambda p: p.name)
def test_observation_imports_no_rl_library(path: Path) -> None:
    for name in imported_modules(path):
        assert name.split(".")[0] not in RL_LIBRARIES, f"{path.name} imports {name}"


@pytest.mark.parametrize("path", sorted((PACKAGE / "envs").glob("*.py")), ids=lambda p: p.name)
def test_envs_do_not_import_training(path: Path) -> None:
    for name in imported_modules(path):
        assert "training" not in name and name.split(".")[0] not in {"torch", "stable_baselines3"}, name
        assert "policies" not in name, f"envs/{path.name} imports {name}: the envs sit below the policies"
