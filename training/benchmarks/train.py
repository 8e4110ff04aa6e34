"""How close PPO comes to this machine's matmul rate: ``gin3 bench --only train [--quick]``.

In one run, with one torch thread and one numba thread:

- ``matmul``: the fp32 and the bf16 rate of a square ``torch.mm`` (GFLOP/s per CPU second), the
  ceiling for any network on this machine;
- ``ppo``: ``MaskablePPO.learn`` set up as ``gin3 train --config ppo_quick`` (its network, rollout
  and minibatch sizes; no imitation, no evaluations) on the batched env, once in fp32 and once in
  bf16 (``precision: bf16``): samples per CPU second with the updates, and for the rollout
  collection alone;
- ``flops``: the FLOPs one sample costs (its rollout forward plus ``n_epochs`` forward and
  backward passes of the update, counted by ``torch.utils.flop_counter``), so that
  ``samples/s x FLOPs per sample`` is the rate the run achieved, and ``matmul rate / FLOPs per
  sample`` is the FLOP bound: the samples/s no implementation of this network could beat.

- ``threads``: the update alone (forward, backward and Adam on minibatches of the ppo_quick
  config) in a fresh process each with 1 torch thread, 2 with ``OMP_WAIT_POLICY=PASSIVE`` (what
  ``gin3 train`` sets) and 2 with OpenMP's default wait, samples per wall-clock second: on a
  machine that other work shares, the last is the one that collapses.

The figure that carries over between machines is samples/s per GFLOP/s of the same run and
precision, beside the FLOP bound (``1e9 / FLOPs per sample``) it is a share of.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any


def matmul_rate(dtype_name: str, seconds: float, size: int = 1024) -> dict[str, float]:
    """GFLOP/s per CPU second of ``size x size`` matmuls in ``fp32`` or ``bf16``, best of 3 rounds."""
    import torch

    dtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[dtype_name]
    gen = torch.Generator().manual_seed(0)
    a = torch.randn(size, size, generator=gen).to(dtype)
    b = torch.randn(size, size, generator=gen).to(dtype)
    torch.mm(a, b)  # warm
    best = 0.0
    for _ in range(3):
        n, cpu = 0, time.process_time()
        wall = time.perf_counter()
        while time.perf_counter() - wall < seconds / 3:
            torch.mm(a, b)
            n += 1
        best = max(best, 2.0 * size**3 * n / max(time.process_time() - cpu, 1e-9) / 1e9)
    return {"size": size, "gflops": best}


def flops_per_sample(policy: Any, n_epochs: int, batch: int = 256) -> dict[str, float]:
    """FLOPs of one sample's rollout forward and of one forward + backward of the update."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    obs = torch.zeros(batch, *policy.observation_space.shape)
    actions = torch.zeros(batch, dtype=torch.long)
    with FlopCounterMode(display=False) as counter, torch.no_grad():
        policy.forward(obs)
    forward = counter.get_total_flops() / batch
    with FlopCounterMode(display=False) as counter:
        values, log_prob, _ = policy.evaluate_actions(obs, actions)
        (values.sum() + log_prob.sum()).backward()
    policy.zero_grad(set_to_none=True)
    update = counter.get_total_flops() / batch
    return {"rollout_forward": forward, "update_pass": update, "per_sample": forward + n_epochs * update}


def quick_ppo(overrides: dict[str, Any]) -> tuple[Any, Any, Any]:
    """The config, the env and the ``MaskablePPO`` that ``gin3 train --config ppo_quick`` sets up (its
    env, network, rollout and minibatch sizes, learning rate, clipping and entropy; no imitation, no
    evaluations, no logs written; its torch threads), with ``overrides`` on the config, seeded, on the
    CPU: what the speed suites time."""
    import torch
    from sb3_contrib import MaskablePPO

    from gin3_env.policies.sb3_network import CardAwarePolicy
    from gin3_training.ppo.config import QUICK_CONFIG, load_config
    from gin3_training.ppo.envs import make_vec_env, rollout_steps

    cfg = load_config(QUICK_CONFIG, {"bc_samples": 0, **overrides})
    torch.set_num_threads(cfg.torch_threads)
    env = make_vec_env(cfg)
    model = MaskablePPO(CardAwarePolicy, env, n_steps=rollout_steps(cfg), batch_size=cfg.batch_size,
                        n_epochs=cfg.n_epochs, learning_rate=cfg.learning_rate, clip_range=cfg.clip_range,
                        ent_coef=cfg.ent_coef, seed=0, device="cpu", policy_kwargs={"net_arch": list(cfg.net_arch)})
    return cfg, env, model


