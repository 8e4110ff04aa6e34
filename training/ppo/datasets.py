"""Decisions of batched players, for imitation: the batched twin of
:func:`gin3_training.ppo.imitation.heuristic_dataset` (same fields, same meaning)."""

from __future__ import annotations

import numpy as np

from gin3_env.kernels.hands import VectorHands
from gin3_env.observation.features import AUGMENTED
from gin3_env.vector.players import HeuristicBatch


def heuristic_dataset_batched(
    n_samples: int, seed: int, reward_scale: float, augmented: bool = True, num_envs: int = 512
) -> dict[str, np.ndarray]:
    """The heuristic playing both sides of seeded hands: every decision's observation (augmented or
    not), bool mask, action, and the final points of the side that made it times ``reward_scale``.
    Decisions are kept in hand order (whole hands, the first hands to end first)."""
    hands = VectorHands(num_envs, seed=seed)
    player = HeuristicBatch()
    rows = np.arange(num_envs)
    per_hand: list[list[tuple[np.ndarray, np.ndarray, int, int]]] = [[] for _ in range(num_envs)]
    obs_out, mask_out, act_out, ret_out = [], [], [], []
    total = 0
    while total < n_samples:
        obs = hands.observe()
        masks = hands.action_mask
        who = hands.current_player
        acts = player.act(obs, masks)
        rewards, ended = hands.apply(rows, acts)
        for i in range(num_envs):
            per_hand[i].append((obs[i], masks[i], int(acts[i]), int(who[i])))
        done = np.flatnonzero(ended)
        for i in done.tolist():
            for o, m, a, p in per_hand[i]:
                obs_out.append(o)
                mask_out.append(m.astype(bool))
                act_out.append(a)
                ret_out.append(rewards[i, p] * reward_scale)
            total += len(per_hand[i])
            per_hand[i] = []
        hands.redeal(done)
    obs_arr = np.asarray(obs_out[:n_samples], dtype=np.float32)
    return {
        "obs": AUGMENTED.encode_batch(obs_arr) if augmented else obs_arr,
        "masks": np.asarray(mask_out[:n_samples]),
        "actions": np.asarray(act_out[:n_samples], dtype=np.int64),
        "returns": np.asarray(ret_out[:n_samples], dtype=np.float32),
    }
