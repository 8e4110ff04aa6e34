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

A kernel called from another with a constant argument (``act_row(obs, mask, 0, ...)``) is compiled again for
that constant (numba types it ``Literal[int](0)``, a signature of its own), and so is everything it calls: the
gated player's kernels took twice their compile time that way. The callers pass ``np.int64(0)`` instead, an
``int64``, and a count that starts at a constant before it is passed on starts as ``np.int64(0)`` too (numba
can type it by its first value). ``tests/test_twins.py`` checks that no kernel passes a constant to another
(small helpers aside); a count bound to a constant first is not caught there.

The first use on a fresh install (or after an upgrade) compiles the kernels it needs, tens of seconds
that would otherwise pass in silence. A kernel of this package that numba compiles (a cache miss,
not a load from the cache) makes :class:`CompileNote` say so once per process on stderr,
"compiling the batched core (first run, about a minute)...", on a terminal or not: a run logged
to a file or a pipe would otherwise start with a minute or two of silence. :data:`NOTE_ENV` ``0``
silences it; later runs load the kernels from the cache and say nothing.
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
from numba.core import event as numba_event

__all__ = ["CompileNote", "UncachedKernelsWarning", "njit"]

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


NOTE_ENV = "GIN3_COMPILE_NOTE"  # "0": never say when the kernels compile (by default: once, on a terminal or not)
# the cold compile of the kernels a command needs, measured on the 2-core development machine: 19 to 59 s
COMPILE_NOTE_TEXT = ("gin3: compiling the batched core (first run, about a minute; later runs load it from numba's "
                     "cache)...")


class CompileNote(numba_event.Listener):
    """Says once per process, on stderr, that numba compiles this package's kernels (see the module doc)."""

    def __init__(self) -> None:
        self.said = False

    def on_start(self, event: Any) -> None:
        if self.said:
            return
        dispatcher = (event.data or {}).get("dispatcher")
        module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
        if not module.startswith(__package__ or "gin3_env"):
            return
        if os.environ.get(NOTE_ENV) == "0" or sys.stderr is None:
            return
        self.said = True
        print(COMPILE_NOTE_TEXT, file=sys.stderr, flush=True)

    def on_end(self, event: Any) -> None:
        pass


COMPILE_NOTE = CompileNote()
numba_event.register("numba:compile", COMPILE_NOTE)
