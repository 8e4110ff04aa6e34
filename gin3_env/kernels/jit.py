"""numba's ``njit`` for the compiled core, cached on disk where a cache can be written.

The kernels are compiled with ``cache=True``: numba keeps the machine code in a
``__pycache__`` beside the source, or in its user cache folder (``NUMBA_CACHE_DIR``
if set). Where no such place is writable (a read-only install, a locked-down home),
numba refuses the decorator itself (``RuntimeError: cannot cache function ...: no
locator available``) and the package could not be imported. :func:`njit` then
compiles the kernel without the cache instead, and says so once
(:class:`UncachedKernelsWarning`): the batched core works, and compiles again at
each start.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numba

__all__ = ["UncachedKernelsWarning", "njit"]

_warned = False


class UncachedKernelsWarning(RuntimeWarning):
    """No writable numba cache location: the kernels are compiled at each start."""


def njit(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``numba.njit(**options)``; with ``cache=True`` and no writable cache location, uncached."""

    def decorate(func: Callable[..., Any]) -> Any:
        if options.get("cache"):
            try:
                return numba.njit(**options)(func)
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
