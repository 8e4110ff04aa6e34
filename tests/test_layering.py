"""Imports point downwards: each part of the package imports only its own modules and the parts
on layers below it, so no two parts import each other, directly or around a circle.

The graph holds every import of every module, also those inside functions (a lazy import
upwards is still a dependency upwards), the string imports (``importlib.import_module`` of a
name or of a name from a table, a ``"module:attr"`` entry point), and the class names pickled
in the shipped model files (``gin3_env/models/*.zip``, read without unpickling: they are
imported by the module that loads the file). The README's layout list is this table.
"""

from __future__ import annotations

import ast
import base64
import contextlib
import json
import pickle
import re
import sys
import types
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gin3_env"
MODELS = PACKAGE / "models"
RL_LIBRARIES = {"gymnasium", "gym", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib", "ray", "pyspiel"}

# The layer of each part of the package (its first name below gin3_env; "" is the package's
# __init__, the facade that re-exports the engine and the envs and wires the policy loader
# into the envs). A module imports modules of its own part and of parts on LOWER layers only:
# parts that share a layer know nothing of each other.
LAYERS: dict[str, int] = {
    "errors": 0,  # the usage errors, for every layer
    "files": 0,  # atomic writes (stdlib only)
    "argparsing": 0,  # argparse helpers (stdlib only)
    "signals": 0,  # stop signals as an exception (stdlib only)
    "engine": 1,
    "observation": 2,
    "render": 2,
    "game": 3,  # the Policy protocol and the driver that plays policies through hands and matches
    "kernels": 3,  # the compiled core
    "envs": 4,
    "policies": 5,
    "vector": 6,  # batched players and learner envs, on the policies and the compiled core
    "": 7,
    "interop": 7,
    "evaluation": 8,
    "benchmarks": 10,
    "play": 11,
    "cli": 12,
    "__main__": 13,
}


def module_name(path: Path) -> str:
    parts = ["gin3_env", *path.relative_to(PACKAGE).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}

# The lab: the top-level training/ folder, imported as gin3_training (setup.py maps it). It stands on the whole
# package; the package names it only in the dispatch tables of the gin3 command (strings, imported when run).
LAB = ROOT / "training"
LAB_NAME = "gin3_training"
DISPATCHERS = {"gin3_env.cli", "gin3_env.benchmarks.suites"}  # gin3 and gin3 bench: subcommand -> lab module, by name


def lab_module_name(path: Path) -> str:
    parts = [LAB_NAME, *path.relative_to(LAB).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


LAB_MODULES: dict[str, Path] = {lab_module_name(p): p for p in sorted(LAB.rglob("*.py"))}
ROOTS = ("gin3_env", LAB_NAME)


def part_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


# ---------------------------------------------------------------- reading the imports
def _resolve(module: str, is_package: bool, node: ast.ImportFrom | ast.Import, modules: Iterable[str]) -> list[str]:
    """The gin3_env modules an import statement loads (a name imported from a package counts
    as its submodule when there is one)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] in ROOTS]
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join([*base, node.module] if node.module else base)
    else:
        target = node.module or ""
    if target.split(".")[0] not in ROOTS:
        return []
    known = set(modules)
    out = []
    for alias in node.names:
        sub = f"{target}.{alias.name}"
        out.append(sub if sub in known else target)
    return out


def _called(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _relative_bases(module: str, is_package: bool, tree: ast.AST) -> set[str]:
    """The packages whose modules a module loads by a name built as ``f"{__name__}.{...}"`` (or
    ``__package__``) for ``import_module``: its strings may name those modules relative to them."""
    nodes = list(ast.walk(tree))
    if not any(isinstance(n, ast.Call) and _called(n.func) in {"import_module", "__import__"} for n in nodes):
        return set()
    package = module if is_package else module.rpartition(".")[0]
    bases = set()
    for node in nodes:
        if isinstance(node, ast.JoinedStr) and len(node.values) > 1 and isinstance(node.values[0], ast.FormattedValue):
            head, dot = node.values[0].value, node.values[1]
            if (isinstance(head, ast.Name) and head.id in {"__name__", "__package__"}
                    and isinstance(dot, ast.Constant) and str(dot.value).startswith(".")):
                bases.add(module if head.id == "__name__" else package)
    return bases


def string_imports(module: str, is_package: bool, tree: ast.AST, modules: Iterable[str]) -> set[str]:
    """The modules a module names in strings: a string that is a submodule's full name (or
    ``"module:attr"``, an entry point), and, in a module that calls
    ``import_module(f"{__name__}.{name}")``, a string naming a module relative to it (a lazy
    table). A string naming the package itself adds nothing: every module loads with it."""
    known = set(modules)
    bases = _relative_bases(module, is_package, tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        name = node.value.split(":")[0]
        if name in known and "." in name:
            found.add(name)
        found.update(f"{base}.{name}" for base in bases if f"{base}.{name}" in known)
    return found


def imports_of(module: str, is_package: bool, source: str, modules: Iterable[str]) -> set[str]:
    """Every gin3_env module ``module`` imports: statements anywhere in it, and strings."""
    known = list(modules)
    tree = ast.parse(source)
    targets: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            targets.update(_resolve(module, is_package, node, known))
    targets |= string_imports(module, is_package, tree, known)
    targets.discard(module)
    return targets


def graph() -> dict[str, set[str]]:
    """The package's modules and what each imports (the lab's modules among the targets)."""
    known = [*MODULES, *LAB_MODULES]
    return {m: imports_of(m, p.name == "__init__.py", p.read_text(), known) for m, p in MODULES.items()}


def lab_graph() -> dict[str, set[str]]:
    known = [*MODULES, *LAB_MODULES]
    return {m: imports_of(m, p.name == "__init__.py", p.read_text(), known) for m, p in LAB_MODULES.items()}


def lab_part(module: str) -> str:
    """A lab module's folder below gin3_training (``gates``, ``ppo``...), or its own name for a shared module."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def lab_group(module: str) -> str:
    """The part a lab module belongs to for the layer check: the shared base counts as one part."""
    part = lab_part(module)
    return "base" if part in LAB_BASE else part


