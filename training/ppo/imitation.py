"""Warm start: behaviour cloning of the heuristic before PPO.

Hands of heuristic against heuristic are played by the batched core in a batched run
(:func:`gin3_training.ppo.datasets.heuristic_dataset_batched`), else by the shared driver
(:func:`gin3_env.game.driver.run_hand`); every decision of either side gives
(observation, mask, action, final points of that side). The policy head learns the
heuristic's action (masked cross-entropy) and the value head the scaled final points, in
minibatches of ``bc_batch_size`` drawn from arrays that live on the policy's device, so PPO
starts from a sound player.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gin3_env.engine.hand import HandState
from gin3_env.game.driver import run_hand
from gin3_env.game.policy import Observation, Policy
from gin3_env.observation.features import AUGMENTED, PLAIN
from gin3_training.ppo.config import TrainConfig


class _Recorder:
    """A policy that notes each decision (player, observation dict, action) as it plays."""

    def __init__(self, policy: Policy, player: int, sink: list[tuple[int, Observation, int]]) -> None:
        self.policy, self.player, self.sink = policy, player, sink

    def act(self, observation: Observation) -> int:
        action = int(self.policy.act(observation))
        self.sink.append((self.player, observation, action))
        return action


def heuristic_dataset(
    n_samples: int, seed: int, reward_scale: float, augmented: bool = True
) -> dict[str, np.ndarray]:
    """Decisions of the heuristic playing both sides of seeded hands."""
    from gin3_env.policies import HeuristicPolicy

    rng = np.random.default_rng(seed)
    decisions: list[tuple[int, Observation, int]] = []
    players = (_Recorder(HeuristicPolicy(), 0, decisions), _Recorder(HeuristicPolicy(), 1, decisions))
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    while len(obs) < n_samples:
        state = HandState.deal(rng=rng)
        start = len(obs)
        decisions.clear()
        result = run_hand(state, players)
        assert result is not None
        who: list[int] = []
        for p, o, a in decisions:
            obs.append((AUGMENTED if augmented else PLAIN).encode(o["observation"]))
            masks.append(o["action_mask"].astype(bool))
            actions.append(a)
            who.append(p)
        points = result.returns
        returns.extend(points[p] * reward_scale for p in who)
        assert len(returns) == len(obs) and len(obs) - start == len(who)
    return {
        "obs": np.asarray(obs[:n_samples], dtype=np.float32),
        "masks": np.asarray(masks[:n_samples]),
        "actions": np.asarray(actions[:n_samples], dtype=np.int64),
        "returns": np.asarray(returns[:n_samples], dtype=np.float32),
    }


def behaviour_clone(model: Any, cfg: TrainConfig) -> dict[str, float]:
    """Fit ``model.policy`` to the heuristic's decisions; returns the final accuracy and losses."""
    import torch

    print(f"[bc] collecting {cfg.bc_samples:,} decisions of the heuristic playing itself ...", flush=True)
    augmented = cfg.features == "augmented"
    if cfg.vec_env == "batched":  # the same kind of data from the compiled core, far faster
        from gin3_training.ppo.datasets import heuristic_dataset_batched

        hands = max(512, cfg.batched_envs)  # hands per call: at least 512, more where the run steps more
        data = heuristic_dataset_batched(cfg.bc_samples, cfg.seed + 99, cfg.reward_scale, augmented, hands)
    else:
        data = heuristic_dataset(cfg.bc_samples, cfg.seed + 99, cfg.reward_scale, augmented)
    policy = model.policy
    device = policy.device
    obs = torch.as_tensor(data["obs"], device=device)  # every array on the policy's device, once
    masks = torch.as_tensor(data["masks"], device=device)
    actions = torch.as_tensor(data["actions"], device=device)
    returns = torch.as_tensor(data["returns"], device=device)
    n = len(obs)
    gen = torch.Generator().manual_seed(cfg.seed)
    optimizer = torch.optim.Adam(policy.parameters(), lr=cfg.bc_learning_rate)
    stats: dict[str, float] = {}
    batch = cfg.bc_batch_size
    print(f"[bc] imitating the heuristic on {n:,} decisions for {cfg.bc_epochs} epochs (minibatches of {batch:,})",
          flush=True)
    for epoch in range(cfg.bc_epochs):
        order = torch.randperm(n, generator=gen).to(device)
        total_pi = total_v = 0.0
        for start in range(0, n, batch):
            idx = order[start : start + batch]
            values, log_prob, _ = policy.evaluate_actions(obs[idx], actions[idx], action_masks=masks[idx])
            pi_loss = -log_prob.mean()
            v_loss = torch.nn.functional.mse_loss(values.flatten(), returns[idx])
            loss = pi_loss + 0.5 * v_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            total_pi += float(pi_loss.detach()) * len(idx)
            total_v += float(v_loss.detach()) * len(idx)
        with torch.no_grad():
            dist = policy.get_distribution(obs[:4096], action_masks=masks[:4096])
            acc = float((dist.distribution.probs.argmax(dim=1) == actions[:4096]).float().mean())  # training data
        stats = {"policy_loss": total_pi / n, "value_loss": total_v / n, "accuracy": acc}
        print(f"[bc] epoch {epoch + 1}: policy loss {stats['policy_loss']:.3f}, value loss "
              f"{stats['value_loss']:.4f}, agreement with the heuristic {acc:.1%}", flush=True)
    return stats
