"""Stop signals (SIGINT, SIGTERM) as an exception, with the shell's exit-code convention.

A command that only computes (``gin3 evaluate``) stops at once on Ctrl-C or
``kill``: :func:`raise_on_stop_signals` turns both signals into
:class:`Interrupted` (a ``KeyboardInterrupt``), which the command line catches
to print one line and exit with ``128 + signal`` (130 for SIGINT, 143 for
SIGTERM), as a shell reports a process killed by that signal. ``gin3 train``
stops more gently (a checkpoint first): :mod:`gin3_training.run.signals`;
``gin3 train-gate`` with :class:`StopRequest`: the first signal says so in one line
and asks the work to stop at its next check (seconds away), keeping what is done; a
second one stops at once.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TextIO

STOP_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM)


def signal_name(signum: int) -> str:
    """``"SIGINT"`` for 2, and so on."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def exit_code(signum: int) -> int:
    """The exit status of a run stopped by ``signum``: 128 + its number (130 SIGINT, 143 SIGTERM)."""
    return 128 + int(signum)


class Interrupted(KeyboardInterrupt):
    """A stop signal arrived; ``signum`` says which, ``exit_code`` what to exit with."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by {signal_name(signum)}")
        self.signum = int(signum)

    @property
    def exit_code(self) -> int:
        return exit_code(self.signum)


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(signum)


@contextmanager
def _handled_by(handler: Callable[[int, FrameType | None], None]) -> Iterator[None]:
    """While inside, ``handler`` takes SIGINT and SIGTERM; the old handlers come back after. Outside the main
    thread (where Python cannot set handlers) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


@contextmanager
def raise_on_stop_signals() -> Iterator[None]:
    """While inside, SIGINT and SIGTERM raise :class:`Interrupted`; the old handlers come back after.

    Outside the main thread (where Python cannot set handlers) nothing changes."""
    with _handled_by(_raise):
        yield


@contextmanager
def stop_signals_after() -> Iterator[None]:
    """While inside, SIGINT and SIGTERM are noted, not raised; on leaving, the first one noted raises
    :class:`Interrupted`. For loading libraries whose imports run Python from C++ (torch): an exception a
    handler raises there unwinds through pybind11, which aborts the process instead of stopping it.

    Outside the main thread nothing changes."""
    noted: list[int] = []
    with _handled_by(lambda signum, frame: noted.append(signum)):
        yield
    if noted:
        raise Interrupted(noted[0])


class StopRequest:
    """While inside (a context manager): the first SIGINT or SIGTERM prints one line on ``stream`` and sets
    the request (``stop()`` is then true: the work stops at its next check, keeping what is done); a
    second one raises :class:`Interrupted` (stop now). Outside the main thread nothing is installed."""

    def __init__(self, command: str, what: str = "the work in progress", stream: TextIO | None = None) -> None:
        self.command = command
        self.what = what
        self.stream = stream
        self.signum: int | None = None
        self._previous: dict[int, object] = {}

    def __call__(self) -> bool:
        return self.signum is not None

    def __enter__(self) -> StopRequest:
        if threading.current_thread() is threading.main_thread():
            self._previous = {sig: signal.signal(sig, self._handle) for sig in STOP_SIGNALS}
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)  # type: ignore[arg-type]
        self._previous = {}

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.signum is not None:
            raise Interrupted(signum)
        self.signum = signum
        name = signal_name(signum)
        print(f"\n{self.command}: {name}: stopping within seconds, keeping {self.what}; {name} again stops now",
              file=self.stream or sys.stderr, flush=True)