# the lab's folders: what every pipeline shares (layer 0), each kind of player (layer 1), the lab's speed suites
LAB_LAYERS: dict[str, int] = {
    "": 0, "options": 0, "threads": 0, "quick_eval": 0, "run": 0, "configs": 0,
    "gates": 1, "distill": 1, "ppo": 1,
    "improve": 2,  # labels net's decisions with the gates' playout kernels
    "train": 3,  # gin3 train: the door that chooses a pipeline
    "benchmarks": 3,
}
LAB_BASE = {part for part, layer in LAB_LAYERS.items() if layer == 0}  # one part: what every pipeline shares


# ---------------------------------------------------------------- the experiments
EXPERIMENTS = ROOT / "experiments"
_EXPERIMENT_NAME = re.compile(r"experiments(?:\.\w+)*(?::\w+)?")


def experiment_imports(source: str) -> set[str]:
    """The modules of the top-level ``experiments/`` a module loads: import statements (anywhere
    in it) and strings that are such a module's name (for ``import_module``, an entry point)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "experiments")
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "experiments":
            found.add(node.module or "")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _EXPERIMENT_NAME.fullmatch(node.value):
            found.add(node.value.split(":")[0])
    return found


# ---------------------------------------------------------------- the shipped model files
_MODULE_PATH = re.compile(rb"gin3_env(?:\.[A-Za-z_][A-Za-z0-9_]*)+")


def _strings(value: object) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def class_modules_in_model(path: Path, modules: Iterable[str]) -> set[str]:
    """The gin3_env modules whose classes a saved model names: every dotted ``gin3_env...``
    path in its ``data`` JSON, in the plain strings and in the base64 pickles (read as bytes,
    never unpickled), each taken as its longest prefix that is a module of the package."""
    known = set(modules)
    with zipfile.ZipFile(path) as archive:
        if "data" not in archive.namelist():
            return set()
        data = json.loads(archive.read("data"))
    blobs: list[bytes] = []
    for text in _strings(data):
        blobs.append(text.encode())
        if text.startswith("gAS"):  # a base64 pickle (protocol 4 or 5): its class paths are plain bytes
            with contextlib.suppress(ValueError):
                blobs.append(base64.b64decode(text, validate=True))
    found: set[str] = set()
    for blob in blobs:
        for match in _MODULE_PATH.findall(blob):
            parts = match.decode().split(".")
            while parts and ".".join(parts) not in known:
                parts.pop()
            if parts:
                found.add(".".join(parts))
    return found


def model_edges(modules: Mapping[str, Path] = MODULES, models: Path = MODELS) -> dict[str, set[str]]:
    """For each shipped model file, the modules that name the file (its loaders) -> the modules
    whose classes it names."""
    edges: dict[str, set[str]] = {}
    for path in sorted(models.glob("*.zip")):
        named = class_modules_in_model(path, modules)
        for module, source in ((m, p.read_text()) for m, p in modules.items()):
            if named and (f'"{path.name}"' in source or f"'{path.name}'" in source):
                edges.setdefault(module, set()).update(named - {module})
    return edges


# ---------------------------------------------------------------- the checks
def layer_violations(edges: Mapping[str, Iterable[str]], layers: Mapping[str, int]) -> list[str]:
    """Each import of a module of another part that is not on a lower layer."""
    wrong = []
    for module, targets in edges.items():
        for target in targets:
            mine, theirs = part_of(module), part_of(target)
            if target in edges and mine != theirs and layers[theirs] >= layers[mine]:
                wrong.append(f"{module} ({mine or 'gin3_env'}, layer {layers[mine]}) -> {target} "
                             f"({theirs or 'gin3_env'}, layer {layers[theirs]})")
    return sorted(wrong)


def part_edges(edges: Mapping[str, Iterable[str]]) -> dict[str, set[str]]:
    parts: dict[str, set[str]] = {part_of(m): set() for m in edges}
    for module, targets in edges.items():
        parts[part_of(module)].update(part_of(t) for t in targets if t in edges and part_of(t) != part_of(module))
    return parts


def find_cycle(edges: Mapping[str, Iterable[str]]) -> list[str] | None:
    """A circle of the directed graph ``edges`` as a path that ends where it starts, or None."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in edges:
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

    for node in sorted(edges):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def check_layers(edges: Mapping[str, Iterable[str]], layers: Mapping[str, int]) -> list[str]:
    """Everything wrong with a module graph: imports not pointing down, parts importing each
    other (directly or around a circle), module cycles. Empty when the layers hold."""
    problems = [f"import not pointing down the layers: {v}" for v in layer_violations(edges, layers)]
    parts = find_cycle(part_edges(edges))
    if parts:
        problems.append("parts importing each other: " + " -> ".join(p or "gin3_env" for p in parts))
    modules = find_cycle(edges)
    if modules:
        problems.append("import cycle: " + " -> ".join(modules))
    return problems


