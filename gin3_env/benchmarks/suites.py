"""The speed suites of ``gin3 bench`` by name: each suite's module. The lab's suites (PPO's samples/s, the
label runs) live in the lab, ``gin3_training``, and are imported by name only when run: the package imports no
lab module, ``gin3 bench`` dispatches to it."""

from __future__ import annotations

SUITE_MODULES: dict[str, str] = {
    "engine": "gin3_env.benchmarks.engine",
    "envs": "gin3_env.benchmarks.envs",
    "vector": "gin3_env.benchmarks.vector",
    "train": "gin3_training.benchmarks.train",
    "labels": "gin3_training.benchmarks.labels",
    "search": "gin3_env.benchmarks.search",
    "players": "gin3_env.benchmarks.players",
}
