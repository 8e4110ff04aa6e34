"""The environments: PettingZoo AEC (one hand, a match), Gymnasium single-agent, observations.

- :mod:`.aec_hand`: ``env()``/``raw_env()``, one hand, agents ``team_0`` and ``box_0``;
- :mod:`.aec_match`: ``env()``/``raw_env()``, a match, agents ``player_0..2``;
- :mod:`.single_agent`: Gymnasium envs, a learner against a policy;
- :mod:`.observation`: the observation vector and the action mask;
- :mod:`.registration`: the PettingZoo and Gymnasium ids.
"""

from .aec_hand import env, raw_env, replay
from .aec_match import env as match_env
from .aec_match import raw_env as match_raw_env

__all__ = ["env", "match_env", "match_raw_env", "raw_env", "replay"]
