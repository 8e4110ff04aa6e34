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


STALE = """
import sys
import gin3_env.kernels.jit as jit
if sys.argv[1] == "changed":  # as if a table in another file (say the observation layout) had been edited
    stamp = jit.sources_stamp()
    jit.sources_stamp = lambda: (*stamp, ("observation/layout.py", 1, 1))
from gin3_env.kernels.meld_kernels import popcount
assert popcount(0b1011) == 3
print(sum(popcount.stats.cache_hits.values()), sum(popcount.stats.cache_misses.values()))
"""


def test_a_cached_kernel_is_compiled_again_when_a_table_it_reads_changes(tmp_path) -> None:
    """numba checks a kernel's cache against the kernel's own file only; the package adds the stamps
    of the engine, observation and kernel sources, whose constants the kernels compile in."""
    import os

    from gin3_env.kernels import jit

    assert {"observation/layout.py", "engine/rules.py", "kernels/hand_kernels.py"} <= {
        path for path, _, _ in jit.sources_stamp()}
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}

    def run(mode: str) -> tuple[int, int]:
        done = subprocess.run([sys.executable, "-c", STALE, mode], capture_output=True, text=True, timeout=300,
                              env=env)
        assert done.returncode == 0, done.stderr[-3000:]
        hits, misses = done.stdout.split()
        return int(hits), int(misses)

    run("same")
    assert run("same") == (1, 0)  # the cache is used while nothing changed
    assert run("changed") == (0, 1)  # and refused once a table's file did


NOTE = """
from gin3_env.kernels.meld_kernels import popcount
assert popcount(0b1011) == 3
"""


def test_a_cold_compile_is_said_once_and_a_warm_start_says_nothing(tmp_path) -> None:
    """The first use on a fresh install compiles for tens of seconds: one line says so, on a terminal or not
    (a run logged to a file would start with a minute or two of silence); a start that loads the kernels
    from the cache is silent, and GIN3_COMPILE_NOTE=0 silences it."""
    import os

    def stderr(cache: str, note: str | None) -> str:
        env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / cache)}
        env.pop("GIN3_COMPILE_NOTE", None)
        if note is not None:
            env["GIN3_COMPILE_NOTE"] = note
        done = subprocess.run([sys.executable, "-c", NOTE], capture_output=True, text=True, timeout=300, env=env)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stderr

    cold = stderr("a", None)  # stderr is a pipe here, not a terminal
    assert cold.count("gin3: compiling the batched core (first run, about a minute") == 1, cold
    assert "compiling" not in stderr("a", None)  # warm: loaded from the cache
    assert "compiling" not in stderr("b", "0")  # cold, but silenced
