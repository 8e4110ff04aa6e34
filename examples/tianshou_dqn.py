"""Tianshou: a DQN for the box against a random captain, by Tianshou's own PettingZoo recipe
(its tic-tac-toe example: ``PettingZooEnv``, ``MultiAgentOffPolicyAlgorithm``, a masked random
opponent), on ``gin3_env.env()``. Trains a few thousand steps, then plays evaluation hands and
asserts that no illegal action was sent (Tianshou's DQN masks by ``obs.mask``).

    pip install torch==2.13.0 && pip install tianshou gin3_env
    python examples/tianshou_dqn.py [--steps 3000] [--episodes 20]
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from _illegal import CountIllegal
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import gin3_env


def make_env() -> PettingZooEnv:
    return PettingZooEnv(CountIllegal(gin3_env.env()))


def main(steps: int = 3000, episodes: int = 20, seed: int = 0) -> dict[str, float]:
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    np.random.seed(seed)
    env = make_env()
    obs_shape = env.observation_space["observation"].shape
    learner = DQN(
        policy=DiscreteQLearningPolicy(
            model=Net(state_shape=obs_shape, action_shape=int(env.action_space.n), hidden_sizes=[128, 128]),
            action_space=env.action_space, eps_training=0.2, eps_inference=0.0,
        ),
        optim=AdamOptimizerFactory(lr=1e-3), gamma=0.99, n_step_return_horizon=1, target_update_freq=200,
    )
    captain = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[captain, learner], env=env)  # team_0, box_0
    train_envs = DummyVectorEnv([make_env for _ in range(4)])
    test_envs = DummyVectorEnv([make_env for _ in range(2)])
    train_envs.seed(seed)
    test_envs.seed(seed + 1)
    train = Collector[CollectStats](algorithm, train_envs, VectorReplayBuffer(20_000, 4), exploration_noise=True)
    test = Collector[CollectStats](algorithm, test_envs, exploration_noise=False)
    train.reset()
    train.collect(n_step=256)
    algorithm.run_training(OffPolicyTrainerParams(
        training_collector=train, test_collector=test, max_epochs=max(1, steps // 1000), epoch_num_steps=1000,
        collection_step_num_env_steps=16, test_step_num_episodes=2, batch_size=64,
        update_step_num_gradient_steps_per_sample=0.25, test_in_training=False,
        multi_agent_return_reduction=lambda rews: rews[:, 1],  # the box's return
    ))
    # evaluation: a fresh collector over counting envs, exploration off
    evaluation = DummyVectorEnv([make_env for _ in range(2)])
    stats = Collector[CollectStats](algorithm, evaluation).collect(n_episode=episodes, reset_before_collect=True)
    counters = [e.env for e in evaluation.workers_envs()] if hasattr(evaluation, "workers_envs") else []
    counters = counters or [w.env.env for w in evaluation.workers]
    illegal = sum(c.illegal for c in counters)
    actions = sum(c.actions for c in counters)
    result = {"episodes": float(stats.n_collected_episodes), "actions": float(actions), "illegal": float(illegal),
              "box_return": float(np.mean(stats.returns[:, 1]))}
    print(f"tianshou: {stats.n_collected_episodes} evaluation hands, {actions} actions, {illegal} illegal, "
          f"box's mean return {result['box_return']:+.2f}")
    assert actions > 0 and illegal == 0, "an illegal action was sent"
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--episodes", type=int, default=20)
    args = parser.parse_args()
    main(args.steps, args.episodes)
