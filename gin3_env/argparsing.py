"""An ``argparse.ArgumentParser`` whose usage errors are one line, not a usage block, that takes no
abbreviation of a flag, and that names the closest flag to one it does not know.

``gin3 train`` has some forty flags: argparse's default answer to a bad one
prints the whole usage (17 lines) above the message. Here the message comes
alone, with the subcommand's name and a pointer to ``--help``; exit status 2
as argparse's. A flag is taken only as spelled in full (``allow_abbrev=False``:
``--hand 3`` is not ``--hands 3``), and an unknown one gets a did-you-mean, as
the env keywords do (``--totl-timesteps``: did you mean ``--total-timesteps``?).
"""

from __future__ import annotations

import argparse
import difflib
import sys
from typing import Any, NoReturn

_UNRECOGNIZED = "unrecognized arguments: "


class OneLineErrorParser(argparse.ArgumentParser):
    """``error()`` prints ``PROG: error: MESSAGE (see PROG --help)`` and exits with status 2; flags are
    never abbreviated, and an unknown flag is named with the closest known one."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        if message.startswith(_UNRECOGNIZED):
            message += self.suggestions(message[len(_UNRECOGNIZED):].split())
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def suggestions(self, words: list[str]) -> str:
        """``"; did you mean --x?"`` for each unknown flag among ``words`` that is close to a known one."""
        flags = set(self._option_string_actions)
        for action in self._actions:  # a subcommand's unknown flags come back to the parser above it
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    flags.update(sub._option_string_actions)
        known = sorted(flags)
        hints = []
        for word in words:
            flag = word.split("=", 1)[0]
            if not flag.startswith("-"):
                continue
            close = difflib.get_close_matches(flag, known, n=1, cutoff=0.6)
            if close:
                hints.append(f"{flag}: did you mean {close[0]}?")
        return "".join(f"; {hint}" for hint in hints)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            sys.stderr.write(message)
        raise SystemExit(status)
