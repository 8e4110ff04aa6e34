"""Compile the numba kernels the default suite uses into numba's cache, once, before the xdist workers start.

numba compiles a kernel the first time it is called with a new signature and, with ``cache=True``
(:mod:`gin3_env.kernels.jit`), keeps the machine code in a ``__pycache__`` beside its source. Two
workers starting on a cold cache each compiled every kernel they met (about 155 CPU-s a run, the
same kernels twice). ``tests/conftest.py`` runs this module in the xdist controller before the
workers start: two processes, one per group below (the players and the envs; the search and the
lab's label kernels), so the two cores compile at once, and the workers then load every kernel from
the cache. On a warm cache each group only loads (a few CPU-seconds).

Each group plays the kernels through the same entry points the tests use (so the same argument
types: one signature, one compile), at the smallest sizes. A group that fails says so on stderr and
the suite runs anyway (the tests then compile what they need, as before).

``python tests/kernel_warmup.py`` warms both groups; ``python tests/kernel_warmup.py play`` one.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GROUPS = ("play", "search")


def warm_play() -> None:
    """The batched core, the batched players (random, heuristic, gated, net), their evaluation and the envs."""
    import numpy as np

    import gin3_env  # noqa: F401  (installs the policy loader and the batched encoders)
    from gin3_env.engine.rules import Rules
    from gin3_env.evaluation import evaluate_hands
    from gin3_env.kernels.features import augment_batch
    from gin3_env.policies import load_policy
    from gin3_env.vector import HeuristicBatch, RandomBatch, VectorHands

    for a, b in (("gated", "heuristic"), ("net", "random"), ("heuristic", "random")):
        evaluate_hands(load_policy(a), load_policy(b), 50, seed=0, seat_baseline=True)
    five = Rules(knock_limit=5)
    evaluate_hands(load_policy("heuristic", rules=five), load_policy("gated", rules=five), 50, seed=0, rules=five)
    from gin3_env.kernels.hand_kernels import OVER

    hands = VectorHands(8, seed=0)
    hands.reset(seed=0)
    for _ in range(40):  # as conftest.rows_of_play steps it
        live = np.flatnonzero(hands.phase != OVER)
        live = live[hands.mask_view[live].any(axis=1)]
        if not len(live):
            break
        obs, mask = hands.observe_rows(live), np.ascontiguousarray(hands.mask_view[live])
        hands.apply(live, HeuristicBatch().act(obs, mask))
        augment_batch(obs)
        RandomBatch(0).act(obs, mask)
    hands.observe()

    import gymnasium as gym

    for env_id in ("gin3/ThreeHandedGin-v0", "gin3/ThreeHandedGinMatch-v0"):
        env = gym.make(env_id, opponent="gated")
        env.reset(seed=0)
        for _ in range(30):
            mask = env.unwrapped.action_masks()
            _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(mask)[0]))
            if terminated or truncated:
                env.reset()
        env.close()
    vec = gym.make_vec("gin3/ThreeHandedGin-v0", num_envs=4, vectorization_mode="vector_entry_point",
                       opponent="heuristic")
    vec.reset(seed=0)
    for _ in range(30):
        vec.step(np.asarray([int(np.flatnonzero(m)[0]) for m in vec.unwrapped.action_masks()]))
    vec.close()


def warm_search() -> None:
    """The search and its belief (playouts of the heuristic and the gated player), and the lab's label kernels."""
    import numpy as np

    import gin3_env  # noqa: F401
    from gin3_env.evaluation.hands import play_deal
    from gin3_env.policies import HeuristicPolicy
    from gin3_env.policies.search import SearchPolicy

    deck = [int(c) for c in np.random.default_rng(5).permutation(52)]
    for rollout in ("heuristic", "gated"):
        search = SearchPolicy(seed=0, samples=8, time_budget=None, rollout_policy=rollout)
        play_deal(search, HeuristicPolicy(), deck)

    from gin3_env.engine.hand import HandState
    from gin3_env.engine.rules import Rules
    from gin3_env.observation import action_mask, decode, encode
    from gin3_env.policies.belief import HandTracker
    from gin3_env.policies.search import MCMC_BELIEF

    rules = Rules()  # the resample-move belief (its whole-history kernels), as tests/test_belief.py tracks it
    tracker = HandTracker(rules, MCMC_BELIEF, np.random.default_rng(1))
    state, heuristic = HandState.deal(rules, deck=deck), HeuristicPolicy()
    for _ in range(40):
        if state.is_over:
            break
        obs, mask = encode(state.view(state.player)), action_mask(state.view(state.player))
        if state.player == 0:
            tracker.observe(decode(obs, rules))
        action = heuristic.act({"observation": obs, "action_mask": mask})
        if state.player == 0:
            tracker.record(action)
        state.apply(action)

    from gin3_env.kernels.decisions import DECISIONS
    from gin3_env.kernels.gates import features_rows
    from gin3_env.kernels.heuristic_params import HeuristicConfig, heuristic_params
    from gin3_env.vector import RandomBatch, VectorHands

    hands = VectorHands(16)
    hands.reset(seed=4)
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import rows_of_play

    obs, mask = rows_of_play(hands, RandomBatch(4), 10)
    fp, ip = heuristic_params(HeuristicConfig())
    for d in DECISIONS:
        features_rows(d.code, obs, mask, fp, ip, 10, np.zeros((len(obs), len(d.features))))

    try:
        from gin3_training.gates.labels import LabelRun, label_chunk
        from gin3_training.improve.labels import ActionLabels, _batch_player, continuation_args, label_shard
    except ImportError:  # the lab's extra is not installed: its tests skip
        return
    for d in DECISIONS:
        label_chunk(LabelRun(seed=5, deals=6, chunk=6, shuffles=2, decision=d.name), 0, None)
    run = ActionLabels(seed=3, decisions=10, shard_size=10, shuffles=2, rate=0.5, num_envs=8, candidates=2,
                       continuation="heuristic")
    label_shard(run, 0, _batch_player("net"), _batch_player("heuristic"), continuation_args("heuristic"))


