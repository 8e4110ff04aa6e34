"""A residual MaskablePPO on the full game: its logits start at the heuristic's choice.

``python -m experiments.residual_ppo --steps 100000 --out runs/residual --eval-hands 4500 --eval-seed 2027``
trains on the batched learner env (:func:`gin3_env.sb3_vec_env`: every decision of the learner's
seat, the heuristic as the opponent, the reward the learner's points minus the heuristic's on
the same deal and seat). The observation is the plain vector followed by a one-hot of the
heuristic's move at that decision (:class:`HeuristicHint`), and the policy's logits are the
network's plus ``--bonus`` on that move (:class:`ResidualPolicy`): the untrained policy plays
the heuristic's move with probability about ``e^bonus / (e^bonus + legal moves - 1)``, and its
likelier move is the heuristic's, so the network learns only where to leave it. Evaluation and
outputs as :mod:`experiments.knock_ppo` (``OUT/residual_ppo.zip``, ``OUT/residual_ppo.json``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.vec_env import VecEnvWrapper

from experiments.knock_ppo import check_out, evaluate_gate
from gin3_env.argparsing import OneLineErrorParser
from gin3_env.engine.actions import NUM_ACTIONS
from gin3_env.files import atomic_output, save_json
from gin3_env.observation.layout import OBS_SIZE

MODEL_NAME = "residual_ppo.zip"
REPORT_NAME = "residual_ppo.json"
HINT_SIZE = OBS_SIZE + NUM_ACTIONS


def with_hint(observations: np.ndarray, hints: np.ndarray) -> np.ndarray:
    """The observation vectors followed by a one-hot of the heuristic's move (-1: none)."""
    out = np.zeros((len(observations), HINT_SIZE), dtype=np.float32)
    out[:, :OBS_SIZE] = observations[:, :OBS_SIZE]
    rows = np.flatnonzero(hints >= 0)
    out[rows, OBS_SIZE + hints[rows]] = 1.0
    return out


class HeuristicHint(VecEnvWrapper):
    """Appends the heuristic's move at each slot's decision to the observation (see the module doc)."""

    def __init__(self, venv: Any) -> None:
        from gymnasium import spaces

        from gin3_env.vector.players import as_batch

        super().__init__(venv, observation_space=spaces.Box(0.0, 1.0, (HINT_SIZE,), np.float32))
        self.heuristic = as_batch("heuristic", None)

    def _hinted(self, obs: Any) -> np.ndarray:
        masks = self.action_masks()
        return with_hint(obs, self.heuristic.act(obs, masks))

    def reset(self) -> np.ndarray:
        return self._hinted(self.venv.reset())

    def step_wait(self) -> Any:
        obs, rewards, dones, infos = self.venv.step_wait()
        for info in infos:
            if "terminal_observation" in info:  # no move at the end of a hand: no hint
                info["terminal_observation"] = with_hint(info["terminal_observation"][None], np.array([-1]))[0]
        return self._hinted(obs), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        masks = self.venv.env_method("action_masks")
        return np.asarray(masks, dtype=bool)


