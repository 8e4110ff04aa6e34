"""Evaluate policies against each other: a thin wrapper of ``gin3 evaluate``.

    python training/evaluate.py heuristic random --hands 500 --matches 60 --json eval.json
    python training/evaluate.py heuristic openspiel-simple --hands 500 --matches 1000
    python training/evaluate.py path/to/model.zip heuristic --vs-openspiel

See ``python training/evaluate.py --help`` for every option.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package, from any folder

from gin3_env.evaluation import cli_main

if __name__ == "__main__":
    sys.exit(cli_main(sys.argv[1:]))
