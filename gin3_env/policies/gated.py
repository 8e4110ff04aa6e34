"""The gated player: the heuristic, switched by learnt gates (``GatedPolicy``).

The player is :class:`~gin3_env.policies.HeuristicPolicy` at every decision but those of the kinds its
model has a gate for (:class:`~.gate_file.GatedModel`, read from its file by :func:`~.gate_file.load_gated`):
there each gate scores the decision's alternatives from the player's own observation and legal mask
(:mod:`gin3_env.kernels.decision_features`) and the alternative of the highest predicted gain is played
where that exceeds the gate's threshold (:mod:`gin3_env.kernels.gates`). The shipped player
(``gated``, ``gin3_env/models/gated.json``) has three: the knock gate (hold where the heuristic would
knock), the draw gate (take the face-up card where the heuristic would not) and the discard gate (the
heuristic's second or third best plain discard). The gates were fitted on labels computed on the true deal
(``gin3 train-gate``, docs/beating_the_heuristic.md).

The player follows the rules it is given (``rules``; default: the usual rules): its features count a hand
within the rules' knock limit as knockable, and its heuristic judges a take by that knock limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ..engine.rules import Rules
from ..kernels.gates import gated_act_parallel, gated_act_serial, stack_gates
from ..kernels.heuristic_params import HeuristicConfig, heuristic_params
from ..kernels.threads import use_threads
from ..observation.decoding import check_observation
from ..observation.layout import OBS_SIZE
from .gate_file import Gate, GatedModel, load_gated

__all__ = ["Gate", "GatedModel", "GatedPolicy", "load_gated"]


class GatedPolicy:
    """The heuristic switched by learnt gates (see the module doc); ``act`` takes the observation dict,
    :meth:`act_batch` rows of observations and masks (the batched form).

    ``gates``: a :class:`~.gate_file.GatedModel` (or a sequence of :class:`~.gate_file.Gate`\\ s, on the
    default heuristic); ``rules``: the rules of the game it plays (default: the usual rules)."""

    def __init__(self, gates: GatedModel | Sequence[Gate], name: str = "gated", rules: Rules | None = None) -> None:
        if not isinstance(gates, GatedModel):
            if isinstance(gates, Sequence) and all(isinstance(g, Gate) for g in gates):
                gates = GatedModel(tuple(gates))
            else:
                raise ValueError(f"gates must be a GatedModel, got {type(gates).__name__}")
        if rules is not None and not isinstance(rules, Rules):
            raise ValueError(f"rules must be a Rules, got {type(rules).__name__}")
        self.model = gates
        self.name = name
        self.rules = rules if rules is not None else Rules()
        heuristic = gates.heuristic if rules is None else replace(gates.heuristic, knock_limit=rules.knock_limit)
        self.heuristic: HeuristicConfig = heuristic
        self._fp, self._ip = heuristic_params(heuristic)
        self._gates = stack_gates(gates.gates)
        self._limit = int(self.rules.knock_limit)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs = np.ascontiguousarray(np.asarray(observations)[:, :OBS_SIZE], dtype=np.float32)
        mask = np.ascontiguousarray(masks, dtype=np.int8)
        out = np.empty(len(obs), dtype=np.int64)
        kernel = gated_act_parallel if use_threads(len(obs)) else gated_act_serial
        kernel(obs, mask, self._fp, self._ip, self._gates, self._limit, out)
        return out

    def act(self, observation: dict[str, Any]) -> int:
        vector, mask = check_observation(observation)
        return int(self.act_batch(vector[None, :OBS_SIZE], mask[None, :].astype(np.int8))[0])

    def __repr__(self) -> str:
        parts = ", ".join(f"{g.decision} {g.scorer} threshold={g.threshold:g}" for g in self.model.gates)
        return f"GatedPolicy({parts or 'no gates'})"

