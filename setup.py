"""Build hook: the training configs live in the top-level ``configs/`` folder (where users look for
them) and are copied into the package as ``gin3_env/training/configs/`` when a wheel is built, so
``gin3 train --config quick`` works from any folder after a non-editable install. Everything else
is in ``pyproject.toml``."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithConfigs(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads configs/ in the checkout
            return
        target = Path(self.build_lib) / "gin3_env" / "training" / "configs"
        target.mkdir(parents=True, exist_ok=True)
        for config in sorted((ROOT / "configs").rglob("*.yaml")):  # configs/rllib/ too
            destination = target / config.relative_to(ROOT / "configs")
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(config, destination)


setup(cmdclass={"build_py": BuildWithConfigs})
