"""The documents the code cites ship with the repository, and every citation resolves.

Code, tests and the README cite the rules as ``§5.3`` (a section of ``docs/rules.md``) and the
design as ``docs/design.md``; no file outside the repository is cited, and no development history
(issue numbers) is written into code, comments or docstrings.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SOURCES = sorted(path for folder in ("gin3_env", "tests", "training") for path in ROOT.joinpath(folder).rglob("*.py"))
PAGES = sorted(path for path in ROOT.joinpath("docs").rglob("*.md") if "_build" not in path.parts)
TEXTS = [*SOURCES, *sorted(ROOT.joinpath("docs").rglob("*.py")), ROOT / "README.md", *PAGES]
SECTION = re.compile(r"§\s?(\d+(?:\.\d+)?)")
HEADING = re.compile(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", re.MULTILINE)
THIS_FILE = Path(__file__).resolve()


def rules_sections() -> set[str]:
    return set(HEADING.findall((ROOT / "docs" / "rules.md").read_text()))


def test_rules_page_is_numbered() -> None:
    sections = rules_sections()
    assert {"1", "4.3", "5", "5.3", "6.1", "6.2", "6.3", "7", "8", "9"} <= sections


def test_every_section_cited_resolves() -> None:
    sections = rules_sections()
    missing = []
    for path in TEXTS:
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for cited in SECTION.findall(line):
                if cited not in sections:
                    missing.append(f"{path.relative_to(ROOT)}:{number}: §{cited}")
    assert not missing, "citations with no section in docs/rules.md:\n" + "\n".join(missing)


def test_no_document_outside_the_repository_is_cited() -> None:
    outside = re.compile(r"\b(DESIGN|RULES)(\.md)?\b(?! *=)")
    found = []
    for path in TEXTS:
        if path.resolve() == THIS_FILE:
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if outside.search(line) and "RULES_EXAMPLE" not in line:
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "cite docs/rules.md or docs/design.md instead:\n" + "\n".join(found)


def test_design_page_ships() -> None:
    design = (ROOT / "docs" / "design.md").read_text()
    for heading in ("Layers", "Observation", "Batched core", "Model files"):
        assert heading.lower() in design.lower()


def test_no_issue_numbers_in_code() -> None:
    history = re.compile(r"\b[Ii]ssue[s]? ?#?\d+|\(#\d+\)")
    found = []
    for path in SOURCES:
        if path.resolve() == THIS_FILE:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if history.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "development history belongs in git, not the code:\n" + "\n".join(found)


def toctree_entries(page: Path) -> set[str]:
    """The documents a page's ``{toctree}`` blocks list, as paths relative to the docs folder, without ``.md``."""
    entries = set()
    for block in re.findall(r"```\{toctree\}\n(.*?)```", page.read_text(), flags=re.S):
        for line in block.splitlines():
            line = line.strip()
            if line and not line.startswith(":"):
                entries.add(str((page.parent / line).relative_to(ROOT / "docs")))
    return entries


def test_the_site_lists_every_page() -> None:
    """Every Markdown page under docs/ is in a toctree of the site (Sphinx refuses the build otherwise), and
    every toctree entry is a page: a new page is one line in docs/index.md."""
    listed = set().union(*(toctree_entries(page) for page in PAGES))
    pages = {str(page.relative_to(ROOT / "docs").with_suffix("")) for page in PAGES} - {"index"}
    assert not pages - listed, f"pages in no toctree (add them to docs/index.md): {sorted(pages - listed)}"
    assert not listed - pages, f"toctree entries with no page: {sorted(listed - pages)}"


# ------------------------------------------------------------------ module references in docstrings
ROLE = re.compile(r":(?:mod|func|class|meth|attr|data|exc|obj):`~?(\.?[\w.]+)`")
DOTTED = re.compile(r"(?<![\w./])gin3_env(?:\.\w+)+")


