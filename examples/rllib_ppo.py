"""Ray RLlib: PPO on its new API stack with one shared action-masking policy for both players of
the hand env, by RLlib's documented multi-agent recipe (``PPOConfig().environment(...)``,
``.multi_agent(...)``, an ``RLModuleSpec``): the env and the module are the package's
(``gin3_env.interop.rllib``, ``rllib_modules``). Trains a few thousand steps, then plays
evaluation hands greedily with the trained module and asserts that every action was legal.

    python3 -m venv .venv-rllib && . .venv-rllib/bin/activate
    pip install torch==2.13.0 && pip install -e ".[rllib]"    # Ray pins gymnasium 1.2.2
    python examples/rllib_ppo.py [--iterations 2] [--episodes 20]
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from gin3_env.interop.rllib import ENV_NAMES, GinHandMultiAgentEnv, register_envs
from gin3_env.interop.rllib_modules import ActionMaskingTorchRLModule
from gin3_env.interop.rllib_vector import observation_space
from gin3_env.policies.rllib_net import input_size

ENV_CONFIG = {"features": "plain", "reward_scale": 0.01}


def main(iterations: int = 2, episodes: int = 20, seed: int = 0) -> dict[str, float]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        register_envs()
        module = RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                              observation_space=observation_space(input_size("hand", "plain")),
                              action_space=gym.spaces.Discrete(107), model_config={"hidden": [128, 128]})
        config = (
            PPOConfig()
            .environment(ENV_NAMES["hand"], env_config=ENV_CONFIG, disable_env_checking=True)
            .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": module}))
            .env_runners(num_env_runners=0)
            .training(train_batch_size_per_learner=1000, minibatch_size=250, num_epochs=2)
            .debugging(seed=seed)
        )
        algo = config.build_algo()
        steps = 0
        for _ in range(iterations):
            result = algo.train()
            steps = int(result["num_env_steps_sampled_lifetime"])
        shared = algo.get_module("shared")
        env = GinHandMultiAgentEnv(ENV_CONFIG)
        actions = illegal = 0
        for episode in range(episodes):
            obs, _ = env.reset(seed=10_000 + episode)
            done = False
            while not done:
                agent, seen = next(iter(obs.items()))
                batch = {"obs": {k: torch.as_tensor(v)[None] for k, v in seen.items()}}
                with torch.no_grad():
                    logits = shared.forward_inference(batch)["action_dist_inputs"][0]
                action = int(logits.argmax())
                actions += 1
                illegal += int(seen["action_mask"][action] == 0)
                if illegal:
                    break
                obs, _, terminated, truncated, _ = env.step({agent: action})
                done = terminated["__all__"] or truncated["__all__"]
        algo.stop()
    finally:
        ray.shutdown()
    print(f"rllib: {steps} steps trained, {episodes} evaluation hands, {actions} actions, {illegal} illegal")
    assert actions > 0 and illegal == 0, "an illegal action was chosen"
    return {"trained": steps, "episodes": episodes, "actions": actions, "illegal": illegal}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--iterations", type=int, default=2)
    parser.add_argument("--episodes", type=int, default=20)
    args = parser.parse_args()
    main(args.iterations, args.episodes)
