"""Training (optional extras ``train`` and ``rllib``): MaskablePPO on the Gymnasium env, or RLlib's PPO.

- :mod:`.distill`: ``gin3 train --config quick`` (and ``distill``): ``net``, distilled from the strongest player;
- :mod:`.sb3`: the SB3 trainer, ``gin3 train --config ppo_quick`` (:func:`gin3_training.ppo.train.main`);
- :mod:`.rllib`: the RLlib backend, ``gin3 train --backend rllib``;
- :mod:`.run`: the run folder and the life of a run, for both (lock, checkpoints, signals, workers);
- shared: :mod:`.options` (config fields described once), :mod:`.quick_eval` (the in-training
  evaluation), :mod:`.threads` (torch's and the batched core's threads).

The shipped configs are the repository's ``configs/*.yaml``; a built wheel carries them as
``training/configs`` (``setup.py`` copies them), so ``gin3 train --config quick`` works
from any folder.
"""

from gin3_training.threads import prefer_passive_wait

# Before any training module imports torch: OpenMP reads its wait policy when torch loads it
# (training/threads.py says why PASSIVE).
prefer_passive_wait()
