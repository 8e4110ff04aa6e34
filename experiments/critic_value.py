"""How much of a hand's result each critic can explain: the observation critic against the state critic.

    python -m experiments.critic_value --train 200000 --held-out 20000 --epochs 8 --seed 2026 \
        --json docs/results/critic_value.json
    python -m experiments.critic_value --privileged opponent_view ... --json docs/results/critic_value_view.json

Both critics of :class:`~experiments.privileged_critic.PrivilegedCriticPolicy` (the
ordinary one on the observation, the privileged one on observation and the privileged columns
of ``--privileged``, ``[256, 256]`` each) are fitted to the final points (times the quick
config's ``reward_scale``) of every decision of heuristic-vs-heuristic hands, and scored on
decisions of other hands (another seed): the mean squared error and the explained variance
(1 - MSE / variance of the results) after each epoch: the share of a hand's luck each critic
can take out of the advantage, so the ceiling of what a critic that sees the deal gains.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--train", type=int, default=100_000, help="decisions to fit on")
    p.add_argument("--held-out", type=int, default=20_000, help="decisions to score on (other hands)")
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--learning-rate", type=float, default=1e-3)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--privileged", choices=["state", "opponent_view"], default="state",
                   help="what the state critic reads besides the observation (as the training entry point)")
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    if min(args.train, args.held_out, args.epochs) < 1:
        p.error("--train, --held-out and --epochs must be >= 1")

    import numpy as np
    import torch
    from gymnasium import spaces

    from experiments.privileged import heuristic_dataset_with_state
    from experiments.privileged_critic import PrivilegedCriticPolicy
    from experiments.privileged_env import privileged_size
    from gin3_env.files import save_json
    from gin3_env.observation.features import AUGMENTED_SIZE
    from gin3_training.ppo.config import load_config

    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    scale = load_config("ppo_quick").reward_scale
    start = time.monotonic()
    fit = heuristic_dataset_with_state(args.train, args.seed, scale, "augmented", extra=args.privileged)
    test = heuristic_dataset_with_state(args.held_out, args.seed + 1, scale, "augmented", extra=args.privileged)
    width = AUGMENTED_SIZE + privileged_size(args.privileged, AUGMENTED_SIZE)
    policy = PrivilegedCriticPolicy(spaces.Box(0.0, 1.0, (width,), np.float32),
                                    spaces.Discrete(107), lambda _: args.learning_rate, net_arch=[256, 256],
                                    obs_features=AUGMENTED_SIZE)
    x, y = torch.as_tensor(fit["obs"]), torch.as_tensor(fit["returns"])
    tx, ty = torch.as_tensor(test["obs"]), torch.as_tensor(test["returns"])
    variance = float(ty.var())
    optimizer = torch.optim.Adam(policy.parameters(), lr=args.learning_rate)
    gen = torch.Generator().manual_seed(args.seed)
    epochs: list[dict[str, Any]] = []
    for epoch in range(args.epochs):
        order = torch.randperm(len(x), generator=gen)
        for k in range(0, len(x), 512):
            idx = order[k : k + 512]
            loss = ((policy.both_values(x[idx]) - y[idx, None]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            err = torch.cat([((policy.both_values(tx[k : k + 4096]) - ty[k : k + 4096, None]) ** 2)
                             for k in range(0, len(tx), 4096)]).mean(0)
            train_err = ((policy.both_values(x[:20000]) - y[:20000, None]) ** 2).mean(0)
        ev = {"observation": 1 - float(err[0]) / variance, "state": 1 - float(err[1]) / variance}
        epochs.append({"epoch": epoch + 1, "held_out_mse": {"observation": float(err[0]), "state": float(err[1])},
                       "held_out_explained_variance": ev,
                       "train_mse": {"observation": float(train_err[0]), "state": float(train_err[1])}})
        print(f"epoch {epoch + 1}: held-out explained variance: observation critic {ev['observation']:+.3f}, "
              f"state critic {ev['state']:+.3f} (train MSE {float(train_err[0]):.4f} / {float(train_err[1]):.4f}, "
              f"held-out variance {variance:.4f})", flush=True)
    result = {"command": "python -m experiments.critic_value " + " ".join(sys.argv[1:] if argv is None
                                                                                 else argv),
              "privileged": args.privileged, "train_decisions": len(x), "held_out_decisions": len(tx),
              "reward_scale": scale,
              "held_out_variance": variance, "epochs": epochs, "wall_s": time.monotonic() - start}
    if args.json:
        save_json(args.json, result)
        print(f"written to {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
