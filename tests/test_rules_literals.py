"""Rules one way: no module of the package or the lab keeps a rule's value as a literal.

The rule book's values live in ``gin3_env/engine/rules.py`` alone (the defaults of :class:`Rules`); every
player gets the game's rules at load (``load_policy(spec, rules=...)``), and a default elsewhere reads
``Rules()``. The scan reads the code (not docstrings or comments, where ``knock_limit=5`` is an example):
a rule option's name bound to a number or a bool as a keyword (``knock_limit=10``), a parameter's or a
field's default (``knock_limit: int = 10``), an assignment, or a dict entry (``{"gin_bonus": 25}``).
"""

from __future__ import annotations

import ast
from pathlib import Path

from gin3_env.engine.rules import Rules

ROOT = Path(__file__).resolve().parent.parent
SCANNED = (ROOT / "gin3_env", ROOT / "training")
RULES_MODULE = ROOT / "gin3_env" / "engine" / "rules.py"
OPTIONS = frozenset(Rules.option_names())
# OpenSpiel's names of the same rules (its gin_rummy's knock_card is our knock_limit)
ALIASES = frozenset({"knock_card"})


def _is_literal(node: ast.AST | None) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, int | float | bool)


def _target_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def rule_literals(source: str) -> list[tuple[int, str]]:
    """``(line, option)`` of each rule option given a literal value in ``source``."""
    names = OPTIONS | ALIASES
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.keyword) and node.arg in names and _is_literal(node.value):
            found.append((node.value.lineno, node.arg))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            args = node.args
            positional = [*args.posonlyargs, *args.args]
            pairs = [*zip(positional[len(positional) - len(args.defaults):], args.defaults, strict=True),
                     *((a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None)]
            found += [(d.lineno, a.arg) for a, d in pairs if a.arg in names and _is_literal(d)]
        elif isinstance(node, ast.AnnAssign) and _target_name(node.target) in names and _is_literal(node.value):
            found.append((node.lineno, str(_target_name(node.target))))
        elif isinstance(node, ast.Assign) and _is_literal(node.value):
            found += [(node.lineno, str(_target_name(t))) for t in node.targets if _target_name(t) in names]
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value in names and _is_literal(value):
                    found.append((key.lineno, str(key.value)))
    return found


def test_no_module_but_the_rules_keeps_a_rule_value() -> None:
    wrong = []
    for folder in SCANNED:
        for path in sorted(folder.rglob("*.py")):
            if path == RULES_MODULE:
                continue
            wrong += [f"{path.relative_to(ROOT)}:{line}: {option}" for line, option in rule_literals(path.read_text())]
    assert not wrong, "rule values kept outside gin3_env/engine/rules.py (read them from Rules()):\n" + "\n".join(wrong)


def test_the_rules_module_is_where_the_values_are() -> None:
    assert {option for _, option in rule_literals(RULES_MODULE.read_text())} >= {"knock_limit", "gin_bonus",
                                                                                 "undercut_bonus"}


def test_the_scan_sees_each_form() -> None:
    planted = '''
"""knock_limit=10 in a docstring is an example."""
def f(a, knock_limit: int = 10, *, gin_bonus=25): ...
x = g(undercut_bonus=10)
class C:
    target_score: int = 100
params = {"knock_card": 10, "dead_stock": -2}
self.max_turns = 200
ok = g(knock_limit=rules.knock_limit)  # from the rules: fine
'''
    assert sorted(option for _, option in rule_literals(planted)) == sorted(
        ["knock_limit", "gin_bonus", "undercut_bonus", "target_score", "knock_card", "dead_stock", "max_turns"])
