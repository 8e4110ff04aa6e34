"""Bridges to other game libraries (optional extras). See :mod:`gin3_env.interop.openspiel` and, for Ray
RLlib, :mod:`gin3_env.interop.rllib` (needs Ray), :mod:`gin3_env.interop.rllib_vector` (the batched core for
RLlib's single-agent runner) and :mod:`gin3_env.policies.rllib_policy` (torch only)."""
