"""Training pipeline (optional extra ``train``): MaskablePPO on the Gymnasium env.

``gin3 train`` runs :func:`gin3_env.training.sb3.train.main`. The shipped configs are the
repository's ``configs/*.yaml``; a built wheel carries them as ``gin3_env/training/configs``
(``setup.py`` copies them), so ``gin3 train --config quick`` works from any folder.
"""

from .threads import prefer_passive_wait

# Before any training module imports torch: OpenMP reads its wait policy when torch loads it
# (training/threads.py says why PASSIVE).
prefer_passive_wait()
