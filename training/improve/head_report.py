"""The advantage head on a round's compact labels, held out by deal: ``python -m gin3_training.improve.head_report``.

Reads the compact label files under ``--labels`` (:mod:`.compact`), cross-validates the head by deal
(:func:`.head.cross_validate`: the candidates, the ridge and the margin of the largest held-out gain), then for
the chosen setting reports, over the held-out decisions of every fold: the switch rate, the gain per decision
(the labels' value of the head's choice minus that of ``net``'s, zero where it keeps ``net``'s move), the
agreement with the labels' best candidate where the head switches and where it does not; and checks that the
improved player (``net`` with the head fitted on every label and that margin, as the net loader plays it)
switches exactly where the head's predicted gain clears the margin. With ``--audit N``, up to ``N`` of the held-out
switches are valued again on the true deal with fresh reshuffles (``--audit-shuffles``, 256: not the ones that
labelled them), ``net``'s choice against the head's, ``gated`` continuing: the gain of a switch measured
independently of the labels that chose it.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from gin3_env.files import check_output_file, save_json
from gin3_env.policies.loading import NET_MODEL
from gin3_env.policies.net import WEIGHTS, ActionNet, NetPolicy, load_net
from gin3_training.improve.compact import read_labels, replay, to_shard
from gin3_training.improve.head import DECISION_CHUNK, LAMS, TOPS, Labelled, cross_validate, fit_head, switch_gains


def _best_among(data: Labelled, rows: np.ndarray, top: int) -> np.ndarray:
    """The labels' best candidate (rank < ``top``) of each decision ``rows``."""
    dense = np.full((len(data), data.values.shape[1]), -np.inf)
    sel = data.candidates(rows, top)
    dense[data.rows[sel], data.legal[sel]] = data.v[sel]
    return np.asarray(dense[rows].argmax(axis=1))


def _head_choice(head: ActionNet, data: Labelled, rows: np.ndarray, top: int) -> np.ndarray:
    """The head's best candidate (rank < ``top``) of each decision ``rows``."""
    state, acts, prow, _, legal = data.subset(rows, top)
    dense = np.full((len(rows), data.values.shape[1]), -np.inf)
    dense[prow, legal] = head.scores(state, acts, prow)
    return np.asarray(dense.argmax(axis=1))


def audit(states: dict[str, np.ndarray], rows: np.ndarray, mine: np.ndarray, theirs: np.ndarray, shuffles: int,
          seed: int) -> dict[str, Any]:
    """``theirs`` against ``mine`` (actions) at the decisions ``rows`` of the replayed ``states``, valued on the true
    deal from ``shuffles`` fresh reshuffles, ``gated`` continuing: mean gain per switch and its standard error."""
    from gin3_env.engine.rules import Rules
    from gin3_env.kernels.hands import rules_vector
    from gin3_training.improve.label_kernels import STOCK, value_rows_fast_serial
    from gin3_training.improve.labels import continuation_args

    n = len(rows)
    if not n:
        return {"switches": 0}
    mask = np.zeros((n, states["mask"].shape[1]), np.int8)
    mask[np.arange(n), mine] = 1
    mask[np.arange(n), theirs] = 1
    values, se = np.zeros(mask.shape), np.zeros(mask.shape)
    seeds = np.random.default_rng([seed, shuffles, 7]).integers(0, 2**31 - 1, size=n).astype(np.int64)
    t0 = time.process_time()
    value_rows_fast_serial(*(np.ascontiguousarray(states[k][rows]) for k in ("S", "M", "deck", "pile")), mask,
                           rules_vector(Rules()), seeds, shuffles, *continuation_args("gated"), values, se, STOCK)
    gain = values[np.arange(n), theirs] - values[np.arange(n), mine]
    return {"switches": n, "shuffles": shuffles, "gain_per_switch": float(gain.mean()),
            "gain_se": float(gain.std(ddof=1) / np.sqrt(n)) if n > 1 else None,
            "share_gaining": float(np.mean(gain > 0)), "cpu_seconds": time.process_time() - t0}


