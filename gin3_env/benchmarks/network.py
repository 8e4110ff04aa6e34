"""The card-aware network's forward+backward time: the fused card term against its plain form.

    python -m gin3_env.benchmarks.network [--batch 2048] [--seconds 2]

Measures, with one torch thread, a PPO-like update step (``evaluate_actions`` of
:class:`~gin3_env.policies.sb3_network.CardAwarePolicy` on the ``[256, 256]``
network of the shipped configs, then the backward pass) and the card term alone,
once with :meth:`~gin3_env.policies.network.CardNet.action_logits` (fused: one
wide matmul per layer over every card of every row) and once with
:meth:`~gin3_env.policies.network.CardNet.reference_action_logits` (the same
function in its plain form: the ``nn.Sequential`` on ``(B, 52, PER_CARD)``), on
augmented observations of random play. Prints the CPU milliseconds of each and
the ratio; :func:`measure` returns them.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

NET_ARCH = (256, 256)


def observations(batch: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Augmented observations and masks of ``batch`` decisions of random play."""
    from ..engine.hand import HandState
    from ..observation import action_mask, encode
    from ..observation.features import AUGMENTED

    rng = np.random.default_rng(seed)
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    while len(obs) < batch:
        state = HandState.deal(rng=rng)
        while not state.is_over and len(obs) < batch:
            view = state.view(state.player)
            obs.append(encode(view))
            masks.append(action_mask(view))
            legal = np.flatnonzero(masks[-1])
            state.apply(int(rng.choice(legal)))
    return AUGMENTED.encode_batch(np.stack(obs)), np.stack(masks).astype(bool)


def _time(step: Callable[[], None], seconds: float) -> float:
    """CPU milliseconds of this process per call of ``step`` (best of three rounds of ``seconds`` / 3 of
    CPU time; CPU time, so that other processes on a shared machine count less)."""
    step()
    best = float("inf")
    for _ in range(3):
        start, calls = time.process_time(), 0
        while calls == 0 or time.process_time() - start < seconds / 3:
            step()
            calls += 1
        best = min(best, (time.process_time() - start) / calls)
    return best * 1e3


def measure(batch: int = 2048, seconds: float = 2.0) -> dict[str, Any]:
    """Forward+backward milliseconds of the update step and of the card term, fused and plain."""
    import gymnasium as gym
    import torch

    from ..engine.actions import NUM_ACTIONS
    from ..observation.features import AUGMENTED
    from ..policies.network import CardNet
    from ..policies.sb3_network import CardAwarePolicy

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        torch.manual_seed(0)
        obs_np, masks_np = observations(batch)
        obs, masks = torch.from_numpy(obs_np), torch.from_numpy(masks_np)
        space = gym.spaces.Box(0.0, 1.0, (AUGMENTED.size,), np.float32)
        policy = CardAwarePolicy(space, gym.spaces.Discrete(NUM_ACTIONS), lambda _: 1e-4, net_arch=list(NET_ARCH))
        card_net = policy.action_net.card_net
        assert isinstance(card_net, CardNet)
        actions = torch.as_tensor([int(np.flatnonzero(m)[0]) for m in masks_np])
        cards = obs[:, policy.mlp_extractor.get_buffer("index")]
        weights = torch.randn(batch, NUM_ACTIONS)

        def update() -> None:
            values, log_prob, entropy = policy.evaluate_actions(obs, actions, action_masks=masks)
            loss = -log_prob.mean() + values.square().mean() - 0.01 * entropy.mean()  # type: ignore[union-attr]
            policy.zero_grad()
            loss.backward()

        def term(fn: Callable[[torch.Tensor], torch.Tensor]) -> Callable[[], None]:
            def step() -> None:
                card_net.zero_grad()
                (fn(cards) * weights).sum().backward()

            return step

        out: dict[str, Any] = {"batch": batch, "torch_threads": 1, "net_arch": list(NET_ARCH)}
        out["card_term_fused_ms"] = _time(term(card_net.action_logits), seconds)
        out["card_term_plain_ms"] = _time(term(card_net.reference_action_logits), seconds)
        out["update_fused_ms"] = _time(update, seconds)
        fused = card_net.action_logits
        card_net.action_logits = card_net.reference_action_logits  # type: ignore[method-assign]
        try:
            out["update_plain_ms"] = _time(update, seconds)
        finally:
            card_net.action_logits = fused  # type: ignore[method-assign]
    finally:
        torch.set_num_threads(before)
    out["card_term_speedup"] = out["card_term_plain_ms"] / out["card_term_fused_ms"]
    out["update_speedup"] = out["update_plain_ms"] / out["update_fused_ms"]
    return out


def format_report(result: dict[str, Any]) -> str:
    return "\n".join([
        f"card-aware network, forward+backward, batch {result['batch']:,}, {result['torch_threads']} torch thread",
        f"  card term     fused {result['card_term_fused_ms']:7.2f} ms   plain "
        f"{result['card_term_plain_ms']:7.2f} ms   {result['card_term_speedup']:.2f}x",
        f"  update step   fused {result['update_fused_ms']:7.2f} ms   plain "
        f"{result['update_plain_ms']:7.2f} ms   {result['update_speedup']:.2f}x",
    ])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gin3_env.benchmarks.network", description=__doc__)
    parser.add_argument("--batch", type=int, default=2048, help="rows per forward (default 2048)")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement (default 2)")
    args = parser.parse_args(list(argv) if argv is not None else None)
    print(format_report(measure(args.batch, args.seconds)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
