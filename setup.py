"""Build hook. Two import packages come from this checkout: ``gin3_env`` (the game and what plays it) and
``gin3_training`` (the lab that makes players), whose source is the top-level ``training/`` folder. The
training configs live in the top-level ``configs/`` folder (where users look for them) and are copied into the
lab as ``gin3_training/configs/`` when a wheel is built, so ``gin3 train --config quick`` works from any folder
after a non-editable install. Everything else is in ``pyproject.toml``."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
LAB = "gin3_training"  # the import name of training/: no other project would take it


class BuildWithConfigs(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads configs/ in the checkout
            return
        target = Path(self.build_lib) / LAB / "configs"
        target.mkdir(parents=True, exist_ok=True)
        for config in sorted((ROOT / "configs").rglob("*.yaml")):  # configs/rllib/ too
            destination = target / config.relative_to(ROOT / "configs")
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(config, destination)


setup(
    cmdclass={"build_py": BuildWithConfigs},
    packages=[*find_packages(include=["gin3_env", "gin3_env.*"]),
              LAB, *(f"{LAB}.{name}" for name in find_packages("training"))],
    package_dir={LAB: "training"},
)
