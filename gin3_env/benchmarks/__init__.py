"""Benchmarks: ``gin3 bench`` runs :func:`main` (``--setup`` builds the side env for gin_rummy_v4).

- :mod:`gin3_env.benchmarks.engine`: the meld engine (deadwood, knock deadwoods)
  against OpenSpiel's and RLCard's gin rummy utilities, on the same hands.
- :mod:`gin3_env.benchmarks.envs`: random play through the environment APIs
  against OpenSpiel and PettingZoo's gin_rummy_v4 (imported only when run).
- :mod:`gin3_env.benchmarks.vector`: the batched core against the scalar envs and OpenSpiel.
- :mod:`gin3_training.benchmarks.train`: PPO's samples/s against this machine's matmul rate.
- :mod:`gin3_training.benchmarks.labels`: labelled knock decisions per second (the knock gate's label run), and
  every-action labels of ``net``'s discards per CPU-second (the labels that improve ``net``).
- :mod:`gin3_env.benchmarks.search`: searched decisions per CPU-second, against ``gated``.
- :mod:`gin3_env.benchmarks.players`: decisions per second of the heuristic, ``gated`` and ``net``.

Each module has ``run(quick) -> dict`` and ``format_report(dict) -> str``.
Figures are for one machine: the ratios are what carry over.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..argparsing import OneLineErrorParser
from ..files import check_output_file, save_json
from .suites import SUITE_MODULES

SUITES = tuple(SUITE_MODULES)


def _load(name: str) -> Any:
    """The benchmark module of suite ``name``, or a string saying why it cannot be imported."""
    module_name = SUITE_MODULES[name]
    try:
        return importlib.import_module(module_name)
    except ImportError as exc:
        if getattr(exc, "name", None) == module_name:
            return f"{module_name} is not part of this installation"
        return f"{module_name} cannot be imported: {exc}"


def main(argv: Sequence[str] | None = None) -> int:
    """``gin3 bench [--quick] [--only engine|envs] [--json PATH]``."""
    parser = OneLineErrorParser(
        prog="gin3 bench",
        description="Speed benchmarks: the meld engine against OpenSpiel and RLCard (engine), "
        "random play through the environments against OpenSpiel and gin_rummy_v4 (envs), the batched core "
        "(vector), PPO's samples/s against the machine's matmul rate (train) and labelled knock "
        "decisions per second, with every-action labels of net's discards per CPU-second (labels), "
        "searched decisions per CPU-second against gated (search), "
        "decisions per second of the heuristic, gated and net (players). "
        "Peers that are not installed are reported as skipped.",
    )
    parser.add_argument("--quick", action="store_true", help="a short smoke run (fewer hands, one pass)")
    parser.add_argument("--only", choices=SUITES, default=None, help="run one suite only")
    parser.add_argument("--json", type=Path, default=None, metavar="PATH", help="also write the results as JSON")
    parser.add_argument(
        "--setup",
        action="store_true",
        help="build the side virtualenv for PettingZoo 1.26.1's gin_rummy_v4 first (bench-env/ here, or "
        "$GIN3_BENCH_ENV); alone, only build it",
    )
    args = parser.parse_args(list(argv) if argv is not None else None)
    if args.json is not None:
        try:
            check_output_file(args.json, "--json")  # before the benchmarks, not after them
        except ValueError as exc:
            parser.error(str(exc))
    if args.setup:
        from .side_env import setup_side_env

        setup_side_env()
        if args.only is None and not args.quick and args.json is None:
            return 0

    results: dict[str, Any] = {}
    for suite in SUITES if args.only is None else (args.only,):
        module = _load(suite)
        if isinstance(module, str):
            print(f"[{suite}] skipped: {module}\n", flush=True)
            results[suite] = {"skipped": module}
            continue
        print(f"[{suite}] running{' (quick)' if args.quick else ''} ...", flush=True)
        report = module.run(args.quick)
        results[suite] = report
        formatter = getattr(module, "format_report", None)
        print(formatter(report) if formatter else json.dumps(report, indent=2), end="\n\n", flush=True)
    if args.json is not None:
        save_json(args.json, results)
        print(f"results written to {args.json}")
    return 0
