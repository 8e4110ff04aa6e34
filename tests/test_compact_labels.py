"""Compact label files (training/improve/compact.py): the inputs replayed equal the ones a shard records; the
reader refuses what is not a label file; the fused continuation player and the fast all-action kernel play the
same moves and give the same values as the gated player and the kernel they stand in for."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gin3_env.engine.rules import Rules
from gin3_env.files import InputFileError
from gin3_env.kernels.gates import gated_act_serial
from gin3_env.kernels.hands import VectorHands, rules_vector
from gin3_env.kernels.jit import njit
from gin3_training.improve.compact import compact, label_path, read_labels, run_labels, to_shard, write_labels
from gin3_training.improve.fast_player import fast_gated_act
from gin3_training.improve.label_kernels import OPPONENT, STOCK, value_rows_fast_serial, value_rows_serial
from gin3_training.improve.labels import ActionLabels, _batch_player, continuation_args, label_shard, play_states


def _shard(candidates: int = 3) -> dict[str, np.ndarray]:
    run = ActionLabels(seed=5, decisions=16, shard_size=16, shuffles=2, rate=0.3, num_envs=8, candidates=candidates,
                       continuation="heuristic")
    return label_shard(run, 0, _batch_player("net"), _batch_player("heuristic"), continuation_args("heuristic"),
                       record=True)


@pytest.mark.parametrize("candidates", [3, 0])
def test_compact_labels_replay_the_recorded_inputs(tmp_path: Path, candidates: int) -> None:
    shard = _shard(candidates)
    path = label_path(tmp_path, 0, 0)
    write_labels(path, compact(shard, 0, 0))
    back = to_shard(read_labels(path))
    for k in ("obs", "mask", "played", "player", "deal"):
        assert np.array_equal(back[k], shard[k]), k
    valued = np.isfinite(shard["values"])
    assert (np.isfinite(back["values"]) == valued).all()
    assert np.allclose(back["values"][valued], shard["values"][valued], atol=0.05, rtol=1e-3)  # float16
    assert path.stat().st_size < 200 * len(shard["played"]) + 4000
    other = {**read_labels(path), "deck_check": np.array(1, np.int64)}  # a numpy that deals otherwise
    with pytest.raises(ValueError, match="decks dealt here"):
        to_shard(other)


def test_label_reader_refuses_what_is_not_a_label_file(tmp_path: Path) -> None:
    labels = compact(_shard(), 0, 0)
    with pytest.raises(InputFileError, match="regular file"):
        read_labels(tmp_path)
    write_labels(tmp_path / "a.npz", labels)
    with pytest.raises(InputFileError, match="over"):
        read_labels(tmp_path / "a.npz", max_bytes=100)
    for key, bad in (("cand", np.full_like(labels["cand"], 120)), ("pos", labels["pos"] + 999),
                     ("hand_start", labels["hand_start"][::-1].copy())):
        write_labels(tmp_path / "b.npz", {**labels, key: bad})
        with pytest.raises(InputFileError):
            read_labels(tmp_path / "b.npz")
    np.savez(tmp_path / "c.npz", obj=np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(InputFileError):
        read_labels(tmp_path / "c.npz")


def test_label_round_resumes_and_refuses_other_settings(tmp_path: Path) -> None:
    run = ActionLabels(seed=2, decisions=6, shard_size=3, shuffles=2, rate=0.5, num_envs=8, candidates=2,
                       continuation="heuristic")
    paths = run_labels(tmp_path, run)
    assert [p.name for p in paths] == ["labels_00_0000.npz", "labels_00_0001.npz"]
    first = paths[1].read_bytes()
    paths[1].unlink()
    said: list[str] = []
    run_labels(tmp_path, run, said.append)
    assert "1 of 2 files found" in said[0] and paths[1].read_bytes() == first
    with pytest.raises(ValueError, match="shuffles=2"):
        run_labels(tmp_path, ActionLabels(**{**run.key(), "shuffles": 3}))


@njit(cache=True)
def _fast_rows(obs: np.ndarray, mask: np.ndarray, fp: np.ndarray, ip: np.ndarray, gates: tuple,
               out: np.ndarray) -> None:
    for k in range(obs.shape[0]):
        out[k] = fast_gated_act(obs, mask, k, fp, ip, gates, 10)


def test_fused_player_plays_the_gated_players_moves() -> None:
    fp, ip, gates = continuation_args("gated")
    hands = VectorHands(48, seed=9)
    for _ in range(70):
        obs = np.ascontiguousarray(hands.observe())
        mask = np.ascontiguousarray(hands.action_mask, dtype=np.int8)
        want, got = np.zeros(len(obs), np.int64), np.zeros(len(obs), np.int64)
        gated_act_serial(obs, mask, fp, ip, gates, 10, want)
        _fast_rows(obs, mask, fp, ip, gates, got)
        assert (want == got).all()
        hands.step(want)


def _kernel_values(kernel, st: dict[str, np.ndarray], K: int, continuation: str,
                   hidden: int) -> tuple[np.ndarray, np.ndarray]:
    """``kernel``'s values and standard errors of every legal action of the first three decisions of ``st``."""
    values, se = np.zeros(st["mask"].shape), np.zeros(st["mask"].shape)
    kernel(st["S"], st["M"], st["deck"], st["pile"], st["mask"], rules_vector(Rules()),
           np.array([11, 12, 13], np.int64), K, *continuation_args(continuation), values, se, hidden)
    return values, se


