"""Registration: the PettingZoo and Gymnasium ids work from a fresh interpreter after
``import gin3_env`` (or, for Gymnasium, through the ``"gin3_env:"`` prefix), and
registering again is silent."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import gymnasium as gym
import pettingzoo
import pytest

import gin3_env
from gin3_env.envs import registration

HAS_SINGLE_AGENT = importlib.util.find_spec("gin3_env.envs.single_agent") is not None
# PettingZoo 1.27 on keeps a registry (pettingzoo.make); 1.24 to 1.26 have none
HAS_PZ_REGISTRY = hasattr(pettingzoo, "aec_registry")
needs_registry = pytest.mark.skipif(not HAS_PZ_REGISTRY, reason=f"PettingZoo {pettingzoo.__version__} has no registry")


def run_fresh(code: str) -> str:
    """Run ``code`` in a new interpreter; fail with its stderr if it fails; return stdout."""
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


@needs_registry
def test_pettingzoo_ids_from_a_fresh_interpreter() -> None:
    out = run_fresh(
        """
        import pettingzoo
        import gin3_env
        from gin3_env.envs import aec_hand, aec_match

        env = pettingzoo.make("aec", "gin3/three_handed_gin-v0", knock_limit=5)
        assert isinstance(env.unwrapped, aec_hand.raw_env)
        assert env.unwrapped.rules.knock_limit == 5
        env.reset(seed=0)
        obs, *_ = env.last()
        env.step(int(obs["action_mask"].nonzero()[0][0]))

        match = pettingzoo.make("aec", "gin3/three_handed_gin_match-v0", target_score=50)
        assert isinstance(match.unwrapped, aec_match.raw_env)
        match.reset(seed=0)
        assert match.agents == ["player_0", "player_1", "player_2"]
        # PettingZoo's own spelling of versions resolves to the same ids.
        assert pettingzoo.spec("aec", "gin3/three_handed_gin_v0").id == "gin3/three_handed_gin-v0"
        try:
            pettingzoo.make("aec", "gin3/three_handed_gin-v0", max_cycles=10)
        except TypeError as exc:
            assert "max_cycles" in str(exc)
        else:
            raise AssertionError("an unknown keyword must be refused")
        print("ok", str(env))
        """
    )
    assert out.split() == ["ok", "three_handed_gin_v0"]


@needs_registry
def test_registering_again_is_silent_and_idempotent() -> None:
    run_fresh(
        """
        import importlib, warnings
        warnings.simplefilter("error")  # an "Overriding environment" warning would fail this
        import gin3_env, gymnasium, pettingzoo
        from gin3_env.envs import registration

        before = (dict(pettingzoo.aec_registry), set(gymnasium.registry))
        registration.register_all()
        registration.register_gymnasium()
        importlib.reload(registration)
        importlib.reload(gin3_env)
        assert (dict(pettingzoo.aec_registry), set(gymnasium.registry)) == before
        for env_id, entry in registration.PETTINGZOO_ENVS.items():
            assert pettingzoo.aec_registry[env_id].entry_point == entry
        for env_id, entry in registration.GYMNASIUM_ENVS.items():
            assert gymnasium.registry[env_id].entry_point == entry
        """
    )


@needs_registry
def test_someone_elses_registration_is_kept_with_a_warning() -> None:
    run_fresh(
        """
        import warnings
        import pettingzoo
        pettingzoo.register("aec", "gin3/three_handed_gin-v0", entry_point="other.module:env")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            import gin3_env
        assert pettingzoo.aec_registry["gin3/three_handed_gin-v0"].entry_point == "other.module:env"
        assert any("already registered" in str(w.message) for w in caught), [str(w.message) for w in caught]
        """
    )


@needs_registry
def test_ids_and_entry_points_in_this_process() -> None:
    import gymnasium
    import pettingzoo

    assert gin3_env.env is not None and gin3_env.match_env is not None
    assert set(registration.PETTINGZOO_ENVS) <= set(pettingzoo.aec_registry)
    assert set(registration.GYMNASIUM_ENVS) <= set(gymnasium.registry)
    assert gymnasium.registry["gin3/ThreeHandedGin-v0"].entry_point == (
        "gin3_env.envs.single_agent:ThreeHandedGinEnv"
    )
    assert gymnasium.registry["gin3/ThreeHandedGinMatch-v0"].entry_point == (
        "gin3_env.envs.single_agent_match:ThreeHandedGinMatchEnv"
    )
    assert gymnasium.registry["gin3/ThreeHandedGin-v0"].vector_entry_point == "gin3_env.vector.gym_env:make_vec"
    assert gymnasium.registry["gin3/ThreeHandedGinMatch-v0"].vector_entry_point is None  # sync: no batched match
    assert callable(registration.register_gymnasium)  # public: re-registers after a user cleared the registry


@pytest.mark.skipif(not HAS_SINGLE_AGENT, reason="gin3_env/envs/single_agent.py (the Gymnasium env) not written yet")
def test_gymnasium_ids_from_a_fresh_interpreter() -> None:
    run_fresh(
        """
        import sys
        import gymnasium

        class First:  # a policy object: this test is about the ids, not the built-in policies
            def act(self, observation):
                return int(observation["action_mask"].nonzero()[0][0])

        assert "gin3_env" not in sys.modules
        env = gymnasium.make("gin3_env:gin3/ThreeHandedGin-v0", opponent=First())
        assert "gin3_env" in sys.modules
        obs, info = env.reset(seed=0)
        assert obs.shape == (374,)
        mask = env.unwrapped.action_masks()
        env.step(int(mask.nonzero()[0][0]))

        match = gymnasium.make("gin3/ThreeHandedGinMatch-v0", opponent=First())
        obs, info = match.reset(seed=0)
        assert obs.shape == (380,)
        """
    )


@pytest.mark.skipif(not HAS_SINGLE_AGENT, reason="gin3_env/envs/single_agent.py (the Gymnasium env) not written yet")
def test_subproc_vec_env_workers_know_the_ids() -> None:
    """The prefixed id in SB3's ``SubprocVecEnv`` with ``spawn`` (Windows, macOS), run as a user would (a fresh
    ``python -c``): each worker imports the package from the id. The README's id with SB3's default start method
    (forkserver on Linux) is the example of docs/training.md, which tests/test_readme.py runs."""
    pytest.importorskip("stable_baselines3")
    out = run_fresh(
        """
        from stable_baselines3.common.env_util import make_vec_env
        from stable_baselines3.common.vec_env import SubprocVecEnv

        vec = make_vec_env("gin3_env:gin3/ThreeHandedGin-v0", n_envs=2, vec_env_cls=SubprocVecEnv,
                           env_kwargs={"render_mode": "ansi"}, vec_env_kwargs={"start_method": "spawn"})
        assert vec.reset().shape == (2, 374)
        masks = vec.env_method("action_masks")
        assert len(masks) == 2 and masks[0].shape == (107,)
        vec.close()
        print("spawn ok")
        """
    )
    assert out.split("\n")[0] == "spawn ok"


def test_forkserver_preload_keeps_the_users_modules() -> None:
    run_fresh(
        """
        import multiprocessing
        from multiprocessing import forkserver
        if "forkserver" in multiprocessing.get_all_start_methods():
            forkserver.set_forkserver_preload(["__main__", "json"])
            import gin3_env
            from gin3_env.envs import registration
            registration.preload_in_forkserver()
            assert forkserver._forkserver._preload_modules == ["__main__", "json", "gin3_env"]
        """
    )


def test_factories_have_real_signatures() -> None:
    """``help()`` shows every keyword an env takes, the rules options with the rule book's values."""
    import inspect

    from gin3_env.envs import aec_match
    from gin3_env.envs.single_agent import ThreeHandedGinEnv
    from gin3_env.envs.single_agent_match import ThreeHandedGinMatchEnv
    from gin3_env.vector.gym_env import GinVectorEnv, make_vec, vector_env

    rule_book = gin3_env.Rules().to_dict()
    for factory in (gin3_env.env, gin3_env.raw_env, aec_match.env, aec_match.raw_env, ThreeHandedGinEnv,
                    ThreeHandedGinMatchEnv, GinVectorEnv, vector_env, make_vec):
        params = inspect.signature(factory).parameters
        assert not any(p.kind is p.VAR_KEYWORD for p in params.values()), factory
        assert {name: params[name].default for name in rule_book} == rule_book, factory
    assert "opponent" in inspect.signature(make_vec).parameters
    assert inspect.signature(make_vec).parameters["num_envs"].default == 1


