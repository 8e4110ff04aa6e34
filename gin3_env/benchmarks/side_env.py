"""The side virtualenv for PettingZoo 1.26.1's ``gin_rummy_v4``: ``gin3 bench --setup`` builds it.

``gin_rummy_v4`` needs pettingzoo==1.26.1 and rlcard (and pygame, which it imports),
which conflict with this package's pettingzoo>=1.27, so the envs benchmark runs it in a
virtualenv of its own: ``bench-env/`` in the current folder, or ``$GIN3_BENCH_ENV``.
"""

from __future__ import annotations

import os
import subprocess
import venv
from pathlib import Path

SIDE_PACKAGES = ("pettingzoo==1.26.1", "rlcard", "pygame")  # gin_rummy_v4 imports pygame at import time

__all__ = ["SIDE_PACKAGES", "setup_hint", "setup_side_env", "side_env_dir", "side_python"]


def side_env_dir() -> Path:
    """``$GIN3_BENCH_ENV``, else ``bench-env`` in the current folder."""
    return Path(os.environ.get("GIN3_BENCH_ENV", "bench-env")).absolute()


def side_python(path: Path | None = None) -> Path:
    path = side_env_dir() if path is None else path
    return path / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def setup_hint(path: Path | None = None) -> str:
    path = side_env_dir() if path is None else path
    return f"create it with: gin3 bench --setup  (it makes {path} with {' '.join(SIDE_PACKAGES)})"


def setup_side_env(path: Path | None = None) -> Path:
    """Create the side virtualenv with pettingzoo 1.26.1 + rlcard if it is missing; return its python."""
    path = side_env_dir() if path is None else path
    python = side_python(path)
    if not python.exists():
        print(f"creating {path} ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(path)
    print(f"installing {' '.join(SIDE_PACKAGES)} into {path} ...", flush=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *SIDE_PACKAGES], check=True)
    subprocess.run(
        [str(python), "-c", "from pettingzoo.classic import gin_rummy_v4; gin_rummy_v4.env().reset(seed=0)"],
        check=True,
    )
    print(f"ok: {python} runs gin_rummy_v4", flush=True)
    return python
