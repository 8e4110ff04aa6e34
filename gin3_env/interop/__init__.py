"""Bridges to other game libraries (optional extras). See :mod:`gin3_env.interop.openspiel` and, for Ray
RLlib, :mod:`gin3_env.interop.rllib` (needs Ray) and :mod:`gin3_env.policies.rllib_policy` (torch only)."""
