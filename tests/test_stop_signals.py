"""A stop signal while a command's libraries load is noted and raised once the import is over: raised
inside an import that runs Python from C++ (torch through pybind11), it would abort the process."""

from __future__ import annotations

import os
import signal

import pytest

from gin3_env.signals import Interrupted, stop_signals_after


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_inside_is_raised_only_on_leaving(sig: signal.Signals) -> None:
    before = signal.getsignal(sig)
    ran_on = False
    with pytest.raises(Interrupted) as stopped, stop_signals_after():
        os.kill(os.getpid(), sig)
        for _ in range(1000):  # Python runs the handler between bytecodes: here, not raised
            pass
        ran_on = True
    assert ran_on
    assert stopped.value.signum == sig and stopped.value.exit_code == 128 + sig
    assert signal.getsignal(sig) is before


def test_no_signal_nothing_raised() -> None:
    with stop_signals_after():
        pass
