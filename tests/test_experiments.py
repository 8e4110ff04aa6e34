"""The research scripts of the top-level ``experiments/``: each still runs as
``python -m experiments.NAME`` from the repository root, and ``docs/experiments.md`` lists them all
(``tests/test_layering.py`` checks that the package imports none of them)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENTS = ROOT / "experiments"
LIBRARIES = {"privileged_critic", "privileged_env",  # the policy class and the env that privileged.py trains on
             "knock_learner_env", "ismcts_bot"}  # the knock learner env (knock_ppo.py), the IS-MCTS bot (ismcts.py)
# import torch and SB3 at the top; tests/test_privileged.py and tests/test_residual_ppo.py run them
SLOW_TO_IMPORT = {"privileged", "residual_ppo"}
SCRIPTS = sorted(p.stem for p in EXPERIMENTS.glob("*.py") if p.stem != "__init__" and p.stem not in LIBRARIES)


def test_there_are_experiments() -> None:
    assert {"belief_head", "belief_report", "critic_value", "precision_curves", "search_diagnosis",
            "search_strength", "privileged"} <= set(SCRIPTS)


@pytest.mark.parametrize("name", [s for s in SCRIPTS if s not in SLOW_TO_IMPORT])
def test_each_experiment_runs_from_the_repository_root(name: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-m", f"experiments.{name}", "--help"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage:"), done.stdout[:200]


def test_the_docs_list_every_experiment() -> None:
    text = (ROOT / "docs" / "experiments.md").read_text()
    listed = set(re.findall(r"python -m experiments\.([a-z_]+)", text))
    assert listed == set(SCRIPTS), f"docs/experiments.md lists {sorted(listed)}, experiments/ holds {SCRIPTS}"
    for name in (*SCRIPTS, *LIBRARIES):
        assert f"`experiments/{name}.py`" in text, name


def test_improve_rounds_reads_evaluate_results_against_net(tmp_path) -> None:
    import json

    import pytest

    from experiments.improve_rounds import main, read_point

    def result(b: str) -> dict:
        return {"reports": {"hands": {"policy_a": "a.npz", "policy_b": b, "n_deals": 20, "seed": 3,
                                      "points_per_hand": {"mean": 0.5, "low": -0.1, "high": 1.1}}}}

    (tmp_path / "a.json").write_text(json.dumps(result("net")))
    (tmp_path / "b.json").write_text(json.dumps(result("gated")))
    p = read_point("100", "tuned", str(tmp_path / "a.json"))
    assert (p["labels"], p["mean"], p["low"], p["deals"]) == (100, 0.5, -0.1, 20)
    with pytest.raises(ValueError, match="not net"):
        read_point("100", "tuned", str(tmp_path / "b.json"))
    (tmp_path / "d.json").write_text(json.dumps(result("../old/net.npz")))  # the distilled network's own file
    assert read_point("500", "tuned", str(tmp_path / "d.json"))["opponent"] == "../old/net.npz"
    with pytest.raises(ValueError, match="count of labelled decisions"):
        read_point("many", "tuned", str(tmp_path / "a.json"))
    assert main(["--point", "100", "ridge", str(tmp_path / "a.json"), "--plot", str(tmp_path / "c.png")]) == 0
    assert (tmp_path / "c.png").stat().st_size > 1000


def test_pooled_results_are_the_mean_and_interval_of_every_deal(tmp_path) -> None:
    """Differential: two results pooled give the mean, deviation and interval of their deals played as one run;
    a seed in two files (the same deals) is refused."""
    import json

    import numpy as np
    import pytest

    from experiments.pooled import main, pooled
    from gin3_env.evaluation.stats import mean_ci

    rng = np.random.default_rng(0)
    deals = [rng.normal(0.3, 9.0, 400), rng.normal(0.1, 11.0, 900)]

    def stats(x: np.ndarray) -> dict:
        return mean_ci(x.tolist()).to_dict()  # what gin3 evaluate writes of a sample

    for k, (x, seed) in enumerate(zip(deals, (1, 2), strict=True)):
        report = {"policy_a": "net", "policy_b": "gated", "n_deals": len(x), "seed": seed,
                  "points_per_hand": stats(x), "seat_adjusted": {"team": stats(x + 1), "box": stats(x - 1)}}
        (tmp_path / f"r{k}.json").write_text(json.dumps({"reports": {"hands": report}}))
    files = [str(tmp_path / "r0.json"), str(tmp_path / "r1.json")]
    out = pooled(files)["pooled"]
    every = np.concatenate(deals)
    for name, shift in (("points_per_hand", 0), ("team", 1), ("box", -1)):
        want, got = mean_ci((every + shift).tolist()), out[name]
        assert got.n == want.n == 1300
        assert np.allclose([got.mean, got.low, got.high, got.std], [want.mean, want.low, want.high, want.std])
    with pytest.raises(ValueError, match="appear in more than one file"):
        pooled([files[0], files[0]])
    assert main([*files, "--json", str(tmp_path / "p.json")]) == 0 and (tmp_path / "p.json").is_file()