# ---------------------------------------------------------------- the package
def test_every_module_has_a_layer() -> None:
    unknown = sorted({part_of(m) for m in MODULES} - set(LAYERS))
    assert not unknown, f"parts of the package with no layer in tests/test_layering.py: {unknown}"
    assert not set(LAYERS) - {part_of(m) for m in MODULES}, "layers of parts that do not exist"


def test_the_layers_hold() -> None:
    problems = check_layers(graph(), LAYERS)
    assert not problems, "\n".join(problems)


def test_the_package_imports_no_lab() -> None:
    """No module of gin3_env imports the lab, but the gin3 command's dispatch tables, which name a lab module
    as a string imported when that command runs (never an import statement)."""
    wrong = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text())
        statements = {t for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)
                      for t in _resolve(module, path.name == "__init__.py", node, [*MODULES, *LAB_MODULES])
                      if t.split(".")[0] == LAB_NAME}
        strings = {t for t in string_imports(module, path.name == "__init__.py", tree, LAB_MODULES)}
        if statements or (strings and module not in DISPATCHERS):
            wrong[module] = sorted(statements | strings)
    assert not wrong, f"package modules that import the lab (gin3_training): {wrong}"
    assert "gin3_training.train" in graph()["gin3_env.cli"]  # the dispatch is seen


