"""Training pipeline (optional extra ``train``): MaskablePPO on the Gymnasium env.

``gin3 train`` runs :func:`gin3_env.training.train.main`; configs live in
``gin3_env/training/configs`` (the repository's ``configs/`` points there).
"""
