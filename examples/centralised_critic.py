"""A centralised critic over the privileged state, in plain torch.

Actors act on their observations; a centralised critic (MAPPO, asymmetric actor-critic) may
see more during training: here ``env.state()``, both hands and the stock in order. This script
fits two value functions to the same Monte-Carlo returns of a learner (random legal moves)
against the heuristic on the batched core: one over the learner's observation, one over the
state (plus the learner's role, since the state is not relative to a player), and prints their
mean squared errors on held-out hands. The state critic should be the better one: it sees the
deal the observation only guesses at. At play time only the actor (observations) is used.

    python examples/centralised_critic.py [--steps 400] [--num-envs 64] [--epochs 30]
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
import torch
from torch import nn

import gin3_env


def collect(steps: int, num_envs: int, seed: int) -> dict[str, np.ndarray]:
    """(observation, state + role, return) at each learner decision, the return filled in when the
    slot's episode ends (SAME_STEP autoreset: ``state()`` after a step is of the next decision)."""
    env: Any = gin3_env.vector_env(num_envs, learner="random", opponent="heuristic", seed=seed, reward_scale=0.01)
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    open_rows: list[list[tuple[np.ndarray, np.ndarray]]] = [[] for _ in range(num_envs)]
    xs_obs, xs_state, ys = [], [], []
    for _ in range(steps):
        state = np.concatenate([env.state(), np.eye(2, dtype=np.float32)[info["learner"]]], axis=1)
        for i in range(num_envs):
            open_rows[i].append((obs[i], state[i]))
        masks = env.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, terminated, truncated, info = env.step(actions)
        for i in np.flatnonzero(terminated | truncated):
            for o, s in open_rows[i]:
                xs_obs.append(o)
                xs_state.append(s)
                ys.append(rewards[i])
            open_rows[i] = []
    return {"obs": np.array(xs_obs), "state": np.array(xs_state), "return": np.array(ys, dtype=np.float32)}


def fit(x: np.ndarray, y: np.ndarray, train: np.ndarray, epochs: int, seed: int) -> float:
    """Held-out mean squared error of a small MLP value function fitted on the ``train`` rows."""
    torch.manual_seed(seed)
    critic = nn.Sequential(nn.Linear(x.shape[1], 128), nn.ReLU(), nn.Linear(128, 1))
    optimiser = torch.optim.Adam(critic.parameters(), lr=1e-3)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    rows = np.flatnonzero(train)
    for _ in range(epochs):
        for batch in np.array_split(np.random.default_rng(seed).permutation(rows), max(1, len(rows) // 256)):
            loss = nn.functional.mse_loss(critic(xt[batch]).squeeze(1), yt[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    with torch.no_grad():
        test = torch.from_numpy(~train)
        return float(nn.functional.mse_loss(critic(xt[test]).squeeze(1), yt[test]))


def main(steps: int = 400, num_envs: int = 64, epochs: int = 30, seed: int = 0) -> dict[str, float]:
    data = collect(steps, num_envs, seed)
    n = len(data["return"])
    train = np.random.default_rng(seed).random(n) < 0.8
    baseline = float(np.mean((data["return"][~train] - data["return"][train].mean()) ** 2))
    return {
        "samples": float(n),
        "mse_constant": baseline,
        "mse_observation_critic": fit(data["obs"], data["return"], train, epochs, seed),
        "mse_state_critic": fit(data["state"], data["return"], train, epochs, seed),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=30)
    args = parser.parse_args()
    for key, value in main(args.steps, args.num_envs, args.epochs).items():
        print(f"{key:<24} {value:,.4f}" if key != "samples" else f"{key:<24} {value:,.0f}")
