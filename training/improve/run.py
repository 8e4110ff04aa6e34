"""``gin3 train --config improve``: rounds of labels on the true deal, an advantage head, the improved player.

Round ``r``: the state player (``net`` at round 0, the improved player of round ``r - 1`` after it) plays;
its discard decisions are valued action by action (:mod:`.labels`); the advantage head is cross-validated
by deal on every label so far, which fixes the margin, then fitted on all of them (:mod:`.head`); the
improved player (``net`` with that head and margin) is written to ``improved_rR.npz``, a file the net
loader reads (``gin3 evaluate RUN_DIR/improved_rR.npz trained --seat-baseline``). With ``eval_deals``, it
then plays the continuation player and the base network on fresh duplicate deals.

The run folder holds ``labels/`` (the shards), ``improved_rR.npz`` and ``state.json`` (the config and each
finished round: labels, the CPU-minutes of each stage in the session that finished it, the cross-validation
table, the margin, the play figures); every file is written whole or not at all. ``--resume RUN_DIR`` skips
the shards and rounds it finds.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from gin3_env.argparsing import OneLineErrorParser
from gin3_env.policies.net import WEIGHTS, ActionNet, load_net
from gin3_env.policies.registry import model_path
from gin3_training.improve.head import Labelled, cross_validate, fit_head
from gin3_training.improve.labels import ActionLabels, load_shards, run_round
from gin3_training.options import add_option_flags, option, option_overrides
from gin3_training.run.checkpoints import write_json
from gin3_training.run.folder import check_run_name

PIPELINE = "improve"


@dataclass
class ImproveConfig:
    """Arguments of one improvement run (see the module doc)."""

    pipeline: str = option(PIPELINE, "improve: label net's decisions on the true deal for every legal action, "
                           "fit an advantage head, iterate with the improved player")
    run_name: str = option("improve", "name of the run: its files go to OUT_DIR/RUN_NAME")
    out_dir: str = option("runs", "folder that holds the run folders")
    seed: int = option(36, "seed of the deals, the reshuffles and the fits")
    base: str = option("net", "the network improved: 'net' or a network model .npz")
    continuation: str = option("trained", "the compiled continuation player: trained, heuristic or a gate .json")
    rounds: int = option(1, "label rounds (each with the improved player of the round before playing)")
    decisions: int = option(8000, "decisions valued per round")
    shard_size: int = option(400, "decisions per shard file (the unit a resumed run skips)")
    shuffles: int = option(16, "K: stock reshuffles shared by every action of a decision")
    rate: float = option(0.15, "each discard decision of the state player is valued with this probability")
    candidates: int = option(0, "value only the network's best this many actions of each decision (0: every "
                             "legal action; the head then chooses among at most that many)")
    folds: int = option(5, "cross-validation folds (by deal) that choose the margin")
    eval_deals: int = option(0, "duplicate deals of the play test after each round (0: none)")
    eval_seed: int = option(62001, "seed of the play test (fresh deals: never used for labels or choices)")
    resume: str = option("", "a run folder to continue (its shards and finished rounds are kept)")

    def __post_init__(self) -> None:
        check_run_name(self.run_name)
        if self.pipeline != PIPELINE:
            raise ValueError(f"config key 'pipeline' must be {PIPELINE!r} here, got {self.pipeline!r}")
        if isinstance(self.candidates, bool) or not isinstance(self.candidates, int) or self.candidates < 0:
            raise ValueError(f"config key 'candidates' must be an integer >= 0, got {self.candidates!r}")
        for name in ("rounds", "decisions", "shard_size", "shuffles", "folds"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < (2 if name in ("shuffles", "folds") else 1):
                raise ValueError(f"config key {name!r} must be an integer >= "
                                 f"{2 if name in ('shuffles', 'folds') else 1}, got {v!r}")
        if isinstance(self.rate, bool) or not isinstance(self.rate, int | float) or not 0 < self.rate <= 1:
            raise ValueError(f"config key 'rate' must be a number in (0, 1], got {self.rate!r}")

    @property
    def run_dir(self) -> Path:
        return Path(self.resume) if self.resume else Path(self.out_dir) / self.run_name

    def labels(self, r: int, state_player: str) -> ActionLabels:
        return ActionLabels(seed=self.seed, round=r, decisions=self.decisions, shard_size=self.shard_size,
                            shuffles=self.shuffles, rate=self.rate, state_player=state_player,
                            continuation=self.continuation, candidates=self.candidates)


def _say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


def improve_round(cfg: ImproveConfig, r: int, base: ActionNet, state: dict[str, Any]) -> dict[str, Any]:
    """Round ``r`` (see the module doc); returns its record."""
    run_dir = cfg.run_dir
    player = cfg.base if r == 0 else str(run_dir / f"improved_r{r - 1}.npz")
    c0 = time.process_time()
    paths: list[Path] = []
    for k in range(r + 1):  # the shards of the rounds before are all there: their rounds finished
        prev = player if k == r else state["rounds"][k]["state_player"]
        paths += run_round(run_dir / "labels", cfg.labels(k, prev), progress=_say)
    label_cpu = time.process_time() - c0
    c1 = time.process_time()
    data = Labelled(load_shards(paths), base)
    cv = cross_validate(data, cfg.folds, cfg.seed + r)
    _say(f"round {r}: {len(data):,} labelled decisions; cross-validated: net's best {cv['top'] or 'all'} "
         f"actions, margin {cv['margin']} (switching on "
         f"{cv['chosen']['switch_share']:.1%} of decisions, {cv['chosen']['gain_per_decision']:+.3f} "
         f"+- {cv['chosen']['gain_se']:.3f} points per decision)")
    head = fit_head(data, np.arange(len(data)), cv["top"], cv["lam"], seed=cfg.seed + r)
    margin = cv["margin"] if np.isfinite(cv["margin"]) else 1e6  # no switch gained: a margin never cleared
    if not np.isfinite(cv["margin"]):
        cv["margin"] = None
    improved = ActionNet(**{w: getattr(base, w) for w in WEIGHTS},
                         provenance={**base.provenance, "improved_by": "gin3 train --config improve", "round": r,
                                     "labelled_decisions": len(data), "margin": margin,
                                     "top": cv["top"], "ridge": cv["lam"]},
                         head=head, margin=margin, top=cv["top"])
    improved.save(run_dir / f"improved_r{r}.npz")
    record = {"round": r, "state_player": player, "labelled_decisions": len(data), "cv": cv,
              "label_cpu_minutes_this_session": label_cpu / 60,  # the shards this process made
              "fit_cpu_minutes": (time.process_time() - c1) / 60}
    if cfg.eval_deals:
        from gin3_training.distill.run import figures
        from gin3_training.distill.run import versus as play

        for k, other in enumerate((cfg.continuation, cfg.base)):
            f = figures(play(improved, other, cfg.eval_deals, cfg.eval_seed + 10 * r + k, name=f"improved_r{r}"))
            record[f"vs {other}"] = f
            _say(f"round {r}: improved player vs {other}: {f['pair_mean'][0]:+.2f} [{f['pair_mean'][1]:+.2f}, "
                 f"{f['pair_mean'][2]:+.2f}] over {cfg.eval_deals} deals (seed {f['seed']})")
    return record


def run(cfg: ImproveConfig) -> dict[str, Any]:
    run_dir = cfg.run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / "state.json"
    state = json.loads(path.read_text()) if cfg.resume and path.is_file() else {"rounds": []}
    state["config"] = {**asdict(cfg), "resume": ""}
    write_json(path, state)
    base = load_net(model_path(cfg.base))
    for r in range(len(state["rounds"]), cfg.rounds):
        state["rounds"].append(improve_round(cfg, r, base, state))
        write_json(path, state)
    return state


def main(argv: list[str] | None = None) -> int:
    parser = OneLineErrorParser(prog="gin3 train", description="Improve net from labels on the true deal "
                                "(config improve): every legal action of its discards valued with shared reshuffles.")
    parser.add_argument("--config", default=None, help="config name or YAML path (default: improve)")
    add_option_flags(parser, ImproveConfig)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    from gin3_training.configs import read_config

    try:
        overrides = option_overrides(args, ImproveConfig)
        if overrides.get("resume") and args.config is None:
            saved = json.loads((Path(overrides["resume"]) / "state.json").read_text())["config"]
            known = {f.name for f in fields(ImproveConfig)}  # a key of an older version is left out
            cfg = ImproveConfig(**{**{k: v for k, v in saved.items() if k in known}, **overrides})
        else:
            cfg = ImproveConfig(**read_config(args.config or PIPELINE, overrides, ImproveConfig))
    except (ValueError, FileNotFoundError, TypeError, OSError, KeyError) as exc:
        parser.error(str(exc))
    try:
        state = run(cfg)
    except KeyboardInterrupt:
        print(f"gin3 train: stopped; its finished shards and rounds are kept; continue with: gin3 train --resume "
              f"{cfg.run_dir}", file=sys.stderr)
        return 130
    last = state["rounds"][-1] if state["rounds"] else None
    if last is not None:
        model = cfg.run_dir / f"improved_r{last['round']}.npz"
        print(f"improved player: {model} (gin3 evaluate {model} trained --seat-baseline)", flush=True)
    return 0
