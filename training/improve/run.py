"""``gin3 train --config improve``: rounds of labels on the true deal, an advantage head, the improved player.

Round ``r``: the state player (``net`` at round 0, the improved player of round ``r - 1`` after it) plays;
its discard decisions are valued action by action (:mod:`.labels`); the advantage head is cross-validated
by deal on every label so far, which fixes the margin, then fitted on all of them (:mod:`.head`); the
improved player (``net`` with that head and margin) is written to ``improved_rR.npz``, a file the net
loader reads (``gin3 evaluate RUN_DIR/improved_rR.npz gated --seat-baseline``). With ``eval_deals``, it
then plays the continuation player and the base network on fresh duplicate deals.

The run folder holds ``labels/`` (the shards), ``improved_rR.npz`` and ``state.json`` (the config and each
finished round: labels, the CPU-minutes of each stage in the session that finished it, the cross-validation
table, the margin, the play figures), held through the shared run mechanism (:class:`~gin3_training.run.run.Run`);
every file is written whole or not at all. ``--resume RUN_DIR`` skips the shards and rounds it finds and refuses
settings other than those its labels were made with.
"""

from __future__ import annotations

import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gin3_env.argparsing import OneLineErrorParser
from gin3_env.policies.net import WEIGHTS, ActionNet, load_net
from gin3_env.policies.registry import model_path
from gin3_training.improve.head import HEADS, Labelled, cross_validate, fit_head
from gin3_training.improve.labels import ActionLabels, load_shards, run_round
from gin3_training.options import add_option_flags, option, option_overrides
from gin3_training.run.folder import check_run_name
from gin3_training.run.run import REFUSALS, Layout, Run, start_checks, stopped

PIPELINE = "improve"
# what an improvement run writes; the settings that made its labels (a resume must keep them)
LAYOUT = Layout(PIPELINE, files=("improved_r*.npz",), folders=("labels",),
                settings=("seed", "base", "continuation", "decisions", "shard_size", "shuffles", "rate", "candidates"),
                players=("continuation",))


@dataclass
class ImproveConfig:
    """Arguments of one improvement run (see the module doc)."""

    pipeline: str = option(PIPELINE, "improve: label net's decisions on the true deal for every legal action, "
                           "fit an advantage head, iterate with the improved player")
    run_name: str = option("improve", "name of the run: its files go to OUT_DIR/RUN_NAME")
    out_dir: str = option("runs", "folder that holds the run folders")
    seed: int = option(36, "seed of the deals, the reshuffles and the fits")
    base: str = option("net", "the network improved: 'net' or a network model .npz")
    continuation: str = option("gated", "the compiled continuation player: gated, heuristic or a gate .json")
    rounds: int = option(1, "label rounds (each with the improved player of the round before playing)")
    decisions: int = option(8000, "decisions valued per round")
    shard_size: int = option(400, "decisions per shard file (the unit a resumed run skips)")
    shuffles: int = option(16, "K: stock reshuffles shared by every action of a decision")
    rate: float = option(0.15, "each discard decision of the state player is valued with this probability")
    candidates: int = option(0, "value only the network's best this many actions of each decision (0: every "
                             "legal action; the head then chooses among at most that many)")
    head: str = option("ridge", "the advantage head: ridge (a ridge on the network's last hidden layer) or tuned "
                       "(the network's own layers tuned on the labels)")
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
        if self.head not in HEADS:
            raise ValueError(f"config key 'head' must be one of {', '.join(HEADS)}, got {self.head!r}")

    @property
    def run_dir(self) -> Path:
        return Path(self.resume) if self.resume else Path(self.out_dir) / self.run_name

    def labels(self, r: int, state_player: str) -> ActionLabels:
        return ActionLabels(seed=self.seed, round=r, decisions=self.decisions, shard_size=self.shard_size,
                            shuffles=self.shuffles, rate=self.rate, state_player=state_player,
                            continuation=self.continuation, candidates=self.candidates)


def _say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


def improve_round(held: Run, cfg: ImproveConfig, r: int, base: ActionNet, state: dict[str, Any]) -> dict[str, Any]:
    """Round ``r`` (see the module doc) in the held run folder; returns its record."""
    run_dir = cfg.run_dir
    player = cfg.base if r == 0 else str(run_dir / f"improved_r{r - 1}.npz")
    if r > 0 and not held.exists(f"improved_r{r - 1}.npz"):
        raise ValueError(f"{run_dir / f'improved_r{r - 1}.npz'} is missing: the run folder is not the one its "
                         "state describes")
    c0 = time.process_time()
    paths: list[str] = []
    for k in range(r + 1):  # the shards of the rounds before are all there: their rounds finished
        prev = player if k == r else state["rounds"][k].get("state_player")
        if not isinstance(prev, str):
            raise ValueError(f"{run_dir / 'state.json'} is damaged: round {k} names no state player")
        paths += run_round(held, cfg.labels(k, prev), progress=_say)
    label_cpu = time.process_time() - c0
    c1 = time.process_time()
    data = Labelled(load_shards(held, paths), base)
    cv_args, fit_args = HEADS[cfg.head]
    cv = cross_validate(data, cfg.folds, cfg.seed + r, **cv_args, **fit_args)
    _say(f"round {r}: {len(data):,} labelled decisions; cross-validated: net's best {cv['top'] or 'all'} "
         f"actions, margin {cv['margin']} (switching on "
         f"{cv['chosen']['switch_share']:.1%} of decisions, {cv['chosen']['gain_per_decision']:+.3f} "
         f"+- {cv['chosen']['gain_se']:.3f} points per decision)")
    head = fit_head(data, np.arange(len(data)), cv["top"], cv["lam"], seed=cfg.seed + r, **fit_args)
    margin = cv["margin"] if np.isfinite(cv["margin"]) else 1e6  # no switch gained: a margin never cleared
    if not np.isfinite(cv["margin"]):
        cv["margin"] = None
    improved = ActionNet(**{w: getattr(base, w) for w in WEIGHTS},
                         provenance={"network": base.provenance, "improved_by": "gin3 train --config improve",
                                     "round": r, "labelled_decisions": len(data), "margin": margin,
                                     "top": cv["top"], "head": cfg.head, "ridge": cv["lam"]},
                         head=head, margin=margin, top=cv["top"])
    held.write(f"improved_r{r}.npz", improved.to_bytes())
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