@pytest.mark.skipif(HAS_PZ_REGISTRY, reason="this PettingZoo has a registry: the tests above")
def test_without_a_pettingzoo_registry_the_package_imports_and_registers_gymnasium() -> None:
    """PettingZoo 1.24 to 1.26 have no registry: ``import gin3_env`` registers nothing there (it
    used to fail on ``pettingzoo.aec_registry``), the AEC envs are the package's factories."""
    out = run_fresh(
        """
        import gymnasium, pettingzoo
        import gin3_env
        assert not hasattr(pettingzoo, "aec_registry")
        env = gin3_env.env()
        env.reset(seed=0)
        assert "gin3/ThreeHandedGin-v0" in gymnasium.registry
        print("ok", pettingzoo.__version__)
        """
    )
    assert out.split()[0] == "ok"


def test_a_model_gin3_train_wrote_evaluates_with_sb3s_own_tools_on_the_registered_id() -> None:
    """The shipped PPO model (``gin3 train --config default``: augmented features, 586 entries) loads with
    SB3's loader and plays ``gym.make(id, features="augmented")`` under SB3's own ``evaluate_policy``."""
    pytest.importorskip("sb3_contrib")
    from importlib.resources import files

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.evaluation import evaluate_policy
    from stable_baselines3.common.monitor import Monitor

    model = MaskablePPO.load(str(files("gin3_env") / "models" / "ppo.zip"), device="cpu")
    env = Monitor(gym.make("gin3/ThreeHandedGin-v0", features="augmented", opponent="heuristic"))
    assert env.observation_space.shape == model.observation_space.shape == (586,)
    rewards, lengths = evaluate_policy(model, env, n_eval_episodes=3, return_episode_rewards=True)
    assert len(rewards) == len(lengths) == 3
    assert gym.make("gin3/ThreeHandedGinMatch-v0", features="augmented").observation_space.shape == (592,)
    with pytest.raises(ValueError, match="unknown features 'agumented'"):
        gym.make("gin3/ThreeHandedGin-v0", features="agumented")
