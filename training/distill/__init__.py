"""Distillation of the strongest shipped player into ``net``, a network acting alone (``gin3 train --config quick``).

- :mod:`.config`: :class:`~.config.DistillConfig`, the typed config (``pipeline: distill``);
- :mod:`.data`: decisions made on the batched core and labelled by the teacher, in resumable shards;
- :mod:`.fit`: cross-entropy over each decision's legal actions (torch);
- :mod:`.run`: the rounds (the teacher's, then DAgger), the choice of round, the final evaluation;
- :mod:`.cli`: ``gin3 train``'s door for these configs; :mod:`.plots`: the run's curve.
"""
