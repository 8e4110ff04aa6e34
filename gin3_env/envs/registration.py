"""Environment ids for PettingZoo's and Gymnasium's registries.

``import gin3_env`` calls :func:`register_available` (both libraries, where installed), after which

- ``pettingzoo.make("aec", "gin3/three_handed_gin-v0")``: one hand (``aec_hand.env``);
- ``pettingzoo.make("aec", "gin3/three_handed_gin_match-v0")``: a match (``aec_match.env``);
- ``gymnasium.make("gin3/ThreeHandedGin-v0", ...)``: the single-agent hand env;
- ``gymnasium.make("gin3/ThreeHandedGinMatch-v0", ...)``: the single-agent match env;
- an id whose env lives above this layer (a research env of ``experiments/``, say) is added with
  :func:`add_gymnasium_env` before :func:`register_gymnasium` runs.

``gymnasium.make_vec("gin3/ThreeHandedGin-v0", num_envs, **kwargs)`` is the batched core
(``gin3_env.vector.gym_env.make_vec``, the id's ``vector_entry_point``; keywords pass
through, ``autoreset_mode`` NEXT_STEP by default as in Gymnasium's sync and async modes);
``vectorization_mode="sync"`` or ``"async"`` gives Gymnasium's vector envs of scalar envs
instead. The match id has no ``vector_entry_point``: the batched core plays hands, not
matches, so ``make_vec("gin3/ThreeHandedGinMatch-v0", n)`` is Gymnasium's
``SyncVectorEnv`` of ``n`` scalar match envs (its default where an id has none).
The vector entry point is a string that Gymnasium resolves only in ``make_vec``: nothing
here imports the batched core. The batched core stands above the envs, so this module does
not name it: the package facade hands it in with :func:`set_vector_entry_point` before it
registers the ids (as it hands the envs their policy loader).

``gymnasium.make("gin3_env:gin3/ThreeHandedGin-v0")`` works from a fresh
interpreter: Gymnasium imports the module named before the colon, i.e. this
package. (Gymnasium 1.x has no plugin hook: the ``gymnasium.envs`` entry-point
group that Gym 0.26 and Gymnasium 0.29 loaded on ``import gymnasium`` is gone,
so an installed package cannot register itself in a process that never
imports it.)

Worker processes. ``SubprocVecEnv`` (stable-baselines3) builds each env in a
worker with ``gym.make(env_id)``; with its default start method on Linux,
``forkserver``, the workers are forked from a server process that imports
nothing of the parent's, so ``"gin3/ThreeHandedGin-v0"`` would be unknown
there (``NamespaceNotFound``). :func:`preload_in_forkserver` (called by
:func:`register_all`) therefore adds ``gin3_env`` to the modules the
forkserver imports when it starts, so its workers know the ids too. Where the
forkserver was already started before ``import gin3_env``, or with the
``spawn`` start method (the only one on Windows, the default on macOS), use
the prefixed id ``"gin3_env:gin3/ThreeHandedGin-v0"``, which works in any
process. PettingZoo 1.27 keeps its own registry (``pettingzoo.aec_registry``,
filled by ``pettingzoo.register``), which ``pettingzoo.make`` reads; PettingZoo 1.24 to 1.26
have no registry (and no ``pettingzoo.make``), so there the AEC envs are only
``gin3_env.env()`` and ``gin3_env.match_env()``.

Entry points are ``"module:attr"`` strings, so registering imports nothing of
the envs. Registering is idempotent: an id already registered with the same
entry point is left alone (no "overriding" warning on a second import or an
``importlib.reload``); one registered with another entry point (someone else's
env, or one a user registered on purpose) is also left alone, with a warning.
"""

from __future__ import annotations

import multiprocessing
import warnings
from typing import Any

PETTINGZOO_ENVS: dict[str, str] = {
    "gin3/three_handed_gin-v0": "gin3_env.envs.aec_hand:env",
    "gin3/three_handed_gin_match-v0": "gin3_env.envs.aec_match:env",
}
GYMNASIUM_ENVS: dict[str, str] = {
    "gin3/ThreeHandedGin-v0": "gin3_env.envs.single_agent:ThreeHandedGinEnv",
    "gin3/ThreeHandedGinMatch-v0": "gin3_env.envs.single_agent_match:ThreeHandedGinMatchEnv",
}
# id -> the "module:attr" of its vector entry point, set from above by set_vector_entry_point
GYMNASIUM_VECTOR_ENVS: dict[str, str] = {}

__all__ = [
    "GYMNASIUM_ENVS",
    "GYMNASIUM_VECTOR_ENVS",
    "PETTINGZOO_ENVS",
    "VectorKwargsForwarded",
    "add_gymnasium_env",
    "preload_in_forkserver",
    "register_all",
    "register_available",
    "register_gymnasium",
    "register_pettingzoo",
    "set_vector_entry_point",
]
PACKAGE = "gin3_env"


