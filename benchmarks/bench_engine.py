"""Meld-engine speed: ours against OpenSpiel's and RLCard's gin rummy utilities.

Usage (from the repository root, in the main virtualenv)::

    python benchmarks/bench_engine.py             # 2000 hands, best of 3
    python benchmarks/bench_engine.py --quick     # 200 hands, one pass
    python benchmarks/bench_engine.py --json out.json

The measuring code is :mod:`gin3_env.benchmarks.engine`; ``gin3 bench`` runs it too.
"""

from __future__ import annotations

import sys

from gin3_env.benchmarks import main

if __name__ == "__main__":
    raise SystemExit(main(["--only", "engine", *sys.argv[1:]]))
