"""The observation encoding, below the envs and the policies (docs/design.md, "Layers").

- :mod:`.layout`: the vector's layout table and offsets;
- :mod:`.encoding`: ``encode(view)``, ``action_mask(view)``, the match observation;
- :mod:`.decoding`: the inverse, for policies (``decode(vector) -> PlayerView``);
- :mod:`.features`: the derived card features learners get (``augment``).

The ``Policy`` protocol and the driver that plays policies through a hand or a match
from their observations are in :mod:`gin3_env.game`.

Pure Python and numpy, like the engine under it.
"""

from .decoding import check_observation, decode, mask_actions
from .encoding import action_mask, encode, encode_match, match_action_mask, observe, observe_match
from .features import AUGMENTED_SIZE, augment, augment_view
from .layout import LAYOUT, MATCH_LAYOUT, MATCH_OBS_SIZE, OBS_SIZE

__all__ = [
    "AUGMENTED_SIZE",
    "LAYOUT",
    "MATCH_LAYOUT",
    "MATCH_OBS_SIZE",
    "OBS_SIZE",
    "action_mask",
    "augment",
    "augment_view",
    "check_observation",
    "decode",
    "encode",
    "encode_match",
    "mask_actions",
    "match_action_mask",
    "observe",
    "observe_match",
]
