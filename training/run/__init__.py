"""The run folder and the life of a run, shared by both backends: the folder (never
overwritten unasked), its lock, checkpoints, stopping on a signal, the vec-env workers.
"""
