"""An auxiliary belief head on the actor: how well the policy network's features predict the opponent's cards.

    python -m experiments.belief_head --train 100000 --held-out 20000 --epochs 4 --seed 2026 \
        --json docs/results/belief_head.json

The actor of :class:`~experiments.privileged_critic.PrivilegedCriticPolicy` (``[256, 256]``,
the card-aware head) imitates the heuristic on heuristic-vs-heuristic decisions, as the warm start
does, while a linear head on the actor MLP's output predicts, for each card, whether it is among
the opponent's hidden cards (a binary cross-entropy on the true hand, read from the privileged
state: training only, the head is no input of the actor). Scored on the decisions of other hands
(another seed) as :func:`experiments.belief_report.evaluate_belief` scores the particle belief:
the binary log-loss over the cards the decider has not seen (not in its hand, not in the pile, not
known to be the opponent's), averaged per decision, beside the uniform belief (hidden / unseen)
on the same points; and the held-out agreement with the heuristic, with the head's loss and
without it (``--belief-coef`` then 0, the same seed).
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
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--belief-coef", type=float, default=1.0, help="weight of the belief loss")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    if min(args.train, args.held_out, args.epochs) < 1 or args.belief_coef < 0:
        p.error("--train, --held-out and --epochs must be >= 1, --belief-coef >= 0")

    import numpy as np
    import torch
    from gymnasium import spaces

    from experiments.privileged import heuristic_dataset_with_state
    from experiments.privileged_critic import PrivilegedCriticPolicy
    from gin3_env.files import save_json
    from gin3_env.observation.features import AUGMENTED_SIZE
    from gin3_env.observation.layout import HAND_PLANE, OPP_KNOWN_PLANE, PILE_PLANE, PLANE, TOP_PLANE
    from gin3_env.observation.state import STATE_SIZE

    def plane(x: np.ndarray, k: int) -> np.ndarray:
        return x[:, k * PLANE : (k + 1) * PLANE]

    def targets(data: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(unseen mask, opponent's hidden cards), both (n, 52) floats."""
        obs, state = data["obs"][:, :AUGMENTED_SIZE], data["obs"][:, AUGMENTED_SIZE:]
        seen = plane(obs, HAND_PLANE) + plane(obs, TOP_PLANE) + plane(obs, PILE_PLANE) + plane(obs, OPP_KNOWN_PLANE)
        unseen = (seen < 0.5).astype(np.float32)
        own_is_team = (state[:, :PLANE] == plane(obs, HAND_PLANE)).all(axis=1, keepdims=True)
        opponent = np.where(own_is_team, state[:, PLANE : 2 * PLANE], state[:, :PLANE])
        return unseen, opponent * unseen

    def log_losses(prob: torch.Tensor, unseen: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """Per decision: the mean binary log-loss over its unseen cards."""
        prob = prob.clamp(1e-6, 1 - 1e-6)
        bce = -(y * prob.log() + (1 - y) * (1 - prob).log()) * unseen
        return bce.sum(1) / unseen.sum(1).clamp(min=1)

    torch.set_num_threads(1)
    start = time.monotonic()
    fit = heuristic_dataset_with_state(args.train, args.seed, 0.02, "augmented")
    test = heuristic_dataset_with_state(args.held_out, args.seed + 1, 0.02, "augmented")
    fu, fy = (torch.as_tensor(a) for a in targets(fit))
    tu, ty = (torch.as_tensor(a) for a in targets(test))
    tx, tm, ta = torch.as_tensor(test["obs"]), test["masks"], torch.as_tensor(test["actions"])
    uniform = (ty.sum(1, keepdim=True) / tu.sum(1, keepdim=True).clamp(min=1)).expand_as(ty)
    uniform_loss = float(log_losses(uniform, tu, ty)[tu.sum(1) > 0].mean())
    results: dict[str, Any] = {"uniform_log_loss": uniform_loss, "runs": {}}
    for coef in (args.belief_coef, 0.0):
        torch.manual_seed(args.seed)
        policy = PrivilegedCriticPolicy(spaces.Box(0.0, 1.0, (AUGMENTED_SIZE + STATE_SIZE,), np.float32),
                                        spaces.Discrete(107), lambda _: 1e-3, net_arch=[256, 256],
                                        obs_features=AUGMENTED_SIZE)
        extractor = policy.mlp_extractor
        head = torch.nn.Linear(extractor.mlp.latent_dim_pi, PLANE)

        def belief(x: torch.Tensor, extractor: Any = extractor, head: torch.nn.Linear = head) -> torch.Tensor:
            return torch.sigmoid(head(extractor.mlp.forward_actor(x[:, :AUGMENTED_SIZE])))

        params = [*policy.mlp_extractor.mlp.policy_net.parameters(), *policy.action_net.parameters(),
                  *head.parameters()]
        optimizer = torch.optim.Adam(params, lr=1e-3)
        x, m, a = torch.as_tensor(fit["obs"]), fit["masks"], torch.as_tensor(fit["actions"])
        gen = torch.Generator().manual_seed(args.seed)
        epochs = []
        for epoch in range(args.epochs):
            order = torch.randperm(len(x), generator=gen)
            for k in range(0, len(x), 512):
                idx = order[k : k + 512]
                pi_loss = -policy.get_distribution(x[idx], action_masks=m[idx.numpy()]).log_prob(a[idx]).mean()
                loss = pi_loss
                if coef > 0:
                    loss = loss + coef * log_losses(belief(x[idx]), fu[idx], fy[idx]).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            with torch.no_grad():
                prob = torch.cat([belief(tx[k : k + 4096]) for k in range(0, len(tx), 4096)])
                held = float(log_losses(prob, tu, ty)[tu.sum(1) > 0].mean()) if coef > 0 else None
                agree = float(np.mean([
                    (policy.get_distribution(tx[k : k + 4096], action_masks=tm[k : k + 4096])
                     .distribution.probs.argmax(1) == ta[k : k + 4096]).float().mean().item()
                    for k in range(0, len(tx), 4096)]))
            epochs.append({"epoch": epoch + 1, "held_out_log_loss": held, "held_out_agreement": agree})
            scored = f"held-out log-loss {held:.4f} (uniform {uniform_loss:.4f})" if held is not None else "no head"
            print(f"belief coef {coef}: epoch {epoch + 1}: {scored}, agreement with the heuristic {agree:.1%}",
                  flush=True)
        results["runs"][str(coef)] = epochs
    results.update(command="python -m experiments.belief_head " + " ".join(sys.argv[1:] if argv is None
                                                                                    else argv),
                   train_decisions=args.train, held_out_decisions=args.held_out, wall_s=time.monotonic() - start)
    if args.json:
        save_json(args.json, results)
        print(f"written to {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
