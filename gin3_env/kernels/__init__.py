"""The compiled core (numba): the engine's twin, many hands per call, below the policies.

| module | what it holds |
|---|---|
| ``tables`` | lookup tables, built from the scalar engine's own |
| ``meld_kernels`` | deadwood, knock deadwoods, best arrangement, the showdown |
| ``hand_kernels`` | deal, legal mask, one move, the observation |
| ``hands`` | :class:`~.hands.VectorHands` (exported by :mod:`gin3_env.vector`) |
| ``heuristic_params`` | :class:`~.heuristic_params.HeuristicConfig`, the heuristic's options as plain data |
| ``heuristic_kernels`` | the heuristic player, one row or many |
| ``belief_kernels`` | the belief model's replay of the opponent's decisions |
| ``rollout`` | :class:`~.rollout.Rollouts`: hand states played out by the heuristic (or the gated player) |
| ``features`` | the 586-entry learner input, batched |
| ``threads`` | how many threads the batched kernels use |

It knows nothing of the policies or the envs: the kernels take their constants from the
engine and the observation layout, and the usage errors from :mod:`gin3_env.errors`.
Importing this package imports nothing; a kernel module imports numba, and its kernels
compile on first use (numba's cache on: ``__pycache__`` beside the code, or numba's user
cache directory where that is read-only).
"""
