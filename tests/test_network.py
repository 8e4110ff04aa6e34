"""One card-aware network for both trainers, its fused card term equal to its plain form, the
shipped model playing the actions recorded from it, and the feature sets' encoders agreeing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gin3_env.engine.actions import DISCARD_BASE, NUM_ACTIONS  # noqa: E402
from gin3_env.engine.hand import HandState  # noqa: E402
from gin3_env.observation import action_mask, encode  # noqa: E402
from gin3_env.observation.features import (  # noqa: E402
    AUGMENTED,
    AUGMENTED_SIZE,
    PLAIN,
    augment,
    feature_set,
    features_for_size,
)
from gin3_env.observation.layout import MATCH_OBS_SIZE, OBS_SIZE, PLANE  # noqa: E402
from gin3_env.policies import RandomPolicy  # noqa: E402
from gin3_env.policies.network import PER_CARD, CardNet, MaskedActorCritic  # noqa: E402

GOLDEN = Path(__file__).resolve().parent / "golden" / "trained_actions.json"


def test_fused_card_term_equals_its_plain_form_with_its_gradients() -> None:
    torch.manual_seed(0)
    net = CardNet()
    for p in net.parameters():  # not near-uniform, so every term matters
        torch.nn.init.normal_(p, std=0.7)
    for batch in (1, 7, 300):
        cards = torch.rand(batch, PER_CARD * PLANE) * 2 - 0.5
        fused, plain = net.action_logits(cards), net.reference_action_logits(cards)
        assert fused.shape == (batch, NUM_ACTIONS)
        assert torch.all(fused[:, :DISCARD_BASE] == 0)
        torch.testing.assert_close(fused, plain, rtol=1e-5, atol=2e-6)
        weights = torch.randn(batch, NUM_ACTIONS)
        grads = []
        for out in (net.action_logits(cards), net.reference_action_logits(cards)):
            net.zero_grad()
            (out * weights).sum().backward()
            grads.append([p.grad.clone() for p in net.parameters()])  # type: ignore[union-attr]
        for a, b in zip(*grads, strict=True):  # sums over every card of every row: float rounding grows
            torch.testing.assert_close(a, b, rtol=2e-3, atol=1e-3 * float(b.abs().max()))


def test_both_backends_use_the_one_card_network() -> None:
    pytest.importorskip("sb3_contrib")
    from gin3_env.policies.loading import PPO_MODEL, load_policy
    from gin3_env.policies.model_file import load_sb3_model

    trainer = load_sb3_model(PPO_MODEL)  # SB3's policy, as training builds it
    player = load_policy("ppo").model  # the player network alone, as a loaded model plays
    rllib = MaskedActorCritic(AUGMENTED_SIZE, (16,), card_head=True)
    heads = (trainer.policy.action_net.card_net, player.action_net.card_net, rllib.card_net)
    assert all(isinstance(head, CardNet) for head in heads)
    assert set(rllib.card_net.state_dict()) == set(heads[0].state_dict()) == set(heads[1].state_dict())


def _golden() -> list[tuple[np.ndarray, np.ndarray, int, np.ndarray]]:
    out = []
    for record in json.loads(GOLDEN.read_text())["records"]:
        obs = record["observation"]
        vector = np.zeros(obs["size"], np.float32)
        vector[obs["index"]] = obs["value"]
        mask = np.zeros(NUM_ACTIONS, np.int8)
        mask[record["legal"]] = 1
        out.append((vector, mask, int(record["action"]), np.asarray(record["logits"])))
    return out


def test_the_shipped_model_plays_the_recorded_actions() -> None:
    pytest.importorskip("sb3_contrib")
    from gin3_env.policies.loading import load_policy
    from gin3_env.vector.players import ModelBatch

    records = _golden()
    assert len(records) == 300 and len({a for _, _, a, _ in records}) > 10
    policy = load_policy("ppo")
    actions = [policy.act({"observation": v, "action_mask": m}) for v, m, _, _ in records]
    assert actions == [a for _, _, a, _ in records]
    obs = np.stack([v for v, _, _, _ in records])
    masks = np.stack([m for _, m, _, _ in records])
    assert ModelBatch(policy).act(obs, masks).tolist() == actions
    with torch.no_grad():  # the player network alone (no SB3 trainer): the masked distribution's log-probabilities
        log_probs = policy.model.log_probs(torch.from_numpy(AUGMENTED.encode_batch(obs)),
                                           torch.from_numpy(masks.astype(bool))).numpy()
    for row, (_, mask, _, recorded) in enumerate(records):
        np.testing.assert_allclose(log_probs[row][mask.astype(bool)], recorded, atol=1e-4)


def _observations(n: int) -> np.ndarray:
    rng = np.random.default_rng(4)
    rows = []
    while len(rows) < n:
        state = HandState.deal(rng=rng)
        policy = RandomPolicy(seed=len(rows))
        while not state.is_over and len(rows) < n:
            view = state.view(state.player)
            rows.append(encode(view))
            state.apply(policy.act({"observation": rows[-1], "action_mask": action_mask(view)}))
    return np.stack(rows)


def test_feature_sets_encode_one_and_many_alike() -> None:
    obs = _observations(40)
    match = np.concatenate([obs, np.full((len(obs), MATCH_OBS_SIZE - OBS_SIZE), 0.5, np.float32)], axis=1)
    for fs in (AUGMENTED, PLAIN):
        batch = fs.encode_batch(obs)
        assert batch.shape == (len(obs), fs.size) and batch.dtype == np.float32
        np.testing.assert_array_equal(batch, np.stack([fs.encode(row) for row in obs]))
        long = fs.encode_batch(match, MATCH_OBS_SIZE)
        assert long.shape == (len(obs), fs.input_size(MATCH_OBS_SIZE))
        np.testing.assert_array_equal(long[:, : fs.size], batch)
        np.testing.assert_array_equal(long[:, fs.size :], match[:, OBS_SIZE:])
    np.testing.assert_array_equal(AUGMENTED.encode(obs[3]), augment(obs[3]))
    assert AUGMENTED.size == AUGMENTED_SIZE and PLAIN.size == OBS_SIZE and AUGMENTED.card_planes
    assert feature_set("plain") is PLAIN and features_for_size(AUGMENTED_SIZE) is AUGMENTED
    assert PLAIN.encode(obs[0], 10).shape == (10,) and PLAIN.encode_batch(obs, 10).shape == (len(obs), 10)
    with pytest.raises(ValueError, match=f"the augmented features need the {OBS_SIZE} entries"):
        AUGMENTED.encode(obs[0], 10)
    with pytest.raises(ValueError, match="unknown features 'fancy'"):
        feature_set("fancy")


def test_importing_the_policies_does_not_import_torch() -> None:
    code = "import sys, gin3_env.policies; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out
