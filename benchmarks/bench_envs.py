"""Environment speed: gin3_env's AEC env against OpenSpiel's gin_rummy and PettingZoo 1.26.1's gin_rummy_v4.

Usage (from the repository root, in the main virtualenv)::

    python benchmarks/bench_envs.py --setup      # once: create bench-env/ for gin_rummy_v4
    python benchmarks/bench_envs.py              # 3 rounds x 3 s per contender
    python benchmarks/bench_envs.py --quick      # one short round
    python benchmarks/bench_envs.py --json out.json

``gin_rummy_v4`` needs pettingzoo==1.26.1 and rlcard (and pygame, which it imports),
which conflict with this package's pettingzoo>=1.27, so it runs in a side
virtualenv, ``bench-env/`` (gitignored; ``$GIN3_BENCH_ENV`` points elsewhere).
``--setup`` creates it with ``python -m venv`` and installs those packages with
pip; without it that contender is reported as skipped, with this hint.
The measuring code is :mod:`gin3_env.benchmarks.envs`.
"""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

from gin3_env.benchmarks.envs import SIDE_PACKAGES, main, side_env_dir, side_python


def setup_side_env(path: Path | None = None) -> Path:
    """Create the side virtualenv with pettingzoo 1.26.1 + rlcard if it is missing; return its python."""
    path = side_env_dir() if path is None else path
    python = side_python(path)
    if not python.exists():
        print(f"creating {path} ...")
        venv.EnvBuilder(with_pip=True).create(path)
    print(f"installing {' '.join(SIDE_PACKAGES)} into {path} ...")
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *SIDE_PACKAGES], check=True)
    subprocess.run(
        [str(python), "-c", "from pettingzoo.classic import gin_rummy_v4; gin_rummy_v4.env().reset(seed=0)"],
        check=True,
    )
    print(f"ok: {python} runs gin_rummy_v4")
    return python


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--setup" in args:
        args.remove("--setup")
        setup_side_env()
        if not args:
            sys.exit(0)
    sys.exit(main(args))
