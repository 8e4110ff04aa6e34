"""Imports point downwards: the engine knows no RL library, the envs know no training code."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "gin3_env"
RL_LIBRARIES = {"gymnasium", "gym", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib", "ray", "pyspiel"}


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
        assert not name.startswith(".."), f"{path.name} imports {name} from above the engine"


@pytest.mark.parametrize("path", sorted((PACKAGE / "envs").glob("*.py")), ids=lambda p: p.name)
def test_envs_do_not_import_training(path: Path) -> None:
    for name in imported_modules(path):
        assert "training" not in name and name.split(".")[0] not in {"torch", "stable_baselines3"}, name