# what the warm cache was compiled from: the sources numba's stamps read (gin3_env.kernels.jit.STAMPED and the
# lab's label kernels); a record of them and of the index files written sits beside the kernels' cache
SOURCES = (*(f"gin3_env/{part}" for part in ("engine", "observation", "kernels")), "training/gates", "training/improve")
RECORD = ROOT / "gin3_env" / "kernels" / "__pycache__" / "tests-kernel-warmup.json"


def _stamp() -> dict[str, Any]:
    files = sorted(path for part in SOURCES for path in (ROOT / part).glob("*.py"))
    return {"python": sys.version, "numba": version("numba"),
            "sources": [[str(p.relative_to(ROOT)), p.stat().st_mtime_ns, p.stat().st_size] for p in files]}


def _indexes() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for part in SOURCES for p in (ROOT / part / "__pycache__").glob("*.nbi"))


def is_warm() -> bool:
    """The cache holds what the last warm-up wrote, from the same sources: nothing to compile."""
    try:
        record = json.loads(RECORD.read_text())
        return record["stamp"] == json.loads(json.dumps(_stamp())) and all(
            (ROOT / path).is_file() for path in record["indexes"])
    except (OSError, ValueError, KeyError, TypeError):
        return False


def warm(groups: tuple[str, ...] = GROUPS, timeout: float = 600) -> list[str]:
    """Run each group in a process of its own, all at once; returns a line per group that failed. Nothing
    when :func:`is_warm`."""
    if groups == GROUPS and is_warm():
        return []
    started = [(g, subprocess.Popen([sys.executable, __file__, g], cwd=ROOT, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, text=True)) for g in groups]
    failed = []
    deadline = time.monotonic() + timeout
    for group, proc in started:
        try:
            _, err = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
        if proc.returncode:
            failed.append(f"kernel warm-up {group!r} failed (the tests compile what they need): "
                          f"{(err or '').strip().splitlines()[-1:] or proc.returncode}")
    if not failed and groups == GROUPS and os.environ.get("NUMBA_CACHE_DIR") is None:
        with contextlib.suppress(OSError):  # a read-only checkout: warm again next time
            RECORD.write_text(json.dumps({"stamp": _stamp(), "indexes": _indexes()}))
    return failed


if __name__ == "__main__":
    names = tuple(sys.argv[1:]) or GROUPS
    if len(names) == 1:
        sys.path.insert(0, str(ROOT))
        {"play": warm_play, "search": warm_search}[names[0]]()
    else:
        for line in warm(names):
            print(line, file=sys.stderr)
