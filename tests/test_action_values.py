"""Every legal action valued on the true deal (kernels/action_values.py), the label shards that improve
``net`` (training/improve/labels.py) and the advantage head read by the net loader."""

from __future__ import annotations

import numpy as np
import pytest

from gin3_env.engine.actions import DISCARD_BASE, KNOCK_BASE, NUM_ACTIONS
from gin3_env.engine.hand import HandState
from gin3_env.engine.phases import Phase
from gin3_env.engine.rules import Rules
from gin3_env.kernels import hand_kernels as hk
from gin3_env.kernels.hands import rules_vector
from gin3_env.kernels.rollout import load_states
from gin3_training.improve.label_kernels import STOCK, reshuffles, value_rows_serial
from gin3_training.improve.labels import ActionLabels, continuation_args, run_round

GIN_HAND = (0, 1, 2, 3, 4, 17, 30, 8, 21, 34, 51)  # clubs A-4, three 5s, three 9s, and the king of spades


def _gin_state() -> tuple[np.ndarray, ...]:
    """The team to discard with 11 cards: discarding the king of spades (51) with a knock is gin."""
    rest = [c for c in range(52) if c not in GIN_HAND]
    box, discards, stock = rest[:10], rest[10:13], rest[13:]
    st = HandState(rules=Rules(), deck=tuple(range(52)), hands=[sum(1 << c for c in GIN_HAND),
                   sum(1 << c for c in box)], stock=stock, discards=discards, phase=Phase.DISCARD, turns=4)
    S, M, deck, pile = load_states([st])
    mask = np.zeros((1, NUM_ACTIONS), np.int8)
    hk.legal_row(0, S, M, mask, rules_vector(Rules()), np.zeros(52, np.int64), np.zeros(52, np.int64))
    return S, M, deck, pile, mask


def _values(S: np.ndarray, M: np.ndarray, deck: np.ndarray, pile: np.ndarray, mask: np.ndarray,
            K: int = 4, seed: int = 3, cont: str = "heuristic") -> tuple[np.ndarray, np.ndarray]:
    values = np.zeros(mask.shape)
    se = np.zeros(mask.shape)
    value_rows_serial(S, M, deck, pile, mask, rules_vector(Rules()), np.full(len(S), seed, np.int64), K,
                      *continuation_args(cont), values, se, STOCK)
    return values, se


def test_gin_knock_is_the_best_action_and_is_played_once() -> None:
    S, M, deck, pile, mask = _gin_state()
    assert mask[0, KNOCK_BASE + 51] and mask[0, DISCARD_BASE + 51]
    values, se = _values(S, M, deck, pile, mask)
    legal = np.flatnonzero(mask[0])
    assert np.isfinite(values[0, legal]).all() and np.isnan(np.delete(values[0], legal)).all()
    assert values[0, KNOCK_BASE + 51] > 0 and se[0, KNOCK_BASE + 51] == 0.0  # a knock ends the hand: played once
    assert values[0, KNOCK_BASE + 51] == values[0, legal].max()
    # throwing a card out of a meld is worse than the gin knock under every reshuffle
    assert values[0, DISCARD_BASE + 0] < values[0, KNOCK_BASE + 51]


def test_every_action_gets_the_same_reshuffles() -> None:
    """Common random numbers: an action's value does not depend on which other actions are valued,
    nor on the other rows; the reshuffles move only the stock."""
    S, M, deck, pile, mask = _gin_state()
    full, _ = _values(S, M, deck, pile, mask, K=3)
    for a in (DISCARD_BASE + 0, DISCARD_BASE + 51, KNOCK_BASE + 51):
        one = np.zeros_like(mask)
        one[0, a] = 1
        alone, _ = _values(S, M, deck, pile, one, K=3)
        assert alone[0, a] == full[0, a]
    two = [np.concatenate([x, x]) for x in (S, M, deck, pile, mask)]
    both, _ = _values(*two, K=3)
    assert (both[0][mask[0] == 1] == full[0][mask[0] == 1]).all() and (both[1] == both[0])[mask[0] == 1].all()
    pos = int(S[0, hk.POS])
    shuffled = reshuffles(deck[0], pos, 3, 11)
    assert (shuffled == reshuffles(deck[0], pos, 3, 11)).all() and (shuffled[:, :pos] == deck[0, :pos]).all()
    assert all(sorted(r[pos:]) == sorted(deck[0, pos:]) for r in shuffled)


@pytest.mark.pipelines
def test_label_shards_resume_and_refuse_other_settings(tmp_path) -> None:
    run = ActionLabels(seed=2, decisions=4, shard_size=2, shuffles=2, rate=0.5, num_envs=8, continuation="heuristic")
    from gin3_training.improve.run import LAYOUT
    from gin3_training.run.run import Run

    said: list[str] = []
    with Run(tmp_path, LAYOUT) as held:
        names = run_round(held, run, progress=said.append)
        paths = [tmp_path / n for n in names]
        assert [p.name for p in paths] == ["shard_00_0000.npz", "shard_00_0001.npz"] and len(said) == 2
        first = dict(np.load(paths[1]))
        paths[1].unlink()
        said.clear()
        run_round(held, run, progress=said.append)
        assert "1 of 2 shards found" in said[0] and len(said) == 2
        again = dict(np.load(paths[1]))
        assert all(np.array_equal(first[k], again[k], equal_nan=first[k].dtype.kind == "f") for k in first)
        legal = np.isfinite(again["values"])
        assert (legal == (again["mask"] == 1)).all() and (again["mask"][np.arange(2), again["played"]] == 1).all()
        with pytest.raises(ValueError, match="shuffles=2"):
            run_round(held, ActionLabels(**{**run.key(), "shuffles": 3}))


