"""PPO with a critic that sees the deal; the trained actor exported as a plain card-aware player.

    python -m experiments.privileged --config ppo_quick --total-timesteps 50000 --seed 1 --out runs/priv
    python -m experiments.privileged --config ppo_quick --critic observation --out runs/plain
    python -m experiments.privileged --config ppo_quick --privileged opponent_view --out runs/view

The learner plays the batched core (:class:`~experiments.privileged_env.PrivilegedStateVecEnv`:
the observation, then the privileged state of the hand) with
:class:`~experiments.privileged_critic.PrivilegedCriticPolicy`: the actor reads the
observation only, the critic chosen by ``--critic`` reads observation and state (``state``, the
default) or the observation alone (``observation``, the ordinary critic, for comparison on the
same code path). ``--privileged`` chooses the privileged columns: ``state`` (both hands, the
stock) or ``opponent_view`` (the opponent's own observation in the learner's features, then the
state: an MLP explains far more of a hand's result from the opponent's derived card features
than from its raw cards). The config's network, PPO settings, opponent (its first phase) and warm start
are used: the heuristic's decisions are imitated by the actor, and both critics learn the
final points of each decision from it in the first ``--critic-bc-epochs`` epochs (the state
critic from the privileged columns at that decision), so the two settings start from the same
weights for the same seed.

``DIR`` receives ``model.zip`` and ``model.json``: the actor and the ordinary critic as a
:class:`~gin3_env.policies.sb3_network.CardAwarePolicy` on the observation (the format
``gin3 train`` writes; ``gin3 evaluate DIR/model.zip heuristic`` plays it), and
``training.json``: every PPO update's value loss, explained variance and advantage spread,
and the settings of the run. Files are written atomically; a ``DIR`` that already holds a
``model.zip`` is refused unless ``--overwrite``.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from gin3_env.argparsing import OneLineErrorParser
from gin3_env.files import save_json
from gin3_env.kernels.hands import VectorHands
from gin3_env.observation.features import feature_set
from gin3_env.vector.players import HeuristicBatch
from gin3_training.ppo.config import TrainConfig, load_config
from gin3_training.ppo.envs import opponent_pool, rollout_steps
from gin3_training.run.checkpoints import atomic_save_model

LOGGED = ("train/value_loss", "train/explained_variance", "train/policy_gradient_loss", "train/approx_kl",
          "train/clip_fraction", "train/entropy_loss")


def heuristic_dataset_with_state(n_samples: int, seed: int, reward_scale: float, features: str,
                                 num_envs: int = 512, extra: str = "state") -> dict[str, np.ndarray]:
    """The heuristic playing both sides of seeded hands: each decision's observation (in
    ``features``) followed by the privileged columns of ``extra`` at that decision (as
    :class:`~experiments.privileged_env.PrivilegedStateVecEnv` appends them), the bool mask, the
    action, and the final points of the side that made it times ``reward_scale``."""
    hands = VectorHands(num_envs, seed=seed)
    player = HeuristicBatch()
    rows = np.arange(num_envs)
    encoder = feature_set(features)
    per_hand: list[list[tuple[np.ndarray, np.ndarray, np.ndarray, int, int]]] = [[] for _ in range(num_envs)]
    obs_out: list[np.ndarray] = []
    state_out: list[np.ndarray] = []
    mask_out: list[np.ndarray] = []
    act_out: list[int] = []
    ret_out: list[Any] = []  # numpy scalars: the rounding of the batched dataset
    while len(obs_out) < n_samples:
        obs = hands.observe()
        who = hands.current_player
        state = hands.state()
        if extra == "opponent_view":
            state = np.concatenate([encoder.encode_batch(hands.observe_rows(rows, 1 - who)), state], axis=1)
        masks = hands.action_mask
        acts = player.act(obs, masks)
        rewards, ended = hands.apply(rows, acts)
        for i in range(num_envs):
            per_hand[i].append((obs[i], state[i], masks[i], int(acts[i]), int(who[i])))
        done = np.flatnonzero(ended)
        for h in done:
            for o, s, m, a, p in per_hand[h]:
                obs_out.append(o)
                state_out.append(s)
                mask_out.append(m.astype(bool))
                act_out.append(a)
                ret_out.append(rewards[h, p] * reward_scale)
            per_hand[h] = []
        hands.redeal(done)
    obs_arr = encoder.encode_batch(np.asarray(obs_out[:n_samples], dtype=np.float32))
    return {
        "obs": np.concatenate([obs_arr, np.asarray(state_out[:n_samples], dtype=np.float32)], axis=1),
        "masks": np.asarray(mask_out[:n_samples]),
        "actions": np.asarray(act_out[:n_samples], dtype=np.int64),
        "returns": np.asarray(ret_out[:n_samples], dtype=np.float32),
    }


def warm_start(model: Any, cfg: TrainConfig, extra: str = "state", critic_epochs: int = 1) -> dict[str, float]:
    """Imitate the heuristic with the actor (``cfg.bc_epochs``) and fit both critics to the final
    points (the first ``critic_epochs`` of them: on held-out hands both critics' error is lowest
    after one or two passes and grows after, ``experiments.critic_value``)."""
    import torch

    print(f"[bc] {cfg.bc_samples:,} decisions of the heuristic playing itself, with the state", flush=True)
    data = heuristic_dataset_with_state(cfg.bc_samples, cfg.seed + 99, cfg.reward_scale, cfg.features,
                                        extra=extra)
    policy = model.policy
    obs = torch.as_tensor(data["obs"])
    actions = torch.as_tensor(data["actions"])
    returns = torch.as_tensor(data["returns"])
    masks = data["masks"]
    n = len(obs)
    gen = torch.Generator().manual_seed(cfg.seed)
    optimizer = torch.optim.Adam(policy.parameters(), lr=cfg.bc_learning_rate)
    stats: dict[str, float] = {}
    for epoch in range(cfg.bc_epochs):
        order = torch.randperm(n, generator=gen)
        total = np.zeros(3)
        for start in range(0, n, 512):
            idx = order[start : start + 512]
            dist = policy.get_distribution(obs[idx], action_masks=masks[idx.numpy()])
            pi_loss = -dist.log_prob(actions[idx]).mean()
            values = policy.both_values(obs[idx])
            v_obs = torch.nn.functional.mse_loss(values[:, 0], returns[idx])
            v_state = torch.nn.functional.mse_loss(values[:, 1], returns[idx])
            loss = pi_loss + 0.5 * (v_obs + v_state) if epoch < critic_epochs else pi_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            total += np.array([float(pi_loss.detach()), float(v_obs.detach()), float(v_state.detach())]) * len(idx)
        pi, vo, vs = total / n
        stats = {"policy_loss": pi, "value_loss_observation": vo, "value_loss_state": vs}
        print(f"[bc] epoch {epoch + 1}: policy loss {pi:.3f}, value loss: observation critic {vo:.4f}, "
              f"state critic {vs:.4f}", flush=True)
    return stats


def make_env(cfg: TrainConfig, extra: str = "state") -> Any:
    from stable_baselines3.common.vec_env import VecMonitor

    from experiments.privileged_env import PrivilegedStateVecEnv
    from gin3_env.vector.sb3_env import GinSB3VecEnv

    specs, weights = opponent_pool(cfg, 0.0, [])
    base = GinSB3VecEnv(cfg.batched_envs, learner=cfg.learner, opponent=specs, weights=weights,
                        reward_scale=cfg.reward_scale,
                        reward_baseline="heuristic" if cfg.duplicate_reward else None,
                        features=cfg.features, seed=cfg.seed)
    return VecMonitor(PrivilegedStateVecEnv(base, extra))


def ppo_settings(cfg: TrainConfig) -> dict[str, Any]:
    return {"learning_rate": cfg.learning_rate, "n_steps": rollout_steps(cfg), "batch_size": cfg.batch_size,
            "n_epochs": cfg.n_epochs, "gamma": cfg.gamma, "gae_lambda": cfg.gae_lambda,
            "clip_range": cfg.clip_range, "ent_coef": cfg.ent_coef, "vf_coef": cfg.vf_coef,
            "max_grad_norm": cfg.max_grad_norm}


def build_model(cfg: TrainConfig, critic: str, env: Any) -> Any:
    """A MaskablePPO with :class:`PrivilegedCriticPolicy` on ``env`` (a privileged-state env)."""
    from sb3_contrib import MaskablePPO

    from experiments.privileged_critic import PrivilegedCriticPolicy

    class RecordingPPO(MaskablePPO):
        """MaskablePPO that keeps each update's logged figures and its advantages' spread."""

        history: list[dict[str, float]]

        def train(self) -> None:
            adv = self.rollout_buffer.advantages.reshape(-1)
            ret = self.rollout_buffer.returns.reshape(-1)
            super().train()
            row = {"step": float(self.num_timesteps), "advantage_std": float(np.std(adv)),
                   "return_std": float(np.std(ret))}
            row.update({k.removeprefix("train/"): float(self.logger.name_to_value[k]) for k in LOGGED
                        if k in self.logger.name_to_value})
            self.history.append(row)

    model = RecordingPPO(
        PrivilegedCriticPolicy, env, **ppo_settings(cfg),
        policy_kwargs={"net_arch": list(cfg.net_arch), "obs_features": feature_set(cfg.features).size,
                       "critic": critic},
        seed=cfg.seed, device=cfg.device, verbose=0,
    )
    model.history = []
    return model


def export_player(model: Any, cfg: TrainConfig, path: Path) -> Any:
    """Save the actor (and the ordinary critic) as a plain card-aware MaskablePPO model at ``path``
    (and its description beside it); returns that model."""
    from sb3_contrib import MaskablePPO

    from experiments.privileged_critic import card_aware_state_dict
    from gin3_env.policies.sb3_network import CardAwarePolicy
    from gin3_env.vector.sb3_env import GinSB3VecEnv

    env = GinSB3VecEnv(1, features=cfg.features, seed=cfg.seed)
    player = MaskablePPO(CardAwarePolicy, env, **ppo_settings(cfg), policy_kwargs={"net_arch": list(cfg.net_arch)},
                         seed=cfg.seed, device="cpu", verbose=0)
    player.policy.load_state_dict(card_aware_state_dict(model.policy), strict=True)
    player.num_timesteps = model.num_timesteps
    atomic_save_model(player, path, features=cfg.features)
    return player


def run(cfg: TrainConfig, critic: str, out: Path, extra: str = "state", critic_epochs: int = 1) -> dict[str, Any]:
    """Warm start, PPO for ``cfg.total_timesteps`` (whole rollouts), export; returns the record
    written to ``out/training.json``."""
    import torch

    if cfg.policy != "card" or cfg.features != "augmented":
        raise ValueError("the privileged critic is built on the card-aware policy: the config needs "
                         "policy: card and features: augmented")
    out.mkdir(parents=True, exist_ok=True)  # a folder that cannot be made fails before the training
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.torch_threads)
    np.random.seed(cfg.seed)
    env = make_env(cfg, extra)
    model = build_model(cfg, critic, env)
    started = time.monotonic()
    bc = warm_start(model, cfg, extra, critic_epochs) if cfg.bc_samples > 0 else {}
    rollout = model.n_steps * env.num_envs
    steps = math.ceil(cfg.total_timesteps / rollout) * rollout
    print(f"[ppo] {steps:,} steps with the {critic} critic ({rollout:,} per rollout)", flush=True)
    model.learn(total_timesteps=steps)
    for row in model.history:
        print(f"[ppo] step {int(row['step']):>8,}: value loss {row.get('value_loss', float('nan')):.4f}, "
              f"explained variance {row.get('explained_variance', float('nan')):.3f}, "
              f"advantage std {row['advantage_std']:.4f}")
    export_player(model, cfg, out / "model.zip")
    env.close()
    late = model.history[len(model.history) // 2 :] or model.history
    record = {
        "critic": critic, "privileged": extra, "critic_warm_start_epochs": critic_epochs,
        "config": cfg.run_name, "seed": cfg.seed, "total_timesteps": model.num_timesteps,
        "command": "python -m experiments.privileged " + " ".join(sys.argv[1:]),
        "wall_s": time.monotonic() - started, "warm_start": bc, "updates": model.history,
        "second_half_mean": {k: float(np.mean([r[k] for r in late if k in r]))
                             for k in ("value_loss", "explained_variance", "advantage_std")},
    }
    save_json(out / "training.json", record)
    return record


def main(argv: list[str] | None = None) -> int:
    parser = OneLineErrorParser(prog="python -m experiments.privileged",
                                description="PPO with a critic that reads the privileged state; the actor "
                                "exported as a plain card-aware model")
    parser.add_argument("--config", default="ppo_quick", help="config name or YAML path (default: ppo_quick)")
    parser.add_argument("--critic", choices=["state", "observation"], default="state",
                        help="state: the critic reads observation and state (default); observation: the "
                        "ordinary critic")
    parser.add_argument("--privileged", choices=["state", "opponent_view"], default="state",
                        help="what the state critic reads besides the observation: state (both hands, the "
                        "stock; default) or opponent_view (the opponent's own observation in the same "
                        "features, then the state)")
    parser.add_argument("--critic-bc-epochs", type=int, default=1,
                        help="warm-start epochs that also fit the critics (default 1)")
    parser.add_argument("--total-timesteps", type=int, default=None, help="PPO steps (default: the config's)")
    parser.add_argument("--seed", type=int, default=None, help="seed (default: the config's)")
    parser.add_argument("--bc-samples", type=int, default=None, help="warm-start decisions (default: the config's)")
    parser.add_argument("--bc-epochs", type=int, default=None, help="warm-start epochs (default: the config's)")
    parser.add_argument("--out", required=True, help="folder for model.zip, model.json and training.json")
    parser.add_argument("--overwrite", action="store_true", help="replace a model already in --out")
    args = parser.parse_args(argv)
    overrides: dict[str, Any] = {}
    for key in ("total_timesteps", "seed", "bc_samples", "bc_epochs"):
        if getattr(args, key) is not None:
            overrides[key] = getattr(args, key)
    try:
        cfg = load_config(args.config, overrides)
    except (ValueError, FileNotFoundError) as exc:
        parser.error(str(exc))
    out = Path(args.out)
    if (out / "model.zip").exists() and not args.overwrite:
        parser.error(f"{out / 'model.zip'} exists; choose another --out or pass --overwrite")
    if args.critic_bc_epochs < 0:
        parser.error(f"--critic-bc-epochs must be >= 0, got {args.critic_bc_epochs}")
    if cfg.total_timesteps < 1:
        parser.error(f"--total-timesteps must be >= 1, got {cfg.total_timesteps}")
    try:
        run(cfg, args.critic, out, args.privileged, args.critic_bc_epochs)
    except ValueError as exc:
        parser.error(str(exc))
    except OSError as exc:  # RunWriteError included
        print(f"{parser.prog}: error: cannot write the run to {out}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