def _module_file(dotted: str) -> Path | None:
    base = ROOT.joinpath(*dotted.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a body, with those inside its ``if`` and ``try`` blocks."""
    out = []
    for node in body:
        out.append(node)
        if isinstance(node, ast.If | ast.Try):
            for block in ("body", "orelse", "finalbody"):
                out += _statements(getattr(node, block, []))
            for handler in getattr(node, "handlers", []):
                out += _statements(handler.body)
    return out


def _bound(tree: ast.Module, name: str) -> ast.AST | None:
    """The top-level statement of a module that binds ``name`` (a def, class, assignment or import)."""
    for node in _statements(tree.body):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name:
            return node
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t)):
                return node
        if isinstance(node, ast.Import | ast.ImportFrom) and any(
                (a.asname or a.name.split(".")[0]) == name for a in node.names):
            return node
    return None


def _class_has(cls: ast.ClassDef, name: str) -> bool:
    for node in ast.walk(cls):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name:
            return True
        if (isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx, ast.Store)
                and (node.id if isinstance(node, ast.Name) else node.attr) == name):
            return True
    return False


def _resolves(dotted: str, depth: int = 0) -> bool:
    """Whether ``gin3_env.x.y[.Name[.attr]]`` names a module of the package and, after it, a name the
    module binds (followed through re-exports) and a member of that class; read from the source."""
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        path = _module_file(".".join(parts[:k]))
        if path is None:
            continue
        rest = parts[k:]
        if not rest:
            return True
        tree = ast.parse(path.read_text())
        node = _bound(tree, rest[0])
        if isinstance(node, ast.ImportFrom) and depth < 5:
            package = parts[:k] if path.name == "__init__.py" else parts[: k - 1]
            origin = package[: len(package) - node.level + 1] if node.level else []
            source = ".".join([*origin, *(node.module or "").split(".")]).strip(".")
            alias = next(a for a in node.names if (a.asname or a.name) == rest[0])
            return _resolves(".".join([source, alias.name, *rest[1:]]), depth + 1) or _resolves(
                ".".join([source, *rest]), depth + 1)
        if node is None:
            return False
        if len(rest) > 1 and isinstance(node, ast.ClassDef):
            return _class_has(node, rest[1])
        return True
    return False


def docstring_references() -> list[tuple[str, int, str, list[str]]]:
    """(file, line, reference, candidate dotted names) of every module reference in a package docstring."""
    found = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            doc = ast.get_docstring(node, clean=False)
            if not doc:
                continue
            line = 1 if isinstance(node, ast.Module) else node.body[0].lineno
            refs = {ref: [ref] for ref in DOTTED.findall(doc)}
            for ref in ROLE.findall(doc):
                if ref.startswith("."):  # relative to the module's package, or to the module itself
                    refs[ref] = [package + ref, module + ref]
                elif ref.startswith("gin3_env."):
                    refs[ref] = [ref]
            found += [(str(path.relative_to(ROOT)), line, ref, names) for ref, names in refs.items()]
    return found


PACKAGE_DIR = ROOT / "gin3_env"


def test_every_module_a_docstring_cites_exists() -> None:
    refs = docstring_references()
    assert len(refs) > 100  # the scan sees the package's references
    broken = [f"{path}:{line}: {ref}" for path, line, ref, names in refs if not any(map(_resolves, names))]
    assert not broken, "docstrings cite modules or names that do not exist:\n" + "\n".join(broken)


def test_the_reference_check_catches_a_missing_module() -> None:
    assert _resolves("gin3_env.observation.layout.LAYOUT") and _resolves("gin3_env.kernels.hands.VectorHands.state")
    assert _resolves("gin3_env.vector.VectorHands")  # through the package's re-export
    assert not _resolves("gin3_env.envs.observation") and not _resolves("gin3_env.observation.layout.NOPE")
    assert not _resolves("gin3_env.kernels.hands.VectorHands.no_such_method")


def test_the_rules_page_lists_every_rules_option_with_its_default_and_range() -> None:
    """docs/rules.md §9 has one row per field of ``Rules``, in order, with its default and range."""
    from dataclasses import fields

    from gin3_env.engine.rules import _RANGES, Rules

    text = (ROOT / "docs" / "rules.md").read_text()
    section = text.split("## 9. Options", 1)[1].split("\n## ", 1)[0]
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in section.splitlines()
            if line.startswith("| `")]
    assert [row[0].strip("`") for row in rows] == list(Rules.option_names())
    for (name, default, allowed, meaning), field in zip(rows, fields(Rules), strict=True):
        value = field.default
        assert default == (str(value).lower() if isinstance(value, bool) else str(value)), name
        lo, hi = _RANGES.get(field.name, (None, None))
        assert allowed == ("true/false" if isinstance(value, bool) else f"{lo}..{hi}"), name
        assert meaning, name


def _python_blocks(page: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), flags=re.S)


def test_the_front_page_opens_with_a_frame_and_the_ten_line_aec_loop() -> None:
    text = (DOCS / "index.md").read_text()
    body = text.split("\n", 1)[1].lstrip()
    assert body.startswith("![") and "](frame.png)" in body.splitlines()[0]
    loop = _python_blocks("index.md")[0]
    assert text.index(loop) < text.index("```{toctree}")
    assert len(loop.strip().splitlines()) <= 11 and "env.agent_iter()" in loop and "env.last()" in loop


def test_the_api_page_opens_with_the_doors_and_covers_policy_and_evaluation() -> None:
    text = (DOCS / "api.md").read_text()
    opening = text[: text.index("```{eval-rst}")]
    for name in ("gin3_env.env()", "load_policy(", "gin3/three_handed_gin-v0", "gin3/three_handed_gin_match-v0",
                 "gin3/ThreeHandedGin-v0", "gin3/ThreeHandedGinMatch-v0"):
        assert name in opening, name
    assert ".. automodule:: gin3_env.game.policy" in text and ".. automodule:: gin3_env.evaluation" in text


def test_the_evaluation_page_evaluates_ones_own_policy_against_trained_in_one_call() -> None:
    found = [b for b in _python_blocks("evaluation.md") if "def act(" in b and 'load_policy("trained")' in b]
    assert found and re.search(r"evaluate_hands\(\w+\(\), load_policy\(\"trained\"\)", found[0])


RESULT = re.compile(r"docs/results/([\w*]+)\.json")


def test_every_result_cited_exists_and_every_result_is_cited() -> None:
    """The figures' JSON files live beside the docs (``docs/results/``), not at the repository root; each one a
    page, the README, an experiment or a model file cites exists, and each file there is cited (by name, or by a
    pattern such as ``exploit_POLICY_s37101``)."""
    assert not (ROOT / "results").exists()
    held = {p.stem for p in (ROOT / "docs" / "results").glob("*.json")}
    texts = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "experiments").glob("*.py"),
             *(ROOT / "gin3_env").rglob("*.py"), *(ROOT / "gin3_env" / "models").glob("*.json")]
    cited = {name for path in texts for name in RESULT.findall(path.read_text())}
    missing = sorted(name for name in cited if not re.search(r"[*A-Z]", name) and name not in held)
    assert not missing, f"cited but not in docs/results/: {missing}"
    patterns = [re.compile("^" + re.sub(r"\*|[A-Z]+", r"[\\w]+", name) + "$") for name in cited]
    uncited = sorted(name for name in held if not any(p.match(name) for p in patterns))
    assert not uncited, f"in docs/results/ but cited nowhere: {uncited}"
