"""Bridges to other game libraries (optional extras). See :mod:`gin3_env.interop.openspiel` (our policies in
OpenSpiel's two-player gin), :mod:`gin3_env.interop.openspiel_game` (three-handed gin as OpenSpiel games,
``python_gin3_hand`` and ``python_gin3_match``, and :mod:`experiments.ismcts_bot` for OpenSpiel's IS-MCTS bot
on them) and, for Ray RLlib, :mod:`gin3_env.interop.rllib` (needs Ray), :mod:`gin3_env.interop.rllib_vector` (the
batched core for RLlib's single-agent runner) and :mod:`gin3_env.policies.rllib_policy` (torch only)."""
