"""The scripts in ``examples/`` run as the README shows them (on a small budget)."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_centralised_critic_over_the_state() -> None:
    pytest.importorskip("torch")
    result = load("centralised_critic").main(steps=150, num_envs=32, epochs=8)
    assert result["samples"] > 500
    assert all(math.isfinite(v) for v in result.values())
    # the critic that sees the deal fits the returns better than a constant
    assert result["mse_state_critic"] < result["mse_constant"]
