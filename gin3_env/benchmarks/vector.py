"""The batched core (``gin3_env.vector``) against the scalar envs and OpenSpiel, in one run.

``gin3 bench --only vector [--quick]``. Rows (rates are per CPU second of this process, as
in the ``envs`` suite, with numba held to one thread unless a row says otherwise):

- ``random_play``: ``VectorHands(4096)``, ``observe()`` and ``action_mask`` read every step, a
  random legal action per hand, ``step``; against OpenSpiel ``gin_rummy`` with
  ``observation_tensor()``, ``legal_actions()``, ``apply_action`` (target >= 50x).
- ``learner_vs_heuristic``: ``vector_env(256, opponent="heuristic")``, random learner actions from
  ``action_masks()``; against ``ThreeHandedGinEnv(opponent="heuristic")`` played the same way
  (target >= 30x).
- ``evaluate``: ``evaluate_hands(heuristic, heuristic)`` batched against the scalar loop
  (target: 100,000 duplicate deals in under 60 s).
- ``memory``: resident memory of a fresh process holding ``vector_env(4096)`` after 50 steps
  (target < 200 MB for the hands).
- ``scaling``: ``learner_vs_heuristic`` steps per wall-clock second for N = 1, 16, 256, 4096
  hands, with 1 and 2 numba threads.
- ``compile``: first use in a fresh process with an empty numba cache, then with it warm.

PPO on the batched env against ``vec_env: subproc`` is the lab's ``train`` suite
(``gin3 bench --only train``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from .envs import measure_openspiel

TARGETS = {"random_play": 50.0, "learner_vs_heuristic": 30.0}  # in the JSON report, not printed
RATIO_MEANING = {
    "random_play": "VectorHands steps over OpenSpiel gin_rummy's",
    "learner_vs_heuristic": "vector_env steps over ThreeHandedGinEnv's",
}


def _rates(steps: int, wall: float, cpu: float) -> dict[str, float]:
    return {"steps": steps, "seconds": wall, "steps_per_s": steps / max(cpu, 1e-9),
            "steps_per_wall_s": steps / max(wall, 1e-9)}


def _threads(n: int) -> None:
    import numba

    from ..vector import set_num_threads

    set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))


# ------------------------------------------------------------------ rows
def random_play(seconds: float, num_envs: int = 4096) -> dict[str, float]:
    from ..vector import RandomBatch, VectorHands

    hands, player = VectorHands(num_envs, seed=0), RandomBatch(0)
    hands.step(player.act(hands.observe(), hands.action_mask))  # warm
    steps = 0
    wall, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        obs, mask = hands.observe(), hands.action_mask
        hands.step(player.act(obs, mask))
        steps += num_envs
    return _rates(steps, time.perf_counter() - wall, time.process_time() - cpu)


def learner_batched(seconds: float, num_envs: int = 256) -> dict[str, float]:
    from ..vector import RandomBatch, vector_env

    env, player = vector_env(num_envs, opponent="heuristic", seed=0), RandomBatch(0)
    obs, _ = env.reset(seed=0)
    obs, *_ = env.step(player.act(obs, env.action_masks()))
    steps = 0
    wall, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        obs, *_ = env.step(player.act(obs, env.action_masks()))
        steps += num_envs
    return _rates(steps, time.perf_counter() - wall, time.process_time() - cpu)


def learner_scalar(seconds: float) -> dict[str, float]:
    from ..envs.single_agent import ThreeHandedGinEnv

    env = ThreeHandedGinEnv(opponent="heuristic")
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    steps = 0
    wall, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        legal = np.flatnonzero(env.action_masks())
        _, _, terminated, truncated, _ = env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
        if terminated or truncated:
            env.reset()
    return _rates(steps, time.perf_counter() - wall, time.process_time() - cpu)


def evaluate_rate(deals: int, scalar_deals: int) -> dict[str, Any]:
    from ..evaluation import evaluate_hands
    from ..policies import HeuristicPolicy

    start, cpu = time.perf_counter(), time.process_time()
    batched = evaluate_hands(HeuristicPolicy(), HeuristicPolicy(), deals, seed=1, batched=True)
    b_wall, b_cpu = time.perf_counter() - start, time.process_time() - cpu
    start = time.perf_counter()
    evaluate_hands(HeuristicPolicy(), HeuristicPolicy(), scalar_deals, seed=1, batched=False)
    s_wall = time.perf_counter() - start
    return {"deals": deals, "seconds": b_wall, "cpu_seconds": b_cpu, "deals_per_s": deals / b_wall,
            "seconds_for_100k": 100_000 / (deals / b_wall), "cpu_seconds_for_100k": 100_000 * b_cpu / deals,
            "scalar_deals_per_s": scalar_deals / s_wall, "mean": batched.overall.mean}


def _python(code: str, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900,
                          env={**os.environ, **(env or {})})
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    return proc.stdout.strip().splitlines()[-1]


MEMORY_CODE = """
import resource, gin3_env, numpy as np
from gin3_env.vector import RandomBatch

def rss_mb():  # peak resident set of this process (ru_maxrss can carry the forking parent's over exec)
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

env = gin3_env.vector_env(1, opponent="heuristic", seed=0)  # imports and kernels loaded
env.reset(seed=0)
before = rss_mb()
env = gin3_env.vector_env(4096, opponent="heuristic", seed=0)
obs, _ = env.reset(seed=0)
p = RandomBatch(0)
for _ in range(50):
    obs, *_ = env.step(p.act(obs, env.action_masks()))
