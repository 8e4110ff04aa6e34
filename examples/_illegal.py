"""What every example shares: a PettingZoo wrapper that counts the illegal actions it is sent."""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.wrappers import BaseWrapper


class CountIllegal(BaseWrapper):
    """Passes every call on; counts the actions that the acting agent's mask refuses (an action
    of a finished agent, ``None``, is not counted). ``illegal`` and ``actions`` are the counts."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.illegal = 0
        self.actions = 0

    def step(self, action: Any) -> None:
        agent = self.env.agent_selection
        if action is not None and not (self.env.terminations[agent] or self.env.truncations[agent]):
            self.actions += 1
            self.illegal += int(not self.env.observe(agent)["action_mask"][int(action)])
        self.env.step(action)
