"""A CleanRL-style masked PPO (one file, plain torch) on ``gym.make_vec("gin3/ThreeHandedGin-v0", 64)``.

CleanRL's ``ppo.py`` loop with an invalid-action mask on the logits, on the batched core
with Gymnasium's default autoreset (NEXT_STEP). What a CleanRL user must know here: under
NEXT_STEP the step after an episode's last one is its reset step (the action is ignored,
reward 0, the mask all True), so those steps are dropped from the rollout (``valid`` below),
and a finished slot's next value is not bootstrapped. Trains a few thousand steps, then
plays evaluation hands greedily and asserts that no illegal action was sent
(``infos["illegal_action"]``).

    pip install torch==2.13.0 && pip install gin3_env
    python examples/cleanrl_masked_ppo.py [--iterations 4] [--num-envs 64]
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import numpy as np
import torch
from torch import nn

import gin3_env  # noqa: F401  (registers the ids)

ENV_ID = "gin3/ThreeHandedGin-v0"


class Agent(nn.Module):
    def __init__(self, obs_size: int, n_actions: int) -> None:
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(obs_size, 128), nn.Tanh(), nn.Linear(128, n_actions))
        self.critic = nn.Sequential(nn.Linear(obs_size, 128), nn.Tanh(), nn.Linear(128, 1))

    def dist(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.distributions.Categorical:
        logits = self.actor(obs).masked_fill(~mask, -1e9)  # illegal actions get no probability
        return torch.distributions.Categorical(logits=logits)


def main(iterations: int = 4, num_envs: int = 64, steps: int = 32, seed: int = 0) -> dict[str, float]:
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    envs = gym.make_vec(ENV_ID, num_envs, opponent="random", reward_scale=0.01)
    agent = Agent(envs.single_observation_space.shape[0], int(envs.single_action_space.n))
    optim = torch.optim.Adam(agent.parameters(), lr=2.5e-4)
    obs, info = envs.reset(seed=seed)
    mask = info["action_mask"]
    was_done = np.zeros(num_envs, dtype=bool)  # NEXT_STEP: this slot's next step is its reset
    trained = 0
    for _ in range(iterations):
        buf: dict[str, list[np.ndarray]] = {k: [] for k in ("obs", "mask", "act", "logp", "rew", "done", "val", "ok")}
        for _ in range(steps):
            with torch.no_grad():
                o, m = torch.as_tensor(obs), torch.as_tensor(mask)
                d = agent.dist(o, m)
                act = d.sample()
                buf["logp"].append(d.log_prob(act).numpy())
                buf["val"].append(agent.critic(o).squeeze(-1).numpy())
            buf["obs"].append(obs)
            buf["mask"].append(mask)
            buf["act"].append(act.numpy())
            buf["ok"].append(~was_done)  # a reset step is not a decision: dropped from the rollout
            obs, reward, terminated, truncated, info = envs.step(act.numpy())
            done = terminated | truncated
            buf["rew"].append(reward.astype(np.float32))
            buf["done"].append(done)
            was_done, mask = done, info["action_mask"]
        b = {k: np.asarray(v) for k, v in buf.items()}
        with torch.no_grad():
            next_val = agent.critic(torch.as_tensor(obs)).squeeze(-1).numpy()
        adv = np.zeros_like(b["rew"])
        last = np.zeros(num_envs, dtype=np.float32)
        for t in reversed(range(steps)):  # GAE, a done step does not bootstrap
            nv = next_val if t == steps - 1 else b["val"][t + 1]
            delta = b["rew"][t] + 0.99 * nv * (1 - b["done"][t]) - b["val"][t]
            last = delta + 0.99 * 0.95 * (1 - b["done"][t]) * last
            adv[t] = last
        ok = b["ok"].reshape(-1)
        flat = {k: torch.as_tensor(v.reshape(-1, *v.shape[2:])[ok]) for k, v in b.items() if k != "ok"}
        returns = torch.as_tensor(adv.reshape(-1)[ok]) + flat["val"]
        advantages = torch.as_tensor(adv.reshape(-1)[ok])
        for _ in range(4):
            d = agent.dist(flat["obs"], flat["mask"])
            ratio = torch.exp(d.log_prob(flat["act"]) - flat["logp"])
            pg = -torch.min(ratio * advantages, ratio.clamp(0.8, 1.2) * advantages).mean()
            v_loss = ((agent.critic(flat["obs"]).squeeze(-1) - returns) ** 2).mean()
            loss = pg + 0.5 * v_loss - 0.01 * d.entropy().mean()
            optim.zero_grad()
            loss.backward()
            optim.step()
        trained += int(ok.sum())
    # evaluation: greedy masked actions, illegal ones counted by the env
    eval_envs = gym.make_vec(ENV_ID, 16, opponent="random")
    obs, info = eval_envs.reset(seed=seed + 1)
    actions = illegal = ended = 0
    was_done = np.zeros(16, dtype=bool)
    while ended < 64:
        with torch.no_grad():
            act = agent.dist(torch.as_tensor(obs), torch.as_tensor(info["action_mask"])).probs.argmax(-1).numpy()
        actions += int((~was_done).sum())
        obs, _, terminated, truncated, info = eval_envs.step(act)
        was_done = terminated | truncated
        illegal += int((info["illegal_action"] & info["_illegal_action"]).sum())
        ended += int(was_done.sum())
    print(f"cleanrl-style ppo: {trained} decisions trained on, {ended} evaluation hands, {actions} actions, "
          f"{illegal} illegal")
    assert actions > 0 and illegal == 0, "an illegal action was sent"
    return {"trained": trained, "episodes": ended, "actions": actions, "illegal": illegal}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--iterations", type=int, default=4)
    parser.add_argument("--num-envs", type=int, default=64)
    args = parser.parse_args()
    main(args.iterations, args.num_envs)
