"""``gin3 train-gate``: the gated player from nothing to a model file, resumable.

    gin3 train-gate --config gate --out runs/gate        # configs/gate.yaml

The config lists ``stages``, each a gate of one decision of the table
(:data:`gin3_env.kernels.decisions.DECISIONS`): ``decision``, ``deals``, ``seed``, ``shuffles``, ``rate``
(the share of the decisions labelled), ``chunk`` (deals per shard), ``options`` (the gate's options:
the knock's ``min_deadwood``, the draw's ``only_take``) and, optionally, ``fit_seed`` (the MLP's seed,
default the stage's seed). Stage ``i`` labels the decisions of its kind in deals played by the player
of the stages before it (the heuristic at first; that player also in the continuations; :mod:`.labels`,
shards under ``OUT/labels_{i}_{decision}/``), fits the gate (:mod:`.fit`) and writes the player so far
as ``OUT/gated_{i}_{decision}.json`` (a later gate of the same decision replaces the earlier one: a
second knock stage is a round of iteration on the gated player's states). The last stage's player is
written as ``OUT/gated.json`` (the model file :func:`gin3_env.policies.gate_file.load_gated` reads), with
the config and each stage's label run and fit in its provenance. A stopped run started again with the
same ``--out`` resumes: finished shards and fitted stages are kept; a run with other settings
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
import os
import stat
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gin3_env.argparsing import OneLineErrorParser
from gin3_env.files import HeldFolder, read_json
from gin3_env.kernels.decisions import decision
from gin3_env.policies.gate_file import GatedModel, gate_options, load_gated
from gin3_env.policies.registry import PLAYER_ROWS
from gin3_env.signals import Interrupted, StopRequest, exit_code
from gin3_training.configs import read_config
from gin3_training.gates.fit import fit_gate
from gin3_training.gates.labels import LabelRun, LabelsStopped, duration, load_labels, run_labels
from gin3_training.options import add_option_flags, option, option_overrides
from gin3_training.run.lock import LOCK_NAME, RunLockedError
from gin3_training.run.run import Layout, Run

__all__ = ["GateConfig", "StageConfig", "add_gate", "main", "player_digest", "train_gate"]

CONFIG_FILE = "train-gate.json"  # the config OUT was made with: a run again in OUT must match it
FINAL = "gated.json"  # the model file of the whole run (the last stage's player)
# what train-gate writes in OUT (held through the shared Run; its config record checked by check_same_config)
LAYOUT = Layout("gates", files=(CONFIG_FILE, FINAL, "gated_*.json", "labels_*"), records=False)
STAGE_KEYS = ("decision", "deals", "seed", "shuffles", "rate", "chunk", "options", "fit_seed")

DEFAULT_STAGES = [  # the shipped player's (configs/gate.yaml)
    {"decision": "knock", "deals": 120000, "seed": 1000, "shuffles": 64, "options": {"min_deadwood": 1}},
    {"decision": "draw", "deals": 24000, "seed": 2000, "shuffles": 64, "rate": 0.25, "fit_seed": 1000,
     "options": {"only_take": True}},
    {"decision": "discard", "deals": 21000, "seed": 3000, "shuffles": 32, "rate": 0.25, "chunk": 1000},
]


@dataclass(frozen=True)
class StageConfig:
    """One stage of the config: a gate of ``decision`` fitted on labels of the player of the stages before."""

    decision: str
    deals: int
    seed: int
    shuffles: int = 64
    rate: float = 1.0
    chunk: int = 2000
    options: dict[str, Any] = field(default_factory=dict)
    fit_seed: int | None = None

    def __post_init__(self) -> None:
        decision(self.decision)  # a ValueError naming the decisions
        for name in ("deals", "seed", "shuffles", "chunk"):
            v = getattr(self, name)
            low = 0 if name == "seed" else (2 if name == "shuffles" else 1)
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                raise ValueError(f"train-gate stage {name} must be an int >= {low}, got {v!r}")
        if self.fit_seed is not None and (isinstance(self.fit_seed, bool) or not isinstance(self.fit_seed, int)
                                          or self.fit_seed < 0):
            raise ValueError(f"train-gate stage fit_seed must be an int >= 0, got {self.fit_seed!r}")
        if isinstance(self.rate, bool) or not isinstance(self.rate, int | float) or not 0 < self.rate <= 1:
            raise ValueError(f"train-gate stage rate must be a number in (0, 1], got {self.rate!r}")
        gate_options(self.decision, self.options)  # a ValueError naming a bad option

    @classmethod
    def of(cls, data: Any, i: int) -> StageConfig:
        if not isinstance(data, dict):
            raise ValueError(f"train-gate stage {i + 1} must be a mapping of {', '.join(STAGE_KEYS)}")
        unknown = sorted(set(data) - set(STAGE_KEYS))
        if unknown:
            raise ValueError(f"train-gate stage {i + 1} has unknown keys {unknown}; its keys are {list(STAGE_KEYS)}")
        if "decision" not in data or "deals" not in data or "seed" not in data:
            raise ValueError(f"train-gate stage {i + 1} needs decision, deals and seed")
        return cls(**data)


@dataclass
class GateConfig:
    stages: list[dict[str, Any]] = option(DEFAULT_STAGES, "the gates fitted in order, each a mapping of decision, "
                                          "deals, seed, shuffles, rate, chunk, options and fit_seed (YAML list)")
    scorers: list[str] = option(["ridge", "mlp"], "gate scorers tried (ridge, mlp); the best cross-validated gain "
                                "is kept")
    folds: int = option(5, "folds of the cross-validation (by deal)")
    ridge_lambda: float = option(1.0, "ridge penalty on the standardised weights")
    hidden: int = option(32, "hidden units of the MLP")
    epochs: int = option(10, "MLP training epochs")

    def __post_init__(self) -> None:
        if not isinstance(self.stages, list) or not self.stages:
            raise ValueError(f"train-gate stages must be a non-empty list of stages, got {self.stages!r:.100}")
        self.stages = [asdict(StageConfig.of(stage, i)) for i, stage in enumerate(self.stages)]  # every key said
        for name in ("folds",):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"train-gate {name} must be an int >= 1, got {v!r}")
        for name in ("hidden", "epochs"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"train-gate {name} must be an int >= 0, got {v!r}")
        if not isinstance(self.scorers, list) or not self.scorers or not all(isinstance(k, str) for k in self.scorers):
            raise ValueError(f"train-gate scorers must be a list of scorer names, got {self.scorers!r}")

    def stage_configs(self) -> list[StageConfig]:
        return [StageConfig.of(s, i) for i, s in enumerate(self.stages)]


# wall seconds per deal of each decision's label run on the 2-core development machine (configs/gate.yaml's
# measures), at (shuffles, rate): the knock labels of the heuristic's play (a later knock stage, the gate in the
# continuations: 2.5x), the draw labels (24,000 deals in about 40 min) and the discard labels (21,000 deals in
# about 20 min); a decision not listed is estimated at the draw's rate
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


def stage_files(i: int, stage: StageConfig) -> tuple[str, str]:
    """(shard folder, model file) of stage ``i`` (from 0) under OUT."""
    return f"labels_{i + 1}_{stage.decision}", f"gated_{i + 1}_{stage.decision}.json"


def plan(cfg: GateConfig, folder: Path) -> list[Stage]:
    """The label runs of ``cfg`` in order, those already done included."""
    stages = []
    seen: set[str] = set()
    for i, st in enumerate(cfg.stage_configs()):
        ref, ref_shuffles, ref_rate = REFERENCE_SECONDS_PER_DEAL.get(st.decision, REFERENCE_SECONDS_PER_DEAL["draw"])
        factor = 2.5 if st.decision == "knock" and seen else 1.0  # a gated player in the continuations
        seen.add(st.decision)
        shards, model = stage_files(i, st)
        stages.append(Stage(f"{st.decision} gate, stage {i + 1}", shards, folder / model, st.deals, st.shuffles,
                            ref * st.shuffles / ref_shuffles * st.rate / ref_rate * factor))
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


def _after(stages: list[Stage], index: int) -> Any:
    """``left_after`` of stage ``index``: the later stages' estimate, scaled by this session's measured rate."""
    expected = stages[index].seconds_per_deal
    later = sum(s.seconds for s in stages[index + 1:] if not s.done.exists())
    return lambda per_deal: later * (per_deal / expected if expected > 0 else 1.0)


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return float(f"{value:.10g}")
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value


def player_digest(model: GatedModel) -> str:
    """A digest of what the gated player plays by (every gate's weights, threshold, features and options,
    and the base heuristic), not of the provenances, the numbers to 10 significant digits: the key of label
    shards played by that player (a rebuild of the same gates has the same digest: the MLP's fit repeats to
    about 1e-15, not always to the last bit, numpy's BLAS)."""
    data = model.to_dict()
    data.pop("provenance", None)
    data["gates"] = [{k: v for k, v in g.items() if k != "provenance"} for g in data["gates"]]
    return hashlib.sha256(json.dumps(_rounded(data), sort_keys=True).encode()).hexdigest()[:16]


def train_gate(cfg: GateConfig, out: str | Path, progress: Any = None, stop: Any = None) -> Path:
    """Run (or resume) the pipeline; returns the path of ``OUT/gated.json``. ``stop()`` true asks it to stop
    (:class:`~.labels.LabelsStopped`, within seconds, the work done kept: see the module doc).

    ``OUT`` is held for the run (:class:`~gin3_training.run.lock.RunLock`: a second ``gin3 train-gate``
    into it is refused, a ``RunLockedError``) and every file is written through its descriptor, no link in
    it followed (a ``RunFolderError``, a ``ValueError``). Its config is recorded (:data:`CONFIG_FILE`): a
    run again in ``OUT`` with other settings is refused (:func:`check_same_config`), not mixed in."""
    folder = Path(out)
    check_out_folder(folder)
    # the refusals before the folder, its lock or any file is made: a refused command leaves nothing behind
    if not os.path.lexists(folder / CONFIG_FILE):  # no run here: a file at a name the run writes is the user's
        Run(folder, LAYOUT, command="gin3 train-gate", elsewhere="choose another --out").check_fresh()
    check_recorded_config(cfg, folder)
    with Run(folder, LAYOUT, command="gin3 train-gate", check=(LOCK_NAME, CONFIG_FILE)) as run:
        return _train_gate(cfg, folder, run.folder, progress or (lambda s: None), stop)


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


def check_recorded_config(cfg: GateConfig, folder: Path) -> None:
    """Refuse (``ValueError``, one line) a run whose config is not the one ``OUT`` was made with (its
    :data:`CONFIG_FILE`, read through the checked reader: a FIFO, a device, a huge or deeply nested file refused);
    nothing where ``OUT`` holds no record. Writes nothing."""
    path = folder / CONFIG_FILE
    if not os.path.lexists(path):
        return
    recorded: Any = read_json(path, "train-gate config", 1 << 20)
    recorded = recorded.get("config") if isinstance(recorded, dict) else None
    if not isinstance(recorded, dict):
        raise ValueError(f"{path} is damaged; remove it or choose another --out")
    mine = asdict(cfg)
    differ = [k for k in mine if k in recorded and recorded[k] != mine[k]]
    if differ:
        shown = ", ".join(f"{k}={recorded[k]!r:.120} (this run {mine[k]!r:.120})" for k in differ[:4])
        raise ValueError(f"--out {folder} holds a train-gate run made with {shown}: run it again with "
                         "the same settings to resume it, or choose another --out")


def check_same_config(cfg: GateConfig, held: HeldFolder) -> None:
    """:func:`check_recorded_config` in the held folder (a record that is a link refused), then record this run's
    config in it. The stages already fitted are kept only for the settings they were fitted with."""
    st = held.lstat(CONFIG_FILE)
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise ValueError(f"{held.path / CONFIG_FILE} is not a regular file (a symbolic link?); remove it")
    check_recorded_config(cfg, held.path)
    held.write(CONFIG_FILE, (json.dumps({"config": asdict(cfg)}, indent=2) + "\n").encode("utf-8"))


def _save(model: GatedModel, held: HeldFolder, name: str) -> Path:
    """Write ``model`` as ``OUT/name`` through the held folder; returns its path."""
    held.write(name, (json.dumps(model.to_dict(), indent=2) + "\n").encode("utf-8"))
    return held.path / name


def _fitted(held: HeldFolder, name: str) -> GatedModel | None:
    """The stage's model ``OUT/name`` fitted by an earlier run, or None; a link or anything but a regular
    file there is refused (``ValueError``), never read through."""
    st = held.lstat(name)
    if st is None:
        return None
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"{held.path / name} is not a regular file (a symbolic link?); train-gate reads and "
                         "writes only its own files in --out (remove it)")
    return load_gated(held.path / name)