print(before, rss_mb())
"""

COMPILE_CODE = """
import time
start = time.perf_counter()
import gin3_env
from gin3_env.observation.layout import OBS_SIZE
from gin3_env.vector import RandomBatch
env = gin3_env.vector_env(64, opponent="heuristic", features="augmented", reward_baseline="heuristic", seed=0)
obs, _ = env.reset(seed=0)
p = RandomBatch(0)
for _ in range(3):
    obs, *_ = env.step(p.act(obs[:, :OBS_SIZE], env.action_masks()))
print(time.perf_counter() - start)
"""


def memory() -> dict[str, Any]:
    before, after = map(float, _python(MEMORY_CODE).split())
    return {"rss_mb_before_hands": before, "rss_mb": after, "hands_mb": after - before, "target_mb": 200.0,
            "met": after - before < 200.0}


def compile_time() -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="gin3-numba-cache-") as cache:
        env = {"NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
        cold = float(_python(COMPILE_CODE, env))
        warm = float(_python(COMPILE_CODE, env))
    return {"cold_s": cold, "warm_s": warm}


def scaling(seconds: float) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for threads in (1, 2):
        _threads(threads)
        for n in (1, 16, 256, 4096):
            out[f"{n}x{threads}"] = learner_batched(seconds, n)
    _threads(1)
    return out


# ------------------------------------------------------------------ run
def run(quick: bool = False) -> dict[str, Any]:
    seconds = 1.0 if quick else 3.0
    _threads(1)
    results: dict[str, Any] = {}
    results["random_play"] = {"ours": random_play(seconds), "peer": measure_openspiel(seconds)}
    results["learner_vs_heuristic"] = {"ours": learner_batched(seconds), "peer": learner_scalar(seconds)}
    results["evaluate"] = evaluate_rate(2000 if quick else 10000, 50 if quick else 200)
    results["memory"] = memory()
    results["scaling"] = scaling(0.5 if quick else 2.0)
    results["compile"] = compile_time()
    ratios: dict[str, dict[str, Any]] = {}
    for row, target in TARGETS.items():
        ours, peer = results[row]["ours"], results[row]["peer"]
        if "skipped" in ours or "skipped" in peer:
            continue
        ratio = ours["steps_per_s"] / peer["steps_per_s"]
        ratios[row] = {"ratio": ratio, "target": target, "met": ratio >= target}
    ev = results["evaluate"]
    ratios["evaluate_100k_s"] = {"ratio": ev["cpu_seconds_for_100k"], "target": 60.0,
                                 "met": ev["cpu_seconds_for_100k"] < 60}
    return {"benchmark": "the batched core against the scalar envs and OpenSpiel", "quick": quick,
            "cpus": os.cpu_count(), "results": results, "ratios": ratios}


def format_report(report: dict[str, Any]) -> str:
    r = report["results"]
    lines = [f"{report['benchmark']} ({report['cpus']} CPUs; per CPU second, one numba thread, unless said)"]

    def rate(x: dict[str, Any], key: str = "steps_per_s") -> str:
        return "skipped: " + x["skipped"] if "skipped" in x else f"{x[key]:>12,.0f}"

    lines.append(f"  random play, obs+mask each step: VectorHands(4096) {rate(r['random_play']['ours'])} steps/s;"
                 f" OpenSpiel observation_tensor() {rate(r['random_play']['peer'])}")
    lines.append(f"  learner vs heuristic:  vector_env(256) {rate(r['learner_vs_heuristic']['ours'])} steps/s;"
                 f" ThreeHandedGinEnv {rate(r['learner_vs_heuristic']['peer'])}")
    ev = r["evaluate"]
    lines.append(f"  evaluate heuristic vs heuristic: {ev['deals_per_s']:,.0f} duplicate deals/s batched "
                 f"(100,000 deals: {ev['cpu_seconds_for_100k']:.0f} CPU s, {ev['seconds_for_100k']:.0f} s wall clock), "
                 f"scalar {ev['scalar_deals_per_s']:,.1f} deals/s")
    m = r["memory"]
    lines.append(f"  memory: vector_env(4096) process {m['rss_mb']:.0f} MB resident "
                 f"({m['rss_mb_before_hands']:.0f} MB after the imports, hands and kernels {m['hands_mb']:.0f} MB)")
    lines.append("  scaling, learner vs heuristic, steps per wall-clock second:")
    lines.append(f"    {'N':>6} {'1 thread':>12} {'2 threads':>12}")
    for n in (1, 16, 256, 4096):
        a, b = r["scaling"][f"{n}x1"], r["scaling"][f"{n}x2"]
        lines.append(f"    {n:>6} {a['steps_per_wall_s']:>12,.0f} {b['steps_per_wall_s']:>12,.0f}")
    c = r["compile"]
    lines.append(f"  first use (import, compile, 3 steps): {c['cold_s']:.1f} s with an empty numba cache, "
                 f"{c['warm_s']:.1f} s with it warm")
    lines.append("  ratios (ours over the scalar or OpenSpiel side, per CPU second; above 1x ours is faster; "
                 "they vary from run to run):")
    for key, x in report["ratios"].items():
        if key == "evaluate_100k_s":
            lines.append(f"    {'evaluate 100k deals':<22} {x['ratio']:8.1f} CPU s  (the batched heuristic against "
                         "itself, 100,000 duplicate deals; lower is faster)")
        else:
            lines.append(f"    {key:<22} {x['ratio']:8.1f}x  ({RATIO_MEANING[key]})")
    return "\n".join(lines)