def ppo_rate(precision: str, timesteps: int) -> dict[str, Any]:
    """Samples per CPU second of ``MaskablePPO.learn`` (:func:`quick_ppo`) in ``precision``, with the
    updates and for the rollout collection alone."""
    from gin3_training.ppo.precision import set_precision

    cfg, env, model = quick_ppo({"precision": precision})
    set_precision(model.policy, precision)
    rollouts = [0.0, 0.0]  # CPU and wall seconds in collect_rollouts
    collect = model.collect_rollouts

    def timed_collect(*args: Any, **kwargs: Any) -> bool:
        cpu, wall = time.process_time(), time.perf_counter()
        try:
            return collect(*args, **kwargs)
        finally:
            rollouts[0] += time.process_time() - cpu
            rollouts[1] += time.perf_counter() - wall

    model.collect_rollouts = timed_collect
    cpu, wall = time.process_time(), time.perf_counter()
    model.learn(total_timesteps=timesteps)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    env.close()
    steps = model.num_timesteps
    out = {"steps": steps, "cpu_seconds": cpu, "seconds": wall, "samples_per_s": steps / max(cpu, 1e-9),
           "samples_per_wall_s": steps / max(wall, 1e-9),
           "rollout_samples_per_s": steps / max(rollouts[0], 1e-9),
           "rollout_samples_per_wall_s": steps / max(rollouts[1], 1e-9)}
    out["flops"] = flops_per_sample(model.policy, cfg.n_epochs)
    return out


THREADS_CODE = """
import sys, time
if sys.argv[2] == "default":
    import torch  # loads OpenMP before gin3_training could set a wait policy
import torch
from sb3_contrib import MaskablePPO
from gin3_env.policies.sb3_network import CardAwarePolicy
from gin3_env.vector.sb3_env import GinSB3VecEnv

torch.set_num_threads(int(sys.argv[1]))
seconds = float(sys.argv[3])
model = MaskablePPO(CardAwarePolicy, GinSB3VecEnv(2, features="augmented"), n_steps=16, batch_size=1024,
                    device="cpu", seed=0, policy_kwargs={"net_arch": [256, 256]})
policy = model.policy
obs = torch.rand(1024, *policy.observation_space.shape)
actions = torch.zeros(1024, dtype=torch.long)

def update():
    values, log_prob, _ = policy.evaluate_actions(obs, actions)
    loss = values.pow(2).mean() - log_prob.mean()
    policy.optimizer.zero_grad()
    loss.backward()
    policy.optimizer.step()

update()
n, start = 0, time.perf_counter()
while time.perf_counter() - start < seconds:
    update()
    n += 1
print(1024 * n / (time.perf_counter() - start))
"""


def thread_rates(seconds: float) -> dict[str, float]:
    """Update samples per wall-clock second with 1 torch thread, 2 with a passive wait, 2 with OpenMP's
    default wait (each in a fresh process: the wait policy is read when torch loads OpenMP)."""
    out: dict[str, float] = {}
    for key, threads, wait in (("1", 1, "passive"), ("2_passive", 2, "passive"), ("2_default", 2, "default")):
        env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "OMP_NUM_THREADS")}
        if wait == "passive":
            env["OMP_WAIT_POLICY"] = "PASSIVE"
        done = subprocess.run([sys.executable, "-c", THREADS_CODE, str(threads), wait, str(seconds)],
                              capture_output=True, text=True, timeout=600, env=env)
        if done.returncode != 0:
            raise RuntimeError(f"the {key} thread measurement failed: {done.stderr[-2000:]}")
        out[key] = float(done.stdout.strip().splitlines()[-1])
    return out


def run(quick: bool = False) -> dict[str, Any]:
    import torch

    from gin3_env.vector import set_num_threads

    torch.set_num_threads(1)
    set_num_threads(1)
    seconds = 1.0 if quick else 3.0
    timesteps = 4096 if quick else 16384
    matmul = {p: matmul_rate(p, seconds) for p in ("fp32", "bf16")}
    ppo = {p: ppo_rate(p, timesteps) for p in ("fp32", "bf16")}
    threads = thread_rates(seconds)
    b_steps, s_steps = (4096, 1024) if quick else (32768, 4096)
    vec_envs = {"batched": train_rate("batched", b_steps), "subproc": train_rate("subproc", s_steps)}
    ratios: dict[str, dict[str, float]] = {}
    for p in ("fp32", "bf16"):
        gflops, run_ = matmul[p]["gflops"], ppo[p]
        per_sample = run_["flops"]["per_sample"]
        ratios[p] = {
            "per_gflops": run_["samples_per_s"] / gflops,
            "rollout_per_gflops": run_["rollout_samples_per_s"] / gflops,
            "bound_per_gflops": 1e9 / per_sample,
            "bound_samples_per_s": gflops * 1e9 / per_sample,
            "achieved_gflops": run_["samples_per_s"] * per_sample / 1e9,
        }
    return {"benchmark": "PPO against this machine's matmul rate", "quick": quick, "cpus": os.cpu_count(),
            "torch_threads": 1, "matmul": matmul, "ppo": ppo, "ratios": ratios, "threads": threads,
            "vec_envs": vec_envs}


