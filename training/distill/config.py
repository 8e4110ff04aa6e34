"""The distillation run's typed config (``pipeline: distill`` in a ``configs/*.yaml``).

Every key is a field of :class:`DistillConfig`, made with :func:`~gin3_training.options.option`
(``gin3 train --config quick --help`` lists them); a flag overrides the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gin3_training.options import option
from gin3_training.run.folder import check_run_name

PIPELINE = "distill"
SEED_MAX = 2**32 - 1
MAX_HIDDEN = 4096  # a hidden layer's size: (4096, 4096) is already 16M weights, far past what a player needs
MAX_DAGGER_ROUNDS = 1000  # rounds after round 0; each one plays, labels and fits again


@dataclass
class DistillConfig:
    """Arguments of one distillation run (see :mod:`gin3_training.distill.run`)."""

    pipeline: str = option(PIPELINE, "distill: fit the network player `net` to the teacher's decisions on the "
                           "batched core, then DAgger rounds on its own states")
    run_name: str = option("distill", "name of the run: its files go to OUT_DIR/RUN_NAME (a run not named by "
                           "this flag goes to RUN_NAME_2, _3, ... when that folder holds a run)")
    out_dir: str = option("runs", "folder that holds the run folders")
    seed: int = option(1, "seed of the deals, the network and the choice deals")
    teacher: str = option("gated", "the player whose actions are the labels (a policy spec with a batched form)")
    hidden: list[int] = option([256, 128], "the network's two hidden layer sizes, YAML list")
    teacher_decisions: int = option(200_000, "round 0: decisions of the teacher's own hands (with itself and "
                                    "against the heuristic)")
    dagger_rounds: int = option(1, "rounds after round 0 in which the network plays and the teacher labels")
    dagger_decisions: int = option(100_000, "decisions of each DAgger round")
    shard_size: int = option(50_000, "decisions per shard file (the unit a resumed run skips)")
    num_envs: int = option(256, "hands stepped together while making decisions")
    epochs: float = option(2.0, "passes over the decisions gathered so far at each round's fit")
    learning_rate: float = option(2e-3, "Adam's learning rate at the start of each fit (it decays to a tenth)")
    batch_size: int = option(512, "decisions per gradient step")
    threads: int = option(1, "torch threads of the fit")
    choice_deals: int = option(400, "duplicate deals against the heuristic after each round, to choose the "
                               "shipped round (seat baseline; deals used for nothing else)")
    final_eval_hands: int = option(1000, "duplicate deals of the final evaluation against the heuristic and "
                                   "the strongest shipped player (fresh deals)")
    resume: str = option("", "a run folder to continue (its finished shards and rounds are kept)")
    full_config: str = option("distill", "the config named at the end as the longer run")

    def __post_init__(self) -> None:
        check_run_name(self.run_name)
        if self.pipeline != PIPELINE:
            raise ValueError(f"config key 'pipeline' must be {PIPELINE!r} here, got {self.pipeline!r}")
        for name in ("teacher_decisions", "shard_size", "num_envs", "batch_size", "threads", "choice_deals",
                     "final_eval_hands"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"config key {name!r} must be an integer >= 1, got {value!r}")
        for name in ("dagger_rounds", "dagger_decisions"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"config key {name!r} must be an integer >= 0, got {value!r}")
        if self.dagger_rounds > MAX_DAGGER_ROUNDS:
            raise ValueError(f"config key 'dagger_rounds' must be at most {MAX_DAGGER_ROUNDS}, "
                             f"got {self.dagger_rounds}")
        for name in ("epochs", "learning_rate"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
                raise ValueError(f"config key {name!r} must be a number > 0, got {value!r}")
        if (not isinstance(self.hidden, list) or len(self.hidden) != 2
                or not all(isinstance(h, int) and not isinstance(h, bool) and 0 < h <= MAX_HIDDEN
                           for h in self.hidden)):
            raise ValueError(f"config key 'hidden' must list two layer sizes in 1..{MAX_HIDDEN}, "
                             f"got {str(self.hidden)[:80]}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or not 0 <= self.seed <= SEED_MAX // 4:
            raise ValueError(f"config key 'seed' must be an integer in 0..{SEED_MAX // 4}, got {self.seed!r}")
        for name in ("run_name", "out_dir", "teacher", "resume", "full_config"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"config key {name!r} must be text, got {getattr(self, name)!r}")

    @property
    def run_dir(self) -> Path:
        return Path(self.resume) if self.resume else Path(self.out_dir) / self.run_name

    def round_decisions(self, r: int) -> int:
        return self.teacher_decisions if r == 0 else self.dagger_decisions

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        return asdict(self)
