"""The critic that sees the deal: the learner env appends the true state to the observation, the
actor reads the observation alone (no action logit moves with the state), the state critic reads
the state, and the exported player is a plain card-aware model on the observation that acts
exactly as the trained actor did."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from experiments import privileged  # noqa: E402
from experiments.privileged_critic import PrivilegedCriticPolicy, card_aware_state_dict  # noqa: E402
from experiments.privileged_env import PrivilegedStateVecEnv  # noqa: E402
from gin3_env.observation.features import AUGMENTED_SIZE  # noqa: E402
from gin3_env.observation.state import STATE_SIZE  # noqa: E402
from gin3_env.policies.sb3_network import CardAwarePolicy  # noqa: E402
from gin3_env.vector.sb3_env import GinSB3VecEnv  # noqa: E402
from gin3_training.ppo.config import load_config  # noqa: E402
from gin3_training.ppo.datasets import heuristic_dataset_batched  # noqa: E402

WIDTH = AUGMENTED_SIZE + STATE_SIZE


def small_config(**extra: object) -> object:
    overrides = {"total_timesteps": 64, "bc_samples": 400, "bc_epochs": 1, "batched_envs": 8, "n_steps": 32,
                 "batch_size": 64, "n_epochs": 1, "net_arch": [32, 32], "seed": 3, **extra}
    return load_config("ppo_quick", overrides)


def policy(critic: str = "state") -> PrivilegedCriticPolicy:
    from gymnasium import spaces

    torch.manual_seed(0)
    net = PrivilegedCriticPolicy(spaces.Box(0.0, 1.0, (WIDTH,), np.float32), spaces.Discrete(107),
                                 lambda _: 1e-3, net_arch=[32, 32], obs_features=AUGMENTED_SIZE, critic=critic)
    for p in net.parameters():  # far from the near-uniform start, so every input matters
        torch.nn.init.normal_(p, std=0.3)
    return net


def rows(n: int = 40, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    env = PrivilegedStateVecEnv(GinSB3VecEnv(n, features="augmented", seed=seed))
    obs = env.reset()
    return obs, np.asarray(env.env_method("action_masks"))


def test_the_opponent_view_is_the_opponents_own_observation_then_the_state() -> None:
    from gin3_env.observation.features import AUGMENTED

    env = PrivilegedStateVecEnv(GinSB3VecEnv(12, features="augmented", seed=8), "opponent_view")
    assert env.privileged_size == AUGMENTED_SIZE + STATE_SIZE
    obs = env.reset()
    core = env.core
    for _ in range(3):
        view = obs[:, AUGMENTED_SIZE : 2 * AUGMENTED_SIZE]
        for i in range(12):
            opponent = 1 - core.learner_player[i]
            want = AUGMENTED.encode(core.hands.observe_rows(np.array([i]), np.array([opponent]))[0])
            np.testing.assert_array_equal(view[i], want)
            np.testing.assert_array_equal(view[i, :52], obs[i, 2 * AUGMENTED_SIZE + opponent * 52 :][:52])
        np.testing.assert_array_equal(obs[:, 2 * AUGMENTED_SIZE :], core.hands.state())
        masks = env.env_method("action_masks")
        env.step_async(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
        obs = env.step_wait()[0]
    with pytest.raises(ValueError, match="extra must be"):
        PrivilegedStateVecEnv(GinSB3VecEnv(2), "oracle")


def test_the_env_appends_the_hands_state_to_the_unchanged_observation() -> None:
    plain = GinSB3VecEnv(16, features="augmented", seed=5)
    wrapped = PrivilegedStateVecEnv(GinSB3VecEnv(16, features="augmented", seed=5))
    assert wrapped.observation_space.shape == (WIDTH,) and wrapped.obs_features == AUGMENTED_SIZE
    a, b = plain.reset(), wrapped.reset()
    np.testing.assert_array_equal(b[:, :AUGMENTED_SIZE], a)
    np.testing.assert_array_equal(b[:, AUGMENTED_SIZE:], wrapped.core.hands.state())
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        masks = plain.action_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        plain.step_async(acts)
        wrapped.step_async(acts)
        a, _, done_a, info_a = plain.step_wait()
        b, _, done_b, info_b = wrapped.step_wait()
        np.testing.assert_array_equal(done_a, done_b)
        np.testing.assert_array_equal(b[:, :AUGMENTED_SIZE], a)
        state = wrapped.core.hands.state()
        np.testing.assert_array_equal(b[:, AUGMENTED_SIZE:], state)
        # the learner's own cards are in the state, in its seat's hand plane
        for i in range(16):
            seat = wrapped.core.learner_player[i]
            own = state[i, seat * 52 : (seat + 1) * 52]
            np.testing.assert_array_equal(own, a[i, :52])
        for i in np.flatnonzero(done_b):
            ended += 1
            final = info_b[i]["terminal_observation"]
            assert final.shape == (WIDTH,)
            np.testing.assert_array_equal(final[:AUGMENTED_SIZE], info_a[i]["terminal_observation"])
            assert not final[AUGMENTED_SIZE:].any()
    assert ended > 0
    with pytest.raises(TypeError, match="GinSB3VecEnv"):
        PrivilegedStateVecEnv(wrapped)  # type: ignore[arg-type]


@pytest.mark.parametrize("critic", ["state", "observation"])
def test_no_action_logit_moves_with_the_state_and_only_the_state_critic_does(critic: str) -> None:
    net = policy(critic)
    obs, masks = rows()
    other = obs.copy()
    other[:, AUGMENTED_SIZE:] = np.random.default_rng(1).random((len(obs), STATE_SIZE), dtype=np.float32)
    x, y = torch.as_tensor(obs), torch.as_tensor(other)
    with torch.no_grad():
        for t in (x, y):
            assert net.get_distribution(t, action_masks=masks).distribution.logits.shape == (len(obs), 107)
        px = net.get_distribution(x, action_masks=masks).distribution.logits
        py = net.get_distribution(y, action_masks=masks).distribution.logits
        torch.testing.assert_close(px, py, rtol=0, atol=0)
        vx, vy = net.predict_values(x), net.predict_values(y)
        bx, by = net.both_values(x), net.both_values(y)
    torch.testing.assert_close(bx[:, 0], by[:, 0], rtol=0, atol=0)  # the observation critic ignores the state
    assert (bx[:, 1] - by[:, 1]).abs().max() > 1e-3  # the state critic reads it
    torch.testing.assert_close(vx[:, 0], bx[:, 0 if critic == "observation" else 1])
    if critic == "state":
        assert (vx - vy).abs().max() > 1e-3
    else:
        torch.testing.assert_close(vx, vy, rtol=0, atol=0)
    # and no gradient reaches the state columns through the actor
    x.requires_grad_(True)
    net.get_distribution(x, action_masks=masks).distribution.logits.masked_fill(
        torch.as_tensor(~masks), 0.0).sum().backward()
    assert x.grad is not None and not x.grad[:, AUGMENTED_SIZE:].any() and x.grad[:, :AUGMENTED_SIZE].any()


def test_the_policy_refuses_rows_without_the_state() -> None:
    from gymnasium import spaces

    with pytest.raises(ValueError, match="582-entry state after them"):
        PrivilegedCriticPolicy(spaces.Box(0.0, 1.0, (AUGMENTED_SIZE,), np.float32), spaces.Discrete(107),
                               lambda _: 1e-3, net_arch=[8], obs_features=AUGMENTED_SIZE)
    with pytest.raises(ValueError, match="critic must be"):
        PrivilegedCriticPolicy(spaces.Box(0.0, 1.0, (WIDTH,), np.float32), spaces.Discrete(107),
                               lambda _: 1e-3, net_arch=[8], obs_features=AUGMENTED_SIZE, critic="oracle")


def test_the_exported_weights_hold_nothing_of_the_state_critic() -> None:
    weights = card_aware_state_dict(policy())
    assert not any("state" in key for key in weights)
    from gymnasium import spaces

    plain = CardAwarePolicy(spaces.Box(0.0, 1.0, (AUGMENTED_SIZE,), np.float32), spaces.Discrete(107),
                            lambda _: 1e-3, net_arch=[32, 32])
    assert set(weights) == set(plain.state_dict())
    for key, value in plain.state_dict().items():
        assert weights[key].shape == value.shape, key


def test_the_dataset_is_the_heuristics_decisions_with_their_states() -> None:
    view = privileged.heuristic_dataset_with_state(300, 4, 0.02, "augmented", num_envs=16, extra="opponent_view")
    with_state = privileged.heuristic_dataset_with_state(300, 4, 0.02, "augmented", num_envs=16)
    np.testing.assert_array_equal(view["obs"][:, 2 * AUGMENTED_SIZE :], with_state["obs"][:, AUGMENTED_SIZE:])
    plain = heuristic_dataset_batched(300, 4, 0.02, True, num_envs=16)
    np.testing.assert_array_equal(with_state["obs"][:, :AUGMENTED_SIZE], plain["obs"])
    for key in ("masks", "actions", "returns"):
        np.testing.assert_array_equal(with_state[key], plain[key])
    state = with_state["obs"][:, AUGMENTED_SIZE:]
    # the decider's cards are one of the two hands of the state
    own = plain["obs"][:, :52]
    in_team = (state[:, :52] == own).all(axis=1)
    in_box = (state[:, 52:104] == own).all(axis=1)
    assert (in_team | in_box).all() and in_team.any() and in_box.any()


def test_the_exported_player_acts_as_the_trained_actor_without_the_critic(tmp_path: Path) -> None:
    from gin3_env.policies.loading import load_policy
    from gin3_env.policies.model_file import load_sb3_model

    cfg = small_config()
    trained = privileged.build_model(cfg, "state", privileged.make_env(cfg))  # type: ignore[arg-type]
    for p in trained.policy.parameters():  # far from the near-uniform start
        torch.nn.init.normal_(p, std=0.3)
    privileged.export_player(trained, cfg, tmp_path / "player.zip")  # type: ignore[arg-type]
    exported = load_sb3_model(tmp_path / "player.zip")  # the safe loader: the file is read as data
    assert type(exported.policy) is CardAwarePolicy
    assert exported.observation_space.shape == (AUGMENTED_SIZE,)  # nothing privileged goes in
    obs, masks = rows(30, seed=9)
    with torch.no_grad():
        want = exported.policy.get_distribution(torch.as_tensor(obs[:, :AUGMENTED_SIZE]),
                                                action_masks=masks).distribution.logits
        noise = np.random.default_rng(2).random((len(obs), STATE_SIZE), dtype=np.float32)
        for full in (obs, np.concatenate([obs[:, :AUGMENTED_SIZE], noise], axis=1)):
            got = trained.policy.get_distribution(torch.as_tensor(full), action_masks=masks).distribution.logits
            torch.testing.assert_close(got, want, rtol=0, atol=0)
        values = trained.policy.both_values(torch.as_tensor(obs))[:, 0]
        torch.testing.assert_close(exported.policy.predict_values(torch.as_tensor(obs[:, :AUGMENTED_SIZE]))[:, 0],
                                   values)  # the ordinary critic goes along as its value head
    player = load_policy(str(tmp_path / "player.zip"))
    actions = exported.predict(obs[:, :AUGMENTED_SIZE], action_masks=masks, deterministic=True)[0]
    np.testing.assert_array_equal(actions, want.argmax(dim=1).numpy())
    assert player.model.observation_space.shape == (AUGMENTED_SIZE,)


def test_a_run_writes_the_player_and_its_training_record(tmp_path: Path) -> None:
    out = tmp_path / "run"
    record = privileged.run(small_config(), "state", out, "opponent_view")  # type: ignore[arg-type]
    assert record["critic"] == "state" and record["privileged"] == "opponent_view"
    assert record["total_timesteps"] == 64
    assert record["updates"] and "explained_variance" in record["updates"][0]
    assert sorted(p.name for p in out.iterdir()) == ["model.json", "model.zip", "training.json"]


def test_the_entry_point_refuses_to_replace_a_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "model.zip").write_bytes(b"earlier")
    with pytest.raises(SystemExit) as exc:
        privileged.main(["--out", str(tmp_path), "--total-timesteps", "64"])
    assert exc.value.code == 2
    assert "exists" in capsys.readouterr().err
    assert (tmp_path / "model.zip").read_bytes() == b"earlier"
    with pytest.raises(SystemExit):
        privileged.main(["--out", str(tmp_path / "x"), "--critic", "oracle"])
    assert not (tmp_path / "x").exists()
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert privileged.main(["--out", str(blocked / "run"), "--total-timesteps", "64", "--bc-samples", "0"]) == 1
    assert "cannot write the run" in capsys.readouterr().err
