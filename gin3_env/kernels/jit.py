"""numba's ``njit`` for the compiled core, cached on disk where a cache can be written.

The kernels are compiled with ``cache=True``: numba keeps the machine code in a
``__pycache__`` beside the source, or in its user cache folder (``NUMBA_CACHE_DIR``
if set). Where no such place is writable (a read-only install, a locked-down home),
numba refuses the decorator itself (``RuntimeError: cannot cache function ...: no
locator available``) and the package could not be imported. :func:`njit` then
compiles the kernel without the cache instead, and says so once
(:class:`UncachedKernelsWarning`): the batched core works, and compiles again at
each start.

numba checks a cached kernel against its own source file only: the constants it compiled in
from other modules (the observation layout, the state columns, the rules fields) and the
kernels of other files it calls are not part of that check. :func:`njit` therefore adds the
stamps of the source files below and beside the kernels (:data:`STAMPED`) to each kernel's
cache stamp, so that changing a table recompiles every kernel instead of running a stale one.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba

__all__ = ["UncachedKernelsWarning", "njit"]

_warned = False
_PACKAGE = Path(__file__).resolve().parent.parent
STAMPED = ("engine", "observation", "kernels")  # the parts whose constants and kernels are compiled in


@functools.cache
def sources_stamp() -> tuple[tuple[str, int, int], ...]:
    """(path, mtime in ns, size) of every source file of the :data:`STAMPED` parts."""
    files = sorted(path for part in STAMPED for path in (_PACKAGE / part).glob("*.py"))
    return tuple((str(path.relative_to(_PACKAGE)), path.stat().st_mtime_ns, path.stat().st_size) for path in files)


def _stamp_cache(dispatcher: Any) -> Any:
    """Fold :func:`sources_stamp` into the stamp numba keeps beside the dispatcher's cached code."""
    cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
    if cache_file is not None and hasattr(cache_file, "_source_stamp"):
        cache_file._source_stamp = (cache_file._source_stamp, sources_stamp())
    return dispatcher


class UncachedKernelsWarning(RuntimeWarning):
    """No writable numba cache location: the kernels are compiled at each start."""


def njit(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``numba.njit(**options)``; with ``cache=True`` and no writable cache location, uncached."""

    def decorate(func: Callable[..., Any]) -> Any:
        if options.get("cache"):
            try:
                return _stamp_cache(numba.njit(**options)(func))
            except RuntimeError as exc:
                if "no locator available" not in str(exc):
                    raise
                _warn_once(exc)
        return numba.njit(**{**options, "cache": False})(func)

    return decorate


def _warn_once(exc: RuntimeError) -> None:
    global _warned
    if _warned:
        return
    _warned = True
    warnings.warn(
        f"numba has no writable cache location ({exc}); the batched core runs uncached and compiles again at "
        "each start (set NUMBA_CACHE_DIR to a writable folder to cache it)",
        UncachedKernelsWarning,
        stacklevel=4,
    )