def test_the_lab_points_down_and_imports_no_experiment() -> None:
    assert (LAB / "__init__.py").is_file() and not (PACKAGE / "training").exists()
    edges = lab_graph()
    unknown = sorted({lab_part(m) for m in edges} - set(LAB_LAYERS))
    assert not unknown, f"lab folders with no layer in tests/test_layering.py: {unknown}"
    wrong = []
    for module, targets in edges.items():
        for target in targets:
            if target in edges and lab_group(target) != lab_group(module) \
                    and LAB_LAYERS[lab_part(target)] >= LAB_LAYERS[lab_part(module)]:
                wrong.append(f"{module} -> {target}")
    assert not wrong, "lab imports not pointing down:\n" + "\n".join(sorted(wrong))
    cycle = find_cycle(edges)
    assert cycle is None, "import cycle in the lab: " + " -> ".join(cycle or [])
    experiments = {m: sorted(found) for m, p in LAB_MODULES.items() if (found := experiment_imports(p.read_text()))}
    assert not experiments, f"the lab imports the research scripts of experiments/: {experiments}"


def test_the_package_imports_no_experiment() -> None:
    assert (EXPERIMENTS / "__init__.py").is_file() and not (PACKAGE / "experiments").exists()
    wrong = {m: sorted(found) for m, p in MODULES.items() if (found := experiment_imports(p.read_text()))}
    assert not wrong, f"the package imports the research scripts of experiments/: {wrong}"


IMPORT_ALL = """
import importlib, pkgutil, sys
import gin3_env
missing = []
for info in pkgutil.walk_packages(gin3_env.__path__, "gin3_env."):
    if info.name.endswith("__main__"):
        continue
    try:
        importlib.import_module(info.name)
    except ImportError as exc:  # an optional extra that this venv lacks (Ray, say)
        missing.append(f"{info.name}: {exc}")
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("experiments", "gin3_training"))
print("LOADED", loaded)
print("MISSING", missing)
"""


def test_importing_every_package_module_loads_no_experiment_and_no_lab() -> None:
    """At run time too: every module of the package imported in one fresh interpreter (from the repository
    root, where ``experiments`` could be found), and no module of ``experiments/`` or of the lab is loaded."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", IMPORT_ALL], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "LOADED []" in done.stdout, done.stdout
    missing = ast.literal_eval(done.stdout.split("MISSING ", 1)[1].strip())
    assert all("ray" in m or "rllib" in m for m in missing), missing  # only the RLlib backend needs an extra


WITHOUT_LAB = """
import sys
sys.modules["gin3_training"] = None  # the lab is not installed: importing it fails
import gin3_env
from gin3_env.evaluation import evaluate_hands
from gin3_env.policies import load_policy
for spec in ("random", "heuristic", "gated", "net", "ppo"):
    result = evaluate_hands(load_policy(spec), load_policy("heuristic"), 2, seed=1)
    print(spec, result.overall.n)
