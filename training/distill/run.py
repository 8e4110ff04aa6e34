"""``gin3 train --config quick``: the network player ``net`` distilled from the strongest shipped player.

Round 0 plays the teacher's own hands (with itself and against the heuristic) on the batched core and
keeps every decision with the teacher's action; each later round (DAgger) lets the network of the round
before play (with itself, the teacher and the heuristic) and the teacher label the states it reaches.
After each round the network is fitted by cross-entropy over the legal actions to every decision so far
(:mod:`.fit`) and scored against the heuristic on ``choice_deals`` duplicate deals; the best round is
``best.npz``, evaluated at the end on fresh deals against the heuristic and against the strongest
shipped player.

The run folder holds ``shards/`` (the decisions, :mod:`.data`), ``net_rR.npz`` (each round's network),
``state.json`` (the config and each finished round), ``best.npz``, ``final.json`` and ``curve.png``, held through
the shared run mechanism (:class:`~gin3_training.run.run.Run`: the lock, every file written whole or not at all
through the held folder, shards read back through the checked reader). A run resumed (``--resume RUN_DIR``) skips
the shards and rounds it finds; a finished run removes its shards (only a resume needs them; one with more rounds
makes them again, the same) and says what it kept.
"""

from __future__ import annotations

import math
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
from gin3_training.run.run import Layout, Run, size_text

CHOICE_SEED_OFFSET = 1_000_000  # the choice deals: seed + this
FINAL_SEED_OFFSET = 2_000_000  # the final evaluation: seed + this (heuristic), + this + 1 (the strongest)
STRONGEST = "trained"  # the strongest shipped player (the alias), named in the last lines
# what a distillation run writes; the settings that made its shards and networks (a resume must keep them)
LAYOUT = Layout("distill", files=("net_r*.npz", "best.npz", "final.json", "curve.png"), folders=("shards",),
                settings=("seed", "teacher", "hidden", "teacher_decisions", "dagger_decisions", "shard_size",
                          "num_envs", "epochs", "learning_rate", "batch_size", "choice_deals"),
                resume_only=("shards",), players=("teacher",))


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


def round_paths(cfg: DistillConfig, r: int) -> list[str]:
    """The shard files of round ``r``, inside the run folder."""
    n = math.ceil(cfg.round_decisions(r) / cfg.shard_size)
    return [f"shards/r{r:02d}_{i:04d}.npz" for i in range(n)]


def run_net(run: Run, rel: str) -> ActionNet:
    """The network ``rel`` this run wrote (a regular file inside the held folder, no link)."""
    if not run.exists(rel):
        raise ValueError(f"{run.path / rel} is missing: the run folder is not the one its state describes")
    return load_net(run.path / rel)


def play_round(run: Run, cfg: DistillConfig, r: int, teacher: Any, heuristic: Any, prog: Progress) -> list[str]:
    """Round ``r``'s shards, made where missing (the network of round ``r - 1`` plays from round 1 on)."""
    net = run_net(run, f"net_r{r - 1}.npz") if r > 0 else None
    total = cfg.round_decisions(r)
    paths = round_paths(cfg, r)
    n = len(paths)
    for i, path in enumerate(paths):
        if run.exists(path):
            continue
        size = min(cfg.shard_size, total - i * cfg.shard_size)
        t0 = time.monotonic()
        save_shard(run, path, play_shard(size, shard_seed(cfg.seed, r, i), teacher, heuristic, net,
                                         num_envs=min(cfg.num_envs, size)))
        prog.measured("gen", size, time.monotonic() - t0)
        prog.say(f"round {r}: shard {i + 1}/{n} of decisions ({'the teacher' if net is None else 'the network'} "
                 "playing, the teacher labelling)", prog.left(r, total - (i + 1) * cfg.shard_size, 1.0),
                 force=i == n - 1)
    return paths


def fit_round(run: Run, cfg: DistillConfig, r: int, paths: list[str],
              prog: Progress) -> tuple[ActionNet, dict[str, Any]]:
    data = Decisions([load_shard(run, p) for p in paths])
    net = new_net(data, (cfg.hidden[0], cfg.hidden[1]), cfg.seed) if r == 0 else run_net(run, f"net_r{r - 1}.npz")
    t0 = time.monotonic()

    def report(done: float, loss: float) -> None:
        prog.measured("fit", done * cfg.epochs * len(data), time.monotonic() - t0)
        prog.say(f"round {r}: fitting {len(data):,} decisions, {done:.0%} done, loss {loss:.3f}",
                 prog.left(r, 0, 1.0 - done))

    fitted, info = fit(net, data, cfg.epochs, cfg.learning_rate, cfg.batch_size, cfg.seed + r, report, cfg.threads)
    prog.measured("fit", cfg.epochs * len(data), time.monotonic() - t0)
    info["decisions"] = len(data)
    return fitted, info


def teacher_of(cfg: DistillConfig) -> Any:
    """The teacher's batched form; a ``ValueError`` (one line) where the spec names no player that has one.
    Loaded before the run folder is made, so a bad ``--teacher`` leaves nothing behind."""
    from gin3_env.policies.model_fields import ModelFileError

    try:
        teacher = as_batch(load_policy(cfg.teacher))
    except (ModelFileError, ValueError, OSError) as exc:
        raise ValueError(f"--teacher {cfg.teacher}: {exc}") from None
    if teacher is None:
        raise ValueError(f"the teacher {cfg.teacher!r} has no batched form")
    return teacher


