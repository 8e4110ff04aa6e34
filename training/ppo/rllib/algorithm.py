"""The PPO algorithm of ``gin3 train --backend rllib``, built from an :class:`~.config.RLlibConfig`.

Two samplers, by ``policies``:

- ``shared`` and ``per_seat`` (self-play): RLlib's ``MultiAgentEnvRunner`` over
  :mod:`gin3_env.interop.rllib`'s multi-agent hand or match env, one module for
  every seat (``shared``) or one per seat (``team``, ``box``); with
  ``num_envs_per_env_runner`` above 1 RLlib steps that many envs in each runner;
- ``vs_heuristic``: RLlib's ``SingleAgentEnvRunner`` over
  :mod:`gin3_env.interop.rllib_vector`'s vector env (``gym_env_vectorize_mode=
  "vector_entry_point"``): ``num_envs_per_env_runner`` hands against the heuristic
  in the batched core, one module (RLlib's default module id, ``default_policy``).

Every learned module is the action-masking network of
:mod:`gin3_env.interop.rllib_modules`. Ray is imported only by :func:`build_algorithm`;
:func:`stop_algorithm` ends what it built.
"""

from __future__ import annotations

import functools
import os
import warnings
from typing import Any

from gin3_training.ppo.rllib.config import RLlibConfig

SINGLE_AGENT_MODULE = "default_policy"  # RLlib's module id of a single-agent run
LEARNED = {"shared": ("shared",), "per_seat": ("team", "box"), "vs_heuristic": (SINGLE_AGENT_MODULE,)}
EPISODES_PER_MEAN = 1_000_000
PLAY_MODULES = {"shared": {"any": "shared"}, "per_seat": {"team": "team", "box": "box"},
                "vs_heuristic": {"any": SINGLE_AGENT_MODULE}}


def _map_all(module: str, agent_id: str, episode: Any, **kwargs: Any) -> str:
    return module


def _map_per_seat(agent_id: str, episode: Any, **kwargs: Any) -> str:
    return "team" if agent_id == "team_0" else "box"


def env_config(cfg: RLlibConfig) -> dict[str, Any]:
    return {"features": cfg.features, "reward_scale": cfg.reward_scale, "rules": dict(cfg.rules)}


def build_algorithm(cfg: RLlibConfig) -> Any:
    """The PPO ``Algorithm`` for ``cfg`` (Ray must be connected)."""
    import gymnasium as gym
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from gin3_env.engine.actions import NUM_ACTIONS
    from gin3_env.interop.rllib import VECTOR_ENV_NAME, register_envs
    from gin3_env.interop.rllib_modules import ActionMaskingTorchRLModule
    from gin3_env.interop.rllib_vector import observation_space
    from gin3_env.policies.rllib_net import input_size

    register_envs()
    learned = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        observation_space=observation_space(input_size(cfg.env, cfg.features)),
        action_space=gym.spaces.Discrete(NUM_ACTIONS),
        model_config={"hidden": list(cfg.hidden), "card_head": cfg.card_head},
    )
    config = PPOConfig()
    if cfg.policies == "vs_heuristic":
        config = (
            config.environment(VECTOR_ENV_NAME, env_config=env_config(cfg), disable_env_checking=True)
            .env_runners(gym_env_vectorize_mode="vector_entry_point")
            .rl_module(rl_module_spec=learned)
        )
    else:
        config = _multi_agent(config, cfg, learned)
    config = (
        config.framework("torch")
        .env_runners(num_env_runners=cfg.num_env_runners, num_envs_per_env_runner=cfg.num_envs_per_env_runner,
                     num_cpus_per_env_runner=1)
        .learners(num_learners=0)
        # an env runner that fails stops the run with its error (resume from the last checkpoint)
        # instead of being restarted behind the run's back
        .fault_tolerance(restart_failed_env_runners=False)
        .training(
            train_batch_size_per_learner=cfg.train_batch_size,
            minibatch_size=cfg.minibatch_size,
            num_epochs=cfg.num_epochs,
            lr=cfg.lr,
            gamma=cfg.gamma,
            lambda_=cfg.lambda_,
            clip_param=cfg.clip_param,
            entropy_coeff=cfg.entropy_coeff,
            vf_loss_coeff=cfg.vf_loss_coeff,
            grad_clip=cfg.grad_clip,
        )
        # an iteration's episode means (returns, lengths) over all of its episodes, not RLlib's last 100
        .reporting(metrics_num_episodes_for_smoothing=EPISODES_PER_MEAN)
        .debugging(seed=cfg.seed, log_level="ERROR")
    )
    with warnings.catch_warnings():  # RLlib registers its env id with Gymnasium again for every algorithm
        warnings.filterwarnings("ignore", message=".*Overriding environment rllib-")
        return config.build_algo()


def _multi_agent(config: Any, cfg: RLlibConfig, learned: Any) -> Any:
    """Self-play on the multi-agent env: one module per entry of ``LEARNED``."""
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from gin3_env.interop.rllib import ENV_NAMES

    specs = {module: learned for module in LEARNED[cfg.policies]}
    mapping = functools.partial(_map_all, "shared") if cfg.policies == "shared" else _map_per_seat
    return (
        config.environment(ENV_NAMES[cfg.env], env_config=env_config(cfg), disable_env_checking=True)
        .multi_agent(policies=set(specs), policy_mapping_fn=mapping, policies_to_train=list(specs))
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
    )


def stop_algorithm(algo: Any) -> None:
    """Stop ``algo`` (its env runner actors) and drop the empty folder RLlib's Trainable made under
    ``~/ray_results``."""
    algo.stop()
    logdir = getattr(algo, "logdir", None)
    if logdir and os.path.isdir(logdir) and not os.listdir(logdir):
        os.rmdir(logdir)