def base_of(cfg: ImproveConfig) -> ActionNet:
    """The network improved and a check of the continuation player, before the run folder is made: a bad
    ``--base`` or ``--continuation`` is a one-line ``ValueError`` and leaves nothing behind."""
    from gin3_env.policies.model_fields import ModelFileError
    from gin3_training.improve.labels import continuation_args

    try:
        base = load_net(model_path(cfg.base))
    except (ModelFileError, OSError) as exc:
        raise ValueError(f"--base {cfg.base}: {exc}") from None
    try:
        continuation_args(cfg.continuation)
    except (ValueError, OSError, KeyError, TypeError) as exc:
        raise ValueError(f"--continuation {cfg.continuation}: {exc}") from None
    if base.head is not None:
        _say(f"--base {cfg.base} is an improved player: it plays round 0's states, and this run fits a head of its "
             "own on its network's layers from this run's labels (the head the file carries is set aside)")
    return base.without_head()


def run(cfg: ImproveConfig, base: ActionNet | None = None) -> dict[str, Any]:
    """The whole run (see the module doc) in its held run folder (:class:`~gin3_training.run.run.Run`)."""
    base = base if base is not None else base_of(cfg)
    with Run(cfg.run_dir, LAYOUT) as held:
        state = held.check_resume(asdict(cfg)) if cfg.resume else {"rounds": []}  # read again under the lock
        state["config"] = {**asdict(cfg), "resume": ""}
        held.write_state(state)
        for r in range(len(state["rounds"]), cfg.rounds):
            state["rounds"].append(improve_round(held, cfg, r, base, state))
            held.write_state(state)
    return state


def load_improve_config(spec: str | None, overrides: dict[str, Any]) -> ImproveConfig:
    """The config ``spec`` with ``overrides``; on ``resume`` without a config, the resumed run's own config (its
    ``state.json`` read through the checked readers, its pipeline checked)."""
    from gin3_training.configs import read_config

    if overrides.get("resume") and spec is None:
        saved = Run(Path(overrides["resume"]), LAYOUT).check_resume()["config"]
        known = set(ImproveConfig.__dataclass_fields__)  # a key of an older version is left out
        return ImproveConfig(**{**{k: v for k, v in saved.items() if k in known}, **overrides})
    return ImproveConfig(**read_config(spec or PIPELINE, overrides, ImproveConfig))


def main(argv: list[str] | None = None) -> int:
    parser = OneLineErrorParser(prog="gin3 train", description="Improve net from labels on the true deal "
                                "(config improve): every legal action of its discards valued with shared reshuffles.")
    parser.add_argument("--config", default=None, help="config name or YAML path (default: improve)")
    add_option_flags(parser, ImproveConfig)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        overrides = option_overrides(args, ImproveConfig)
        cfg = load_improve_config(args.config, overrides)
    except (ValueError, FileNotFoundError, TypeError, OSError, KeyError) as exc:
        parser.error(str(exc))
    return start(cfg, "run_name" in overrides)


def start(cfg: ImproveConfig, named: bool) -> int:
    """Check the run folder and the players, then run; every refusal one line (exit 2, nothing made before it),
    a failed write one line (exit 1)."""
    from gin3_training.run.checkpoints import RunWriteError

    try:
        run_dir, recorded = start_checks(LAYOUT, cfg.run_dir, asdict(cfg), resume=bool(cfg.resume), named=named)
        if recorded is None:
            cfg.run_name = run_dir.name
        elif len(recorded["rounds"]) >= cfg.rounds:
            print(f"{cfg.run_dir} is a complete run ({len(recorded['rounds'])} round(s)); nothing to do (more "
                  f"rounds: --rounds {cfg.rounds + 1})", flush=True)
            return 0
        base = base_of(cfg)
        state = run(cfg, base)
    except (*REFUSALS, ValueError, RunWriteError, KeyboardInterrupt) as exc:
        return stopped(exc, cfg.run_dir)
    last = state["rounds"][-1] if state["rounds"] else None
    if last is not None:
        model = cfg.run_dir / f"improved_r{last['round']}.npz"
        print(f"improved player: {model} (gin3 evaluate {model} gated --seat-baseline)", flush=True)
    return 0
