"""Batched players against their scalar twins, row by row; and how the kernels load."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from conftest import slow_size

from gin3_env.engine.hand import HandState
from gin3_env.engine.phases import Phase
from gin3_env.kernels.features import augment_batch
from gin3_env.observation import encoding
from gin3_env.observation.features import augment
from gin3_env.observation.layout import OBS_SIZE
from gin3_env.policies.heuristic import SIMPLE, HeuristicPolicy
from gin3_env.vector import HeuristicBatch, RandomBatch, as_batch

REPO = Path(__file__).resolve().parents[1]



def encode(state: HandState, player: int) -> np.ndarray:
    """The scalar observation of ``player`` (0 team, 1 box) in ``state``."""
    return encoding.encode(state.view(player))


def action_mask(state: HandState, player: int) -> np.ndarray:
    """The scalar mask of ``player`` (zeros unless it is to act)."""
    return encoding.action_mask(state.view(player))

def decisions(n: int, seed: int, explore: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of ``n`` decisions from hands the heuristic plays with some random
    moves mixed in (so that every phase and odd positions come up)."""
    rng = np.random.default_rng(seed)
    policy = HeuristicPolicy()
    obs, masks = [], []
    while len(obs) < n:
        state = HandState.deal(rng=rng)
        while not state.is_over and len(obs) < n:
            p = state.player
            o = {"observation": encode(state, p), "action_mask": action_mask(state, p)}
            obs.append(o["observation"])
            masks.append(o["action_mask"])
            a = policy.act(o) if rng.random() > explore else int(rng.choice(state.legal_actions()))
            state.apply(a)
    return np.array(obs), np.array(masks)


@pytest.fixture(scope="module")
def sample() -> tuple[np.ndarray, np.ndarray]:
    return decisions(3000, seed=2026)  # 60,000 in the slow test below


@pytest.mark.parametrize(
    "options",
    [{}, {"config": SIMPLE}, {"knock_early_max": 0, "late_stock": 12, "knock_late_max": 4, "outs_stock_scale": 0,
                              "danger_weight": 2.5, "take_on_knock": False, "knock_limit": 7}],
    ids=["default", "simple", "custom"],
)
def test_heuristic_batch_chooses_what_heuristic_policy_chooses(sample, options) -> None:
    obs, masks = sample
    phases = np.argmax(obs[:, 364:369], axis=1)
    assert {int(p) for p in phases} == {Phase.OFFER_TEAM, Phase.OFFER_BOX, Phase.DRAW, Phase.DISCARD}
    n = len(obs) if not options else 1500  # the default player on all 3,000; the others on 1,500
    scalar = HeuristicPolicy(**options)
    expected = np.array([scalar.act({"observation": o, "action_mask": m}) for o, m in zip(obs[:n], masks[:n],
                                                                                         strict=True)])
    np.testing.assert_array_equal(HeuristicBatch(**options).act(obs[:n], masks[:n]), expected)
    # one row at a time (the serial kernel) gives the same
    np.testing.assert_array_equal(HeuristicBatch(**options).act(obs[:40], masks[:40]), expected[:40])


@pytest.mark.slow
def test_heuristic_batch_on_many_more_decisions() -> None:
    obs, masks = decisions(slow_size(60000, 15000), seed=7, explore=0.5)
    scalar = HeuristicPolicy()
    expected = [scalar.act({"observation": o, "action_mask": m}) for o, m in zip(obs, masks, strict=True)]
    np.testing.assert_array_equal(HeuristicBatch().act(obs, masks), expected)


def test_augment_batch_equals_augment(sample) -> None:
    obs, _ = sample
    rows = obs[:3000]
    np.testing.assert_array_equal(augment_batch(rows), np.array([augment(o) for o in rows]))
    np.testing.assert_array_equal(augment_batch(rows[:5]), np.array([augment(o) for o in rows[:5]]))


def test_random_batch_is_legal_uniform_and_seeded(sample) -> None:
    obs, masks = sample
    a, b = RandomBatch(3).act(obs, masks), RandomBatch(3).act(obs, masks)
    np.testing.assert_array_equal(a, b)
    assert masks[np.arange(len(masks)), a].all()
    two = masks[:, :3].sum(axis=1) == 2  # offers: take or pass
    offer = masks[:, 1] & masks[:, 2] & two
    share = (a[offer.astype(bool)] == 1).mean()
    assert 0.4 < share < 0.6


def test_batch_input_is_checked() -> None:
    with pytest.raises(ValueError, match="shape"):
        HeuristicBatch().act(np.zeros((2, 10), np.float32), np.ones((2, 107), np.int8))
    with pytest.raises(ValueError, match="row 1 of the masks has no legal action"):
        RandomBatch().act(np.zeros((2, OBS_SIZE), np.float32), np.array([[1] * 107, [0] * 107]))
    with pytest.raises(ValueError, match="unknown HeuristicPolicy option"):
        HeuristicBatch(outs=3)


def test_as_batch_maps_scalar_policies_to_their_batched_forms() -> None:
    from gin3_env.policies import RandomPolicy

    assert isinstance(as_batch("heuristic"), HeuristicBatch)
    assert as_batch(HeuristicPolicy(SIMPLE)).config == SIMPLE
    assert isinstance(as_batch(RandomPolicy(1)), RandomBatch)
    assert as_batch(object()) is None


def _run(code: str, env: dict[str, str] | None = None, cwd: Path | None = None, prefix: tuple[str, ...] = ()) -> str:
    proc = subprocess.run([*prefix, sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_import_gin3_env_does_not_import_numba() -> None:
    out = _run("import sys, gin3_env; gin3_env.vector_env; print('numba' in sys.modules)",
               env={**os.environ, "PYTHONPATH": str(REPO)})
    assert out.strip() == "False"


def test_kernels_cache_where_the_package_is_read_only() -> None:
    """A read-only install (a package directory this user cannot write): numba falls back to its
    user cache dir. As root (who can write anywhere) the check runs as the user ``nobody``."""
    if os.name != "posix":
        pytest.skip("POSIX permissions")
    prefix: tuple[str, ...] = ()
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv to drop to another user")
        prefix = (setpriv, "--reuid=65534", "--regid=65534", "--clear-groups")
    base = Path(tempfile.mkdtemp(prefix="gin3-ro-"))
    try:
        base.chmod(0o755)
        site = base / "site"
        shutil.copytree(REPO / "gin3_env", site / "gin3_env", ignore=shutil.ignore_patterns("__pycache__", "models"))
        for path in [site, *site.rglob("*")]:
            path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) | stat.S_IROTH
                       | (stat.S_IXOTH if path.is_dir() else 0))
        home = base / "home"
        home.mkdir()
        home.chmod(0o777)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "XDG_"))}
        env.update(PYTHONPATH=str(site), HOME=str(home))
        code = "from gin3_env.kernels import meld_kernels as m; print(m.deadwood(0b111 | 1 << 20))"  # A-2-3C and 8D
        assert _run(code, env=env, cwd=home, prefix=prefix).strip() == "8"
        assert not list(site.rglob("*.nbi"))  # nothing could be written beside the code
        assert list(home.rglob("*.nbi")), "numba wrote no cache index in the user cache dir"
        assert _run(code, env=env, cwd=home, prefix=prefix).strip() == "8"  # and loads from it
    finally:
        shutil.rmtree(base, ignore_errors=True)
