"""Speed of random play through the environment APIs: gin3_env against its peers.

Every contender plays whole hands with uniformly random legal actions, builds
the acting player's observation and legal moves at every decision, and counts
decisions (chance nodes and the final ``step(None)`` of finished agents are
played but not counted). Resets and deals are inside the timing.

| contender           | loop                                                                        |
|---------------------|-----------------------------------------------------------------------------|
| `gin3_aec`          | `gin3_env.env()` (PettingZoo wrappers): `agent_iter`/`last`/`step`, action from `action_mask` |
| `gin3_aec_raw`      | the same with `gin3_env.raw_env()` (no wrappers)                            |
| `openspiel`         | `pyspiel.load_game("gin_rummy")`: `observation_tensor()`, `legal_actions()`, `apply_action` |
| `gin_rummy_v4`      | PettingZoo 1.26.1 `classic.gin_rummy_v4.env()` (RLCard), same loop as `gin3_aec` |

`gin_rummy_v4` needs pettingzoo==1.26.1 and rlcard, which conflict with this
package's pettingzoo>=1.27, so it runs in a side virtualenv (``bench-env/`` in the
current folder, or ``$GIN3_BENCH_ENV``), in a subprocess that does its own timing.
``gin3 bench --setup`` creates it (:mod:`.side_env`). Missing pieces are
reported as skipped, with the reason.

Rates are decisions per second of the measuring process's CPU time
(``time.process_time``), which other processes on a shared machine hardly
move; wall-clock rates are reported beside them. Each contender is measured
``rounds`` times, interleaved, and its best round is kept.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..files import save_json
from . import aec_loop as aec_loop_module
from .aec_loop import aec_loop, rates
from .side_env import setup_hint, side_python


# ------------------------------------------------------------- contenders
def measure_gin3(seconds: float, wrapped: bool = True, seed: int = 0) -> dict[str, Any]:
    import gin3_env

    return aec_loop(gin3_env.env if wrapped else gin3_env.raw_env, seconds, seed)


def measure_openspiel(seconds: float, seed: int = 0) -> dict[str, Any]:
    try:
        import pyspiel
    except ImportError as exc:
        return {"skipped": f"open_spiel is not installed ({exc}); pip install open-spiel"}
    game = pyspiel.load_game("gin_rummy")
    pick = random.Random(seed)
    steps = hands = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[pick.randrange(len(outcomes))][0])
            else:
                state.observation_tensor()
                legal = state.legal_actions()
                state.apply_action(legal[pick.randrange(len(legal))])
                steps += 1
        hands += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    return rates(steps, hands, elapsed, time.process_time() - cpu_start)


def measure_gin_rummy_v4(seconds: float, seed: int = 0, venv: Path | None = None) -> dict[str, Any]:
    python = side_python(venv)
    if not python.exists():
        return {"skipped": f"side virtualenv {python.parent.parent} is missing; {setup_hint(venv)}"}
    try:
        proc = subprocess.run(
            [str(python), "-c", Path(aec_loop_module.__file__).read_text(), str(seconds), str(seed)],
            capture_output=True,
            text=True,
            timeout=seconds * 10 + 120,
            cwd=str(Path.home()),  # not the repo: nothing of gin3_env on its path
        )
    except subprocess.TimeoutExpired:
        return {"skipped": "gin_rummy_v4 subprocess timed out"}
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"skipped": f"gin_rummy_v4 failed in {python}: {' | '.join(tail)}; {setup_hint(venv)}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------- run
CONTENDERS: dict[str, Callable[[float, int], dict[str, Any]]] = {
    "gin3_aec": lambda s, seed: measure_gin3(s, wrapped=True, seed=seed),
    "gin3_aec_raw": lambda s, seed: measure_gin3(s, wrapped=False, seed=seed),
    "openspiel": measure_openspiel,
    "gin_rummy_v4": measure_gin_rummy_v4,
}
TARGETS = {"openspiel": 2.0, "gin_rummy_v4": 12.0}  # env() / peer at least this: in the JSON report, not printed


def run(quick: bool = False, seconds: float | None = None, rounds: int | None = None) -> dict[str, Any]:
    """Measure every contender; returns steps/s, the best of ``rounds`` interleaved runs.

    ``quick``: about 1 s per run, one round (a smoke check); else 3 s per run, 3 rounds."""
    seconds = (1.0 if quick else 3.0) if seconds is None else seconds
    rounds = (1 if quick else 3) if rounds is None else rounds
    best: dict[str, dict[str, Any]] = {}
    for r in range(rounds):
        for name, measure in CONTENDERS.items():
            if "skipped" in best.get(name, {}):
                continue
            result = measure(seconds, r)
            if "skipped" in result or result["steps_per_s"] > best.get(name, {}).get("steps_per_s", -1.0):
                best[name] = result
    ratios: dict[str, dict[str, float | bool]] = {}
    for peer, target in TARGETS.items():
        if "skipped" in best[peer]:
            continue
        for ours in ("gin3_aec", "gin3_aec_raw"):
            ratio = best[ours]["steps_per_s"] / best[peer]["steps_per_s"]
            ratios[f"{ours}/{peer}"] = {"ratio": ratio, "target": target, "met": ratio >= target}
    return {
        "benchmark": "random play, decisions per CPU second (observation and legal moves built each step)",
        "seconds_per_run": seconds,
        "rounds": rounds,
        "results": best,
        "ratios": ratios,
    }


def format_report(report: dict[str, Any]) -> str:
    lines = [f"{report['benchmark']}; best of {report['rounds']} x {report['seconds_per_run']:g} s"]
    for name, res in report["results"].items():
        if "skipped" in res:
            lines.append(f"  {name:<14} skipped: {res['skipped']}")
        else:
            lines.append(
                f"  {name:<14} {res['steps_per_s']:>10,.0f} steps/s  (wall clock {res['steps_per_wall_s']:,.0f}; "
                f"{res['hands']} hands, {res['steps'] / max(res['hands'], 1):.0f} steps/hand)"
            )
    if report["ratios"]:
        lines.append("  ratios (decisions per CPU second, ours over the peer's; above 1x ours is faster; they vary "
                     "from run to run):")
    for key, r in report["ratios"].items():
        ours, peer = key.split("/")
        lines.append(f"    {key:<26} {r['ratio']:6.2f}x  ({ours} over {peer})")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one short round (smoke check)")
    parser.add_argument("--seconds", type=float, default=None, help="seconds per run")
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds (best kept)")
    parser.add_argument("--json", type=Path, default=None, help="also write the report as JSON here")
    args = parser.parse_args(argv)
    report = run(args.quick, args.seconds, args.rounds)
    print(format_report(report))
    if args.json is not None:
        save_json(args.json, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
