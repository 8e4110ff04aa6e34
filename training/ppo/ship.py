"""Ship a trained model inside the package: ``python -m gin3_training.ppo.ship runs/default``.

Copies the run's ``best.zip`` to ``gin3_env/models/ppo.zip`` (what
``load_policy("ppo")`` loads) without the optimizer's state (it is only needed to
keep training, and triples the file), and writes ``ppo.json`` beside it with the
run's config, steps and evaluation figures. Both files are written atomically.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gin3_env.files import atomic_output, read_json, save_json
from gin3_env.policies.loading import MODELS_DIR, PPO_MODEL, PPO_SIDECAR
from gin3_env.policies.model_file import load_sb3_model


def ship(run_dir: Path, extra: dict[str, Any] | None = None, dest: Path = PPO_MODEL) -> Path:
    best = run_dir / "best.zip"
    if not best.is_file():
        raise FileNotFoundError(f"no best.zip in {run_dir}: train first (gin3 train)")
    model = load_sb3_model(best, device="cpu")  # read as data: nothing in the file runs
    policy = model.policy
    policy.optimizer = policy.optimizer_class(policy.parameters(), lr=1e-4, **policy.optimizer_kwargs)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with atomic_output(dest) as tmp:
        model.save(tmp)
    meta: dict[str, Any] = {"name": "ppo", "source": str(run_dir)}
    for name in ("config.json", "final_eval.json"):
        path = run_dir / name
        if path.is_file():
            meta[name.removesuffix(".json")] = read_json(path, f"the run's {name}")
    meta.update(extra or {})
    sidecar = dest.with_suffix(".json") if dest != PPO_MODEL else PPO_SIDECAR
    save_json(sidecar, meta)
    return dest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=f"copy a run's best model into {MODELS_DIR}")
    parser.add_argument("run_dir", type=Path, help="the run folder (holds best.zip)")
    args = parser.parse_args(argv)
    print(f"shipped {ship(args.run_dir)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
