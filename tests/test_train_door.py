"""`gin3 train`'s door: a PPO flag given to a config of another pipeline names the PPO configs and the command meant."""

from __future__ import annotations

import pytest

from gin3_training.ppo.config import PPO_CONFIGS, TrainConfig, load_config
from gin3_training.train import main, ppo_only_flags

MEANT = "gin3 train --config ppo_quick --total-timesteps 1000"


@pytest.mark.parametrize("config", [[], ["--config", "quick"], ["--config=distill"]])
def test_a_ppo_flag_on_a_distillation_config_says_which_configs_take_it(
        config: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*config, "--total-timesteps", "1000"]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and not captured.out, err
    assert f"--total-timesteps is a flag of the PPO configs ({', '.join(PPO_CONFIGS)})" in err[0]
    assert err[0].endswith(f"(distillation); run: {MEANT}"), err[0]


def test_the_ppo_configs_named_are_the_ppo_pipelines_and_the_flags_shared_pass() -> None:
    for name in PPO_CONFIGS:
        assert isinstance(load_config(name), TrainConfig)
    assert ppo_only_flags(["--seed", "3", "--run-name", "x", "--out-dir=o"], "distill") == []  # both take them
    assert ppo_only_flags(["--total-timesteps", "9"], "ppo") == []
    assert ppo_only_flags(["--n-envs=2", "--learning-rate", "1"], "improve") == ["--n-envs", "--learning-rate"]
