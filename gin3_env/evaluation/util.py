"""Shared helpers of the evaluation package: progress, and a command's run with its refusals.

(The ``Policy`` protocol and ``policy_name`` live in :mod:`gin3_env.game.policy`.)"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from ..signals import Interrupted, raise_on_stop_signals

T = TypeVar("T")
PROGRESS_EVERY = 10.0  # seconds between progress lines when stderr is not a terminal
PROGRESS_FIRST = 1.0  # seconds to the first line: soon enough to see that it plays, and how fast


def progress_bar(
    items: Iterable[T],
    enabled: bool,
    desc: str,
    total: int | None = None,
    every: float = PROGRESS_EVERY,
    first: float = PROGRESS_FIRST,
) -> Iterator[T]:
    """Yield ``items``, showing progress on stderr when ``enabled``.

    On a terminal: a tqdm bar (tqdm is in the ``train`` extra; without it, lines).
    Otherwise (a log file, a pipe, CI): a first line after ``first`` seconds, then one every
    ``every`` seconds, e.g. ``[deals, each played twice] 120 of 500 (24%), 31/s, about 12 s left``."""
    if not enabled:
        yield from items
        return
    if sys.stderr.isatty():
        try:
            from tqdm import tqdm
        except ImportError:
            pass
        else:
            yield from tqdm(items, desc=desc, total=total, leave=False)
            return
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    start = time.monotonic()
    due = start + min(first, every)
    for done, item in enumerate(items, start=1):
        yield item
        now = time.monotonic()
        if now >= due:
            due = now + every
            print(f"[{desc}] {progress_text(done, total, now - start)}", file=sys.stderr, flush=True)


def progress_text(done: int, total: int | None, seconds: float) -> str:
    """``120 of 500 (24%), 31/s, about 12 s left`` (the parts that are known)."""
    rate = done / seconds if seconds > 0 else 0.0
    if not total:
        return f"{done:,} done, {rate:,.1f}/s"
    text = f"{done:,} of {total:,} ({100 * done / total:.0f}%), {rate:,.1f}/s"
    if rate > 0:
        left = (total - done) / rate
        text += f", about {left:.0f} s left" if left < 120 else f", about {left / 60:.0f} min left"
    return text


def run_command(prog: str, work: Callable[[], T]) -> T | int:
    """``work()`` under the stop signals (Ctrl-C or kill: one line, exit 130/143), a refusal
    (``ValueError``, ``FileNotFoundError``, ``ImportError``) as one line ``PROG: error: ...`` and exit status 2:
    the result, or the exit status to return."""
    try:
        with raise_on_stop_signals():
            return work()
    except (ValueError, FileNotFoundError, ImportError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except Interrupted as exc:
        print(f"\n{prog}: {exc}; nothing was reported or written", file=sys.stderr)
        return exc.exit_code