def _keep(env_id: str, registered: object, entry_point: str) -> bool:
    """Whether to keep an existing registration of ``env_id`` (always; warn if it is not ours)."""
    if registered != entry_point:
        warnings.warn(
            f"environment id {env_id!r} is already registered with entry point {registered!r}; "
            f"gin3_env leaves it (its own is {entry_point!r})",
            stacklevel=3,
        )
    return True


def add_gymnasium_env(env_id: str, entry_point: str) -> None:
    """Add an id whose env lives above this layer (the package facade hands it in, as it hands
    in the vector entry points), registered by :func:`register_gymnasium`."""
    GYMNASIUM_ENVS.setdefault(env_id, entry_point)


def set_vector_entry_point(env_id: str, entry_point: str) -> None:
    """Give a Gymnasium id the ``vector_entry_point`` that :func:`register_gymnasium` registers
    (``"module:attr"``, resolved by Gymnasium only in ``make_vec``)."""
    if env_id not in GYMNASIUM_ENVS:
        raise ValueError(f"unknown Gymnasium id {env_id!r}; the ids are {', '.join(GYMNASIUM_ENVS)}")
    GYMNASIUM_VECTOR_ENVS[env_id] = entry_point


def register_pettingzoo() -> None:
    """Register the AEC envs in PettingZoo's registry (idempotent), where the installed PettingZoo
    has one (1.27 on: ``pettingzoo.aec_registry``); 1.24 to 1.26 have none, and nothing to do."""
    import pettingzoo

    if not hasattr(pettingzoo, "aec_registry"):
        return
    for env_id, entry_point in PETTINGZOO_ENVS.items():
        spec = pettingzoo.aec_registry.get(env_id)
        if spec is not None and _keep(env_id, spec.entry_point, entry_point):
            continue
        pettingzoo.register("aec", env_id, entry_point=entry_point)


ENTRY_POINT_MODES = (None, "vector_entry_point")  # make_vec's modes that build the vector entry point


class VectorKwargsForwarded(dict[str, Any]):
    """The (empty) ``kwargs`` of an id's spec that has a vector entry point, so that
    ``gymnasium.make_vec(id, n, vector_kwargs={"autoreset_mode": ...})``, the spelling Gymnasium
    documents for its own vector envs, works as the plain keyword does.

    Gymnasium refuses ``vector_kwargs`` for a vector entry point ("can be passed arguments only
    through kwargs"). ``make_vec`` first pops ``vectorization_mode`` and then ``vector_kwargs``
    from (a copy of) the spec's kwargs, their arguments as defaults: where the mode is that of
    the entry point, the ``vector_kwargs`` are moved into the kwargs, which the entry point
    receives. In ``"sync"``/``"async"`` mode they go to Gymnasium's vector env as before.
    ``tests/test_make_vec.py`` holds both spellings to the same env."""

    _mode: Any = None

    def pop(self, key: Any, *default: Any) -> Any:
        value = super().pop(key, *default)
        if key == "vectorization_mode":
            self._mode = getattr(value, "value", value)
        elif key == "vector_kwargs" and isinstance(value, dict) and value and self._mode in ENTRY_POINT_MODES:
            self.update(value)
            return {}
        return value


def register_gymnasium() -> None:
    """Register the single-agent envs in Gymnasium's registry (idempotent)."""
    import gymnasium

    for env_id, entry_point in GYMNASIUM_ENVS.items():
        spec = gymnasium.registry.get(env_id)
        if spec is not None and _keep(env_id, spec.entry_point, entry_point):
            continue
        vector_entry_point = GYMNASIUM_VECTOR_ENVS.get(env_id)
        gymnasium.register(
            id=env_id,
            entry_point=entry_point,
            vector_entry_point=vector_entry_point,
            kwargs=VectorKwargsForwarded() if vector_entry_point else None,
        )


def preload_in_forkserver() -> None:
    """Have the ``forkserver`` start method's server import ``gin3_env`` (idempotent).

    Its workers (``SubprocVecEnv``'s default on Linux) then find the registered
    ids. The modules already listed (``__main__`` by default, or the user's own
    ``set_forkserver_preload`` list) are kept, ``gin3_env`` is appended. A
    forkserver that is already running is not changed; no forkserver is started."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return
    from multiprocessing import forkserver

    current = list(getattr(forkserver._forkserver, "_preload_modules", None) or ["__main__"])
    if PACKAGE not in current:
        forkserver.set_forkserver_preload([*current, PACKAGE])


def register_all() -> None:
    """Register every id with both libraries."""
    register_pettingzoo()
    register_gymnasium()
    preload_in_forkserver()


def register_available() -> None:
    """Register the ids with each of the two libraries that is installed (what ``import
    gin3_env`` does): without PettingZoo or Gymnasium the engine still imports."""
    for register in (register_pettingzoo, register_gymnasium):
        try:
            register()
        except ModuleNotFoundError as exc:
            if exc.name not in ("pettingzoo", "gymnasium"):
                raise
    preload_in_forkserver()
