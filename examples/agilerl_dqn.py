"""AgileRL: its DQN by its documented loop (``get_action(obs, epsilon, action_mask)``, a
``ReplayBuffer`` of ``Transition``s, ``learn``) on ``gym.make_vec("gin3/ThreeHandedGin-v0", 16)``
with SAME_STEP autoreset asked through ``vector_kwargs``, so a finished slot's last observation
is ``infos["final_obs"]``. Trains a few thousand steps, then plays evaluation hands greedily
and asserts that no illegal action was sent (``infos["final_info"]["illegal_action"]``).
AgileRL pins ``pettingzoo<1.27``: the package supports PettingZoo 1.24 on.

    pip install torch==2.13.0 && pip install agilerl gin3_env
    python examples/agilerl_dqn.py [--steps 3000] [--episodes 64]
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import numpy as np
import torch
from agilerl.algorithms.dqn import DQN
from agilerl.components.data import Transition
from agilerl.components.replay_buffer import ReplayBuffer

import gin3_env  # noqa: F401  (registers the ids)

ENV_ID = "gin3/ThreeHandedGin-v0"


def make(num_envs: int) -> gym.vector.VectorEnv:
    return gym.make_vec(ENV_ID, num_envs, opponent="random", reward_scale=0.01,
                        vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP})


def main(steps: int = 3000, episodes: int = 64, seed: int = 0, num_envs: int = 16) -> dict[str, float]:
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    env = make(num_envs)
    agent = DQN(env.single_observation_space, env.single_action_space, batch_size=64, lr=1e-3, learn_step=1)
    agent.set_training_mode(True)
    memory = ReplayBuffer(max_size=20_000)
    obs, info = env.reset(seed=seed)
    epsilon, trained = 1.0, 0
    while trained < steps:
        mask = info["action_mask"].astype(np.int8)  # AgileRL takes a 0/1 mask, not a bool one
        action = agent.get_action(obs, epsilon, action_mask=mask)
        next_obs, reward, terminated, truncated, info = env.step(action)
        done = terminated | truncated
        last = np.where(info["_final_obs"][:, None], info["final_obs"], next_obs)  # SAME_STEP: the hand's end
        memory.add(Transition(obs=obs, action=action, reward=reward, next_obs=last, done=done,
                              batch_size=[num_envs]).to_tensordict())
        obs, trained, epsilon = next_obs, trained + num_envs, max(0.05, epsilon * 0.995)
        if len(memory) >= agent.batch_size:
            agent.learn(memory.sample(agent.batch_size))
    agent.set_training_mode(False)
    test = make(16)
    obs, info = test.reset(seed=seed + 1)
    actions = illegal = ended = 0
    while ended < episodes:
        action = agent.get_action(obs, 0.0, action_mask=info["action_mask"].astype(np.int8))
        actions += len(action)
        obs, _, terminated, truncated, info = test.step(action)
        results = info["final_info"]
        illegal += int((results["illegal_action"] & results["_illegal_action"]).sum())
        ended += int((terminated | truncated).sum())
    print(f"agilerl: {trained} steps trained, {ended} evaluation hands, {actions} actions, {illegal} illegal")
    assert actions > 0 and illegal == 0, "an illegal action was sent"
    return {"trained": trained, "episodes": ended, "actions": actions, "illegal": illegal}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--episodes", type=int, default=64)
    args = parser.parse_args()
    main(args.steps, args.episodes)
