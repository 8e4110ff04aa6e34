"""Shimmy: the package's OpenSpiel game (``python_gin3_hand``) as a PettingZoo AEC env through
Shimmy's ``OpenSpielCompatibilityV0``, by Shimmy's documented recipe; a masked REINFORCE policy
(plain torch, one policy for both players) trains a few thousand steps on it, then evaluation
hands assert that every action sent was legal by Shimmy's mask (``info["action_mask"]``).

Shimmy's ``last()`` rewards are what it got since the agent last acted: summing them per step
over both agents double-counts one player at the end (it does so on OpenSpiel's tic-tac-toe
too); the return here is read once per agent, at its end.

    pip install torch==2.13.0 && pip install shimmy "gin3_env[openspiel]"
    python examples/shimmy_openspiel.py [--steps 3000] [--episodes 20]
"""

from __future__ import annotations

import argparse

import numpy as np
import pyspiel
import torch
from shimmy import OpenSpielCompatibilityV0
from torch import nn

import gin3_env.interop.openspiel_game  # noqa: F401  (registers python_gin3_hand with pyspiel)


def play(env: OpenSpielCompatibilityV0, policy: nn.Module, seed: int, greedy: bool) -> dict[str, object]:
    """One hand; the log-probabilities of every choice and each agent's final return."""
    env.reset(seed=seed)
    logps: dict[str, list[torch.Tensor]] = {a: [] for a in env.possible_agents}
    returns: dict[str, float] = {}
    actions = illegal = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            returns[agent] = float(reward)
            env.step(None)
            continue
        mask = torch.as_tensor(info["action_mask"], dtype=torch.bool)
        logits = policy(torch.as_tensor(np.asarray(obs, dtype=np.float32))).masked_fill(~mask, -1e9)
        dist = torch.distributions.Categorical(logits=logits)
        action = dist.probs.argmax() if greedy else dist.sample()
        logps[agent].append(dist.log_prob(action))
        actions += 1
        illegal += int(not info["action_mask"][int(action)])
        env.step(int(action))
    return {"logps": logps, "returns": returns, "actions": actions, "illegal": illegal}


def main(steps: int = 3000, episodes: int = 20, seed: int = 0) -> dict[str, float]:
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    env = OpenSpielCompatibilityV0(pyspiel.load_game("python_gin3_hand"))
    obs_size = int(np.prod(env.observation_space(env.possible_agents[0]).shape))
    n_actions = int(env.action_space(env.possible_agents[0]).n)
    policy = nn.Sequential(nn.Linear(obs_size, 128), nn.Tanh(), nn.Linear(128, n_actions))
    optim = torch.optim.Adam(policy.parameters(), lr=1e-3)
    trained = hand = 0
    while trained < steps:
        out = play(env, policy, seed + hand, greedy=False)
        hand += 1
        trained += int(out["actions"])
        loss = -sum(out["returns"][a] / 100.0 * torch.stack(lp).sum() for a, lp in out["logps"].items() if lp)
        optim.zero_grad()
        loss.backward()
        optim.step()
    actions = illegal = 0
    with torch.no_grad():
        for episode in range(episodes):
            out = play(env, policy, 10_000 + episode, greedy=True)
            actions += int(out["actions"])
            illegal += int(out["illegal"])
    print(f"shimmy: {trained} steps trained over {hand} hands, {episodes} evaluation hands, {actions} actions, "
          f"{illegal} illegal")
    assert actions > 0 and illegal == 0, "an illegal action was sent"
    return {"trained": trained, "episodes": episodes, "actions": actions, "illegal": illegal}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--episodes", type=int, default=20)
    args = parser.parse_args()
    main(args.steps, args.episodes)
