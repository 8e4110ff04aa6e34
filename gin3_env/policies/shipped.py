"""The shipped model files, each the ``model_file`` of its player's row in :mod:`.registry`.

A leaf module (it imports nothing of the package) so that every module that names a shipped file, the
belief's opponent model among them, reads it from here, below the registry and the players it loads.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["GATE_MODEL", "MODELS_DIR", "NET_MODEL", "PPO_MODEL", "PPO_SIDECAR"]

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
GATE_MODEL = MODELS_DIR / "gated.json"  # the gate file of the "gated" player
NET_MODEL = MODELS_DIR / "net.npz"  # the network model file of the "net" player
PPO_MODEL = MODELS_DIR / "ppo.zip"  # the saved model of the "ppo" player
PPO_SIDECAR = MODELS_DIR / "ppo.json"  # its description