def test_net_with_an_advantage_head_round_trips_and_switches(tmp_path) -> None:
    from gin3_env.policies.net import WEIGHTS, ActionNet, NetPolicy, improve, load_net

    shipped = load_net("gin3_env/models/net.npz")  # the improved player: the network and its head
    assert shipped.head is not None and shipped.margin > 0 and shipped.top > 0
    net = shipped.without_head()
    assert net.head is None and net.provenance == shipped.provenance["network"]
    head = ActionNet(**{w: getattr(net, w) for w in ("state_mean", "state_scale", "action_mean", "action_scale",
                                                      "Ws", "Wa", "b1", "W2", "b2", "w3", "b3")})
    both = ActionNet(**{w: getattr(net, w) for w in WEIGHTS}, head=head, margin=1.5, top=3)
    both.save(tmp_path / "improved.npz")
    back = load_net(tmp_path / "improved.npz")
    assert back.head is not None and back.margin == 1.5 and back.top == 3 and np.array_equal(back.head.Ws, head.Ws)
    # the switch: only at a discard decision, only past the margin
    start = np.array([0, 2, 5])
    legal = np.array([0, 1, DISCARD_BASE + 1, DISCARD_BASE + 2, KNOCK_BASE + 2])
    adv = np.array([0.0, 9.0, 0.0, 1.0, 3.0], np.float32)
    chosen = np.array([0, DISCARD_BASE + 1])
    assert improve(chosen, adv, start, legal, 2.0).tolist() == [0, KNOCK_BASE + 2]
    assert improve(chosen, adv, start, legal, 3.0).tolist() == [0, DISCARD_BASE + 1]
    # a head that agrees with the network (its own weights) never clears a margin: the same play
    from gin3_env.kernels.hands import VectorHands

    hands = VectorHands(32, seed=4)
    obs, masks = hands.observe(), hands.action_mask
    for _ in range(12):
        assert (NetPolicy(back).act_batch(obs, masks) == NetPolicy(net).act_batch(obs, masks)).all()
        hands.step(NetPolicy(net).act_batch(obs, masks))
        obs, masks = hands.observe(), hands.action_mask


@pytest.mark.pipelines
def test_improve_pipeline_runs_a_round_and_resumes(tmp_path) -> None:
    from gin3_env.policies.net import load_net
    from gin3_training.improve.run import ImproveConfig, run
    from gin3_training.train import pipeline_of

    cfg = ImproveConfig(out_dir=str(tmp_path), decisions=12, shard_size=6, shuffles=2, rate=0.5,
                        continuation="heuristic", folds=2)
    state = run(cfg)
    (r0,) = state["rounds"]
    assert r0["labelled_decisions"] == 12 and r0["cv"]["table"][0]["margin"] == 0.0 and r0["cv"]["lam"] > 0
    improved = load_net(tmp_path / "improve" / "improved_r0.npz")
    assert improved.head is not None and improved.provenance["labelled_decisions"] == 12
    assert pipeline_of(["--resume", str(tmp_path / "improve")]) == pipeline_of(["--config", "improve"]) == "improve"
    assert pipeline_of(["--config", "quick"]) == "distill"
    again = run(ImproveConfig(**{**state["config"], "rounds": 2, "head": "tuned",
                                 "resume": str(tmp_path / "improve")}))
    assert [r["round"] for r in again["rounds"]] == [0, 1] and again["rounds"][1]["labelled_decisions"] == 24
    assert again["rounds"][1]["state_player"].endswith("improved_r0.npz")
    assert again["rounds"][1]["cv"]["lam"] == 0.0  # the tuned head: a network, not a ridge
    assert load_net(tmp_path / "improve" / "improved_r1.npz").provenance["head"] == "tuned"
    with pytest.raises(ValueError, match="'head' must be one of ridge, tuned"):
        ImproveConfig(head="deep")


def test_candidate_labels_value_only_nets_best_actions() -> None:
    from gin3_env.policies.loading import NET_MODEL
    from gin3_env.policies.net import load_net
    from gin3_training.improve.head import Labelled, cross_validate
    from gin3_training.improve.labels import _batch_player, label_shard

    run = ActionLabels(seed=3, decisions=10, shard_size=10, shuffles=2, rate=0.5, num_envs=8, candidates=2,
                       continuation="heuristic")
    assert "candidates" in run.key() and "candidates" not in ActionLabels().key()  # old shards keep their key
    shard = label_shard(run, 0, _batch_player("net"), _batch_player("heuristic"), continuation_args("heuristic"))
    valued = np.isfinite(shard["values"])
    assert (valued.sum(axis=1) == 2).all() and valued[np.arange(10), shard["played"]].all()
    data = Labelled({k: v for k, v in shard.items() if k != "run"}, load_net(NET_MODEL))
    assert data.covers(2) and not data.covers(3) and not data.covers(0)
    assert {row["top"] for row in cross_validate(data, 2, 0)["table"]} == {2}
