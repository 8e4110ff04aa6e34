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
CPU bf16 only where it has bf16 matmul instructions (AVX-512 BF16 or AMX, :func:`cpu_has_bf16`):
those gain several times over float32, processors without them emulate bf16 and lose. The
choice depends on the machine only, never on a timing, so a run and its resumption choose
alike. ``gin3 bench --only train`` measures both rates and what they give PPO.

The wrapping is installed on the module instance (its ``forward``, ``forward_actor`` and
``forward_critic``), not on its class: the network's code, its ``state_dict`` and the saved
policy class are untouched, and :func:`set_precision` with ``fp32`` removes it again.
"""

from __future__ import annotations

import functools
import types
from typing import Any

import torch
from torch import nn

PRECISIONS = ("auto", "fp32", "bf16")
_WRAPPED = ("forward", "forward_actor", "forward_critic")


def cpu_has_bf16() -> bool:
    """Whether this CPU has bf16 matmul instructions (AVX-512 BF16 or AMX tiles), as torch reports."""
    cpu = getattr(torch, "cpu", None)
    for name in ("_is_avx512_bf16_supported", "_is_amx_tile_supported"):
        check = getattr(cpu, name, None)  # torch's own probes (private names: absent means no)
        if callable(check) and check():
            return True
    return False


def resolve_precision(precision: str, device: torch.device | str) -> str:
    """``fp32`` or ``bf16`` for a configured precision on ``device`` (``auto``: bf16 on CUDA, and on a
    CPU with bf16 matmul instructions)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    if precision == "auto":
        kind = torch.device(device).type
        if kind == "cuda":
            return "bf16"
        return "bf16" if kind == "cpu" and cpu_has_bf16() else "fp32"
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
