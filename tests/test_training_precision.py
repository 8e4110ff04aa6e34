"""bf16 autocast of the network body: float32 out, float32 weights, the same saved file, removable."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch

from gin3_training.ppo.precision import precision_of, resolve_precision, set_precision


def _model(seed: int = 0):
    from sb3_contrib import MaskablePPO

    from gin3_env.policies.sb3_network import CardAwarePolicy
    from gin3_env.vector.sb3_env import GinSB3VecEnv

    env = GinSB3VecEnv(4, features="augmented", seed=seed)
    return MaskablePPO(CardAwarePolicy, env, n_steps=32, batch_size=64, n_epochs=1, seed=seed, device="cpu",
                       policy_kwargs={"net_arch": [64, 64]})


def _batch(policy, n: int = 96):
    gen = torch.Generator().manual_seed(3)
    obs = torch.rand(n, *policy.observation_space.shape, generator=gen)
    masks = torch.rand(n, 107, generator=gen) < 0.3
    masks[:, 0] = True
    actions = torch.stack([torch.multinomial(m.float(), 1, generator=gen)[0] for m in masks])
    return obs, masks, actions


def test_resolve_precision(monkeypatch: pytest.MonkeyPatch) -> None:
    from gin3_training.ppo import precision

    assert precision.cpu_has_bf16() in (True, False)
    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: True)  # a CPU with bf16 instructions
    assert resolve_precision("auto", "cpu") == "bf16"
    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: False)  # one that would emulate bf16
    assert resolve_precision("auto", "cpu") == "fp32"
    assert resolve_precision("auto", torch.device("cuda")) == "bf16"
    assert resolve_precision("bf16", "cpu") == "bf16"
    assert resolve_precision("fp32", "cuda") == "fp32"
    with pytest.raises(ValueError, match="precision must be one of"):
        resolve_precision("fp16", "cpu")
    with pytest.raises(ValueError, match="resolve auto first"):
        set_precision(_model().policy, "auto")


def test_bf16_body_keeps_heads_and_outputs_float32_and_close_to_fp32() -> None:
    model = _model()
    policy = model.policy
    obs, masks, actions = _batch(policy)
    with torch.no_grad():
        v32, lp32, _ = policy.evaluate_actions(obs, actions, action_masks=masks)
    keys = list(policy.state_dict())
    set_precision(policy, "bf16")
    assert precision_of(policy) == "bf16"
    with torch.no_grad():
        latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs))
        v16, lp16, _ = policy.evaluate_actions(obs, actions, action_masks=masks)
    assert latent_pi.dtype == latent_vf.dtype == torch.float32
    assert v16.dtype == lp16.dtype == torch.float32
    assert not torch.equal(lp16, lp32), "the body did not run in bf16"
    assert torch.allclose(lp16, lp32, atol=0.05) and torch.allclose(v16, v32, atol=0.05)
    assert list(policy.state_dict()) == keys
    assert all(p.dtype == torch.float32 for p in policy.parameters())
    # the masked actions keep probability 0
    with torch.no_grad():
        probs = policy.get_distribution(obs, action_masks=masks).distribution.probs
    assert float(probs[~masks].abs().max()) == 0.0
    # back to fp32: exactly the float32 outputs again
    set_precision(policy, "fp32")
    assert precision_of(policy) == "fp32"
    with torch.no_grad():
        again, _, _ = policy.evaluate_actions(obs, actions, action_masks=masks)
    assert torch.equal(again, v32)


def test_bf16_gradients_reach_every_weight_and_stay_float32() -> None:
    policy = _model().policy
    set_precision(policy, "bf16")
    obs, masks, actions = _batch(policy)
    values, log_prob, entropy = policy.evaluate_actions(obs, actions, action_masks=masks)
    (values.pow(2).mean() - log_prob.mean() - 0.01 * entropy.mean()).backward()
    for name, p in policy.named_parameters():
        assert p.grad is not None and p.grad.dtype == torch.float32, name
        assert torch.isfinite(p.grad).all() and p.grad.abs().sum() > 0, name


def test_a_model_trained_in_bf16_saves_the_same_file_kind_and_plays_in_fp32(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    model = _model(seed=1)
    set_precision(model.policy, "bf16")
    model.learn(total_timesteps=128)
    path = tmp_path / "m.zip"
    model.save(path)
    loaded = MaskablePPO.load(path, device="cpu")
    assert precision_of(loaded.policy) == "fp32"
    for name, tensor in model.policy.state_dict().items():
        assert torch.equal(tensor, loaded.policy.state_dict()[name]), name
    obs, masks, _ = _batch(model.policy, 32)
    set_precision(model.policy, "fp32")
    a, _ = model.predict(obs.numpy(), action_masks=masks.numpy(), deterministic=True)
    b, _ = loaded.predict(obs.numpy(), action_masks=masks.numpy(), deterministic=True)
    assert np.array_equal(a, b)
