"""Train a MaskablePPO agent: ``python training/train.py --config configs/quick.yaml``.

The training loop lives in :mod:`gin3_env.training.sb3.train` so that ``gin3 train``
works from any folder; this script is the same entry point for a checkout, and also works from any
folder (``configs/...`` paths name the shipped configs wherever it runs).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package, from any folder

from gin3_env.training.sb3.train import main

if __name__ == "__main__":
    sys.exit(main())
