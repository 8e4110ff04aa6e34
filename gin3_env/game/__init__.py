"""Playing policies: the ``Policy`` protocol and the driver that plays them through hands and matches.

- :mod:`.policy`: ``Policy`` (anything with ``act(observation) -> int``), ``policy_name``,
  ``check_policy``, ``rules_of`` and ``check_plays_rules`` (a player built for other rules than the
  game's is refused in one line);
- :mod:`.driver`: ``run_hand`` and ``run_match``, the one loop that evaluation, imitation,
  the Gymnasium envs' opponents and ``gin3 play`` share.

It stands on the engine and the observation encoding, below the envs and the policies.
"""

from .driver import run_hand, run_match
from .policy import Observation, Policy, check_plays_rules, check_policy, policy_name, rules_of

__all__ = ["Observation", "Policy", "check_plays_rules", "check_policy", "policy_name", "rules_of", "run_hand",
           "run_match"]