"""


def test_every_shipped_player_loads_and_plays_without_the_lab() -> None:
    import subprocess

    done = subprocess.run([sys.executable, "-c", WITHOUT_LAB], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["random", "2", "heuristic", "2", "gated", "2", "net", "2", "ppo", "2"], done.stdout


def test_the_experiment_check_reads_statements_and_strings() -> None:
    assert experiment_imports("import experiments.search_strength\n") == {"experiments.search_strength"}
    assert experiment_imports("def f():\n    from experiments.privileged import run\n") == {"experiments.privileged"}
    assert experiment_imports("import importlib\nimportlib.import_module('experiments.belief_head')\n") == {
        "experiments.belief_head"}
    assert experiment_imports("ENTRY = 'experiments.ismcts:main'\n") == {"experiments.ismcts"}
    assert experiment_imports('"""Used by experiments/belief_report.py."""\nfrom .stats import signed\n') == set()


def test_the_shipped_models_name_no_class_above_their_loader() -> None:
    edges = graph()
    for module, named in model_edges().items():
        edges[module] = edges[module] | named
    problems = check_layers(edges, LAYERS)
    assert not problems, "with the class names pickled in gin3_env/models/*.zip:\n" + "\n".join(problems)


def test_the_graph_sees_lazy_relative_and_string_imports() -> None:
    edges = graph()
    assert "gin3_env.engine.hand" in edges["gin3_env.engine.determinise"]
    assert "gin3_env.play.commands" in edges["gin3_env.cli"]  # imported inside main()
    assert "gin3_env.observation.encoding" in edges["gin3_env.envs.aec_hand"]
    assert "gin3_training.train" in edges["gin3_env.cli"]  # import_module of a table's full name
    assert "gin3_env.envs.aec_match" in edges["gin3_env.envs"]  # import_module of a lazy table's short name
    assert "gin3_env.benchmarks.vector" in edges["gin3_env.benchmarks.suites"]
    assert "gin3_env.envs.single_agent" in edges["gin3_env.envs.registration"]  # an entry point string


def test_the_loader_of_the_shipped_model_is_found() -> None:
    zips = sorted(MODELS.glob("*.zip"))
    assert zips, "no model file is shipped"
    loaders = {m for m, p in MODULES.items() if any(f'"{z.name}"' in p.read_text() for z in zips)}
    assert "gin3_env.policies.shipped" in loaders  # the ppo player's row's model file, models/ppo.zip


# ---------------------------------------------------------------- the checker on planted graphs
def test_the_checker_catches_two_parts_importing_each_other() -> None:
    edges = {"gin3_env.a.x": {"gin3_env.b.y"}, "gin3_env.b.y": {"gin3_env.a.z"}, "gin3_env.a.z": set()}
    for layers in ({"a": 1, "b": 1}, {"a": 2, "b": 1}, {"a": 1, "b": 2}):
        problems = check_layers(edges, layers)
        assert any(p.startswith("import not pointing down") for p in problems), (layers, problems)
        assert any(p.startswith("parts importing each other") for p in problems), (layers, problems)
    assert check_layers({"gin3_env.a.x": {"gin3_env.b.y"}, "gin3_env.b.y": set()}, {"a": 2, "b": 1}) == []


def test_the_checker_catches_a_circle_of_parts() -> None:
    edges = {"gin3_env.a.x": {"gin3_env.b.x"}, "gin3_env.b.x": {"gin3_env.c.x"}, "gin3_env.c.x": {"gin3_env.a.y"},
             "gin3_env.a.y": set()}
    assert find_cycle(part_edges(edges)) == ["a", "b", "c", "a"]
    problems = check_layers(edges, {"a": 3, "b": 2, "c": 1})
    assert problems == [
        "import not pointing down the layers: gin3_env.c.x (c, layer 1) -> gin3_env.a.y (a, layer 3)",
        "parts importing each other: a -> b -> c -> a",
    ]


def test_the_checker_reads_string_imports_and_lazy_tables() -> None:
    modules = ["gin3_env.a", "gin3_env.a.low", "gin3_env.b", "gin3_env.b.top"]
    source = (
        "import importlib\n"
        "TABLE = {'x': ('low', 'run')}\n"
        "def f():\n"
        "    return importlib.import_module('gin3_env.b.top')\n"
        "def g(name):\n"
        "    return importlib.import_module(f'{__name__}.{TABLE[name][0]}')\n"

    )
    assert imports_of("gin3_env.a", True, source, modules) == {"gin3_env.a.low", "gin3_env.b.top"}
    assert imports_of("gin3_env.b", True, "ENTRY = 'gin3_env.a.low:make'\n", modules) == {"gin3_env.a.low"}
    assert imports_of("gin3_env.b", True, "NAMES = ('top',)\n", modules) == set()  # no import_module: plain data
    assert imports_of("gin3_env.b", True, "PRELOAD = 'gin3_env'\n", modules) == set()  # the package, loaded anyway
    cli = "import importlib\ndef run(m):\n    importlib.import_module(m)\nif __name__ == '__main__':\n    run(0)\n"
    assert imports_of("gin3_env.cli", False, cli, [*modules, "gin3_env.cli", "gin3_env.__main__"]) == set()
    edges = {m: set() for m in modules} | {"gin3_env.a": imports_of("gin3_env.a", True, source, modules)}
    assert check_layers(edges, {"a": 1, "b": 2}) == [
        "import not pointing down the layers: gin3_env.a (a, layer 1) -> gin3_env.b.top (b, layer 2)"
    ]


def test_the_checker_reads_class_names_pickled_in_a_model_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    planted = types.ModuleType("gin3_env.b.top")  # a module of a planted package, for pickle to name
    planted.Net = type("Net", (), {"__module__": "gin3_env.b.top"})  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gin3_env.b.top", planted)
    payload = pickle.dumps(planted.Net, protocol=4)  # type: ignore[attr-defined]
    data = {"policy_class": {":type:": "<class 'abc.ABCMeta'>", ":serialized:": base64.b64encode(payload).decode(),
                             "__doc__": "names gin3_env.a.low.Base in its text"},
            "n_steps": 2048}
    path = tmp_path / "planted.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps(data))
        archive.writestr("policy.pth", b"\x00" * 8)
    modules = ["gin3_env.a", "gin3_env.a.low", "gin3_env.b", "gin3_env.b.top"]
    assert class_modules_in_model(path, modules) == {"gin3_env.a.low", "gin3_env.b.top"}
    loaders = {"gin3_env.a.low": set(), "gin3_env.a.load": class_modules_in_model(path, modules),
               "gin3_env.b.top": set()}
    assert check_layers(loaders, {"a": 1, "b": 2}) == [
        "import not pointing down the layers: gin3_env.a.load (a, layer 1) -> gin3_env.b.top (b, layer 2)"
    ]


# ---------------------------------------------------------------- the README
def test_the_readme_layout_lists_the_layers_top_down() -> None:
    text = (ROOT / "README.md").read_text()
    block = text.split("## Layout", 1)[1].split("```", 2)[1]
    listed = []
    for line in block.splitlines():
        match = re.match(r"gin3_env/(\w+)(?:/|\.py)", line)
        if match:
            names = [match.group(1), *re.findall(r", (\w+)\.py", line.split("  ")[0])]
            listed.extend("" if name == "__init__" else name for name in names)
    parts = [p for p in listed if p in LAYERS]
    assert sorted(set(parts)) == sorted(LAYERS), f"the README's layout list names {sorted(set(parts))}"
    layers = [LAYERS[p] for p in parts]
    assert layers == sorted(layers, reverse=True), f"the README's layout list is not top-down: {parts}"


# ---------------------------------------------------------------- libraries
def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add(("." * node.level) + (node.module or ""))
    return names


@pytest.mark.parametrize("path", sorted((PACKAGE / "engine").glob("*.py")), ids=lambda p: p.name)
def test_engine_imports_no_rl_library(path: Path) -> None:
    for name in imported_modules(path):
        assert name.split(".")[0] not in RL_LIBRARIES, f"{path.name} imports {name}"
        assert not name.startswith("..") or name == "..errors", f"{path.name} imports {name} from above the engine"


@pytest.mark.parametrize(
    "path", sorted([*(PACKAGE / "observation").glob("*.py"), *(PACKAGE / "kernels").glob("*.py"),
                    *(PACKAGE / "game").glob("*.py")]), ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_observation_kernels_and_game_import_no_rl_library(path: Path) -> None:
    for name in imported_modules(path):
        assert name.split(".")[0] not in RL_LIBRARIES, f"{path.name} imports {name}"


@pytest.mark.parametrize("path", sorted((PACKAGE / "envs").glob("*.py")), ids=lambda p: p.name)
def test_envs_do_not_import_training(path: Path) -> None:
    for name in imported_modules(path):
        assert "training" not in name and name.split(".")[0] not in {"torch", "stable_baselines3"}, name
        assert "policies" not in name, f"envs/{path.name} imports {name}: the envs sit below the policies"