def report(folders: str | Path | list[str | Path], folds: int = 5, seed: int = 0, audit_n: int = 0,
           audit_shuffles: int = 256, save: str = "", lams: tuple[float, ...] = LAMS, tops: tuple[int, ...] = TOPS,
           **fit_args: Any) -> dict[str, Any]:
    """The module doc's figures on the label files of ``folders`` (one or more rounds' folders) together; with
    ``save``, the improved player (``net`` with the head fitted on every label, where the margin is finite)
    written there (a model file the net loader reads)."""
    named = [str(f) for f in ([folders] if isinstance(folders, str | Path) else folders)]
    paths = [p for f in named for p in sorted(Path(f).glob("labels_*.npz"))]
    folder = ", ".join(named)
    net = load_net(NET_MODEL).without_head()  # the layers the head improves
    files = [read_labels(p) for p in paths]
    if not files:
        raise ValueError(f"no label files in {folder}")
    parts = [to_shard(f) for f in files]
    shards = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    data = Labelled(shards, net)
    cv = cross_validate(data, folds, seed, tops=tops, lams=lams, **fit_args)
    top, lam, margin = cv["top"], cv["lam"], cv["margin"]
    out: dict[str, Any] = {"files": len(paths), "decisions": len(data), "deals": cv["deals"], "top": top, "lam": lam,
                           "margin": margin, "chosen": cv["chosen"],
                           "oracle_gain_per_decision": cv["oracle_gain_per_decision"], "table": cv["table"]}
    deals = np.unique(data.deal)
    fold_of = dict(zip(deals.tolist(), np.random.default_rng(seed).permutation(len(deals)) % folds, strict=True))
    fold = np.array([fold_of[d] for d in data.deal.tolist()])
    pred, real = np.zeros(len(data)), np.zeros(len(data))
    choice = np.zeros(len(data), np.int64)
    for f in range(folds):  # the chosen setting's held-out switches (as cross_validate fitted them)
        test = np.flatnonzero(fold == f)
        head = fit_head(data, np.flatnonzero(fold != f), top, lam, seed=seed + f, **fit_args)
        pred[test], real[test] = switch_gains(head, data, test, top)
        choice[test] = _head_choice(head, data, test, top)
    m = margin if np.isfinite(margin) else np.inf
    on = pred > m
    everyone = np.arange(len(data))
    best = _best_among(data, everyone, top)
    mine = data.legal[data.rank == 0]
    oracle = data.values[everyone, best] - data.values[everyone, mine]
    out.update(switch_rate=float(on.mean()), switches=int(on.sum()),
               gain_per_decision=float(np.where(on, real, 0.0).mean()),
               gain_se=float(np.where(on, real, 0.0).std(ddof=1) / np.sqrt(len(data))),
               gain_per_switch=float(real[on].mean()) if on.any() else None,
               agree_where_switched=float(np.mean(np.isclose(real[on], oracle[on]))) if on.any() else None,
               net_best_where_kept=float(np.mean(oracle[~on] == 0.0)) if (~on).any() else None)
    if audit_n and on.any():
        sw = np.flatnonzero(on)
        sw = np.sort(np.random.default_rng(seed).permutation(sw)[:audit_n])
        states = {k: np.concatenate([v[k] for v in (replay(f) for f in files)]) for k in ("S", "M", "deck", "pile",
                                                                                         "mask")}
        out["audit"] = audit(states, sw, mine[sw], choice[sw], audit_shuffles, seed)
    # the improved player switches exactly where the head fitted on every label clears the margin
    if np.isfinite(margin):
        head = fit_head(data, everyone, top, lam, seed=seed, **fit_args)
        improved = ActionNet(**{w: getattr(net, w) for w in WEIGHTS}, head=head, margin=margin, top=top,
                             provenance={"network": net.provenance, "improved_by": "gin3_training.improve.head_report",
                                         "labels": named,
                                         "labelled_decisions": len(data), "margin": margin, "top": top,
                                         "head": "tuned" if fit_args.get("tune") else ("ridge" if lam > 0 else "mlp"),
                                         "ridge": lam})
        chunks = [slice(i, i + DECISION_CHUNK) for i in range(0, len(data), DECISION_CHUNK)]  # bounded memory
        played, base = (np.concatenate([NetPolicy(player).act_batch(shards["obs"][c].astype(np.float32),
                                                                    shards["mask"][c]) for c in chunks])
                        for player in (improved, net))
        p_all, _ = switch_gains(head, data, everyone, top)
        out["full_head_switch_rate"] = float((played != base).mean())
        out["switches_only_past_margin"] = bool(np.array_equal(played != base, p_all > margin))
        if save:
            from gin3_training.run.checkpoints import write_bytes

            write_bytes(Path(save), improved.to_bytes())
            out["saved"] = save
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gin3_training.improve.head_report", description=__doc__)
    parser.add_argument("--labels", nargs="+", default=["docs/results/improve_labels/round0"],
                        help="the folders of the rounds' label files, fitted together")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--audit", type=int, default=0, help="value up to this many held-out switches again")
    parser.add_argument("--audit-shuffles", type=int, default=256)
    parser.add_argument("--json", default="")
    parser.add_argument("--lams", type=float, nargs="+", default=list(LAMS),
                        help="the heads tried: a ridge on net's last layer (> 0) or a network (0)")
    parser.add_argument("--tops", type=int, nargs="+", default=list(TOPS), help="the candidate sets tried")
    parser.add_argument("--tune", action="store_true", help="a network head (--lams 0) starts from net's own layers")
    parser.add_argument("--epochs", type=float, default=30.0, help="a network head's passes over the labels")
    parser.add_argument("--lr", type=float, default=1e-3, help="a network head's learning rate")
    parser.add_argument("--save", default="", help="write the improved player (a .npz the net loader reads) here")
    args = parser.parse_args(argv)
    if args.json:
        check_output_file(args.json, "--json")
    if args.save:
        check_output_file(args.save, "--save", (".npz",))
        if Path(args.save).exists():
            parser.error(f"--save {args.save} exists: name a new file (a model is never replaced unasked)")
    r = report(args.labels, args.folds, args.seed, args.audit, args.audit_shuffles, args.save, tuple(args.lams),
               tuple(args.tops), tune=args.tune, epochs=args.epochs, lr=args.lr)
    print(json.dumps({k: v for k, v in r.items() if k not in ("chosen", "table")}, indent=1))
    if args.json:
        save_json(args.json, r)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
