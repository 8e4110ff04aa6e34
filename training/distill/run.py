"""``gin3 train --config quick``: the network player ``net`` distilled from the strongest shipped player.

Round 0 plays the teacher's own hands (with itself and against the heuristic) on the batched core and
keeps every decision with the teacher's action; each later round (DAgger) lets the network of the round
before play (with itself, the teacher and the heuristic) and the teacher label the states it reaches.
After each round the network is fitted by cross-entropy over the legal actions to every decision so far
(:mod:`.fit`) and scored against the heuristic on ``choice_deals`` duplicate deals; the best round is
``best.npz``, evaluated at the end on fresh deals against the heuristic and against the strongest
shipped player.

The run folder holds ``shards/`` (the decisions, :mod:`.data`), ``net_rR.npz`` (each round's network),
``state.json`` (the config and each finished round), ``best.npz`` and ``final.json``; every file is
written whole or not at all. A run resumed (``--resume RUN_DIR``) skips the shards and rounds it finds.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from gin3_env.engine.rules import Rules
from gin3_env.evaluation.batched_hands import evaluate_hands_batched
from gin3_env.evaluation.stats import signed
from gin3_env.policies import load_policy
from gin3_env.policies.net import ActionNet, NetPolicy, load_net
from gin3_env.vector.players import HeuristicBatch, NetBatch, as_batch
from gin3_training.distill.config import DistillConfig
from gin3_training.distill.data import Decisions, load_shard, play_shard, save_shard
from gin3_training.distill.fit import fit, new_net
from gin3_training.run.checkpoints import write_bytes, write_json

CHOICE_SEED_OFFSET = 1_000_000  # the choice deals: seed + this
FINAL_SEED_OFFSET = 2_000_000  # the final evaluation: seed + this (heuristic), + this + 1 (the strongest)
STRONGEST = "trained"  # the strongest shipped player, named in the last lines


def shard_seed(seed: int, r: int, i: int) -> int:
    return int(np.random.SeedSequence([seed, r, i]).generate_state(1)[0])


class Progress:
    """One line per step with the time spent and an estimate of the time left, from the rates measured in this
    run. A rate counts once a sample of at least :attr:`MIN_SAMPLE_SECONDS` of its work is timed (the first
    seconds of a fit or of a round's play hold thread start-up and compiling, and made the estimate jump: 12.7
    and 99.6 minutes at the start of fits that took 1 to 2); until each rate the estimate needs is measured,
    the line says "estimating time left" instead of a figure."""

    MIN_SAMPLE_SECONDS = 5.0

    def __init__(self, cfg: DistillConfig, done_rounds: int) -> None:
        self.cfg = cfg
        self.start = time.monotonic()
        self.rates: dict[str, float] = {}  # decisions/s ("gen") and decision-passes/s ("fit"), once measured
        self.done_rounds = done_rounds
        self.last = 0.0

    def measured(self, kind: str, work: float, seconds: float) -> None:
        if seconds >= self.MIN_SAMPLE_SECONDS and work > 0:
            self.rates[kind] = work / seconds

    def left(self, r: int, gen_left: float, fit_frac_left: float) -> float | None:
        """Seconds left, or None while a rate it needs is not measured yet."""
        cfg = self.cfg
        gathered = sum(cfg.round_decisions(k) for k in range(r + 1))
        needs_gen = gen_left > 0 or r < cfg.dagger_rounds
        needs_fit = fit_frac_left > 0 or r < cfg.dagger_rounds
        if (needs_gen and "gen" not in self.rates) or (needs_fit and "fit" not in self.rates):
            return None
        gen, fit = self.rates.get("gen", 1.0), self.rates.get("fit", 1.0)
        secs = max(0.0, gen_left) / gen + fit_frac_left * cfg.epochs * gathered / fit
        for k in range(r + 1, cfg.dagger_rounds + 1):
            gathered += cfg.round_decisions(k)
            secs += cfg.round_decisions(k) / gen + cfg.epochs * gathered / fit
        return secs + 8.0 * (cfg.final_eval_hands + cfg.choice_deals * (cfg.dagger_rounds + 1 - r)) / 1000

    def say(self, text: str, left: float | None, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self.last > 10.0:
            self.last = now
            when = "estimating time left" if left is None else f"about {max(0.0, left) / 60:.1f} min left"
            print(f"[{(now - self.start) / 60:5.1f} min, {when}] {text}", flush=True)


def versus(net: ActionNet, other: str, deals: int, seed: int, name: str = "net") -> Any:
    """The network against ``other`` (a policy spec) over ``deals`` duplicate deals with the seat baseline."""
    player = NetPolicy(net, name=name)
    opponent = load_policy(other)
    return evaluate_hands_batched(player, opponent, NetBatch(player), as_batch(opponent), deals, seed, Rules(), True)


def figures(report: Any) -> dict[str, Any]:
    team, box = report.seat_adjusted
    return {"opponent": report.policy_b, "deals": report.n_deals, "seed": report.seed,
            "pair_mean": [report.overall.mean, report.overall.low, report.overall.high],
            "team_minus_baseline": [team.mean, team.low, team.high],
            "box_minus_baseline": [box.mean, box.low, box.high]}


def _ci(values: list[float]) -> str:
    return f"{signed(values[0])} [{signed(values[1])}, {signed(values[2])}]"


def round_paths(cfg: DistillConfig, r: int) -> list[Path]:
    """The shard files of round ``r``."""
    n = math.ceil(cfg.round_decisions(r) / cfg.shard_size)
    return [cfg.run_dir / "shards" / f"r{r:02d}_{i:04d}.npz" for i in range(n)]


def play_round(cfg: DistillConfig, r: int, teacher: Any, heuristic: Any, prog: Progress) -> list[Path]:
    """Round ``r``'s shards, made where missing (the network of round ``r - 1`` plays from round 1 on)."""
    (cfg.run_dir / "shards").mkdir(parents=True, exist_ok=True)
    net = load_net(cfg.run_dir / f"net_r{r - 1}.npz") if r > 0 else None
    total = cfg.round_decisions(r)
    paths = round_paths(cfg, r)
    n = len(paths)
    for i, path in enumerate(paths):
        if path.exists():
            continue
        size = min(cfg.shard_size, total - i * cfg.shard_size)
        t0 = time.monotonic()
        save_shard(path, play_shard(size, shard_seed(cfg.seed, r, i), teacher, heuristic, net,
                                    num_envs=min(cfg.num_envs, size)))
        prog.measured("gen", size, time.monotonic() - t0)
        prog.say(f"round {r}: shard {i + 1}/{n} of decisions ({'the teacher' if net is None else 'the network'} "
                 "playing, the teacher labelling)", prog.left(r, total - (i + 1) * cfg.shard_size, 1.0),
                 force=i == n - 1)
    return paths


