"""Mixed precision for the learner: bf16 autocast around the network's body.

With ``precision: bf16`` the policy's shared body (its MLP extractor: nearly all of the
network's FLOPs) runs under ``torch.autocast(dtype=torch.bfloat16)`` on the device it lives
on, and what it returns is cast back to float32. Everything after the body stays float32:
the action and value heads, the masked action distribution (so the probability ratio of
PPO is not rounded to bf16's 8 bits), the losses, the gradients' accumulation in the
weights and the optimizer's state. The weights themselves stay float32, so a saved model is
the same file as with ``fp32`` and plays in float32 wherever it is loaded.

It covers every forward the run makes with the model: the imitation warm start, the rollout
inference, the PPO update and the in-training evaluations. ``auto`` is bf16 on CUDA, and on a
CPU bf16 only where this CPU multiplies bf16 matrices at least :data:`BF16_MIN_GAIN` times as
fast as float32 ones (measured once per process in a few milliseconds, :func:`cpu_bf16_gain`):
processors with bf16 instructions gain several times, those without emulate bf16 and lose.
``gin3 bench --only train`` measures both rates and what they give PPO.

The wrapping is installed on the module instance (its ``forward``, ``forward_actor`` and
``forward_critic``), not on its class: the network's code, its ``state_dict`` and the saved
policy class are untouched, and :func:`set_precision` with ``fp32`` removes it again.
"""

from __future__ import annotations

import functools
import time
import types
from typing import Any

import torch
from torch import nn

PRECISIONS = ("auto", "fp32", "bf16")
BF16_MIN_GAIN = 1.5  # auto on a CPU: bf16 where its matmuls run at least this many times as fast as fp32
_WRAPPED = ("forward", "forward_actor", "forward_critic")


@functools.cache
def cpu_bf16_gain(size: int = 512, rounds: int = 3, repeats: int = 4) -> float:
    """How many times as fast this CPU multiplies ``size x size`` bf16 matrices as float32 ones
    (CPU time, best of ``rounds``, with torch's current threads); measured once per process."""
    gen = torch.Generator().manual_seed(0)
    a = torch.randn(size, size, generator=gen)
    rates = {}
    for dtype in (torch.float32, torch.bfloat16):
        x = a.to(dtype)
        torch.mm(x, x)  # warm
        best = float("inf")
        for _ in range(rounds):
            start = time.process_time()
            for _ in range(repeats):
                torch.mm(x, x)
            best = min(best, time.process_time() - start)
        rates[dtype] = repeats / max(best, 1e-9)
    return rates[torch.bfloat16] / rates[torch.float32]


def resolve_precision(precision: str, device: torch.device | str) -> str:
    """``fp32`` or ``bf16`` for a configured precision on ``device`` (``auto``: bf16 on CUDA, and on a
    CPU whose bf16 matmuls run at least :data:`BF16_MIN_GAIN` times as fast)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    if precision == "auto":
        kind = torch.device(device).type
        if kind == "cuda":
            return "bf16"
        return "bf16" if kind == "cpu" and cpu_bf16_gain() >= BF16_MIN_GAIN else "fp32"
    return precision


def _to_float32(out: Any) -> Any:
    if isinstance(out, torch.Tensor):
        return out.float() if out.is_floating_point() else out
    if isinstance(out, tuple | list):
        return type(out)(_to_float32(o) for o in out)
    return out


def _bf16_call(module: nn.Module, *args: Any, method: str, **kwargs: Any) -> Any:
    original = getattr(type(module), method)
    first = args[0] if args and isinstance(args[0], torch.Tensor) else None
    device_type = first.device.type if first is not None else "cpu"
    with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
        out = original(module, *args, **kwargs)
    return _to_float32(out)


def body_of(policy: nn.Module) -> nn.Module:
    """The part of an SB3 actor-critic policy that autocast covers: its MLP extractor."""
    body = getattr(policy, "mlp_extractor", None)
    if not isinstance(body, nn.Module):
        raise TypeError(f"{type(policy).__name__} has no mlp_extractor module to run in bf16")
    return body


def set_precision(policy: nn.Module, precision: str) -> None:
    """Run ``policy``'s body in ``precision`` (``fp32`` or ``bf16``, already resolved) from now on."""
    if precision not in ("fp32", "bf16"):
        raise ValueError(f"precision must be fp32 or bf16 here (resolve auto first), got {precision!r}")
    body = body_of(policy)
    for method in _WRAPPED:
        body.__dict__.pop(method, None)
        if precision == "bf16" and hasattr(type(body), method):
            call = functools.partial(_bf16_call, method=method)
            object.__setattr__(body, method, types.MethodType(call, body))


def precision_of(policy: nn.Module) -> str:
    """``bf16`` where :func:`set_precision` installed the autocast on ``policy``, else ``fp32``."""
    return "bf16" if "forward" in body_of(policy).__dict__ else "fp32"
