"""Playing policies: the ``Policy`` protocol and the driver that plays them through hands and matches.

- :mod:`.policy`: ``Policy`` (anything with ``act(observation) -> int``), ``policy_name``,
  ``check_policy``;
- :mod:`.driver`: ``run_hand`` and ``run_match``, the one loop that evaluation, imitation,
  the Gymnasium envs' opponents and ``gin3 play`` share.

It stands on the engine and the observation encoding, below the envs and the policies.
"""

from .driver import run_hand, run_match
from .policy import Observation, Policy, check_policy, policy_name

__all__ = ["Observation", "Policy", "check_policy", "policy_name", "run_hand", "run_match"]
