"""The SB3 trainer: ``gin3 train`` (MaskablePPO), its config, warm start, rewards, precision,
the choice of ``best.zip``, the learning curve, timed runs and shipping a model.
"""