def format_report(report: dict[str, Any]) -> str:
    m, p, r = report["matmul"], report["ppo"], report["ratios"]
    flops = p["fp32"]["flops"]
    lines = [f"{report['benchmark']} ({report['cpus']} CPUs, 1 torch thread, 1 numba thread; rates per CPU second)",
             f"  matmul {m['fp32']['size']}x{m['fp32']['size']}: fp32 {m['fp32']['gflops']:,.1f} GFLOP/s, "
             f"bf16 {m['bf16']['gflops']:,.1f} GFLOP/s",
             f"  one sample costs {flops['per_sample'] / 1e6:.2f} MFLOP (rollout forward "
             f"{flops['rollout_forward'] / 1e6:.2f}, each of the update's passes {flops['update_pass'] / 1e6:.2f})",
             f"  {'precision':<10}{'samples/s':>11}{'rollouts only':>15}{'per GFLOP/s':>13}{'FLOP bound':>12}"
             f"{'of the bound':>14}"]
    for name in ("fp32", "bf16"):
        x, q = p[name], r[name]
        lines.append(f"  {name:<10}{x['samples_per_s']:>11,.0f}{x['rollout_samples_per_s']:>15,.0f}"
                     f"{q['per_gflops']:>13.1f}{q['bound_per_gflops']:>12.1f}"
                     f"{q['per_gflops'] / q['bound_per_gflops']:>13.0%}")
    lines.append(f"  (wall clock: fp32 {p['fp32']['samples_per_wall_s']:,.0f} samples/s, bf16 "
                 f"{p['bf16']['samples_per_wall_s']:,.0f})")
    gain = p["bf16"]["samples_per_s"] / p["fp32"]["samples_per_s"]
    lines.append(f"  fp32 samples/s per GFLOP/s: {r['fp32']['per_gflops']:.1f} (the FLOP bound is "
                 f"{r['fp32']['bound_per_gflops']:.0f}); bf16 runs {gain:.2f}x the samples/s of fp32")
    t = report["threads"]
    lines.append(f"  the update alone, samples per wall-clock second: 1 torch thread {t['1']:,.0f}; 2 threads "
                 f"{t['2_passive']:,.0f} with OMP_WAIT_POLICY=PASSIVE ({t['2_passive'] / t['1']:.2f}x), "
                 f"{t['2_default']:,.0f} with OpenMP's default wait ({t['2_default'] / t['1']:.2f}x)")
    v = report["vec_envs"]
    if "skipped" in v["batched"] or "skipped" in v["subproc"]:
        lines.append(f"  ppo_quick on the batched env against vec_env subproc: skipped ({v['batched'].get('skipped')})")
    else:
        o, p_ = v["batched"], v["subproc"]
        lines.append(f"  ppo_quick, per CPU second of the process and its env workers: batched env "
                     f"{o['samples_per_s']:,.0f} samples/s, vec_env subproc {p_['samples_per_s']:,.0f} "
                     f"({o['samples_per_s'] / p_['samples_per_s']:.1f}x)")
        lines.append(f"    wall clock: batched {o['samples_per_wall_s']:,.0f} samples/s, subproc "
                     f"{p_['samples_per_wall_s']:,.0f}; rollouts only: batched "
                     f"{o['sampling_samples_per_wall_s']:,.0f}, subproc {p_['sampling_samples_per_wall_s']:,.0f}")
    return "\n".join(lines)


def train_rate(vec_env: str, timesteps: int) -> dict[str, Any]:
    """Samples per CPU second (this process and the env workers) of ``MaskablePPO.learn`` as
    ``gin3 train --config ppo_quick`` sets it up (no imitation, no evaluations): sampling and updates."""
    try:
        import sb3_contrib  # noqa: F401  (what quick_ppo builds on)
    except ImportError as exc:
        return {"skipped": f"sb3-contrib is not installed ({exc})"}
    _, env, model = quick_ppo({"vec_env": vec_env})
    from stable_baselines3.common.callbacks import BaseCallback

    sampling = [0.0, 0.0]

    class Timer(BaseCallback):
        def _on_rollout_start(self) -> None:
            sampling[1] = time.perf_counter()

        def _on_rollout_end(self) -> None:
            sampling[0] += time.perf_counter() - sampling[1]

        def _on_step(self) -> bool:
            return True

    start, cpu = time.perf_counter(), _cpu_with_children()
    model.learn(total_timesteps=timesteps, callback=Timer())
    env.close()  # joins SubprocVecEnv's workers, so their CPU time is counted
    wall, cpu = time.perf_counter() - start, _cpu_with_children() - cpu
    return {"steps": model.num_timesteps, "seconds": wall, "cpu_seconds": cpu,
            "samples_per_s": model.num_timesteps / cpu, "samples_per_wall_s": model.num_timesteps / wall,
            "sampling_samples_per_wall_s": model.num_timesteps / sampling[0], "n_envs": env.num_envs}


def _cpu_with_children() -> float:
    """CPU seconds of this process and of its children that have ended (SubprocVecEnv's workers)."""
    import resource

    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