def _train_gate(cfg: GateConfig, folder: Path, held: HeldFolder, say: Any, stop: Any) -> Path:
    check_same_config(cfg, held)
    stages = plan(cfg, folder)
    say(plan_text(stages))
    fit_options = {"ridge_lambda": cfg.ridge_lambda, "hidden": cfg.hidden, "epochs": cfg.epochs}
    model = GatedModel()
    done: list[dict[str, Any]] = []
    for i, st in enumerate(cfg.stage_configs()):
        shards, name = stage_files(i, st)
        fitted = _fitted(held, name)
        if fitted is not None:
            say(f"stage {i + 1}: {folder / name} already fitted")
            model = fitted
            gate = model.gate(st.decision)
            done.append(gate.provenance if gate is not None else {})
            continue
        if stop is not None and stop():
            raise LabelsStopped(f"before stage {i + 1}")
        run = LabelRun(seed=st.seed, deals=st.deals, chunk=st.chunk, shuffles=st.shuffles,
                       gate=player_digest(model) if model.gates else "", decision=st.decision, rate=st.rate)

        def label(where: Path, run: LabelRun, player: GatedModel | None, i: int = i) -> list[Path]:
            return run_labels(where, run, player, progress=say, stop=stop, left_after=_after(stages, i), held=held)

        model = add_gate(model, folder / shards, run, tuple(cfg.scorers), cfg.folds,
                         {**fit_options, "seed": st.seed if st.fit_seed is None else st.fit_seed}, st.options, say,
                         label)
        _save(model, held, name)
        done.append(model.gate(st.decision).provenance)  # type: ignore[union-attr]
    decisions = ", ".join(dict.fromkeys(st.decision for st in cfg.stage_configs()))
    model.provenance = {"method": f"the heuristic with gates ({decisions}) fitted on labels on the true deal "
                                  "(gin3 train-gate)", "config": asdict(cfg), "stages": done}
    final = _save(model, held, FINAL)
    say(f"model file: {final}")
    return final