class ResidualPolicy(MaskableActorCriticPolicy):
    """Logits = the network's + ``bonus`` on the hinted move (the last ``NUM_ACTIONS`` entries)."""

    def __init__(self, *args: Any, bonus: float = 5.0, **kwargs: Any) -> None:
        self.bonus = float(bonus)
        super().__init__(*args, **kwargs)

    def _dist(self, obs: th.Tensor, latent_pi: th.Tensor, action_masks: Any) -> Any:
        logits = self.action_net(latent_pi) + self.bonus * obs[:, OBS_SIZE:HINT_SIZE].float()
        distribution = self.action_dist.proba_distribution(action_logits=logits)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return distribution

    def _latents(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        features = super().extract_features(obs, self.features_extractor)
        latent_pi, latent_vf = self.mlp_extractor(features)
        return latent_pi, latent_vf

    def forward(self, obs: th.Tensor, deterministic: bool = False,
                action_masks: np.ndarray | None = None) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        latent_pi, latent_vf = self._latents(obs)
        distribution = self._dist(obs, latent_pi, action_masks)
        actions = distribution.get_actions(deterministic=deterministic)
        log_prob = distribution.log_prob(actions)
        return actions.reshape(-1), self.value_net(latent_vf), log_prob  # Discrete: one action per row

    def evaluate_actions(self, obs: th.Tensor, actions: th.Tensor,
                         action_masks: th.Tensor | None = None) -> tuple[th.Tensor, th.Tensor, th.Tensor | None]:
        latent_pi, latent_vf = self._latents(obs)
        distribution = self._dist(obs, latent_pi, action_masks)
        return self.value_net(latent_vf), distribution.log_prob(actions), distribution.entropy()

    def get_distribution(self, obs: Any, action_masks: np.ndarray | None = None) -> Any:
        latent_pi, _ = self._latents(obs)
        return self._dist(obs, latent_pi, action_masks)


class ResidualBatch:
    """A trained residual model as a batched player (its likelier move at every decision)."""

    def __init__(self, model: Any, name: str = "residual-ppo") -> None:
        from gin3_env.vector.players import as_batch

        self.model = model
        self.name = name
        self.heuristic = as_batch("heuristic", None)
        self.decisions = 0
        self.holds = 0  # decisions where it left the heuristic's move

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs = np.asarray(observations, dtype=np.float32)
        m = np.asarray(masks).astype(bool)
        hints = self.heuristic.act(obs, m)
        actions, _ = self.model.predict(with_hint(obs, hints), action_masks=m, deterministic=True)
        actions = np.asarray(actions, dtype=np.int64).reshape(-1)
        self.decisions += len(actions)
        self.holds += int((actions != hints).sum())
        return actions


def make_model(env: Any, seed: int, bonus: float) -> Any:
    from sb3_contrib import MaskablePPO

    settings: dict[str, Any] = {"n_steps": 64, "batch_size": 1024, "n_epochs": 5, "learning_rate": 3e-4,
                                "gamma": 1.0, "gae_lambda": 0.95, "ent_coef": 0.0}
    return MaskablePPO(ResidualPolicy, env, seed=seed, verbose=0, device="cpu",
                       policy_kwargs={"net_arch": [128, 128], "bonus": bonus}, **settings)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineErrorParser(prog="python -m experiments.residual_ppo",
                                description="Residual MaskablePPO on the full game, then against the heuristic.")
    parser.add_argument("--out", required=True, help=f"run folder: {MODEL_NAME} and {REPORT_NAME} go there")
    parser.add_argument("--steps", type=int, default=100_000, help="learner decisions to train on (default 100000)")
    parser.add_argument("--envs", type=int, default=64, help="hands played at once (default 64)")
    parser.add_argument("--seed", type=int, default=0, help="training seed (default 0)")
    parser.add_argument("--bonus", type=float, default=5.0, help="logit bonus on the heuristic's move (default 5)")
    parser.add_argument("--reward-scale", type=float, default=0.05, help="points times this are the reward")
    parser.add_argument("--eval-hands", type=int, default=4500, help="duplicate deals of the evaluation (0: none)")
    parser.add_argument("--eval-seed", type=int, default=2027, help="seed of the evaluation deals (default 2027)")
    parser.add_argument("--no-progress", action="store_true", help="no progress lines on stderr")
    return parser


def run(args: argparse.Namespace) -> dict[str, Any]:
    from gin3_env.vector.sb3_env import GinSB3VecEnv

    if args.steps < 1 or args.envs < 1 or args.eval_hands < 0:
        raise ValueError("--steps and --envs must be >= 1, --eval-hands >= 0")
    out = Path(args.out)
    check_out(out, (MODEL_NAME, REPORT_NAME))
    env = HeuristicHint(GinSB3VecEnv(args.envs, learner="random", opponent="heuristic", reward_baseline="heuristic",
                                     reward_scale=args.reward_scale, seed=args.seed))
    model = make_model(env, args.seed, args.bonus)
    started = time.monotonic()
    model.learn(total_timesteps=int(args.steps), progress_bar=False)
    seconds = time.monotonic() - started
    if not args.no_progress:
        print(f"[residual ppo] {args.steps:,} steps in {seconds:.0f} s", file=sys.stderr)
    out.mkdir(parents=True, exist_ok=True)
    with atomic_output(out / MODEL_NAME) as tmp:
        model.save(tmp)
    report: dict[str, Any] = {"command": "python -m experiments.residual_ppo " + " ".join(sys.argv[1:]),
                              "settings": {k: v for k, v in vars(args).items() if k != "no_progress"},
                              "train_seconds": seconds, "evaluation": None}
    if args.eval_hands:
        player = ResidualBatch(model)
        result = evaluate_gate(player, args.eval_hands, args.eval_seed)
        report["evaluation"] = {**result.to_dict(), "decisions": player.decisions, "left_heuristic": player.holds}
        print(result.to_text())
        print(f"left the heuristic's move at {player.holds} of {player.decisions} decisions")
    save_json(out / REPORT_NAME, report)
    print(f"model and report written to {out}")
    return report


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        run(args)
    except (ValueError, FileNotFoundError) as exc:
        print(f"residual_ppo: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
