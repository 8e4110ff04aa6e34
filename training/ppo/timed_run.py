"""Train and evaluate within a time limit, everything in one folder.

    python -m gin3_training.ppo.timed_run --config gpu --minutes 30 --out runs/gpu
    python -m gin3_training.ppo.timed_run --config ppo_quick --minutes 2 --out runs/q --total-timesteps 20000

``gin3 train`` with ``max_minutes``: PPO stops at the first step after nine tenths of
``--minutes`` (counted from the start, warm start included), and the last tenth is left for
the end of the run: the re-evaluation of the best candidates and the final table against the
heuristic and random, on the batched core. ``--out DIR`` is the run folder: it receives the
run's files (``best.zip`` and its ``best.json``, ``final_eval.json``, checkpoints, logs) and
``evaluation.md``, the final table with how long the run took and how far it got. Every
config key can be overridden by its ``gin3 train`` flag; a folder that already holds a run is
refused unless ``--overwrite``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from gin3_env.argparsing import OneLineErrorParser
from gin3_env.evaluation.stats import signed
from gin3_env.files import read_json
from gin3_training.ppo.config import TrainConfig, add_flags, flag_overrides, load_config
from gin3_training.run.checkpoints import write_bytes
from gin3_training.run.folder import holding

PPO_SHARE = 0.9  # of the minutes, for the warm start and PPO; the rest for the final evaluations


def evaluation_table(config: str, cfg: TrainConfig, summary: dict[str, Any], minutes: float, wall_s: float) -> str:
    """The final table of a run as Markdown, with its time limit and how far it got."""
    from stable_baselines3.common.utils import get_device

    from gin3_training.ppo.precision import resolve_precision

    device = get_device(cfg.device)
    lines = [f"# {cfg.run_name}: best.zip evaluated", "",
             f"Config `{config}` on {device} ({resolve_precision(cfg.precision, device)}), a limit of {minutes:g} "
             "minutes: "
             f"{summary['num_timesteps']:,} PPO steps of {cfg.total_timesteps:,} in {wall_s / 60:.1f} minutes; "
             f"best.zip is the model of step {summary['best_step']:,}.", "",
             f"{cfg.final_eval_hands:,} deals used for nothing else, each played in both roles:", "",
             "| opponent | points/hand | 95% CI | as team | as box |", "|---|---|---|---|---|"]
    for name, s in summary["vs"].items():
        ci = f"[{signed(s['mean'] - s['ci95'])}, {signed(s['mean'] + s['ci95'])}]"
        lines.append(f"| {name} | {signed(s['mean'])} | {ci} | {signed(s['team_mean'])} | {signed(s['box_mean'])} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = OneLineErrorParser(
        prog="python -m gin3_training.ppo.timed_run",
        description="Train and evaluate within a time limit; the model and its evaluation table go to one folder.",
    )
    parser.add_argument("--config", default="gpu", help="config name or YAML path (default: gpu)")
    parser.add_argument("--minutes", type=float, required=True, help="the whole run's time limit in minutes")
    parser.add_argument("--out", type=Path, required=True, help="the run folder (created; refused if it holds a run)")
    add_flags(parser)
    args = parser.parse_args(argv)
    if not args.minutes > 0:
        parser.error(f"--minutes must be > 0, got {args.minutes:g}")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        parser.error(f"--out {out} exists and is not a folder")
    overrides = {**flag_overrides(args), "max_minutes": args.minutes * PPO_SHARE,
                 "out_dir": str(out.parent), "run_name": out.name}
    try:
        cfg = load_config(args.config, overrides)
    except (ValueError, FileNotFoundError) as exc:
        parser.error(str(exc))
    from gin3_training.ppo.train import run_train

    start = time.monotonic()
    code = run_train(cfg, list(sys.argv[1:] if argv is None else argv))
    if code != 0:
        return code
    summary = read_json(cfg.run_dir / "final_eval.json", "the run's final evaluation")
    table = evaluation_table(args.config, cfg, summary, args.minutes, time.monotonic() - start)
    try:
        with holding(cfg.run_dir):  # through the run folder's descriptor, recorded as the run's
            write_bytes(cfg.run_dir / "evaluation.md", table.encode("utf-8"))
    except OSError as exc:
        print(f"timed_run: error: cannot write {cfg.run_dir / 'evaluation.md'}: {exc}", file=sys.stderr)
        return 1
    print(f"\nThe model: {cfg.run_dir / 'best.zip'}; its table: {cfg.run_dir / 'evaluation.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