def add_gate(model: GatedModel, folder: Path, run: LabelRun, scorers: tuple[str, ...], folds: int,
             options: dict[str, Any], gate_opts: dict[str, Any], say: Any, label: Any = None) -> GatedModel:
    """``model`` with a gate of ``run.decision`` (in place of any it had) fitted on labels of its own play
    (``run``, shards under ``folder``; ``run.gate`` should be :func:`player_digest` of ``model``, or "" where it
    has no gates)."""
    state = "the heuristic" if not model.gates else f"the gated player ({model.scorers})"
    share = "" if run.rate >= 1 else f", {100 * run.rate:g}% of its {run.decision} decisions"
    say(f"{run.decision} gate: labelling {run.deals} deals x {run.shuffles} shuffles ({state}{share})")
    t0 = time.perf_counter()
    label = label or (lambda where, run, g: run_labels(where, run, g, progress=say))
    labels = load_labels(label(folder, run, model if model.gates else None))
    t_labels = time.perf_counter() - t0
    gate, report = fit_gate(labels, run.decision, scorers, folds, options, progress=say, gate_options=gate_opts)
    gate.provenance = {"labels": asdict(run), "rows": len(labels["D"]), "decisions": report.decisions,
                       "label_seconds_this_session": round(t_labels, 1), "fit": report.to_dict()}
    best = report.scorers[report.chosen]
    say(f"{run.decision} gate: {report.chosen}, threshold {gate.threshold:+.1f}, cv gain {best['cv_gain']:+.3f} per "
        f"decision, switches {100 * best['hold_rate']:.1f}%")
    return model.with_gate(gate)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineErrorParser(
        prog="gin3 train-gate",
        description=f"Make the 'gated' player ({PLAYER_ROWS['gated'].description}): label the decisions of "
        "each gate on the true deal, fit the gates and write the gate file (the config's stages name which gates: "
        "the shipped 'gate' all three). Lists its stages with estimates; Ctrl-C stops within seconds keeping the "
        "work done, and the same command resumes in the same --out.",
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