def test_fast_kernel_gives_the_same_values() -> None:
    st = play_states(3, 4, _batch_player("net"), _batch_player("gated"), 0.3, 8)
    out = [_kernel_values(kernel, st, 6, "gated", STOCK) for kernel in (value_rows_serial, value_rows_fast_serial)]
    with pytest.raises(ValueError, match="true deal only"):
        _kernel_values(value_rows_serial, st, 2, "gated", OPPONENT)
    assert np.array_equal(out[0][0], out[1][0], equal_nan=True) and np.array_equal(out[0][1], out[1][1],
                                                                                   equal_nan=True)


def test_fast_knock_min_and_deadwood_are_the_packages() -> None:
    from gin3_env.kernels.meld_kernels import deadwood, knock_min
    from gin3_training.improve.fast_player import fast_deadwood, fast_knock_min

    rng = np.random.default_rng(0)
    masks = [sum(1 << int(c) for c in rng.choice(52, int(rng.integers(2, 12)), replace=False)) for _ in range(3000)]
    for _ in range(1000):  # hands rich in sets: three ranks of three or four suits
        cards = [int(s) * 13 + int(r) for r in rng.choice(13, 3, replace=False)
                 for s in rng.choice(4, int(rng.integers(3, 5)), replace=False)]
        masks.append(sum(1 << c for c in cards[:11]))
    for m in masks:
        assert fast_knock_min(m) == knock_min(m) and fast_deadwood(m) == deadwood(m)


def test_head_report_reads_compact_labels(tmp_path: Path) -> None:
    from gin3_training.improve.head_report import report

    run = ActionLabels(seed=4, decisions=24, shard_size=12, shuffles=2, rate=0.5, num_envs=8, candidates=3,
                       continuation="heuristic")
    run_labels(tmp_path, run)
    r = report(tmp_path, folds=2, audit_n=3, audit_shuffles=2)
    assert r["files"] == 2 and r["decisions"] == 24 and 0.0 <= r["switch_rate"] <= 1.0
    assert r.get("switches_only_past_margin", True) and r.get("audit", {"switches": 0})["switches"] <= 3
    assert {row["top"] for row in r["table"]} <= {2, 3}
    tuned = report([tmp_path, tmp_path], folds=2, lams=(0.0,), tops=(2,), tune=True, epochs=0.5,
                   save=str(tmp_path / "improved.npz"))
    assert tuned["decisions"] == 48 and tuned["lam"] == 0.0 and {row["lam"] for row in tuned["table"]} == {0.0}
    if "saved" in tuned:  # a finite margin: the improved player, a file the net loader plays
        from gin3_env.policies import load_policy

        assert load_policy(str(tmp_path / "improved.npz")) is not None


