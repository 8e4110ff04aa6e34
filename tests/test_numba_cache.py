"""Without a writable numba cache location the batched core still imports and runs: uncached,
with one warning."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import warnings
from numba.core import caching
caching.CacheImpl._locator_classes = []  # as where no cache folder is writable
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import gin3_env.vector
    from gin3_env.kernels.meld_kernels import popcount
    from gin3_env.kernels.jit import UncachedKernelsWarning
ours = [w for w in caught if issubclass(w.category, UncachedKernelsWarning)]
print(len(ours), popcount(0b1011), popcount._cache.__class__.__name__)
print(ours[0].message)
"""


def test_the_batched_core_runs_uncached_with_one_warning() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    count, value, cache = done.stdout.splitlines()[0].split()
    assert (count, value, cache) == ("1", "3", "NullCache")
    assert "no writable cache location" in done.stdout and "NUMBA_CACHE_DIR" in done.stdout
