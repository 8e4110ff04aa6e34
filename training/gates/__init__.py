"""Fitting the knock gate of the shipped ``gated`` player: labels on the true deal (:mod:`.labels`), the
cross-validated fit (:mod:`.fit`) and the ``gin3 train-gate`` pipeline (:mod:`.train`)."""
