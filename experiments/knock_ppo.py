"""MaskablePPO on the knock learner (:mod:`experiments.knock_learner_env`), measured against the heuristic.

``python -m experiments.knock_ppo --steps 60000 --out runs/knock_ppo --eval-hands 4500 --eval-seed 2027``
trains a small MLP gate (knock or hold at each decision where the heuristic could knock; the
heuristic plays the rest) on :func:`knock_vec_env` (the knock learner as an SB3 ``VecEnv``), rewarded by the
learner's points minus the heuristic's on the same deal and seat; then plays the gate (the
likelier action at each decision) against the heuristic on ``--eval-hands`` duplicate deals of
``--eval-seed``, with the seat-adjusted figures, on the batched core. It writes
``OUT/knock_ppo.zip`` (the SB3 model) and ``OUT/knock_ppo.json`` (the settings, the training
curve and the evaluation), both atomically; the folder is checked before anything runs.

The gate's logits start at the heuristic's choice: the bias of the action head is set so that
the untrained policy knocks with probability ``--init-knock`` (default 0.9), not one half.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gin3_env.argparsing import OneLineErrorParser
from gin3_env.files import atomic_output, save_json

MODEL_NAME = "knock_ppo.zip"
REPORT_NAME = "knock_ppo.json"


def knock_vec_env(num_envs: int = 64, **kwargs: Any) -> Any:
    """The knock learner (:class:`~experiments.knock_learner_env.KnockHands`, keywords as there) as a
    stable-baselines3 ``VecEnv`` that ``MaskablePPO`` trains on as is: observations are the gate
    features, actions 0 (hold) and 1 (knock), the mask two ``True``; ``infos[i]["result"]`` holds
    the learner's points and the heuristic's on the same deal and seat."""
    from gymnasium import spaces
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv

    from experiments.knock_learner_env import KNOCK_LEARNER_FEATURES_SIZE, KnockHands
    from gin3_env.vector.sb3_env import GinSB3VecEnv

    class KnockSB3VecEnv(GinSB3VecEnv):
        def __init__(self) -> None:
            self.core = KnockHands(num_envs, **kwargs)  # type: ignore[assignment]
            VecEnv.__init__(self, self.core.num_envs, spaces.Box(0.0, 10.0, (KNOCK_LEARNER_FEATURES_SIZE,), np.float32),
                            spaces.Discrete(2))
            self._actions = None
            self._first_reset = True
            self._started = False

        def env_method(self, method_name: str, *method_args: Any, indices: Any = None,
                       **method_kwargs: Any) -> list[Any]:
            if method_name == "set_opponent":
                raise ValueError("the knock learner's opponent is the heuristic (it is also the reward's baseline)")
            return super().env_method(method_name, *method_args, indices=indices, **method_kwargs)

    return KnockSB3VecEnv()


def make_model(env: Any, seed: int, init_knock: float = 0.9, **ppo: Any) -> Any:
    """A ``MaskablePPO`` on ``env`` whose untrained policy knocks with probability ``init_knock``."""
    import torch
    from sb3_contrib import MaskablePPO

    if not 0.0 < init_knock < 1.0:
        raise ValueError(f"init_knock must be strictly between 0 and 1, got {init_knock!r}")
    settings: dict[str, Any] = {"n_steps": 64, "batch_size": 512, "n_epochs": 10, "learning_rate": 1e-3, "gamma": 1.0,
                "gae_lambda": 1.0, "ent_coef": 0.0, "policy_kwargs": {"net_arch": [64, 64]}} | ppo
    model = MaskablePPO("MlpPolicy", env, seed=seed, verbose=0, device="cpu", **settings)
    logits = torch.tensor([0.0, math.log(init_knock / (1 - init_knock))])
    with torch.no_grad():
        bias: Any = model.policy.action_net.bias
        bias.copy_(logits)
    return model


def evaluate_gate(gate_batch: Any, n_hands: int, seed: int, seat_baseline: bool = True) -> Any:
    """A batched player (a :class:`~experiments.knock_learner_env.KnockChoiceBatch`, say) against the heuristic on
    ``n_hands`` duplicate deals of ``seed``, on the batched core (the report of ``gin3 evaluate``)."""
    from gin3_env.engine.rules import Rules
    from gin3_env.evaluation.batched_hands import evaluate_hands_batched
    from gin3_env.policies.heuristic import HeuristicPolicy
    from gin3_env.vector import HeuristicBatch

    heuristic = HeuristicPolicy()
    return evaluate_hands_batched(gate_batch, heuristic, gate_batch, HeuristicBatch.from_policy(heuristic),
                                  int(n_hands), int(seed), Rules(), seat_baseline)


def train(steps: int, num_envs: int, seed: int, init_knock: float, reward_scale: float,
          progress: bool = True) -> tuple[Any, list[dict[str, float]]]:
    """Train the gate; returns the model and a curve (steps, mean reward per episode in points,
    share of holds) per rollout."""
    from stable_baselines3.common.callbacks import BaseCallback

    env = knock_vec_env(num_envs, reward_scale=reward_scale, seed=seed)
    model = make_model(env, seed, init_knock)
    curve: list[dict[str, float]] = []
    start = time.monotonic()

    class Curve(BaseCallback):
        def _on_rollout_start(self) -> None:
            self.rewards: list[float] = []
            self.holds = 0
            self.decisions = 0

        def _on_step(self) -> bool:
            actions = np.asarray(self.locals["actions"]).reshape(-1)
            self.decisions += len(actions)
            self.holds += int((actions == 0).sum())
            for info in self.locals["infos"]:
                if "result" in info:
                    self.rewards.append(info["result"]["points"] - info["result"]["baseline_points"])
            return True

        def _on_rollout_end(self) -> None:
            row = {"steps": float(self.num_timesteps),
                   "reward_per_episode": float(np.mean(self.rewards)) if self.rewards else 0.0,
                   "episodes": float(len(self.rewards)), "hold_share": self.holds / max(1, self.decisions)}
            curve.append(row)
            if progress:
                print(f"[knock ppo] {int(row['steps']):,} steps, {time.monotonic() - start:.0f} s: reward "
                      f"{row['reward_per_episode']:+.2f} points/episode, holds {row['hold_share']:.1%}",
                      file=sys.stderr, flush=True)

    model.learn(total_timesteps=int(steps), callback=Curve())
    return model, curve


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineErrorParser(prog="python -m experiments.knock_ppo",
                                description="MaskablePPO on the knock learner, then the gate against the heuristic.")
    parser.add_argument("--out", help=f"run folder: {MODEL_NAME} and {REPORT_NAME} go there (with --evaluate: "
                        "evaluation_seedS.json)")
    parser.add_argument("--evaluate", metavar="MODEL", help="no training: evaluate this saved gate (read as data)")
    parser.add_argument("--steps", type=int, default=60_000, help="knock decisions to train on (default 60000)")
    parser.add_argument("--envs", type=int, default=64, help="hands played at once (default 64)")
    parser.add_argument("--seed", type=int, default=0, help="training seed (default 0)")
    parser.add_argument("--init-knock", type=float, default=0.9, help="the untrained policy's knock probability")
    parser.add_argument("--reward-scale", type=float, default=0.05, help="points times this are the reward")
    parser.add_argument("--eval-hands", type=int, default=4500, help="duplicate deals of the evaluation (0: none)")
    parser.add_argument("--eval-seed", type=int, default=2027, help="seed of the evaluation deals (default 2027)")
    parser.add_argument("--no-progress", action="store_true", help="no progress lines on stderr")
    return parser


def check_out(folder: Path, names: tuple[str, ...] = (MODEL_NAME, REPORT_NAME)) -> None:
    """Refuse ``--out`` before anything runs: a file, or a folder that already holds one of ``names``."""
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"--out {folder} is a file; give a folder")
    for name in names:
        if (folder / name).exists():
            raise ValueError(f"--out {folder} already holds {name}; give a new folder")


def load_gate_model(path: str | Path) -> Any:
    """A saved gate (``knock_ppo.zip``) read as data, never unpickled (the model-file rules)."""
    from gymnasium import spaces

    from experiments.knock_learner_env import KNOCK_LEARNER_FEATURES_SIZE
    from gin3_env.policies.model_fields import EnvFit
    from gin3_env.policies.model_file import load_sb3_model

    shape = {"observation_space": spaces.Box(0.0, 10.0, (KNOCK_LEARNER_FEATURES_SIZE,), np.float32),
             "action_space": spaces.Discrete(2)}
    fit = EnvFit((KNOCK_LEARNER_FEATURES_SIZE,), 2, "the knock learner (gin3/ThreeHandedGinKnock-v0)", "Box(0, 10)")
    return load_sb3_model(path, overrides=shape, what="knock gate model file", fit=fit)


def evaluate_saved(args: argparse.Namespace) -> dict[str, Any]:
    from experiments.knock_learner_env import KnockChoiceBatch, sb3_knock_choice

    if args.eval_hands < 1:
        raise ValueError("--evaluate needs --eval-hands >= 1")
    target = None if args.out is None else Path(args.out) / f"evaluation_seed{args.eval_seed}.json"
    if target is not None and target.exists():
        raise ValueError(f"{target} exists; give another --out or --eval-seed")
    gate = KnockChoiceBatch(sb3_knock_choice(load_gate_model(args.evaluate)), name="knock-ppo")
    result = evaluate_gate(gate, args.eval_hands, args.eval_seed)
    report = {"command": "python -m experiments.knock_ppo " + " ".join(sys.argv[1:]), "model": args.evaluate,
              "evaluation": {**result.to_dict(), "gated_decisions": gate.decisions, "holds": gate.holds}}
    print(result.to_text())
    print(f"holds: {gate.holds} of {gate.decisions} knock decisions ({gate.holds / max(1, gate.decisions):.1%})")
    if target is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        save_json(target, report)
        print(f"written to {target}")
    return report


def run(args: argparse.Namespace) -> dict[str, Any]:
    from experiments.knock_learner_env import KnockChoiceBatch, sb3_knock_choice

    if args.evaluate:
        return evaluate_saved(args)
    if args.out is None:
        raise ValueError("give --out FOLDER (the run folder), or --evaluate MODEL")
    if args.steps < 1 or args.envs < 1 or args.eval_hands < 0:
        raise ValueError("--steps and --envs must be >= 1, --eval-hands >= 0")
    out = Path(args.out)
    check_out(out)
    started = time.monotonic()
    model, curve = train(args.steps, args.envs, args.seed, args.init_knock, args.reward_scale, not args.no_progress)
    seconds = time.monotonic() - started
    out.mkdir(parents=True, exist_ok=True)
    with atomic_output(out / MODEL_NAME) as tmp:
        model.save(tmp)
    report: dict[str, Any] = {"command": "python -m experiments.knock_ppo " + " ".join(sys.argv[1:]),
                              "settings": {k: v for k, v in vars(args).items() if k != "no_progress"},
                              "train_seconds": seconds, "curve": curve, "evaluation": None}
    if args.eval_hands:
        gate = KnockChoiceBatch(sb3_knock_choice(model), name="knock-ppo")
        result = evaluate_gate(gate, args.eval_hands, args.eval_seed)
        report["evaluation"] = {**result.to_dict(), "gated_decisions": gate.decisions, "holds": gate.holds}
        print(result.to_text())
        print(f"holds: {gate.holds} of {gate.decisions} knock decisions ({gate.holds / max(1, gate.decisions):.1%})")
    save_json(out / REPORT_NAME, report)
    print(f"model and report written to {out}")
    return report


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        run(args)
    except (ValueError, FileNotFoundError, ImportError) as exc:
        print(f"knock_ppo: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
