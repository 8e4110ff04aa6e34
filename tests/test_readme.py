"""The README's Python examples run as written, and its two set-up commands are the CI's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
CI = Path(__file__).resolve().parent.parent / ".ci" / "run"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(), flags=re.S)


def test_python_examples_run_in_order() -> None:
    pytest.importorskip("sb3_contrib")
    namespace: dict[str, object] = {}
    blocks = _blocks("python")
    assert len(blocks) >= 4
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)  # the README's own code


def test_readme_opens_with_the_two_setup_commands() -> None:
    first, second = _blocks("bash")[:2]
    assert "pip install torch==2.13.0" in first and first.strip().endswith("gin3 train --config quick")
    assert "pip install torch==2.13.0" in second and second.strip().endswith("pytest -q")
    ci = CI.read_text()
    assert "pip install torch==2.13.0" in ci and "pytest -q" in ci


def test_relative_links_point_at_files() -> None:
    """Every relative link and image in the README names a file of the checkout."""
    targets = re.findall(r"\]\(([^)#\s]+)\)", README.read_text())
    local = [t for t in targets if "://" not in t]
    assert "docs/rules.md" in local
    missing = [t for t in local if not (README.parent / t).exists()]
    assert not missing, f"README links to missing files: {missing}"
