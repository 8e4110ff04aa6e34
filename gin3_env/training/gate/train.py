"""``gin3 train-gate``: the knock gate from nothing to a model file, resumable.

    gin3 train-gate --config gate --out runs/gate        # configs/gate.yaml

Round 0 labels the knock decisions of heuristic-vs-heuristic deals on the true deal
(:mod:`.labels`, shards under ``OUT/labels_r0/``) and fits the gate (:mod:`.fit`,
``OUT/gate_r0.json``). Each further round (``rounds``) labels the decisions of the gated
player of the round before, with that gate also in the continuations, so the labels follow
the improved player, and fits again (``OUT/gate_rN.json``). The last round's gate is written
as ``OUT/gate.json`` (the model file :func:`gin3_env.policies.gated.load_gate` reads), with
the config, each round's label run and fit in its ``provenance``. With ``draw_deals`` above zero,
a draw gate follows: the take-or-not choices of deals played by that gated player (each labelled
with probability ``draw_rate``, the gated player in the continuations; shards under
``OUT/labels_draw/``) are labelled and fitted the same way, and the model file carries both
gates (``OUT/gate_draw.json``, then ``OUT/gate.json``). With ``discard_deals`` above zero (an opt-in:
the shipped config has 0), a discard gate follows in the same way: plain discards of deals played by
the player so far (each labelled with probability ``discard_rate``; shards under
``OUT/labels_discard/``), the heuristic's second and third best discards valued against its choice
(``OUT/gate_discard.json``, then ``OUT/gate.json``). A stopped run started again
with the same ``--out`` resumes: finished shards and fitted rounds are kept; a run with other settings
(``OUT/train-gate.json`` records them) or a shard written with other settings is refused, and it says
how many shards each stage found. ``OUT`` is held by a lock for the run (a second run into it is
refused) and written only through its descriptor (a link planted in it is never followed).

At the start the command lists its stages (each label run: its deals and an estimate of its
time, from rates measured on the 2-core development machine, :data:`REFERENCE_SECONDS_PER_DEAL`);
while a stage runs, a progress line at least every half minute keeps an estimate of the time left
in it and in all, scaled by the rate measured in this session. Ctrl-C (or SIGTERM) says so in one
line at once and stops within seconds: the finished shards and the deals of the chunk in progress
are kept (:class:`~gin3_env.signals.StopRequest`, :mod:`.labels`), and the same command resumes;
a second Ctrl-C stops at once. Exit 130 (143).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import stat
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from ...argparsing import OneLineErrorParser
from ...files import HeldFolder, read_json
from ...policies.gated import MAX_MIN_DEADWOOD, KnockGate, load_gate
from ...policies.loading import PLAYERS
from ...signals import Interrupted, StopRequest, exit_code
from ..options import add_option_flags, option, option_overrides
from ..run.lock import LOCK_NAME, RunLock, RunLockedError
from ..sb3.config import read_config
from .fit import fit_discard_gate, fit_draw_gate, fit_gate
from .labels import LabelRun, LabelsStopped, duration, load_labels, run_labels

__all__ = ["GateConfig", "add_discard_gate", "main", "player_digest", "train_gate"]

CONFIG_FILE = "train-gate.json"  # the config OUT was made with: a run again in OUT must match it


@dataclass
class GateConfig:
    seed: int = option(1000, "seed of the label run's deals and shuffles (round r uses seed + r)")
    deals: int = option(60000, "deals labelled in round 0")
    round_deals: int = option(60000, "deals labelled in each later round")
    chunk: int = option(2000, "deals per label shard")
    shuffles: int = option(64, "continuations per decision (the stock reshuffled; the same for both moves)")
    rounds: int = option(1, "rounds of iteration after round 0 (labels on the gated player's states)")
    kinds: list[str] = option(["ridge", "mlp"], "gate models tried; the best cross-validated gain is kept")
    folds: int = option(5, "folds of the cross-validation (by deal)")
    min_deadwood: int = option(1, "the gate acts only at this knock deadwood or more (gin is always knocked)")
    ridge_lambda: float = option(1.0, "ridge penalty on the standardised weights")
    hidden: int = option(32, "hidden units of the MLP")
    epochs: int = option(10, "MLP training epochs")
    draw_deals: int = option(0, "deals labelled for the draw gate (take the face-up card or not); 0: no draw gate")
    draw_seed: int = option(2000, "seed of the draw gate's label run")
    draw_rate: float = option(0.25, "share of the take-or-not choices labelled")
    draw_shuffles: int = option(64, "continuations per draw decision (the same for both moves)")
    draw_only_take: bool = option(True, "the draw gate acts only where the heuristic would not take the face-up card")
    discard_deals: int = option(0, "deals labelled for the discard gate (the heuristic's 2nd/3rd best discard); "
                                   "0: no discard gate")
    discard_seed: int = option(3000, "seed of the discard gate's label run")
    discard_rate: float = option(0.25, "share of the plain discards labelled")
    discard_shuffles: int = option(32, "continuations per discard decision (the same for all three discards)")
    discard_chunk: int = option(1000, "deals per discard label shard")

    def __post_init__(self) -> None:
        for name in ("draw_rate", "discard_rate"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float) or not 0 < v <= 1:
                raise ValueError(f"train-gate {name} must be a number in (0, 1], got {v!r}")
        if not isinstance(self.draw_only_take, bool):
            raise ValueError(f"train-gate draw_only_take must be true or false, got {self.draw_only_take!r}")
        for name in ("draw_shuffles", "discard_shuffles"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 2:
                raise ValueError(f"train-gate {name} must be an int >= 2, got {v!r}")
        for name in ("deals", "round_deals", "chunk", "shuffles", "folds", "discard_chunk"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"train-gate {name} must be an int >= 1, got {v!r}")
        for name in ("seed", "rounds", "min_deadwood", "hidden", "epochs", "draw_deals", "draw_seed",
                     "discard_deals", "discard_seed"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"train-gate {name} must be an int >= 0, got {v!r}")
        if self.min_deadwood > MAX_MIN_DEADWOOD:
            raise ValueError(f"train-gate min_deadwood must be at most {MAX_MIN_DEADWOOD}, got {self.min_deadwood}")
        if self.shuffles < 2:
            raise ValueError(f"train-gate shuffles must be at least 2, got {self.shuffles}")
        if not isinstance(self.kinds, list) or not self.kinds or not all(isinstance(k, str) for k in self.kinds):
            raise ValueError(f"train-gate kinds must be a list of model names, got {self.kinds!r}")


# wall seconds per deal of each label run on the 2-core development machine (configs/gate.yaml's measures), at
# (shuffles, rate): the knock labels of round 0 (rounds after it, the gate in the continuations: 2.5x), the draw
# labels (24,000 deals in about 40 min) and the discard labels (21,000 deals in about 20 min)
REFERENCE_SECONDS_PER_DEAL = {"knock": (0.0015, 64, 1.0), "draw": (0.1, 64, 0.25), "discard": (0.057, 32, 0.25)}


@dataclass
class Stage:
    """One label run of the pipeline, as the plan lists it."""

    name: str
    folder: str  # its shard folder under OUT
    done: Path  # the model file that says it is done
    deals: int
    shuffles: int
    seconds_per_deal: float  # the estimate, before it runs

    @property
    def seconds(self) -> float:
        return self.deals * self.seconds_per_deal


def plan(cfg: GateConfig, folder: Path) -> list[Stage]:
    """The label runs of ``cfg`` in order, those already done included."""

    def rate(kind: str, shuffles: int, share: float, factor: float = 1.0) -> float:
        ref, ref_shuffles, ref_rate = REFERENCE_SECONDS_PER_DEAL[kind]
        return ref * shuffles / ref_shuffles * share / ref_rate * factor

    stages = [Stage(f"knock gate, round {r}", f"labels_r{r}", folder / f"gate_r{r}.json",
                    cfg.deals if r == 0 else cfg.round_deals, cfg.shuffles,
                    rate("knock", cfg.shuffles, 1.0, 1.0 if r == 0 else 2.5)) for r in range(cfg.rounds + 1)]
    if cfg.draw_deals:
        stages.append(Stage("draw gate", "labels_draw", folder / "gate_draw.json", cfg.draw_deals,
                            cfg.draw_shuffles, rate("draw", cfg.draw_shuffles, cfg.draw_rate)))
    if cfg.discard_deals:
        stages.append(Stage("discard gate", "labels_discard", folder / "gate_discard.json", cfg.discard_deals,
                            cfg.discard_shuffles, rate("discard", cfg.discard_shuffles, cfg.discard_rate)))
    return stages


def plan_text(stages: list[Stage]) -> str:
    """The plan in a few lines: each stage's deals and estimated time, and the whole run's."""
    left = [s for s in stages if not s.done.exists()]
    lines = [f"train-gate: {len(stages)} label stages, each then fitted (estimates from the 2-core development "
             "machine, refined as it runs):"]
    for i, s in enumerate(stages, 1):
        state = "done" if s.done.exists() else f"about {duration(s.seconds)}"
        lines.append(f"  {i}. {s.name}: {s.deals:,} deals x {s.shuffles} shuffles, {state}")
    lines.append(f"  about {duration(sum(s.seconds for s in left))} in all; Ctrl-C stops within seconds, keeping the "
                 "finished work, and the same command resumes")
    return "\n".join(lines)


def _after(stages: list[Stage], name: str) -> Any:
    """``left_after`` of the stage ``name``: the later stages' estimate, scaled by this session's measured rate."""
    index = next(i for i, s in enumerate(stages) if s.name == name)
    expected = stages[index].seconds_per_deal
    later = sum(s.seconds for s in stages[index + 1:] if not s.done.exists())
    return lambda per_deal: later * (per_deal / expected if expected > 0 else 1.0)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return float(f"{value:.10g}")
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value


def _weights_digest(gate: KnockGate) -> str:
    """A digest of what the gated player plays by (weights, threshold, features, base player), not of
    the file's provenance, the numbers to 10 significant digits: a rebuild of the same gate has the
    same digest (the MLP's fit repeats to about 1e-15, not always to the last bit: numpy's BLAS)."""
    data = {k: v for k, v in gate.to_dict().items() if k not in ("provenance", "draw_gate")}
    return hashlib.sha256(json.dumps(_rounded(data), sort_keys=True).encode()).hexdigest()[:16]


def player_digest(gate: KnockGate) -> str:
    """A digest of what the whole gated player (every gate it has) plays by, not of the provenances:
    the key of label shards played by that player (as :func:`_weights_digest`)."""
    data = gate.to_dict()
    data.pop("provenance", None)
    for name in ("draw_gate", "discard_gate"):
        if name in data:
            data[name] = {k: v for k, v in data[name].items() if k != "provenance"}
    return hashlib.sha256(json.dumps(_rounded(data), sort_keys=True).encode()).hexdigest()[:16]


def train_gate(cfg: GateConfig, out: str | Path, progress: Any = None, stop: Any = None) -> Path:
    """Run (or resume) the pipeline; returns the path of ``OUT/gate.json``. ``stop()`` true asks it to stop
    (:class:`~.labels.LabelsStopped`, within seconds, the work done kept: see the module doc).

    ``OUT`` is held for the run (:class:`~gin3_env.training.run.lock.RunLock`: a second ``gin3 train-gate``
    into it is refused, a ``RunLockedError``) and every file is written through its descriptor, no link in
    it followed (a ``RunFolderError``, a ``ValueError``). Its config is recorded (:data:`CONFIG_FILE`): a
    run again in ``OUT`` with other settings is refused (:func:`check_same_config`), not mixed in."""
    folder = Path(out)
    check_out_folder(folder)
    with RunLock(folder, command="gin3 train-gate", check=(LOCK_NAME, CONFIG_FILE)) as lock:
        assert lock.folder is not None
        return _train_gate(cfg, folder, lock.folder, progress or (lambda s: None), stop)


def check_out_folder(folder: Path) -> None:
    """A ``ValueError`` naming ``--out`` where it cannot be a folder: a file, or a path under a file."""
    if folder.is_symlink():
        raise ValueError(f"--out {folder}: is a symbolic link; train-gate writes only into a real folder")
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"--out {folder}: is a file, not a folder")
    above = folder.parent
    while not above.exists() and above != above.parent:
        above = above.parent
    if above.exists() and not above.is_dir():
        raise ValueError(f"--out {folder}: {above} is a file, not a folder")


def check_same_config(cfg: GateConfig, held: HeldFolder) -> None:
    """Refuse (``ValueError``) a run whose config is not the one ``OUT`` was made with (its
    :data:`CONFIG_FILE`, else, for a folder made before the record, round 0's gate); record it in a new
    folder. The stages already fitted are kept only for the settings they were fitted with."""
    recorded: Any = None
    if held.lstat(CONFIG_FILE) is not None:
        recorded = read_json(held.path / CONFIG_FILE, "train-gate config", 1 << 20)
        recorded = recorded.get("config") if isinstance(recorded, dict) else None
        if not isinstance(recorded, dict):
            raise ValueError(f"{held.path / CONFIG_FILE} is damaged; remove it or choose another --out")
    elif (held.path / "gate_r0.json").is_file():
        recorded = load_gate(held.path / "gate_r0.json").provenance.get("config")
    mine = asdict(cfg)
    if isinstance(recorded, dict):
        differ = [k for k in mine if k in recorded and recorded[k] != mine[k]]
        if differ:
            shown = ", ".join(f"{k}={recorded[k]!r} (this run {mine[k]!r})" for k in differ[:4])
            raise ValueError(f"--out {held.path} holds a train-gate run made with {shown}: run it again with "
                             "the same settings to resume it, or choose another --out")
    held.write(CONFIG_FILE, (json.dumps({"config": mine}, indent=2) + "\n").encode("utf-8"))


def _save(gate: KnockGate, held: HeldFolder, name: str) -> Path:
    """Write ``gate`` as ``OUT/name`` through the held folder; returns its path."""
    held.write(name, (json.dumps(gate.to_dict(), indent=2) + "\n").encode("utf-8"))
    return held.path / name


def _fitted(held: HeldFolder, name: str) -> KnockGate | None:
    """The stage's gate ``OUT/name`` fitted by an earlier run, or None; a link or anything but a regular
    file there is refused (``ValueError``), never read through."""
    st = held.lstat(name)
    if st is None:
        return None
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"{held.path / name} is not a regular file (a symbolic link?); train-gate reads and "
                         "writes only its own files in --out (remove it)")
    return load_gate(held.path / name)


def _train_gate(cfg: GateConfig, folder: Path, held: HeldFolder, say: Any, stop: Any) -> Path:
    check_same_config(cfg, held)
    stages = plan(cfg, folder)
    say(plan_text(stages))

    def labels_of(name: str, where: Path, run: LabelRun, gate: KnockGate | None) -> list[Path]:
        if stop is not None and stop():
            raise LabelsStopped(f"before the {name} stage")
        return run_labels(where, run, gate, progress=say, stop=stop, left_after=_after(stages, name), held=held)
    options = {"ridge_lambda": cfg.ridge_lambda, "hidden": cfg.hidden, "epochs": cfg.epochs, "seed": cfg.seed}
    gate: KnockGate | None = None
    rounds: list[dict[str, Any]] = []
    for r in range(cfg.rounds + 1):
        gate_path = folder / f"gate_r{r}.json"
        prev = folder / f"gate_r{r - 1}.json"
        run = LabelRun(seed=cfg.seed + r, deals=cfg.deals if r == 0 else cfg.round_deals, chunk=cfg.chunk,
                       shuffles=cfg.shuffles, gate="" if r == 0 else _digest(prev))
        fitted = _fitted(held, gate_path.name)
        if fitted is not None:
            gate = fitted
            say(f"round {r}: gate {gate_path} already fitted")
            rounds.append(gate.provenance.get("round", {}))
            continue
        say(f"round {r}: labelling {run.deals} deals x {run.shuffles} shuffles "
            f"({'the heuristic' if gate is None else 'the gated player of round ' + str(r - 1)})")
        t0 = time.perf_counter()
        paths = labels_of(f"knock gate, round {r}", folder / f"labels_r{r}", run, gate)
        labels = load_labels(paths)
        t_labels = time.perf_counter() - t0
        new, report = fit_gate(labels, tuple(cfg.kinds), cfg.folds, cfg.min_deadwood, options, progress=say)
        info = {"round": r, "labels": asdict(run), "decisions": len(labels["D"]),
                "label_seconds_this_session": round(t_labels, 1), "fit": report.to_dict()}
        new.provenance = {"round": info, "config": asdict(cfg)}
        _save(new, held, gate_path.name)
        say(f"round {r}: {report.chosen} gate, threshold {new.threshold:+.1f}, cv gain "
            f"{report.kinds[report.chosen]['cv_gain']:+.3f} per decision -> {gate_path}")
        rounds.append(info)
        gate = new
    assert gate is not None
    method = "the heuristic with a knock gate fitted on labels on the true deal (gin3 train-gate)"
    if cfg.draw_deals:
        gate = _draw_gate(cfg, held, gate, _weights_digest(gate), options, say,
                          lambda where, run, g: labels_of("draw gate", where, run, g))
        method = ("the heuristic with a knock gate and a draw gate fitted on labels on the true deal "
                  "(gin3 train-gate)")
    if cfg.discard_deals:
        path = folder / "gate_discard.json"
        fitted = _fitted(held, path.name)
        if fitted is not None:
            say(f"discard gate: {path} already fitted")
            gate = fitted
        else:
            run = LabelRun(seed=cfg.discard_seed, deals=cfg.discard_deals, chunk=cfg.discard_chunk,
                           shuffles=cfg.discard_shuffles, gate=player_digest(gate), decision="discard",
                           rate=cfg.discard_rate)
            # the fit is seeded by the discard stage's own seed (as experiments.discard_gate fits it)
            gate = add_discard_gate(gate, folder / "labels_discard", run, tuple(cfg.kinds), cfg.folds,
                                    {**options, "seed": cfg.discard_seed}, say,
                                    lambda where, run, g: labels_of("discard gate", where, run, g))
            _save(gate, held, path.name)
        method = method.replace("fitted on labels", "and a discard gate fitted on labels")
    gate.provenance = {"method": method, "config": asdict(cfg), "rounds": rounds}
    final = _save(gate, held, "gate.json")
    say(f"model file: {final}")
    return final


def _draw_gate(cfg: GateConfig, held: HeldFolder, gate: KnockGate, digest: str, options: dict[str, Any],
               say: Any, label: Any = None) -> KnockGate:
    """``gate`` with a draw gate fitted on the take-or-not choices of its own play (resumed from
    ``OUT/gate_draw.json`` where that exists). The shards are keyed by the digest of the gate's
    weights, so shards labelled with the same knock gate are accepted whichever run fitted it."""
    folder = held.path
    path = folder / "gate_draw.json"
    fitted = _fitted(held, path.name)
    if fitted is not None:
        say(f"draw gate: {path} already fitted")
        return fitted
    run = LabelRun(seed=cfg.draw_seed, deals=cfg.draw_deals, chunk=cfg.chunk, shuffles=cfg.draw_shuffles,
                   gate=digest, decision="draw", rate=cfg.draw_rate)
    say(f"draw gate: labelling {run.deals} deals x {run.shuffles} shuffles (the gated player, "
        f"{100 * run.rate:g}% of its take-or-not choices)")
    t0 = time.perf_counter()
    label = label or (lambda where, run, g: run_labels(where, run, g, progress=say, held=held))
    labels = load_labels(label(folder / "labels_draw", run, gate))
    t_labels = time.perf_counter() - t0
    draw, report = fit_draw_gate(labels, tuple(cfg.kinds), cfg.folds, options, progress=say,
                                 only_take=cfg.draw_only_take)
    draw.provenance = {"labels": asdict(run), "decisions": len(labels["D"]),
                       "label_seconds_this_session": round(t_labels, 1), "fit": report.to_dict()}
    out = replace(gate, draw=draw, provenance=dict(gate.provenance))
    _save(out, held, path.name)
    say(f"draw gate: {report.chosen}, threshold {draw.threshold:+.1f}, cv gain "
        f"{report.kinds[report.chosen]['cv_gain']:+.3f} per decision -> {path}")
    return out


def add_discard_gate(gate: KnockGate, folder: Path, run: LabelRun, kinds: tuple[str, ...], folds: int,
                     options: dict[str, Any], say: Any, label: Any = None) -> KnockGate:
    """``gate`` with a discard gate fitted on the plain discards of its own play (``run``, shards under
    ``folder``, written through ``held`` where given; ``run.gate`` should be :func:`player_digest` of
    ``gate``)."""
    if run.decision != "discard":
        raise ValueError(f"a discard gate is fitted on discard labels, not {run.decision!r}")
    say(f"discard gate: labelling {run.deals} deals x {run.shuffles} shuffles (the gated player, "
        f"{100 * run.rate:g}% of its plain discards, its 2nd and 3rd best against its choice)")
    t0 = time.perf_counter()
    label = label or (lambda where, run, g: run_labels(where, run, g, progress=say))
    labels = load_labels(label(folder, run, gate))
    t_labels = time.perf_counter() - t0
    disc, report = fit_discard_gate(labels, kinds, folds, options, progress=say)
    disc.provenance = {"labels": asdict(run), "rows": len(labels["D"]), "decisions": report.decisions,
                       "label_seconds_this_session": round(t_labels, 1), "fit": report.to_dict()}
    out = replace(gate, discard=disc, provenance=dict(gate.provenance))
    best = report.kinds[report.chosen]
    say(f"discard gate: {report.chosen}, threshold {disc.threshold:+.1f}, cv gain {best['cv_gain']:+.3f} per "
        f"decision, switches {100 * best['hold_rate']:.1f}%")
    return out


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineErrorParser(
        prog="gin3 train-gate",
        description=f"Make the 'trained' player ({PLAYERS['trained']}): label the decisions of each gate on the "
        "true deal, fit the gates and write the model file (the config names which gates: the shipped 'gate' all "
        "three). Lists its stages with estimates; Ctrl-C stops within seconds keeping the work done, and the same "
        "command resumes in the same --out.",
    )
    parser.add_argument("--config", default="gate", help="a YAML config file or a shipped config name (default gate)")
    parser.add_argument("--out", required=True, metavar="DIR", help="folder of the label shards and the model files")
    add_option_flags(parser, GateConfig)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        cfg = GateConfig(**read_config(args.config, option_overrides(args, GateConfig), GateConfig))
    except (ValueError, FileNotFoundError) as exc:
        parser.error(str(exc))
    stop = StopRequest("gin3 train-gate", "the finished shards and the chunk's labelled deals")
    try:
        with stop:
            path = train_gate(cfg, args.out, progress=lambda s: print(s, file=sys.stderr, flush=True), stop=stop)
    except (ValueError, RunLockedError) as exc:  # RunFolderError and ModelFileError are ValueErrors
        print(f"gin3 train-gate: {exc}", file=sys.stderr)
        return 2
    except LabelsStopped as exc:
        signum = stop.signum or 2
        print(f"gin3 train-gate: stopped ({exc}); run the same command again to resume", file=sys.stderr)
        return exit_code(signum)
    except Interrupted as exc:
        print(f"gin3 train-gate: {exc}: stopped now; the finished shards in {args.out} are kept", file=sys.stderr)
        return exc.exit_code
    print(json.dumps({"model": str(path)}))
    return 0
