"""The RLlib backend: ``gin3 train --backend rllib`` (its config, the PPO algorithm, the Ray
runtime). Importing a module here does not import Ray; building or training does.
"""
