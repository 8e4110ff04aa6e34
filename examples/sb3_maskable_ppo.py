"""Stable-Baselines3: sb3-contrib's MaskablePPO, by its documented recipe (an env with
``action_masks()``), on ``gym.make("gin3/ThreeHandedGin-v0")`` against the random opponent.
Trains a few thousand steps, then plays evaluation hands with the masks and asserts that no
illegal action was played (``info["illegal_action"]``).

    pip install torch==2.13.0 && pip install "gin3_env[train]"
    python examples/sb3_maskable_ppo.py [--steps 4096] [--episodes 50]
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.env_util import make_vec_env

import gin3_env  # noqa: F401  (registers the ids)

ENV_ID = "gin3/ThreeHandedGin-v0"


def main(steps: int = 4096, episodes: int = 50, seed: int = 0) -> dict[str, float]:
    torch.set_num_threads(1)
    train_env = make_vec_env(ENV_ID, n_envs=4, seed=seed, env_kwargs={"opponent": "random"})
    model = MaskablePPO("MlpPolicy", train_env, n_steps=256, batch_size=256, seed=seed, verbose=0)
    model.learn(steps)
    env = gym.make(ENV_ID, opponent="random")
    actions = illegal = 0
    total = 0.0
    for episode in range(episodes):
        obs, info = env.reset(seed=10_000 + episode)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=get_action_masks(env), deterministic=True)
            obs, reward, terminated, truncated, info = env.step(int(action))
            actions += 1
            illegal += int(info["illegal_action"])
            done = terminated or truncated
        total += float(reward)
    print(f"sb3: {episodes} evaluation hands, {actions} actions, {illegal} illegal, "
          f"mean reward {total / episodes:+.2f}")
    assert actions > 0 and illegal == 0, "an illegal action was played"
    return {"episodes": episodes, "actions": actions, "illegal": illegal, "mean_reward": total / episodes}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--steps", type=int, default=4096)
    parser.add_argument("--episodes", type=int, default=50)
    args = parser.parse_args()
    main(args.steps, args.episodes)