def fit_round(cfg: DistillConfig, r: int, paths: list[Path], prog: Progress) -> tuple[ActionNet, dict[str, Any]]:
    data = Decisions([load_shard(p) for p in paths])
    net = new_net(data, (cfg.hidden[0], cfg.hidden[1]), cfg.seed) if r == 0 else load_net(
        cfg.run_dir / f"net_r{r - 1}.npz")
    t0 = time.monotonic()

    def report(done: float, loss: float) -> None:
        prog.measured("fit", done * cfg.epochs * len(data), time.monotonic() - t0)
        prog.say(f"round {r}: fitting {len(data):,} decisions, {done:.0%} done, loss {loss:.3f}",
                 prog.left(r, 0, 1.0 - done))

    fitted, info = fit(net, data, cfg.epochs, cfg.learning_rate, cfg.batch_size, cfg.seed + r, report, cfg.threads)
    prog.measured("fit", cfg.epochs * len(data), time.monotonic() - t0)
    info["decisions"] = len(data)
    return fitted, info


def run(cfg: DistillConfig) -> dict[str, Any]:
    """The whole run (see the module doc); returns ``final.json``'s content."""
    run_dir = cfg.run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    state_path = run_dir / "state.json"
    state = _read_state(state_path) if cfg.resume else {"rounds": []}
    state["config"] = {**cfg.to_dict(), "resume": ""}  # what a resumed run reads (with its flags on top)
    if cfg.resume:
        print(f"resuming {run_dir}: {len(state['rounds'])} round(s) done", flush=True)
    write_json(state_path, state)
    teacher = as_batch(load_policy(cfg.teacher))
    if teacher is None:
        raise ValueError(f"the teacher {cfg.teacher!r} has no batched form")
    heuristic = HeuristicBatch()
    prog = Progress(cfg, len(state["rounds"]))
    for r in range(len(state["rounds"]), cfg.dagger_rounds + 1):
        t0, c0 = time.monotonic(), time.process_time()
        play_round(cfg, r, teacher, heuristic, prog)
        fitted, info = fit_round(cfg, r, [p for k in range(r + 1) for p in round_paths(cfg, k)], prog)
        choice = versus(fitted, "heuristic", cfg.choice_deals, cfg.seed + CHOICE_SEED_OFFSET)
        info["choice"] = figures(choice)
        info["cpu_minutes"] = (time.process_time() - c0) / 60  # this process, all its threads
        info["wall_minutes"] = (time.monotonic() - t0) / 60
        info["round"] = r
        fitted.provenance = {"made_by": "gin3 train (distill)", "teacher": cfg.teacher, "round": r,
                             "decisions": info["decisions"], "config": cfg.to_dict()}
        fitted.save(run_dir / f"net_r{r}.npz")
        state["rounds"].append(info)
        write_json(state_path, state)
        prog.say(f"round {r} done: agreement with {cfg.teacher} {info['agreement']:.1%} (plain discards "
                 f"{info.get('agreement plain discards', float('nan')):.1%}); against the heuristic "
                 f"{_ci(info['choice']['pair_mean'])} over {cfg.choice_deals} choice deals", prog.left(r, 0, 0.0),
                 force=True)
    best = max(range(len(state["rounds"])), key=lambda k: state["rounds"][k]["choice"]["pair_mean"][0])
    write_bytes(run_dir / "best.npz", (run_dir / f"net_r{best}.npz").read_bytes())
    net = load_net(run_dir / "best.npz")
    prog.say(f"final evaluation of round {best}'s network over {cfg.final_eval_hands:,} fresh deals per opponent",
             8.0 * cfg.final_eval_hands / 1000, force=True)
    final = {"best_round": best, "model": str(run_dir / "best.npz"),
             "heuristic": figures(versus(net, "heuristic", cfg.final_eval_hands, cfg.seed + FINAL_SEED_OFFSET)),
             STRONGEST: figures(versus(net, STRONGEST, cfg.final_eval_hands, cfg.seed + FINAL_SEED_OFFSET + 1)),
             "wall_minutes": (time.monotonic() - prog.start) / 60,
             "cpu_minutes": time.process_time() / 60}  # this process since it started, all its threads
    write_json(run_dir / "final.json", final)
    try:
        from gin3_training.distill.plots import plot_curve

        plot_curve(state["rounds"], run_dir / "curve.png")
    except ImportError:  # matplotlib is part of the train extra; without it the run still ends
        pass
    return final


