"""A non-editable install carries what the commands need: ``gin3 train --config quick`` finds its
config from any folder, and ``python -m gin3_env`` is the ``gin3`` command.

The wheel is built from a copy of the checkout (so nothing is written into it) without build
isolation, and installed with ``pip install --target`` into a temporary folder, never into the
running environment.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    src = work / "src"
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "gin3_env", src / "gin3_env", ignore=ignore)
    shutil.copytree(ROOT / "configs", src / "configs", ignore=ignore)
    shutil.copytree(ROOT / "training", src / "training", ignore=ignore)
    dist = work / "dist"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(dist), str(src)], check=True)
    (wheel,) = dist.glob("gin3_env-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "gin3_training/configs/quick.yaml" in names, names
    target = work / "site"
    subprocess.run([*pip, "install", "--no-deps", "--target", str(target), str(wheel)], check=True)
    return target


def run_installed(target: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # The dependencies come from the running environment; gin3_env only from the install.
    env = {**os.environ, "PYTHONPATH": str(target)}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.packaging
def test_installed_package_finds_the_shipped_configs_from_any_folder(installed: Path, tmp_path: Path) -> None:
    code = (
        "import gin3_env, sys; from gin3_training.configs import CONFIG_DIR; "
        "from gin3_training.ppo.config import load_config; "
        "print(gin3_env.__file__); print(CONFIG_DIR); print(load_config('ppo_quick').run_name)"
    )
    proc = run_installed(installed, tmp_path, "-c", code)
    assert proc.returncode == 0, proc.stderr
    package_file, config_dir, run_name = proc.stdout.split()
    assert Path(package_file).is_relative_to(installed) and Path(config_dir).is_relative_to(installed)
    assert run_name == "ppo_quick"


@pytest.mark.packaging
def test_python_dash_m_gin3_env_is_the_command(installed: Path, tmp_path: Path) -> None:
    proc = run_installed(installed, tmp_path, "-m", "gin3_env", "train", "--help")
    assert proc.returncode == 0, proc.stderr
    assert "--config" in proc.stdout
    proc = run_installed(installed, tmp_path, "-m", "gin3_env", "--help")
    assert proc.returncode == 0 and "train" in proc.stdout and "play" in proc.stdout


def test_the_openspiel_extra_brings_what_openspiels_rl_agents_import() -> None:
    """OpenSpiel's pytorch agents (DQN, NFSP, policy gradients) import ``tree`` (dm-tree), which open-spiel does
    not declare: the ``openspiel`` extra brings it, so its users' recipes run."""
    import re

    extra = re.search(r"^openspiel = \[(.*?)\]", (ROOT / "pyproject.toml").read_text(), re.M | re.S)
    assert extra and re.search(r'"dm[-_]tree\b', extra[1]), extra  # Python 3.10 has no tomllib: the line itself
    pytest.importorskip("open_spiel")
    pytest.importorskip("tree")  # an environment installed before the extra brought it
    from open_spiel.python.pytorch import dqn, nfsp, policy_gradient

    assert dqn.DQN and nfsp.NFSP and policy_gradient.PolicyGradient