def test_belief_reshuffles_deal_only_what_the_acting_player_has_not_seen() -> None:
    from gin3_env.kernels import hand_kernels as hk
    from gin3_training.improve.label_kernels import belief_reshuffles

    st = play_states(6, 9, _batch_player("net"), _batch_player("gated"), 0.5, 8)
    for i in range(len(st["S"])):
        p, pos = int(st["S"][i, hk.PLAYER]), int(st["S"][i, hk.POS])
        opp, known = int(st["M"][i, hk.HAND0 + 1 - p]), int(st["M"][i, hk.KNOWN0 + 1 - p])
        unseen = {c for c in range(52) if opp >> c & 1} - {c for c in range(52) if known >> c & 1}
        pool = unseen | {int(c) for c in st["deck"][i, pos:]}
        decks, hands = belief_reshuffles(st["deck"][i], np.int64(opp), np.int64(known), pos, 16, 3)
        again, _ = belief_reshuffles(st["deck"][i], np.int64(opp), np.int64(known), pos, 16, 3)
        assert np.array_equal(decks, again)  # seeded
        moved = 0
        for r in range(16):
            h = {c for c in range(52) if int(hands[r]) >> c & 1}
            assert len(h) == bin(opp).count("1") and known & int(hands[r]) == known
            assert np.array_equal(decks[r, :pos], st["deck"][i, :pos])
            assert (h - {c for c in range(52) if known >> c & 1}) | {int(c) for c in decks[r, pos:]} == pool
            moved += int(hands[r]) != opp
        assert moved > 0 or not unseen


def test_information_state_labels_differ_from_the_true_deals_and_keep_their_own_key() -> None:
    st = play_states(3, 4, _batch_player("net"), _batch_player("heuristic"), 0.3, 8)
    out = [_kernel_values(value_rows_fast_serial, st, 8, "heuristic", hidden)[0] for hidden in (STOCK, OPPONENT)]
    legal = st["mask"] > 0
    assert np.isfinite(out[1][legal]).all() and not np.array_equal(out[0][legal], out[1][legal])
    assert "hidden" not in ActionLabels().key() and ActionLabels(hidden="opponent").key()["hidden"] == "opponent"
    with pytest.raises(ValueError, match="hidden must be one of"):
        ActionLabels(hidden="deal")


def test_teacher_check_reports_both_labels() -> None:
    from gin3_training.improve.teacher import format_report, measure

    r = measure(decisions=6, shuffles=2, audit_shuffles=2, seed=5)
    assert set(r["labels"]) == {"true deal", "information state"}
    for f in r["labels"].values():
        assert 0.0 <= f["switch_share"] <= 1.0 and np.isfinite(f["gain_per_decision"])
    assert "information state" in format_report(r)


def test_label_files_that_name_the_gated_player_trained_still_resume(tmp_path: Path) -> None:
    """Round 3's committed files were written when the gated player was named ``trained``: a run of the same
    settings with ``continuation="gated"`` accepts them (and writes nothing); another continuation is refused."""
    import json
    import shutil

    src = Path("docs/results/improve_labels/round3")
    for i in (0, 1):
        shutil.copy(label_path(src, 3, i), label_path(tmp_path, 3, i))
    key = json.loads(str(read_labels(label_path(tmp_path, 3, 0))["run"]))
    assert key["continuation"] == "trained"
    run = ActionLabels(**{**key, "continuation": "gated"})
    found = run_labels(tmp_path, run, only=range(2))
    assert sorted(found) == [label_path(tmp_path, 3, 0), label_path(tmp_path, 3, 1)]
    with pytest.raises(ValueError, match="continuation='trained', this run has continuation='heuristic'"):
        run_labels(tmp_path, ActionLabels(**{**key, "continuation": "heuristic"}), only=range(2))


def test_the_labels_forward_pass_by_chunks_of_decisions_is_the_whole_one() -> None:
    """Differential: the network's ranks and last hidden layer over every label, made a few decisions at a time
    (what bounds the memory of a fit on hundreds of thousands of labels), are those of one pass."""
    from gin3_env.policies.net import load_net, ranks
    from gin3_training.improve.head import Labelled, by_decisions, last_hidden

    net = load_net("gin3_env/models/net.npz").without_head()
    parts = [to_shard(read_labels(label_path(Path("docs/results/improve_labels/round4"), 4, i))) for i in (0, 1)]
    data = Labelled({k: np.concatenate([p[k] for p in parts]) for k in parts[0]}, net)
    assert np.array_equal(data.rank, ranks(net.scores(data.state, data.acts, data.rows), data.start))
    assert np.array_equal(ranks(by_decisions(net.scores, data.state, data.acts, data.start, chunk=37), data.start),
                          data.rank)
    whole = last_hidden(net, data.state, data.acts, data.rows)
    chunked = by_decisions(lambda s, a, r: last_hidden(net, s, a, r), data.state, data.acts, data.start, chunk=37)
    assert chunked.shape == whole.shape and np.allclose(chunked, whole, rtol=0, atol=1e-4)  # float32 sums' order
    assert np.allclose(data.h2, whole, rtol=0, atol=1e-4)