def is_complete(state: dict[str, Any], cfg: DistillConfig) -> bool:
    """Whether the run of ``state`` is finished for ``cfg`` (every round fitted and the final evaluation written)."""
    return bool(state.get("final")) and len(state["rounds"]) >= cfg.dagger_rounds + 1


def run(cfg: DistillConfig, teacher: Any = None) -> dict[str, Any]:
    """The whole run (see the module doc) in its held run folder (:class:`~gin3_training.run.run.Run`);
    returns ``final.json``'s content."""
    teacher = teacher if teacher is not None else teacher_of(cfg)
    with Run(cfg.run_dir, LAYOUT) as held:
        final = run_in(held, cfg, teacher)
        removed, freed = held.finish()
        left = list(held.sizes())
    if removed:
        print(f"removed what only a resume needs: {len(removed)} shard(s), {size_text(freed)} (shards/; "
              f"--resume with more --dagger-rounds makes them again)", flush=True)
    print(f"kept in {cfg.run_dir}: " + ", ".join(f"{name} ({size_text(size)})" for name, size in left)
          + f"; {size_text(sum(size for _, size in left))} in all", flush=True)
    return final


def run_in(held: Run, cfg: DistillConfig, teacher: Any) -> dict[str, Any]:
    state = held.check_resume() if cfg.resume else {"rounds": []}  # read again under the lock
    state.pop("final", None)
    state["config"] = {**cfg.to_dict(), "resume": ""}  # what a resumed run reads (with its flags on top)
    if cfg.resume:
        print(f"resuming {cfg.run_dir}: {len(state['rounds'])} round(s) done", flush=True)
    held.write_state(state)
    heuristic = HeuristicBatch()
    prog = Progress(cfg, len(state["rounds"]))
    for r in range(len(state["rounds"]), cfg.dagger_rounds + 1):
        t0, c0 = time.monotonic(), time.process_time()
        for k in range(r + 1):  # a finished run keeps no shards: an earlier round's are made again, the same
            play_round(held, cfg, k, teacher, heuristic, prog)
        fitted, info = fit_round(held, cfg, r, [p for k in range(r + 1) for p in round_paths(cfg, k)], prog)
        choice = versus(fitted, "heuristic", cfg.choice_deals, cfg.seed + CHOICE_SEED_OFFSET)
        info["choice"] = figures(choice)
        info["cpu_minutes"] = (time.process_time() - c0) / 60  # this process, all its threads
        info["wall_minutes"] = (time.monotonic() - t0) / 60
        info["round"] = r
        fitted.provenance = {"made_by": "gin3 train (distill)", "teacher": cfg.teacher, "round": r,
                             "decisions": info["decisions"], "config": cfg.to_dict()}
        held.write(f"net_r{r}.npz", fitted.to_bytes())
        state["rounds"].append(info)
        held.write_state(state)
        prog.say(f"round {r} done: agreement with {cfg.teacher} {info['agreement']:.1%} (plain discards "
                 f"{info.get('agreement plain discards', float('nan')):.1%}); against the heuristic "
                 f"{_ci(info['choice']['pair_mean'])} over {cfg.choice_deals} choice deals", prog.left(r, 0, 0.0),
                 force=True)
    best = max(range(len(state["rounds"])), key=lambda k: _choice_mean(state["rounds"][k], held.path))
    held.write("best.npz", held.read(f"net_r{best}.npz", "network", 1 << 30))
    net = run_net(held, "best.npz")
    prog.say(f"final evaluation of round {best}'s network over {cfg.final_eval_hands:,} fresh deals per opponent",
             8.0 * cfg.final_eval_hands / 1000, force=True)
    final = {"best_round": best, "model": str(cfg.run_dir / "best.npz"),
             "heuristic": figures(versus(net, "heuristic", cfg.final_eval_hands, cfg.seed + FINAL_SEED_OFFSET)),
             STRONGEST: figures(versus(net, STRONGEST, cfg.final_eval_hands, cfg.seed + FINAL_SEED_OFFSET + 1)),
             "wall_minutes": (time.monotonic() - prog.start) / 60,
             "cpu_minutes": time.process_time() / 60}  # this process since it started, all its threads
    held.write_json("final.json", final)
    try:
        from gin3_training.distill.plots import plot_curve

        held.write("curve.png", plot_curve(state["rounds"]))
    except ImportError:  # matplotlib is part of the train extra; without it the run still ends
        pass
    state["final"] = True  # complete: a --resume with no more rounds says so instead of evaluating again
    held.write_state(state)
    return final


def _choice_mean(record: dict[str, Any], run_dir: Path) -> float:
    """The choice figure of a round's record; a one-line refusal where a tampered state holds none."""
    try:
        value = record["choice"]["pair_mean"][0]
    except (KeyError, IndexError, TypeError):
        value = None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{run_dir / 'state.json'} is damaged: round {record.get('round')!r:.20} holds no "
                         "choice figure")
    return float(value)


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
                 "best network, improved by rounds of labels on the true deal, is the shipped `net` (gin3 evaluate net "
                 "gated --seat-baseline; docs/distillation.md).")
    return lines


def main_distill(cfg: DistillConfig, teacher: Any = None) -> int:
    from gin3_training.run.checkpoints import RunWriteError
    from gin3_training.run.run import REFUSALS, stopped

    try:
        final = run(cfg, teacher)
    except (*REFUSALS, ValueError, RunWriteError, KeyboardInterrupt) as exc:
        return stopped(exc, cfg.run_dir)
    for line in closing_lines(cfg, final):
        print(line, flush=True)
    return 0