def _read_state(path: Path) -> dict[str, Any]:
    import json

    if not path.is_file():
        raise ValueError(f"{path.parent} is not a distillation run folder (no state.json)")
    try:
        state = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path} is not readable JSON ({exc})") from None
    if not isinstance(state, dict) or not isinstance(state.get("rounds"), list):
        raise ValueError(f"{path} is not a distillation run's state")
    return state


def closing_lines(cfg: DistillConfig, final: dict[str, Any]) -> list[str]:
    """What the run ends by saying: how the network stands against the heuristic and the strongest
    shipped player, and what the full config does."""
    lines = []
    for opp, what in (("heuristic", "the heuristic"), (STRONGEST, f"{STRONGEST} (the strongest shipped player)")):
        f = final[opp]
        low, high = f["pair_mean"][1], f["pair_mean"][2]
        verdict = "beats" if low > 0 else ("loses to" if high < 0 else "is level with")
        lines.append(f"net {verdict} {what}: {_ci(f['pair_mean'])} points per hand over {f['deals']:,} duplicate "
                     f"deals (seed {f['seed']}; minus the opponent's own play of the seat: team "
                     f"{_ci(f['team_minus_baseline'])}, box {_ci(f['box_minus_baseline'])})")
    lines.append(f"model: {final['model']} (play it: gin3 evaluate {final['model']} heuristic --seat-baseline)")
    lines.append(f"The full config (gin3 train --config {cfg.full_config}) distils several times more of the teacher's "
                 "decisions over more DAgger rounds (under an hour on 2 cores, resumable with --resume RUN_DIR); its "
                 "best network is shipped as `net` (gin3 evaluate net trained --seat-baseline; docs/distillation.md).")
    return lines


def main_distill(cfg: DistillConfig) -> int:
    try:
        final = run(cfg)
    except KeyboardInterrupt:
        print(f"gin3 train: stopped; its finished shards and rounds are kept; continue with: gin3 train --resume "
              f"{cfg.run_dir}", file=sys.stderr)
        return 130
    for line in closing_lines(cfg, final):
        print(line, flush=True)
    return 0
