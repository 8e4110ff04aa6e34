"""The residual MaskablePPO on the full game (``experiments/residual_ppo.py``): its logits start at the
heuristic's choice."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from experiments import residual_ppo
from experiments.knock_ppo import evaluate_gate
from gin3_env.engine.actions import NUM_ACTIONS
from gin3_env.observation.layout import OBS_SIZE
from gin3_env.vector.sb3_env import GinSB3VecEnv


def _env(n: int = 8) -> residual_ppo.HeuristicHint:
    return residual_ppo.HeuristicHint(GinSB3VecEnv(n, opponent="heuristic", reward_baseline="heuristic", seed=3))


def test_hint_is_the_heuristics_legal_move() -> None:
    env = _env()
    obs = env.reset()
    assert obs.shape == (8, OBS_SIZE + NUM_ACTIONS)
    hints = obs[:, OBS_SIZE:].argmax(axis=1)
    assert (obs[:, OBS_SIZE:].sum(axis=1) == 1).all()
    masks = env.action_masks()
    assert masks[np.arange(8), hints].all()
    assert np.array_equal(hints, env.heuristic.act(obs[:, :OBS_SIZE], masks))


def test_untrained_residual_plays_the_heuristic_and_favours_its_move() -> None:
    import torch

    env = _env()
    model = residual_ppo.make_model(env, seed=0, bonus=5.0)
    obs = env.reset()
    masks = env.action_masks()
    dist = model.policy.get_distribution(torch.as_tensor(obs), action_masks=masks)
    probs = dist.distribution.probs.detach().numpy()
    hints = obs[:, OBS_SIZE:].argmax(axis=1)
    legal = masks.sum(axis=1)
    expected = np.exp(5.0) / (np.exp(5.0) + legal - 1)
    assert np.allclose(probs[np.arange(8), hints], expected, atol=0.03)
    player = residual_ppo.ResidualBatch(model)
    report = evaluate_gate(player, 30, seed=5)
    assert report.overall.mean == 0 and report.overall.std == 0 and player.decisions > 0 and player.holds == 0


@pytest.mark.pipelines
def test_smoke_run_writes_model_and_report(tmp_path: Path) -> None:
    code = residual_ppo.main(["--steps", "64", "--envs", "4", "--out", str(tmp_path), "--eval-hands", "10",
                              "--no-progress"])
    assert code == 0 and (tmp_path / "residual_ppo.zip").exists() and (tmp_path / "residual_ppo.json").exists()
    assert residual_ppo.main(["--steps", "64", "--out", str(tmp_path)]) == 2
